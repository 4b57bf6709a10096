"""traceio: read CTF 1.8/2, trace.dat, LTTng 0.x and new LTT traces from Python.

    import traceio
    t = traceio.open("path/to/trace")          # a CTF directory, a trace.dat file...
    for ev in t:                                # events in time order
        print(ev.name, ev.time_ns, ev.cpu, ev["prev_pid"], ev.payload)
    cols = t.columns("sched_switch")            # dict of numpy arrays, read at C speed
    df = t.to_pandas("sched_switch")            # a pandas DataFrame (pandas imported then)

See python/README.md for the whole API.
"""

from . import _traceio
from ._traceio import (  # noqa: F401
    Error,
    NoMemoryError,
    IOError,
    FormatError,
    UnsupportedError,
    UsageError,
    LimitError,
    SkippedError,
    StaleEventError,
    TraceWarning,
    DamagedDataWarning,
    Event,
    formats,
    LIBRARY_VERSION,
)

__all__ = [
    "open", "Trace", "Event", "Enum", "Discarded", "Error", "NoMemoryError", "FormatError",
    "UnsupportedError", "UsageError", "LimitError", "SkippedError", "StaleEventError",
    "TraceWarning", "DamagedDataWarning", "formats",
]


def _error_str(self):
    return str(self.args[0]) if self.args else ""


# str(e) is the C library's message; e.message and e.status (a negative TIO_ERR_* code) too
Error.__str__ = _error_str
Error.message = property(lambda self: self.args[0] if self.args else "")
Error.status = property(lambda self: self.args[1] if len(self.args) > 1 else None)


class Enum(int):
    """An enumeration (or bit map) value: an int with the labels that hold it.

    ``labels`` is a tuple of str, in the metadata's order (empty when no
    label's ranges hold the value; for a bit map, every flag that is set).
    """

    def __new__(cls, value, labels=()):
        o = super().__new__(cls, value)
        o.labels = labels
        return o

    def __repr__(self):
        return "Enum(%d, labels=%r)" % (int(self), self.labels)

    def __reduce__(self):
        return (Enum, (int(self), self.labels))


class Discarded:
    """Discarded events or packets, as the tracer reports them (from ``trace.messages()``).

    kind: "events" or "packets"; count: how many (None when the trace does not
    say); begin_ns/end_ns: the range they were lost in (None when unknown);
    time_ns: the message's time; stream: the stream id.
    """

    __slots__ = ("kind", "count", "begin_ns", "end_ns", "time_ns", "stream")
    name = None

    def __init__(self, kind, count, begin_ns, end_ns, time_ns, stream):
        self.kind = kind
        self.count = count
        self.begin_ns = begin_ns
        self.end_ns = end_ns
        self.time_ns = time_ns
        self.stream = stream

    def __repr__(self):
        return "Discarded(kind=%r, count=%r, begin_ns=%r, end_ns=%r, stream=%r)" % (
            self.kind, self.count, self.begin_ns, self.end_ns, self.stream)

    def to_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}


_traceio._setup(Enum, Discarded)


class Trace(_traceio._Trace):
    """An opened trace (or several merged by time): see traceio.open()."""

    def columns(self, event, fields=None):
        """Columns of one event class as numpy arrays, read in C (no Python object per
        event except for text and other non-numeric values).

        Returns a dict: "time_ns" (int64, ns from the clock origin), "cpu" (int32,
        -1 where the format does not say), then one array per field: with
        fields=None every scalar field of the payload, the specific context and the
        common context (members of structures as dotted names, "hdr.len"; a context
        field named as a payload one as "context.NAME"), else the given names or
        paths ("payload.hdr.len", "context.vtid", "arr[3]").  Integers get their
        class's exact dtype (int8..int64, uint8..uint64, enums by value), floats
        float32/float64, booleans bool; strings, BLOBs, arrays, and anything under a
        variant or an optional are numpy object arrays (str, bytes, list, None when
        absent).  Raises KeyError when no event class has that name.
        """
        return self._columns(event, fields)

    def to_pandas(self, event, fields=None, index="ns"):
        """One event class as a pandas DataFrame indexed by time ("Time").

        index="ns": int64 ns from the clock origin (exact); index="s": float seconds,
        as LISA's trace frames.  Columns: those of columns() without "time_ns", "cpu"
        as "__cpu"; for trace.dat also "__pid" (from common_pid) and "__comm" (the
        name trace-cmd shows for the pid), and the other common_* fields dropped, as
        LISA's frames are.
        """
        cols = self._columns(event, fields, lisa=self._is_tracedat())
        return _frame(cols, index, self._is_tracedat())

    def dataframes(self, fields=None, index="ns"):
        """Every event class that has events: {name: DataFrame}, in one pass over the trace."""
        lisa = self._is_tracedat()
        allc = self._columns(None, fields, lisa=lisa)
        return {name: _frame(cols, index, lisa) for name, cols in allc.items()}

    def _is_tracedat(self):
        try:
            return any(i["format"] == "tracedat" for i in self.info())
        except Error:
            return False

    @property
    def event_classes(self):
        """Names of the event classes every opened trace declares."""
        return sorted({c["name"] for i in self.info() for c in i["event_classes"]})

    def __repr__(self):
        return "<traceio.Trace %s>" % ", ".join(self.paths)


def _frame(cols, index, lisa):
    import pandas as pd

    time = cols.pop("time_ns")
    cpu = cols.pop("cpu")
    data = {"__cpu": cpu}
    if lisa:
        pid = cols.pop("common_pid", None)
        comm = cols.pop("__comm", None)
        for k in [k for k in cols if k.startswith("common_")]:
            del cols[k]
        if pid is not None:
            data["__pid"] = pid
        if comm is not None:
            data["__comm"] = comm
    else:
        cols.pop("__comm", None)
    data.update(cols)
    if index == "s":
        idx = pd.Index(time / 1e9, name="Time")
    elif index == "ns":
        idx = pd.Index(time, name="Time")
    else:
        raise UsageError("index: 'ns' or 's'", -5)
    return pd.DataFrame(data, index=idx, copy=False)


def open(paths, format=None, begin=None, end=None, strict=False, options=None):
    """Open a trace: a path (CTF directory, searched recursively as babeltrace2
    does; trace.dat file; LTT directory) or a list of paths, merged by time.

    format: a reader name (traceio.formats()) or None to guess.  begin/end: keep
    only events in [begin, end], ns from the clock origin.  strict: a damaged
    packet raises (FormatError...) instead of a DamagedDataWarning and the rest
    of the events.  options: reader options, {key: str, int or bool}, each
    given to the traces whose reader takes it (UsageError when none does):
    'ts2secs' (trace.dat: the time stamps' rate in Hz, as `trace-cmd report
    --ts2secs`, for the counter and x86-tsc clocks), 'raw-ts' (trace.dat: the
    stamps without corrections), 'ltt-tsc' (LTTng 0.x), 'clock-exact' (every
    format); traceio print --help tells each.

    Iterating gives Events in time order; trace.messages() also gives Discarded
    records.  Each iteration, messages() and columns() call reads the trace anew.
    """
    return Trace(paths, format, begin, end, strict, options)
