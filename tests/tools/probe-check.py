#!/usr/bin/python3
"""Checks for tests/ftrace/test-probes.sh (uprobes on tests/tools/probe-target.c).

values JSON_LINES: each t_entry event of `traceio print --style json` holds the
  values probe-target.c passed in that call (found by its `n` = i - 25); prints
  one line per difference, and the number of events checked.
variants TRACE TRACEIO OUTDIR [SEED COUNT]: the trace with t_entry's print fmt
  replaced, in place (same length, padded with spaces), by fixed cases and by
  COUNT random ones; prints "DIFF ..." for each whose t_entry lines differ
  between `trace-cmd report` and `traceio print`, then "variants N diffs D".
"""
import json
import random
import struct
import subprocess
import sys

STR = 'a string with spaces\t"quoted"\\'


def expected(i):
    a = (i * 0x1000001) & 0xffffffff
    b = -i * 300
    b16 = ((b + 0x8000) & 0xffff) - 0x8000
    by = bytes([i & 255, 2, 3, 250, 0, 255, 7, 8])
    name = '' if i % 7 == 0 else 'n%d' % i
    nb = name.encode().ljust(16, b'\0')
    raw = struct.pack('<Ih', a, b16) + by + nb
    n = i - 25
    return {
        's': '' if i % 5 == 0 else STR, 'a': a, 'b': b16, 'bytes': list(by), 'name': name,
        'n': n, 'neg': -i, 'bf': (a >> 4) & 15, 'ch': nb[0], 'comm': 'probe-target',
        'ux': n & 0xffff, 'words': list(struct.unpack('<4H', by)), 'uu': list(raw[:16]),
        'sb': struct.unpack('<b', raw[:1])[0], 'x64': struct.unpack('<Q', raw[:8])[0], 'sx': (-i) & 0xff,
    }


def values(path):
    seen = set()
    bad = 0
    for line in open(path):
        ev = json.loads(line)
        if ev.get('type') != 'event' or ev.get('event_class') != 't_entry':
            continue
        p = ev['payload']
        i = p.get('n', -100) + 25
        if not 0 <= i < 50:
            print('t_entry with n = %r' % p.get('n'))
            bad += 1
            continue
        seen.add(i)
        for k, v in expected(i).items():
            if p.get(k) != v:
                print('call %d: %s = %r, expected %r' % (i, k, p.get(k), v))
                bad += 1
    if len(seen) != 50:
        print('calls seen: %d of 50' % len(seen))
        bad += 1
    print('checked %d calls, %d differences' % (len(seen), bad))
    return 1 if bad else 0


# print fmt variants: conversions and arguments that libtraceevent 1.7
# (trace-cmd 3.1.6) evaluates in its own way; widths stay small and
# nothing prints a host pointer (__get_dynamic_array as a number)
FIXED = [
    ("%c|%d", ["REC->ch", "REC->a"]),                       # %c: ">c<", no argument taken
    ("%d%+d%d", ["REC->a", "REC->b", "REC->neg"]),          # '+' is no flag: ">+<d"
    ("%d %d %d", ["'5'", "'x'", "REC->n"]),                 # a character literal is its text as a number
    ("%pU|%pUb|%pUB|%pUl|%pUL|%pUx", ["REC->uu"] * 6),
    ("%pU|%pU|%pU|%pU", ["REC->a", "__get_str(s)", "REC->a + 1", "(u8 *)REC->uu"]),
    ("%pM|%pM|%pM|%pM|%pM|%pM|%pM|%pM|%pM|%pM",
     ['__print_flags(REC->a, "|", {1, "ONE"})', '__print_symbolic(REC->a, {1, "ONE"})', "__print_hex(REC->bytes, 8)",
      "__print_array(REC->words, 4, 2)", "__get_dynamic_array(s)", "__get_bitmask(name)", "__get_dynamic_array_len(s)",
      "__print_hex_str(REC->bytes, 4)", "__get_cpumask(name)", "'5'"]),
    ("%zx %zu %zd %Zd %lx %x", ["REC->n"] * 6),
    ("%*d|%-*d|%5.3d|%#o|%#x|%08x", ["7", "REC->b", "5", "REC->neg", "REC->ux", "REC->a", "REC->a", "REC->sb"]),
    ("%s|%10s|%-6s|%.2s", ["__get_str(s)", "__get_str(name)", "__get_str(comm)", "__get_str(comm)"]),
    ("%s %s %s", ['__print_hex(REC->uu, 16)', '__print_array(REC->uu, 4, 4)', '__print_hex_str(REC->uu, 16)']),
]

CONVS = ['%c', '%d', '%u', '%x', '%X', '%o', '%i', '%hd', '%hu', '%hhd', '%hhx', '%ld', '%lu', '%lx', '%lld', '%llx',
         '%Ld', '%Lx', '%zd', '%zu', '%zx', '%+d', '% d', '%#x', '%#o', '%08x', '%-6d|', '%5d', '%.3d', '%5.2x', '%*d',
         '%s', '%.2s', '%10s', '%-10s|', '%p', '%pS', '%ps', '%pf', '%pF', '%pB', '%pK', '%px', '%pM', '%pI4', '%pU',
         '%pUb', '%pUB', '%pUl', '%pUL', '%%', '%e', '%f', '%g', '%q', '%j', '%t', '%lc', '%5c', '%-3c|', '%hc', '%#c',
         '%zc', '%le', '%a', '%b', '%h', '%l']
NUMS = ['REC->a', 'REC->b', 'REC->n', 'REC->neg', 'REC->ch', 'REC->ux', 'REC->bf', 'REC->bytes[1]', 'REC->words[2]',
        'REC->__probe_ip', '(u8)REC->a', '(short)REC->b', 'REC->a >> 3', 'REC->b & 0xff', 'REC->n ? 1 : 2', '-REC->neg',
        'REC->a + REC->b', '!REC->ch', '~REC->a', "'x'", "'5'", '65', '0x7fffffffffffffff', '(char)REC->ch', 'REC->a * 3',
        'REC->ux / 7', 'REC->ux % 7', 'REC->neg < 0', 'REC->a == 0', 'REC->uu', 'REC->sb', 'REC->x64', 'REC->sx',
        'REC->uu[3]', 'REC->a << 2', 'REC->a && REC->b', 'REC->neg || 0', '(int)REC->n', '(unsigned char)REC->b',
        'sizeof(int)', '(long)REC->sb', 'REC->x64 - 1', '(s8)REC->sx', 'REC->b > 3 ? REC->a : REC->neg',
        '(REC->a & 0xff00) >> 8', '-1', '1 + 2 * 3', 'REC->a % 3 == 1', 'REC->words[3]', 'REC->uu[15]',
        'REC->neg <= -2', '__builtin_expect(REC->a, 0)']
STRS = ['__get_str(s)', '__get_str(name)', '__get_str(comm)', 'REC->bytes', 'REC->words', '__print_hex(REC->bytes, 8)',
        '__print_array(REC->words, 4, 2)', '__print_hex_str(REC->bytes, 4)',
        '__print_flags(REC->a, "|", {1, "ONE"}, {2, "TWO"}, {0x1000000, "BIG"})',
        '__print_symbolic(REC->neg, {-1, "minus1"}, {0, "zero"})', '"lit"', '__get_bitmask(name)',
        '__get_dynamic_array_len(s)', 'REC->b > 3 ? "big" : "small"', '__print_hex(REC->uu, 16)',
        '__print_array(REC->uu, 4, 4)', '__print_hex_str(REC->uu, 16)', 'REC->uu', '(char *)REC->bytes']


def random_case(rng):
    fmt, args = '', []
    for _ in range(rng.randint(1, 4)):
        c = rng.choice(CONVS)
        fmt += rng.choice(['', ' ', 'x=', '[', "'"]) + c
        k = c.count('%') - 2 * c.count('%%') + c.count('*')
        for j in range(k):
            if '*' in c and j == 0:  # widths stay small and not negative (libtraceevent reads garbage then)
                args.append(rng.choice(['7', 'REC->bytes[1]', '0']))
            elif c.endswith('s') and not c.startswith('%p') and j == k - 1:
                args.append(rng.choice(STRS))
            else:
                args.append(rng.choice(NUMS if rng.random() < 0.9 else STRS[3:]))
    if rng.random() < 0.1 and args:
        args = args[:-1]
    if rng.random() < 0.1:
        args.append(rng.choice(NUMS))
    return fmt, args


def variants(trace, tio, outdir, seed=1, count=60):
    d = open(trace, 'rb').read()
    i = d.find(b'name: t_entry')
    p0 = d.find(b'print fmt: ', i)
    p1 = d.find(b'\n', p0)
    if i < 0 or p0 < 0 or p1 < 0:
        print('no t_entry format in %s' % trace)
        return 1
    env = {'TZ': 'UTC', 'LC_ALL': 'C', 'PATH': '/usr/sbin:/usr/bin:/sbin:/bin'}
    rng = random.Random(seed)
    cases = FIXED + [random_case(rng) for _ in range(count)]
    path = outdir + '/variant.dat'
    ran = diffs = 0
    for fmt, args in cases:
        line = ('print fmt: "%s"' % fmt + ''.join(', ' + a for a in args)).encode()
        if len(line) > p1 - p0:
            continue
        open(path, 'wb').write(d[:p0] + line + b' ' * (p1 - p0 - len(line)) + d[p1:])
        out = []
        for cmd in (['trace-cmd', 'report', path], [tio, 'print', path]):
            try:
                r = subprocess.run(cmd, capture_output=True, env=env, timeout=30)
                out.append([x for x in r.stdout.split(b'\n') if b't_entry:' in x] or [b'exit %d' % r.returncode])
            except subprocess.TimeoutExpired:
                out.append([b'timeout'])
        ran += 1
        if out[0] != out[1]:
            diffs += 1
            a, b = next(((x, y) for x, y in zip(*out) if x != y), (out[0][:1], out[1][:1]))
            print('DIFF fmt=%r args=%r\n  trace-cmd: %r\n  traceio:   %r' % (fmt, args, a, b))
    print('variants %d diffs %d' % (ran, diffs))
    return 1 if diffs else 0


if __name__ == '__main__':
    if len(sys.argv) >= 3 and sys.argv[1] == 'values':
        sys.exit(values(sys.argv[2]))
    if len(sys.argv) >= 5 and sys.argv[1] == 'variants':
        sys.exit(variants(sys.argv[2], sys.argv[3], sys.argv[4], *[int(x) for x in sys.argv[5:7]]))
    sys.exit(__doc__)
