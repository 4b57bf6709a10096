"""Walk a CTF trace with babeltrace2's Python bindings (python3-bt2) and with
traceio, and compare every message: event names, times, CPU, stream ids, every
value of the payload, specific and common contexts, the packet context fields
babeltrace2 keeps (it drops the ones it consumed: sizes, timestamps...), and
discarded-events/packets records (count, range).

Known babeltrace2 2.0.4 differences, counted apart and not failures:
- a string that decodes empty shows an earlier event's text (babeltrace2
  reuses event objects and does not clear it: see tests/tools/cmp-bt2.py);
  traceio gives "";
- an enumeration value that no label holds: the bindings' `.labels` fails an
  assertion (`assert labels is not None`, bt2/field.py); traceio's Enum has
  no labels then, which is checked.

Usage as a script: bt2cmp.py TRACE... (prints a summary per trace).
"""
import math
import sys

import traceio


NO_LABELS = "babeltrace2 2.0.4 cannot tell"


def bt2_value(f):
    import bt2

    if isinstance(f, bt2._BoolFieldConst):
        return bool(f)
    if isinstance(f, bt2._EnumerationFieldConst):
        try:
            return ("enum", int(f), tuple(sorted(f.labels)))
        except AssertionError:  # bt2 2.0.4: `assert labels is not None` when no label holds the value
            return ("enum", int(f), NO_LABELS)
    if isinstance(f, bt2._IntegerFieldConst):
        return int(f)
    if isinstance(f, bt2._BitArrayFieldConst):
        return int(f.value_as_integer)
    if isinstance(f, bt2._RealFieldConst):
        return float(f)
    if isinstance(f, bt2._StringFieldConst):
        return str(f)
    if isinstance(f, bt2._StructureFieldConst):
        return {k: bt2_value(v) for k, v in f.items()}
    if isinstance(f, bt2._ArrayFieldConst):
        return [bt2_value(v) for v in f]
    if isinstance(f, bt2._VariantFieldConst):
        return bt2_value(f.selected_option)
    if isinstance(f, bt2._OptionFieldConst):
        return None if f.field is None else bt2_value(f.field)
    raise TypeError("bt2 field %r" % type(f))


def tio_value(v):
    if isinstance(v, traceio.Enum):
        return ("enum", int(v), tuple(sorted(v.labels)))
    if isinstance(v, dict):
        return {k: tio_value(x) for k, x in v.items()}
    if isinstance(v, list):
        return [tio_value(x) for x in v]
    return v


class Diff(Exception):
    pass


def same(a, b, where, known, last=None, key=""):
    """Compare a babeltrace2 value a with a traceio value b; raise Diff.

    last: {field location: the strings an earlier event had there}, to
    recognize babeltrace2's stale empty strings (an earlier event's text, from
    the event object it reuses)."""
    if isinstance(a, dict):
        if not isinstance(b, dict) or list(a) != list(b):
            raise Diff("%s: members %r vs %r" % (where, list(a) if isinstance(a, dict) else a,
                                                 list(b) if isinstance(b, dict) else b))
        return sum(same(a[k], b[k], where + "." + k, known, last, key + "." + k) for k in a)
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            raise Diff("%s: %r vs %r" % (where, a, b))
        return sum(same(x, y, "%s[%d]" % (where, i), known, last, "%s[%d]" % (key, i))
                   for i, (x, y) in enumerate(zip(a, b)))
    if isinstance(a, tuple) and a[2] == NO_LABELS and isinstance(b, tuple) and a[:2] == b[:2]:
        if b[2] != ():
            raise Diff("%s: enum %d: babeltrace2 finds no label, traceio %r" % (where, a[1], b[2]))
        known.append("%s: enum value %d that no label holds: babeltrace2 2.0.4's Python bindings fail an "
                     "assertion on .labels (traceio: no labels)" % (where, a[1]))
        return 1
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return 1
    if type(a) is not type(b) and not (isinstance(a, int) and isinstance(b, int)
                                       and not isinstance(a, bool) and not isinstance(b, bool)):
        raise Diff("%s: %r (%s) vs %r (%s)" % (where, a, type(a).__name__, b, type(b).__name__))
    seen = last.setdefault(key, set()) if last is not None and isinstance(a, str) else ()
    if a != b:
        if isinstance(a, str) and b == "" and a in seen:
            known.append("%s: babeltrace2 2.0.4's stale empty string %r (an earlier event's)" % (where, a))
            return 1
        raise Diff("%s: babeltrace2 %r, traceio %r" % (where, a, b))
    if isinstance(a, str) and last is not None:
        seen.add(b)
    return 1


def compare(path):
    """Returns (events, values, discarded, known differences); raises Diff at the first difference."""
    import bt2

    bt_it = bt2.TraceCollectionMessageIterator(path)
    tio_it = traceio.open(path).messages()
    events = values = discarded = 0
    known = []
    last = {}
    for m in bt_it:
        t = type(m)
        if t is bt2._EventMessageConst:
            kind = "event"
        elif t is bt2._DiscardedEventsMessageConst:
            kind = "events"
        elif t is bt2._DiscardedPacketsMessageConst:
            kind = "packets"
        else:
            continue
        try:
            x = next(tio_it)
        except StopIteration:
            raise Diff("traceio ended before babeltrace2's message %d (%s)" % (events + discarded, kind))
        where = "message %d" % (events + discarded)
        if kind == "event":
            e = m.event
            if not isinstance(x, traceio.Event):
                raise Diff("%s: babeltrace2 has event %s, traceio %r" % (where, e.name, x))
            where += " (%s)" % e.name
            if x.name != e.name:
                raise Diff("%s: name %r" % (where, x.name))
            ns = m.default_clock_snapshot.ns_from_origin if e.cls.stream_class.default_clock_class else None
            if x.time_ns != ns:
                raise Diff("%s: time %r vs %r" % (where, ns, x.time_ns))
            if x.stream != e.stream.id:
                raise Diff("%s: stream %r vs %r" % (where, e.stream.id, x.stream))
            for name, bf, tv in (("payload", e.payload_field, x.payload),
                                 ("context", e.specific_context_field, x.context),
                                 ("common_context", e.common_context_field, x.common_context)):
                if bf is None:
                    if tv not in (None, {}):
                        raise Diff("%s: %s: none vs %r" % (where, name, tv))
                    continue
                values += same(bt2_value(bf), tio_value(tv), where + " " + name, known, last, e.name + " " + name)
            pc = e.packet.context_field if e.packet is not None else None
            if pc is not None:
                bpc = bt2_value(pc)
                tpc = tio_value(x.packet) or {}
                for k, v in bpc.items():
                    if k not in tpc:
                        raise Diff("%s: packet context %s missing" % (where, k))
                    values += same(v, tpc[k], where + " packet." + k, known)
                if "cpu_id" in bpc and x.cpu != bpc["cpu_id"]:
                    raise Diff("%s: cpu %r vs cpu_id %r" % (where, x.cpu, bpc["cpu_id"]))
            events += 1
        else:
            if not isinstance(x, traceio.Discarded) or x.kind != kind:
                raise Diff("%s: babeltrace2 has discarded %s, traceio %r" % (where, kind, x))
            if x.count != m.count:
                raise Diff("%s: count %r vs %r" % (where, m.count, x.count))
            try:
                rng = (m.beginning_default_clock_snapshot.ns_from_origin, m.end_default_clock_snapshot.ns_from_origin)
            except ValueError:  # "such a message has no clock snapshots for this stream class"
                rng = (None, None)
            if (x.begin_ns, x.end_ns) != rng:
                raise Diff("%s: range %r vs %r" % (where, rng, (x.begin_ns, x.end_ns)))
            discarded += 1
    rest = next(tio_it, None)
    if rest is not None:
        raise Diff("traceio has more messages than babeltrace2: %r" % (rest,))
    return events, values, discarded, known


if __name__ == "__main__":
    for p in sys.argv[1:]:
        try:
            e, v, d, k = compare(p)
            print("%s: %d events, %d values, %d discarded records equal; %d known differences" % (p, e, v, d, len(k)))
            for line in k[:5]:
                print("   ", line)
        except Diff as exc:
            print("%s: DIFFERS: %s" % (p, exc))
