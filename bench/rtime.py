#!/usr/bin/python3
# bench/rtime.py -f FORMAT -o FILE CMD [ARG...]
# /usr/bin/time's -f/-o for the benches, to the microsecond: GNU time prints
# seconds with two decimals, a 10 ms step that moves the ratios of 40-100 ms
# commands (seek, decode in parts) by 10-25%.  FORMAT takes %e (wall seconds),
# %U and %S (user and system CPU seconds, the child's rusage, to the
# microsecond) and %M (peak RSS, KiB); the
# child's stdin, stdout and stderr are the caller's.  Exit status: the
# child's (128 + N when signal N killed it), 127 when it cannot start.
import os
import resource
import subprocess
import sys
import time


def main(argv):
    fmt, out, k = '%e %U %S %M', None, 1
    while k < len(argv) and argv[k] in ('-f', '-o') and k + 1 < len(argv):
        if argv[k] == '-f':
            fmt = argv[k + 1]
        else:
            out = argv[k + 1]
        k += 2
    cmd = argv[k:]
    if not cmd:
        sys.stderr.write('usage: rtime.py [-f FORMAT] [-o FILE] CMD [ARG...]\n')
        return 2
    t0 = time.perf_counter()
    try:
        p = subprocess.Popen(cmd, close_fds=False)
    except OSError as e:
        sys.stderr.write('rtime.py: %s: %s\n' % (cmd[0], e.strerror))
        return 127
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    text = fmt
    for key, val in (('%e', '%.6f' % wall), ('%U', '%.6f' % ru.ru_utime), ('%S', '%.6f' % ru.ru_stime),
                     ('%M', '%d' % ru.ru_maxrss)):
        text = text.replace(key, val)
    if out:
        with open(out, 'w') as f:
            f.write(text + '\n')
    else:
        sys.stderr.write(text + '\n')
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
