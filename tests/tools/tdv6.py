"""The layout of a trace.dat version 6 file, for the test tools that rewrite
real recordings (tests/ftrace/mk-funcs.py, tests/tools/kvm-records.py).

V6(b) finds where each part of the file is: the ftrace and event formats,
kallsyms, printk formats, saved cmdlines, the options, the flyrecord CPU
table and the clock list after it.  records() walks the ring-buffer pages
of every CPU; write() puts a new head in front of the CPU data.
"""
import struct


class V6:
    def __init__(self, b):
        assert b[:10] == b'\x17\x08\x44tracing', 'not a trace.dat'
        at = b.index(b'\0', 10)
        assert b[10:at] == b'6', 'v6 only'
        at += 1
        self.b = b
        self.e = e = '>' if b[at] == 1 else '<'
        self.long_size = b[at + 1]
        self.page_size = struct.unpack_from(e + 'I', b, at + 2)[0]
        at += 6
        for name in (b'header_page\0', b'header_event\0'):
            assert b[at:at + len(name)] == name
            at += len(name)
            at += 8 + self.u('Q', at)
        # ftrace formats: [text]
        self.ftrace = []
        n = self.u('I', at)
        at += 4
        for _ in range(n):
            size = self.u('Q', at)
            self.ftrace.append(bytes(b[at + 8:at + 8 + size]).decode())
            at += 8 + size
        # event systems: [(name, [text])]
        self.sys_at = at
        self.systems = []
        nsys = self.u('I', at)
        at += 4
        for _ in range(nsys):
            z = b.index(b'\0', at)
            sname = bytes(b[at:z]).decode()
            at = z + 1
            n = self.u('I', at)
            at += 4
            texts = []
            for _ in range(n):
                size = self.u('Q', at)
                texts.append(bytes(b[at + 8:at + 8 + size]).decode())
                at += 8 + size
            self.systems.append((sname, texts))
        self.kall_at = at
        self.kallsyms = bytes(b[at + 4:at + 4 + self.u('I', at)]).decode()
        self.rest_at = at = at + 4 + self.u('I', at)  # printk formats, cmdlines...
        at += 4 + self.u('I', at)  # printk formats
        at += 8 + self.u('Q', at)  # saved cmdlines
        self.ncpus = self.u('I', at)
        at += 4
        assert b[at:at + 10] == b'options  \0'
        at += 10
        while True:
            oid = self.u('H', at)
            at += 2
            if oid == 0:
                break
            at += 4 + self.u('I', at)
        assert b[at:at + 10] == b'flyrecord\0', 'flyrecord only'
        self.table_at = at = at + 10
        self.cpus = [struct.unpack_from(e + 'QQ', b, at + 16 * i) for i in range(self.ncpus)]
        self.clock_at = at + 16 * self.ncpus  # the trace clock list (u64 size first)

    def u(self, fmt, off):
        return struct.unpack_from(self.e + fmt, self.b, off)[0]

    def records(self):
        """(time, cpu, data offset, data length) of every record, per CPU and page."""
        u = self.u
        for cpu, (off, size) in enumerate(self.cpus):
            for page in range(off, off + size, self.page_size):
                commit = u('Q', page + 8) & ((1 << 27) - 1)
                ts = u('Q', page)
                p = page + 16
                end = p + commit
                while p < end:
                    h = u('I', p)
                    tl, delta = (h & 31, h >> 5) if self.e == '<' else (h >> 27, h & ((1 << 27) - 1))
                    if tl == 29:  # padding
                        if delta == 0:
                            break
                        ts += delta
                        p += 4 + u('I', p + 4)
                        continue
                    if tl == 30:  # time extend
                        ts += (u('I', p + 4) << 27) | delta
                        p += 8
                        continue
                    if tl == 31:  # absolute time stamp
                        ts = (u('I', p + 4) << 27) | delta
                        p += 8
                        continue
                    ts += delta
                    if tl == 0:
                        dlen = u('I', p + 4) - 4
                        data = p + 8
                    else:
                        dlen = tl * 4
                        data = p + 4
                    yield ts, cpu, data, dlen
                    p = data + dlen

    def write(self, out, head, clock=b''):
        """head (the file up to its CPU table), the table, clock, then the CPU
        data of this file, moved to the next page boundary."""
        e, ps = self.e, self.page_size
        data_at = (len(head) + 16 * self.ncpus + len(clock) + ps - 1) // ps * ps
        table = b''
        blob = b''
        for off, size in self.cpus:
            table += struct.pack(e + 'QQ', data_at + len(blob) if size else 0, size)
            blob += bytes(self.b[off:off + size])
        with open(out, 'wb') as f:
            f.write(head + table + clock + b'\0' * (data_at - len(head) - len(table) - len(clock)) + blob)
