"""Paths for the tests: the repository, ../shared (peer data), the build dir.

Run through tests/python/test-python.sh (make check), or by hand:
    PYTHONPATH=build/python /usr/bin/python3 -m pytest python/tests
"""
import os
import sys

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("TIO_SHARED") or os.path.join(os.path.dirname(TOP), "shared")
PEER = os.path.join(SHARED, "peer-data")
DATA = os.path.join(TOP, "tests", "data")
BT_SUITE = os.path.join(PEER, "ctf", "babeltrace-2.1", "ctf-traces", "1")
TRACEDAT = os.path.join(PEER, "tracedat", "samples")
EXPECT_TC = os.path.join(PEER, "tracedat", "expected-trace-cmd-3.1.6")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def need(path):
    if not os.path.exists(path):
        pytest.skip("no " + path)
    return path
