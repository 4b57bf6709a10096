#!/bin/bash
# Resident memory stays flat whatever the trace size, in both page cache
# states a trace is met in: as its writer left it, and read back from disk
# (on kernels with large folios, the page cache then holds it in 2 MiB
# folios, and each fault maps 2 MiB).  A 64 MiB CTF trace of padded 2 MiB
# packets (tests/api/mk-big-ctf.py) against the same trace of one packet:
# the peak RSS of each command may grow by less than 24 MiB.  Before the
# index gave back the pages of the packet headers as it read them (rather
# than at its end), `info` kept the whole file mapped; reading in parts
# kept some 90 MiB.  And a cold `info` or `--begin` reads the packet
# headers from the disk, not the whole file: with the read-ahead window of
# some machines (8 MiB here), each header's fault read a window's worth.
. "$(dirname "$0")/../lib.sh"

python3 "$TIO_TOP/tests/api/mk-big-ctf.py" "$TMP/big" 32 &&
	python3 "$TIO_TOP/tests/api/mk-big-ctf.py" "$TMP/one" 1 &&
	python3 "$TIO_TOP/tests/api/mk-big-ctf.py" "$TMP/full" 32 full || {
	notok rss "cannot write the traces"
	exit 0
}

# Under AddressSanitizer the peak RSS may also count the shadow memory of the
# mapped trace: on some machines (2026-11-30, kernel 6.18) an eighth of each
# mapping is resident (/proc/PID/smaps: 33 MiB in the shadow for a 256 MiB
# trace read on one thread; a 64 MiB trace's check in 2 parts 25-28 MiB over
# the one packet's, the same before and after that day's changes), and on
# others none.  The normal build checks the library's memory; the sanitized
# one only the page cache reads.
asan=0
is_sanitized && asan=1
python3 - "$TIO" "$TMP/big" "$TMP/one" "$TMP/full" "$asan" <<'PYEOF'
import os, subprocess, sys

tio, big, one, full = sys.argv[1:5]
asan = sys.argv[5] == "1"
LIMIT = 24  # MiB


def peak(trace, args, threads):
    """Peak RSS (MiB) and exit status of `traceio ARGS TRACE`."""
    env = dict(os.environ)
    if threads:
        env["TIO_THREADS"] = threads
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execve(tio, [tio] + args + [trace], env)
    _, status, ru = os.wait4(pid, 0)
    return ru.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def read_back(d):
    """Drop the files from the page cache, then read them as from disk."""
    for n in os.listdir(d):
        fd = os.open(os.path.join(d, n), os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        while os.read(fd, 1 << 20):
            pass
        os.close(fd)


cmds = [
    (["info"], None),
    (["info", "--count"], "2"),
    (["check"], "2"),
    (["print", "-o", "dummy"], "2"),
    (["print", "-o", "dummy"], "1"),
    (["print", "--begin", "1.000031", "-o", "dummy"], None),
]
def cached(d):
    """Bytes of the files of d in the page cache (fincore, util-linux), or None."""
    try:
        out = subprocess.run(["fincore", "--bytes", "--noheadings", "--raw", "--output", "RES"]
                             + [os.path.join(d, n) for n in os.listdir(d)],
                             capture_output=True, text=True, check=True).stdout
        return sum(int(x) for x in out.split())
    except (OSError, subprocess.CalledProcessError, ValueError):
        return None


def evict(d):
    for n in os.listdir(d):
        fd = os.open(os.path.join(d, n), os.O_RDONLY)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)


# A cold index reads the headers, not the file: its sparse reads must not
# pull in the read-ahead window (8 MiB on some machines: every packet's).
# (Packets full of events: the padding of a packet is read, to check that
# no packet begins there.)
for args in (["info"], ["print", "--begin", "1.000031", "-o", "dummy"]):
    name = "cold-cache %s" % "-".join(a.strip("-") for a in args[:2])
    evict(full)
    before = cached(full)
    _, rc = peak(full, args, None)
    after = cached(full)
    if before is None or after is None:
        print("ok %s # SKIP no fincore" % name)
    elif rc != 0:
        print("not ok %s\nexit status %d" % (name, rc))
    elif after - before >= 16 << 20:
        print("not ok %s\n%.1f MiB of the 64 MiB trace read into the page cache" % (name, (after - before) / 2**20))
    else:
        print("ok %s (%.1f MiB read)" % (name, (after - before) / 2**20))

for state in ("as written", "read back"):
    if state == "read back":
        read_back(big)
        read_back(one)
    for args, threads in cmds:
        name = "rss %s %s%s" % (state.replace(" ", "-"), "-".join(a.strip("-") for a in args[:2]),
                                 "-T" + threads if threads else "")
        b, rb = peak(big, args, threads)
        o, ro = peak(one, args, threads)
        if rb != 0 or ro != 0:
            print("not ok %s\nexit status %d (64 MiB trace), %d (one packet)" % (name, rb, ro))
        elif asan:
            print("ok %s # SKIP sanitizer build: its shadow memory of the mapped trace counts (%.1f MiB, %.1f on one packet)"
                  % (name, b, o))
        elif b - o >= LIMIT:
            print("not ok %s\npeak RSS %.1f MiB on the 64 MiB trace, %.1f on one packet: %.1f MiB more"
                  % (name, b, o, b - o))
        else:
            print("ok %s (%.1f MiB, %.1f on one packet)" % (name, b, o))
PYEOF
