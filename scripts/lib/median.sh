# shellcheck shell=bash
# median N...: the median of its arguments (the mean of the middle two for
# an even count), for the disk experiments (disk-wakeups.sh, disk-pages.sh).
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
