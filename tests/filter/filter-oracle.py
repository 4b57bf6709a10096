#!/usr/bin/python3
"""The events that the -F filters of tests/filter/test-filter.sh keep in a
CTF trace, computed independently of traceio: babeltrace2's Python bindings
(bt2) read the trace, and each case's Python predicate (written by hand from
the filter's meaning) decides.  Prints "CASE ns event_name" lines, sorted.

usage: filter-oracle.py TRACE_DIR CASE...
"""
import re
import sys

import bt2

U64 = (1 << 64) - 1


def u(v):
    """trace-cmd's integer view: 64-bit unsigned, negative values wrapped."""
    return int(v) & U64


def field(ev, name):
    """A value by name: payload first, then the contexts (traceio's order); None if absent."""
    e = ev.event
    for scope in (e.payload_field, e.specific_context_field, e.common_context_field,
                  e.packet.context_field if e.packet else None):
        if scope is not None and name in scope:
            return scope[name]
    return None


def has(ev, *names):
    return all(field(ev, n) is not None for n in names)


def name(ev):
    return ev.event.name


def cpu(ev):
    c = field(ev, "cpu_id")
    return None if c is None else int(c)


# case id -> predicate over a bt2 event message (the filter text is in test-filter.sh)
CASES = {
    # -F 'sched_switch: prev_tid != 0 && next_comm =~ "^kwork"'
    "k1": lambda m: name(m) == "sched_switch" and u(field(m, "prev_tid")) != 0
    and re.match("kwork", str(field(m, "next_comm")), re.I) is not None,
    # -F 'sched_switch: prev_state & 1' -F 'sched_wakeup: target_cpu == 2'
    "k2": lambda m: (name(m) == "sched_switch" and u(field(m, "prev_state")) & 1 != 0)
    or (name(m) == "sched_wakeup" and u(field(m, "target_cpu")) == 2),
    # -F 'sched_w.*: tid > 1000 || (prio < 20 && !(comm ~ "kworker*"))'
    "k3": lambda m: re.fullmatch("sched_w.*", name(m), re.I) is not None
    and (u(field(m, "tid")) > 1000
         or (u(field(m, "prio")) < 20 and not str(field(m, "comm")).startswith("kworker"))),
    # -F 'sched.*' -v -F 'sched_switch: next_tid <= 1000' -F 'sched_stat_runtime'
    "k4": lambda m: re.fullmatch("sched.*", name(m), re.I) is not None
    and not (name(m) == "sched_switch" and u(field(m, "next_tid")) <= 1000)
    and name(m) != "sched_stat_runtime",
    # -F '.*: CPU == 1 && bogus == 3 || prio >= 20' (same precedence, left to right)
    "k5": lambda m: (cpu(m) == 1 and False) or (has(m, "prio") and u(field(m, "prio")) >= 20),
    # -F '.*: !(bogus == 3) && CPU != 0'
    "k6": lambda m: cpu(m) != 0,
    # --cpu 1,3 -F 'sched_switch: prev_comm != "swapper/1"'
    "k7": lambda m: cpu(m) in (1, 3) and name(m) == "sched_switch"
    and str(field(m, "prev_comm")) != "swapper/1",
    # --pid 31407 (tid, next_tid...: the tid context is absent from this trace)
    "k8": lambda m: any(field(m, f) is not None and u(field(m, f)) == 31407
                        for f in ("pid", "tid", "vpid", "vtid", "next_tid")),
    # --comm lttng-consumerd (comm, next_comm)
    "k9": lambda m: any(field(m, f) is not None and str(field(m, f)) == "lttng-consumerd"
                        for f in ("procname", "comm", "next_comm")),
    # -F 'corpus:ints: s8 < 0 && u16 % 3' (s8 wraps: never below 0 as unsigned)
    "u1": lambda m: False,
    # -F 'corpus:ints: s32 >= 100000 || u8 ^ 7' -F 'corpus/strings: text16 == "t0-i16"'
    # (not `str`: babeltrace2 2.0.4 shows a stale value for an empty string)
    "u2": lambda m: (name(m) == "corpus:ints" and (u(field(m, "s32")) >= 100000 or (u(field(m, "u8")) ^ 7) != 0))
    or (name(m) == "corpus:strings" and str(field(m, "text16")) == "t0-i16"),
    # -F 'corpus:enums: state == 500 || flag != 0' -F 'strings: text16 ~ "t1-*"'
    "u3": lambda m: (name(m) == "corpus:enums" and (u(field(m, "state")) == 500 or u(field(m, "flag")) != 0))
    or (name(m) == "corpus:strings" and str(field(m, "text16")).startswith("t1-")),
    # -F 'corpus: CPU == 1 && s64 == -7046029254386353131' (a negative literal)
    "u4": lambda m: name(m).startswith("corpus:") and cpu(m) == 1 and field(m, "s64") is not None
    and int(field(m, "s64")) == -7046029254386353131,
    # 'corpus:.*' -v -F 'corpus:floats,corpus:empty'
    "u5": lambda m: name(m).startswith("corpus:") and name(m) not in ("corpus:floats", "corpus:empty"),
}


def main():
    trace, cases = sys.argv[1], sys.argv[2:]
    out = []
    it = bt2.TraceCollectionMessageIterator(trace)
    for m in it:
        if type(m) is not bt2._EventMessageConst:
            continue
        ns = m.default_clock_snapshot.ns_from_origin
        for c in cases:
            if CASES[c](m):
                out.append("%s %d %s" % (c, ns, m.event.name))
    out.sort()
    sys.stdout.write("".join(line + "\n" for line in out))


main()
