# shellcheck shell=bash
# hugetlb pages for fio's `iomem=shmhuge` buffers, for the disk benchmarks
# (bench-disk.sh, disk-pages.sh): reserve_hugepages N adds N pages to
# vm.nr_hugepages (as root, or through sudo) and fails unless the kernel
# allocated them and N are free; release_hugepages gives back what
# reserve_hugepages added. Call release_hugepages from the script's EXIT trap.

hugepages_sysctl=/proc/sys/vm/nr_hugepages
hugepages_before=

set_hugepages() {
  if [ -w "$hugepages_sysctl" ]; then
    echo "$1" >"$hugepages_sysctl"
  else
    echo "$1" | sudo tee "$hugepages_sysctl" >/dev/null
  fi
}

reserve_hugepages() {
  local want=$1 now free
  hugepages_before=$(cat "$hugepages_sysctl")
  set_hugepages $((hugepages_before + want)) || return 1
  # The kernel allocates fewer pages than asked when memory is fragmented,
  # and says so only in the value it reports back.
  now=$(cat "$hugepages_sysctl")
  free=$(awk '/^HugePages_Free/ { print $2 }' /proc/meminfo)
  if [ "$now" -lt $((hugepages_before + want)) ] || [ "$free" -lt "$want" ]; then
    echo "could not reserve $want hugetlb pages for fio's buffers (vm.nr_hugepages $now, asked for $((hugepages_before + want)); HugePages_Free $free in /proc/meminfo)" >&2
    return 1
  fi
}

release_hugepages() {
  if [ -n "$hugepages_before" ]; then
    set_hugepages "$hugepages_before"
    hugepages_before=
  fi
}
