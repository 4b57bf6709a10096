#!/usr/bin/python3
"""Compare builds of traceio on one command, alternated run by run.

Usage: bench/ab.py [-n RUNS] BUILD_DIR[,BUILD_DIR...] ARGS...

Each BUILD_DIR's traceio and libtraceio.so* are copied into a fresh
temporary directory first (on this VM two copies of one binary can differ
by 10% with where the kernel put their pages; a fresh copy of each build
compares like with like), then the builds run ARGS in turn, RUNS times
(default 5), so that the machine's drift over minutes hits them all alike.
"{out}" in ARGS is a scratch output path, removed before each run.
Prints each build's least and median CPU time (user + sys, of the process
and its threads) and the least against the first build's.

Example: bench/ab.py build-old,build convert -q --to parquet -o {out} TRACE
Environment variables (TIO_THREADS, TIO_PQ_THREADS...) pass through.
"""
import glob
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    args = sys.argv[1:]
    runs = 5
    if len(args) >= 2 and args[0] == "-n":
        runs, args = int(args[1]), args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    builds, cmd = args[0].split(","), args[1:]
    work = tempfile.mkdtemp(prefix="tio-ab.")
    try:
        dirs = []
        for k, b in enumerate(builds):
            d = os.path.join(work, str(k))
            os.mkdir(d)
            for f in [os.path.join(b, "traceio")] + glob.glob(os.path.join(b, "libtraceio.so*")):
                shutil.copy2(f, d, follow_symlinks=False)  # links stay links
            dirs.append(d)
        out = os.path.join(work, "out")
        cpu = {d: [] for d in dirs}
        wall = {d: [] for d in dirs}
        for _ in range(runs):
            for d in dirs:
                shutil.rmtree(out, ignore_errors=True)
                if os.path.exists(out):
                    os.remove(out)
                env = dict(os.environ, LD_LIBRARY_PATH=d)
                r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
                subprocess.run([os.path.join(d, "traceio")] + [a.replace("{out}", out) for a in cmd],
                               env=env, stdout=subprocess.DEVNULL, check=True)
                t1, r1 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[d].append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
                wall[d].append(t1 - t0)
        base = min(cpu[dirs[0]])
        for b, d in zip(builds, dirs):
            print(f"{b:24} CPU least {min(cpu[d]):.3f} s, median {statistics.median(cpu[d]):.3f} s"
                  f"  wall least {min(wall[d]):.3f} s, median {statistics.median(wall[d]):.3f} s"
                  f"  ({min(cpu[d]) / base:.3f}x)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
