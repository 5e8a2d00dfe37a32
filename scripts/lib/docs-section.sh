# shellcheck shell=bash
# Sourced by the benchmark scripts that record their latest run in
# docs/benchmarks.md. The file holds one run per benchmark, not a log
# (earlier runs are in its git history), so a script replaces its own block:
# the lines between `<!-- NAME:start -->` and `<!-- NAME:end -->`.
#
#   docs_replace_section FILE NAME <<EOF
#   ...the new block...
#   EOF
#
# Where FILE has no such block the new one is appended at the end, between
# new markers, for a person to move under its heading. A start marker
# without an end marker is an error and leaves FILE as it was.
docs_replace_section() {
  local file=$1 name=$2 new tmp status=0
  new=$(mktemp)
  tmp=$(mktemp)
  cat >"$new"
  awk -v start="<!-- $name:start -->" -v end="<!-- $name:end -->" -v new="$new" '
    $0 == start {
      print
      while ((getline line < new) > 0) print line
      skipping = 1; found = 1; next
    }
    $0 == end && skipping { skipping = 0 }
    !skipping { print }
    END { if (skipping) exit 4; if (!found) exit 3 }' "$file" >"$tmp" || status=$?
  case $status in
    0) cat "$tmp" >"$file" ;;
    3) { echo; echo "<!-- $name:start -->"; cat "$new"; echo "<!-- $name:end -->"; } >>"$file" ;;
    *) echo "$file: <!-- $name:start --> has no <!-- $name:end -->; not changed" >&2 ;;
  esac
  rm -f "$new" "$tmp"
  if [ "$status" -eq 0 ] || [ "$status" -eq 3 ]; then
    echo "updated the $name block of $file" >&2
  else
    return 1
  fi
}
