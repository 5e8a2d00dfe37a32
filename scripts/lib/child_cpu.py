"""Runs one command, its standard output to FILE, and prints the user +
system CPU seconds that command's process took (and its children's, once
reaped), read from wait4 for that process alone.

    python3 scripts/lib/child_cpu.py FILE COMMAND [ARG...]

Why not subprocess.run, then getrusage(RUSAGE_CHILDREN): on this project's
VMs (Python 3.11) that reported about 50 ms for a run of `true`, where wait4
reports under 1 ms, which made a 1.5 s official CoreMark run look 3-7 %
slower per CPU-second than its own timer said. Where the extra time comes
from was not found; posix_spawn then wait4 reads the one process's own
figure, which matched the program's timer within 0.3 %.
"""

import os
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: child_cpu.py FILE COMMAND [ARG...]", file=sys.stderr)
        return 2
    out = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, out, 1)])
    os.close(out)
    _, status, usage = os.wait4(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print(f"child_cpu.py: {sys.argv[2]} ended with status {code}", file=sys.stderr)
        return 1
    print("%.6f" % (usage.ru_utime + usage.ru_stime))
    return 0


if __name__ == "__main__":
    sys.exit(main())
