# shellcheck shell=bash
# abba ROUNDS STEP: ROUNDS rounds of A, B, B, A, calling `STEP SIDE N` for
# each run in that order (N counts the runs from 1), for the scripts that
# compare two sides interleaved (bench-check.sh, bench-serve.sh): each side
# runs first as often as second, so a machine that slows down or speeds up
# during the runs favours neither.
abba() {
  local rounds=$1 step=$2 n=0 side
  for _ in $(seq "$rounds"); do
    for side in A B B A; do
      n=$((n + 1))
      "$step" "$side" "$n"
    done
  done
}
