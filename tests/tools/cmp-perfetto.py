#!/usr/bin/python3
"""Check a `traceio convert --to perfetto` output against its input.

usage: cmp-perfetto.py DECODED.txt INPUT.jsonl [--lttng | --ltt] [--names=A,B...]
                        [--dense=DENSE.json]

DECODED.txt is `protoc --decode=perfetto.protos.Trace perfetto_trace.proto`
of the output (protobuf text format), with the schema that
perfetto-dense-schema.py made from the trace's generic event descriptors
(DENSE.json, its map of the dense FtraceEvent fields); INPUT.jsonl `traceio
print --style json` of the input.  --lttng: the input is an LTTng kernel
trace (its field and event names, prio - 100).  Checks:
  - every input event is in the output exactly once, at the same ns: an
    FtraceEvent (typed, generic or dense generic) or an entry of a bundle's
    compact_sched on the same CPU, or a TrackEvent (instant, slice begin X
    for X_entry, slice end);
  - compact_sched is expanded as Perfetto's trace_processor does: times
    delta-encoded per bundle, comms from the intern table, a switch's prev_*
    from the previous switch of its CPU (by time; compact entries before the
    bundle's full events), a waking's thread the one that switch ran;
  - per CPU, the sched_switch sequence (prev/next pid, comm, prio, state)
    equals the input's;
  - trace.dat: FtraceEvent.pid is the event's common_pid and common_flags
    its common_flags (absent: 0), compact switches excepted (Perfetto's
    compact form has no flags);
  - every field of a dense generic event equals the input's (integers;
    strings; other values written as text: present);
  - every field of every typed message equals the input's (per format names,
    LTTng prio + 100), and a field the input lacks is absent;
  - every context and payload field of a track event is a debug annotation
    with the input's value (integers, strings, floats to 7 digits);
  - generic events carry every payload field of the input's;
  - every thread of LTTng's statedump (and of an LTTng kernel event's
    pid/tid contexts) is in a ProcessTree;
  - every discarded-events message became a lost_events bundle or a
    "discarded events" instant.
Prints one summary line; exit status 1 with the first differences.
"""
import collections
import json
import math
import re
import sys

TOKEN = re.compile(r'\s*(?:(\})|([A-Za-z_][A-Za-z0-9_]*)\s*(\{|:\s*(.*)))\s*$')


def unquote_bytes(s):
    """A protobuf text-format string or bytes literal to bytes."""
    assert s[0] == '"' and s[-1] == '"', s
    s = s[1:-1]
    out = bytearray()
    i = 0
    esc = {'n': 10, 't': 9, 'r': 13, '"': 34, "'": 39, '\\': 92, 'a': 7, 'b': 8, 'f': 12, 'v': 11}
    while i < len(s):
        c = s[i]
        if c != '\\':
            out += c.encode('utf-8', 'surrogateescape')
            i += 1
            continue
        n = s[i + 1]
        if n in esc:
            out.append(esc[n])
            i += 2
        elif n in '01234567':
            j = i + 1
            while j < len(s) and j < i + 4 and s[j] in '01234567':
                j += 1
            out.append(int(s[i + 1:j], 8))
            i = j
        elif n == 'x':
            j = i + 2
            while j < len(s) and j < i + 4 and s[j] in '0123456789abcdefABCDEF':
                j += 1
            out.append(int(s[i + 2:j], 16))
            i = j
        else:
            raise ValueError('escape \\' + n)
    return bytes(out)


def unquote(s):
    """A protobuf text-format string literal to str (octal/hex escapes are bytes)."""
    return unquote_bytes(s).decode('utf-8', 'replace')


def value(v):
    if v.startswith('"'):
        return unquote(v)
    if re.fullmatch(r'-?\d+', v):
        return int(v)
    try:
        return float(v)
    except ValueError:
        return v  # an enum name, true/false


def packets(path):
    """Yield each top-level packet as nested dicts of lists."""
    stack = []
    with open(path, encoding='utf-8', errors='surrogateescape') as f:
        for line in f:
            m = TOKEN.match(line)
            if not m:
                raise ValueError('cannot parse: ' + line)
            if m.group(1):
                d = stack.pop()
                if not stack:
                    yield d
                continue
            name = m.group(2)
            if m.group(3) == '{':
                d = {}
                if stack:
                    stack[-1].setdefault(name, []).append(d)
                stack.append(d)
            else:
                stack[-1].setdefault(name, []).append(value(m.group(4)))


def one(d, k, default=None):
    v = d.get(k)
    return v[0] if v else default


TYPED = {  # FtraceEvent oneof name -> (ftrace name, LTTng name, LTT name)
    'sched_switch': ('sched_switch', 'sched_switch', 'sched_schedule'),
    'sched_waking': ('sched_waking', 'sched_waking', 'sched_try_wakeup'),
    'sched_wakeup': ('sched_wakeup', 'sched_wakeup', None),
    'sched_wakeup_new': ('sched_wakeup_new', 'sched_wakeup_new', 'sched_wakeup_new_task'),
    'sched_process_fork': ('sched_process_fork', 'sched_process_fork', 'process_fork'),
    'sched_process_exit': ('sched_process_exit', 'sched_process_exit', 'process_exit'),
    'sched_process_free': ('sched_process_free', 'sched_process_free', 'process_free'),
    'task_newtask': ('task_newtask', 'task_newtask', None),
    'task_rename': ('task_rename', 'task_rename', None),
    'cpu_frequency': ('cpu_frequency', 'power_cpu_frequency', None),
    'cpu_idle': ('cpu_idle', 'power_cpu_idle', None),
    'irq_handler_entry': ('irq_handler_entry', 'irq_handler_entry', None),
    'irq_handler_exit': ('irq_handler_exit', 'irq_handler_exit', None),
    'softirq_entry': ('softirq_entry', 'irq_softirq_entry', 'softirq_entry'),
    'softirq_exit': ('softirq_exit', 'irq_softirq_exit', 'softirq_exit'),
    'print': ('print', 'print', None),
}
# field names of the checked fields per format: ftrace, LTTng, LTT
PID = ('pid', 'tid', 'pid')
TARGET = ('target_cpu', 'target_cpu', 'cpu_id')
PREV = ('prev_pid', 'prev_tid', 'prev_pid')
NEXT = ('next_pid', 'next_tid', 'next_pid')
STATEDUMP = (None, ('lttng_statedump_process_state', 'tid'), ('process_state', 'pid'))
# every field of the typed messages: proto field -> its input name per format (None: absent there), kind
W = [('pid', ('pid', 'tid', 'pid'), 'i32'), ('comm', ('comm', 'comm', None), 's'), ('prio', ('prio', 'prio', None), 'prio'),
     ('success', ('success', 'success', None), 'i32'), ('target_cpu', ('target_cpu', 'target_cpu', 'cpu_id'), 'i32')]
FIELDS = {
    'sched_switch': [('prev_pid', PREV, 'i32'), ('next_pid', NEXT, 'i32'), ('prev_comm', ('prev_comm',) * 3, 's'),
                     ('prev_prio', ('prev_prio',) * 3, 'prio'), ('prev_state', ('prev_state',) * 3, 'i64'),
                     ('next_comm', ('next_comm',) * 3, 's'), ('next_prio', ('next_prio',) * 3, 'prio')],
    'sched_waking': W, 'sched_wakeup': W, 'sched_wakeup_new': W,
    'sched_process_fork': [('parent_pid', ('parent_pid', 'parent_tid', 'parent_pid'), 'i32'),
                           ('child_pid', ('child_pid', 'child_tid', 'child_pid'), 'i32'),
                           ('parent_comm', ('parent_comm',) * 3, 's'), ('child_comm', ('child_comm',) * 3, 's')],
    'sched_process_exit': [('pid', PID, 'i32'), ('comm', ('comm',) * 3, 's'), ('tgid', ('tgid', 'pid', None), 'i32'),
                           ('prio', ('prio',) * 3, 'prio')],
    'sched_process_free': [('pid', PID, 'i32'), ('comm', ('comm',) * 3, 's'), ('prio', ('prio',) * 3, 'prio')],
    'task_newtask': [('pid', PID, 'i32'), ('comm', ('comm',) * 3, 's'), ('clone_flags', ('clone_flags',) * 3, 'u64'),
                     ('oom_score_adj', ('oom_score_adj',) * 3, 'i32')],
    'task_rename': [('pid', PID, 'i32'), ('oldcomm', ('oldcomm',) * 3, 's'), ('newcomm', ('newcomm',) * 3, 's'),
                    ('oom_score_adj', ('oom_score_adj',) * 3, 'i32')],
    'cpu_frequency': [('state', ('state',) * 3, 'u32'), ('cpu_id', ('cpu_id',) * 3, 'u32')],
    'cpu_idle': [('state', ('state',) * 3, 'u32'), ('cpu_id', ('cpu_id',) * 3, 'u32')],
    'irq_handler_entry': [('irq', ('irq',) * 3, 'i32'), ('name', ('name',) * 3, 's')],
    'irq_handler_exit': [('irq', ('irq',) * 3, 'i32'), ('ret', ('ret',) * 3, 'i32')],
    'softirq_entry': [('vec', ('vec', 'vec', 'softirq_id'), 'u32')],
    'softirq_exit': [('vec', ('vec', 'vec', 'softirq_id'), 'u32')],
    'print': [('buf', ('buf',) * 3, 's'), ('ip', ('ip',) * 3, 'u64')],
}


def want_value(v, kind, lttng):
    """The value Perfetto's message should hold for input value v."""
    if kind == 's':
        return v
    if kind == 'prio':
        v += 100 if lttng else 0
        kind = 'i32'
    if kind == 'i32':
        v &= 0xffffffff
        return v - (1 << 32) if v >= 1 << 31 else v
    if kind == 'u32':
        return v & 0xffffffff if v >= 0 else v
    return v


def flat_names(d, prefix=''):
    out = set()
    for k, v in d.items():
        if isinstance(v, dict) and not ('value' in v and 'labels' in v) and 'option' not in v:
            out |= flat_names(v, prefix + k + '.')
        else:
            out.add(prefix + k)
    return out


def main():
    dec, inp = sys.argv[1], sys.argv[2]
    lttng = '--lttng' in sys.argv[3:]
    li = 1 if lttng else 2 if '--ltt' in sys.argv[3:] else 0
    keep = None  # --names=A,B: the input events kept (convert --names)
    for a in sys.argv[3:]:
        if a.startswith('--names='):
            keep = set(a[8:].split(','))
    dense = {}
    for a in sys.argv[3:]:
        if a.startswith('--dense='):
            with open(a[8:]) as f:
                dense = json.load(f)
    errors = []

    # ---- output
    out_ev = collections.Counter()  # (cpu or None, ns, name)
    out_switch = collections.defaultdict(list)
    out_wake = collections.Counter()
    out_generic = {}  # (ns, name) -> field names (last seen)
    out_typed = {}  # (cpu, ns, input name) -> [(message, body)]
    out_args = {}  # (ns, input name) -> [{annotation name: value}] of track events
    ann_names = {}
    args_bad = 0
    nargs = 0
    typed_bad = 0
    ntyped = 0
    tree_tids = set()
    lost = 0
    disc_instants = 0
    names = {}
    nslices = collections.Counter()
    out_hdr = {}  # (cpu, ts, input name) -> [(pid, common_flags)], None where not known
    out_dense = {}  # (cpu, ts, input name) -> [{field: value}]
    sched = collections.defaultdict(list)  # cpu -> [(ts, order, k, body, pid, flags, compact)]
    nbundle = 0
    ncompact = 0
    ndense = 0

    def add_event(cpu, ts, k, body, pid, flags):
        """One FtraceEvent (or an expanded compact_sched entry) of the output."""
        if k == 'generic':
            nm = one(body, 'event_name')
            out_generic[(ts, nm)] = {one(f, 'name') for f in body.get('field', [])}
        elif k in dense:
            nm = dense[k][0]
            out_dense.setdefault((cpu, ts, nm), []).append({f: v[0] for f, v in body.items()})
        elif k in TYPED:
            nm = TYPED[k][li]
            out_typed.setdefault((cpu, ts, nm), []).append((k, body))
        else:
            errors.append('unexpected typed event ' + k)
            return
        out_ev[(cpu, ts, nm)] += 1
        out_hdr.setdefault((cpu, ts, nm), []).append((pid, flags))
        if k == 'sched_switch':
            out_switch[cpu].append((one(body, 'prev_pid', 0), one(body, 'prev_comm', ''), one(body, 'prev_prio', -100),
                                    one(body, 'prev_state', 0), one(body, 'next_pid', 0),
                                    one(body, 'next_comm', ''), one(body, 'next_prio', -100)))
        elif k in ('sched_waking', 'sched_wakeup', 'sched_wakeup_new'):
            out_wake[(cpu, ts, k, one(body, 'pid', 0), one(body, 'comm', ''), one(body, 'target_cpu', 0))] += 1

    for p in packets(dec):
        for b in p.get('ftrace_events', []):
            cpu = one(b, 'cpu')
            nbundle += 1
            if one(b, 'lost_events'):
                lost += 1
            for cs in b.get('compact_sched', []):  # tokenized before the bundle's events, as trace_processor does
                tab = cs.get('intern_table', [])
                for kind, pre, cols in (('sched_switch', 'switch_', ('timestamp', 'prev_state', 'next_pid', 'next_prio', 'next_comm_index')),
                                        ('sched_waking', 'waking_', ('timestamp', 'pid', 'target_cpu', 'prio', 'comm_index', 'common_flags'))):
                    arrs = [cs.get(pre + c, []) for c in cols]
                    if len({len(a) for a in arrs}) > 1:
                        errors.append('cpu %s: compact_sched %s arrays of different lengths' % (cpu, pre))
                        continue
                    ts = 0
                    for i in range(len(arrs[0])):
                        ts += arrs[0][i]
                        v = [a[i] for a in arrs]
                        if v[4] >= len(tab):
                            errors.append('cpu %s: compact_sched comm index %d, %d interned' % (cpu, v[4], len(tab)))
                            continue
                        if kind == 'sched_switch':
                            body = {'prev_state': [v[1]], 'next_pid': [v[2]], 'next_prio': [v[3]], 'next_comm': [tab[v[4]]]}
                            order, flags = 0, None
                        else:
                            body = {'pid': [v[1]], 'target_cpu': [v[2]], 'prio': [v[3]], 'comm': [tab[v[4]]]}
                            order, flags = 1, v[5]
                        sched[cpu].append((ts, (nbundle, order, i), kind, body, None, flags, True))
                        ncompact += 1
            for i, e in enumerate(b.get('event', [])):
                ts = one(e, 'timestamp')
                kinds = [k for k in e if k not in ('timestamp', 'pid', 'common_flags')]
                if len(kinds) != 1:
                    errors.append('FtraceEvent with %s' % kinds)
                    continue
                k = kinds[0]
                body = e[k][0]
                pid, flags = one(e, 'pid'), one(e, 'common_flags', 0)
                if k in ('sched_switch', 'sched_waking'):
                    sched[cpu].append((ts, (nbundle, 2, i), k, body, pid, flags, False))
                    continue
                ndense += k in dense
                add_event(cpu, ts, k, body, pid, flags)
        for t in p.get('process_tree', []):
            for th in t.get('threads', []):
                tree_tids.add(one(th, 'tid'))
        for i in p.get('interned_data', []):
            for en in i.get('event_names', []):
                names[one(en, 'iid')] = one(en, 'name')
            for an in i.get('debug_annotation_names', []):
                ann_names[one(an, 'iid')] = one(an, 'name')
        for te in p.get('track_event', []):
            ts = one(p, 'timestamp')
            typ = one(te, 'type')
            nm = one(te, 'name') if 'name' in te else names.get(one(te, 'name_iid'))
            if nm is None:
                errors.append('track event at %s: name iid %s not interned before' % (ts, one(te, 'name_iid')))
                continue
            if nm == 'discarded events':
                disc_instants += 1
                continue
            nslices[typ] += 1
            if typ == 'TYPE_SLICE_BEGIN':
                nm = '*func_entry' if nm.startswith('0x') else nm + '_entry'
            out_ev[(None, ts, nm)] += 1
            args = {}
            for a in te.get('debug_annotations', []):
                an = one(a, 'name') if 'name' in a else ann_names.get(one(a, 'name_iid'))
                if an is None:
                    errors.append('track event at %s: annotation name iid %s not interned before' % (ts, one(a, 'name_iid')))
                vals = [a[k][0] for k in ('int_value', 'uint_value', 'string_value', 'double_value', 'bool_value') if k in a]
                args[an] = vals[0] if vals else None
            out_args.setdefault((ts, nm), []).append(args)

    # switches and wakings in trace_processor's order: a compact switch's prev_* are
    # the previous switch's next_*, a compact waking's thread the one it ran
    for cpu, evs in sched.items():
        last = None
        for ts, _, k, body, pid, flags, compact in sorted(evs, key=lambda x: (x[0], x[1])):
            if compact and last is None:
                errors.append('cpu %s: compact %s at %d before any sched_switch' % (cpu, k, ts))
                continue
            if compact and k == 'sched_switch':
                body = dict(body, prev_pid=[last[0]], prev_comm=[last[1]], prev_prio=[last[2]])
                pid = last[0]
            elif compact:
                pid = last[0]
            if k == 'sched_switch':
                last = (one(body, 'next_pid', 0), one(body, 'next_comm', ''), one(body, 'next_prio', -100))
            add_event(cpu, ts, k, body, pid, flags)

    # ---- input
    hdr_bad = nhdr = dense_bad = ndf = 0
    in_ev = collections.Counter()
    in_switch = collections.defaultdict(list)
    in_wake = collections.Counter()
    statedump_tids = set()
    cpu_of = {}
    ndisc = 0
    generic_missing = 0
    nin = 0
    func_entry_names = set()
    with open(inp) as f:
        for line in f:
            d = json.loads(line)
            sk = (d.get('trace'), d.get('stream_class_id'), d.get('stream_id'))
            if d['type'] == 'packet_begin':
                pc = d.get('packet_context') or {}
                if 'cpu_id' in pc:
                    cpu_of[sk] = pc['cpu_id']
                continue
            if d['type'] == 'discarded_events':
                ndisc += 1
                continue
            if d['type'] != 'event' or (keep is not None and d['event_class'] not in keep):
                continue
            nin += 1
            cpu = cpu_of.get(sk, d.get('stream_id'))
            nm = d['event_class']
            ts = d.get('ns', 0)  # an event without a clock: written at time 0
            pl = d.get('payload') or {}
            key_k = (cpu, ts, nm)
            key_u = (None, ts, '*func_entry' if nm.endswith('func_entry') and 'cyg_profile' in nm else nm)
            if out_ev[key_k] > 0:
                out_ev[key_k] -= 1
            elif out_ev[key_u] > 0:
                out_ev[key_u] -= 1
            else:
                in_ev[(cpu, ts, nm)] += 1
                continue
            if key_u[1:] in out_args and out_args[key_u[1:]] and out_ev[key_k] == 0:
                got = out_args[key_u[1:]].pop(0)
                for scope in ('common_context', 'specific_context', 'payload'):
                    for an, v in (d.get(scope) or {}).items():
                        nargs += 1
                        if isinstance(v, dict) and 'value' in v:
                            v = v['value']  # an enum: its integer
                        if an not in got:
                            ok = False
                        elif isinstance(v, str) and isinstance(got[an], float):  # JSON's "nan", "inf"
                            ok = (v == 'nan' and got[an] != got[an]) or (v != 'nan' and float(v) == got[an])
                        elif isinstance(v, (int, str)) and not isinstance(v, bool):
                            ok = got[an] == v
                        elif isinstance(v, float):
                            # JSON prints a binary32 with its shortest text: compare to 7 digits
                            ok = isinstance(got[an], float) and (math.isclose(got[an], v, rel_tol=1e-6, abs_tol=1e-44)
                                                                 or (v != v and got[an] != got[an]))
                        else:
                            ok = True  # compound values: written as text, not compared here
                        if not ok:
                            args_bad += 1
                            if args_bad <= 3:
                                errors.append('%s at %d: annotation %s = %r, input %r' % (nm, ts, an, got.get(an), v))
            cc = d.get('common_context') or {}
            if li == 0 and out_hdr.get(key_k):
                pid, flags = out_hdr[key_k].pop(0)
                if (pid, flags if flags is not None else cc.get('common_flags')) != (cc.get('common_pid'), cc.get('common_flags')):
                    hdr_bad += 1
                    if hdr_bad <= 3:
                        errors.append('%s at %d: FtraceEvent pid %s, common_flags %s; input common_pid %s, common_flags %s' % (
                            nm, ts, pid, flags, cc.get('common_pid'), cc.get('common_flags')))
                nhdr += 1
            if key_k in out_dense and out_dense[key_k]:
                got = out_dense[key_k].pop(0)
                want = dict(pl) if li == 0 else dict(d.get('common_context') or {}, **(d.get('specific_context') or {}), **pl)
                for fn, v in want.items():
                    ndf += 1
                    if isinstance(v, dict) and 'value' in v:
                        v = v['value']  # an enum: its integer
                    if isinstance(v, bool):
                        v = int(v)
                    g = got.get(fn)
                    if isinstance(v, str) and '\ufffd' in v:  # not UTF-8: each side has its own replacement
                        good = isinstance(g, str)
                    elif isinstance(v, (int, str)):
                        good = g == v
                    elif isinstance(v, float):
                        good = isinstance(g, str) and (float(g) == v or math.isclose(float(g), v, rel_tol=1e-6) or v != v)
                    else:
                        good = isinstance(g, str)  # arrays, structures: written as text
                    if not good:
                        dense_bad += 1
                        if dense_bad <= 3:
                            errors.append('%s at %d: dense field %s = %r, input %r' % (nm, ts, fn, g, v))
                if set(got) - set(want):
                    dense_bad += 1
                    errors.append('%s at %d: dense fields %s not in the input' % (nm, ts, sorted(set(got) - set(want))))
            if key_k in out_typed and out_typed[key_k]:
                k, body = out_typed[key_k].pop(0)
                ntyped += 1
                for pf, names, kind in FIELDS[k]:
                    iname = names[li]
                    if iname is None or iname not in pl:
                        if pf in body:
                            typed_bad += 1
                            errors.append('%s at %d: %s set, the input has no %s' % (nm, ts, pf, iname))
                        continue
                    got = one(body, pf)
                    want = want_value(pl[iname], kind, lttng)
                    if got != want:
                        typed_bad += 1
                        if typed_bad <= 3:
                            errors.append('%s at %d: %s = %r, input %s = %r' % (nm, ts, pf, got, iname, want))
            if nm == TYPED['sched_switch'][li]:
                add = 100 if lttng else 0
                in_switch[cpu].append((pl.get(PREV[li], 0), pl.get('prev_comm', ''), pl.get('prev_prio', -100) + add,
                                       pl.get('prev_state', 0), pl.get(NEXT[li], 0), pl.get('next_comm', ''),
                                       pl.get('next_prio', -100) + add))
            elif nm in [TYPED[k][li] for k in ('sched_waking', 'sched_wakeup', 'sched_wakeup_new')]:
                k = [k for k in ('sched_waking', 'sched_wakeup', 'sched_wakeup_new') if TYPED[k][li] == nm][0]
                in_wake[(cpu, ts, k, pl.get(PID[li], 0), pl.get('comm', ''), pl.get(TARGET[li], 0))] += 1
            elif STATEDUMP[li] and nm == STATEDUMP[li][0]:
                statedump_tids.add(pl.get(STATEDUMP[li][1]))
            if lttng and key_k not in in_ev:  # a kernel event's thread contexts name a thread of the tree
                cx = dict(d.get('common_context') or {}, **(d.get('specific_context') or {}))
                t = cx.get('vtid', cx.get('tid'))
                if isinstance(t, int) and isinstance(cx.get('vpid', cx.get('pid')), int):
                    statedump_tids.add(t)
            if (ts, nm) in out_generic:
                want = {n.split('.')[0] for n in pl}
                got = {n.split('.')[0] for n in out_generic[(ts, nm)]}
                if not want <= got:
                    generic_missing += 1
                    if generic_missing <= 3:
                        errors.append('generic %s at %d lacks fields %s' % (nm, ts, sorted(want - got)))

    missing = +in_ev
    extra = +out_ev
    if missing:
        errors.append('%d input events not in the output, e.g. %s' % (sum(missing.values()), list(missing)[:3]))
    if extra:
        errors.append('%d output events not in the input, e.g. %s' % (sum(extra.values()), list(extra)[:3]))
    for cpu in sorted(set(in_switch) | set(out_switch), key=str):
        a, b = in_switch.get(cpu, []), out_switch.get(cpu, [])
        if a != b:
            i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            errors.append('cpu %s sched_switch #%d: input %s, output %s' % (cpu, i, a[i:i + 1], b[i:i + 1]))
    if in_wake != out_wake:
        d1 = +(in_wake - out_wake)
        errors.append('wakeups differ: %s' % list(d1)[:3])
    if statedump_tids - tree_tids:
        errors.append('statedump threads not in a ProcessTree: %s' % sorted(statedump_tids - tree_tids)[:5])
    if ndisc != lost + disc_instants:
        errors.append('%d discarded-events messages, %d lost_events bundles + %d instants' % (ndisc, lost, disc_instants))
    nsw = sum(len(v) for v in in_switch.values())
    print('%d events (%d typed, every field checked, %d of them compact_sched; %d dense generic, %d fields checked; '
          '%d pid/common_flags checked; %d sched_switch on %d CPUs, %d track events: %d slice begins, %d ends; '
          '%d annotations checked), %d process-tree threads, '
          '%d discarded-events messages, %d bundles' % (nin, ntyped, ncompact, ndense, ndf, nhdr, nsw, len(in_switch),
                                                        sum(nslices.values()), nslices['TYPE_SLICE_BEGIN'],
                                                        nslices['TYPE_SLICE_END'], nargs, len(tree_tids), ndisc, nbundle))
    if errors:
        print('\n'.join(errors[:10]))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
