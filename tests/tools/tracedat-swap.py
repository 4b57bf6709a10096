#!/usr/bin/env python3
"""Turn a little-endian trace.dat version 6 file into the big-endian file a
big-endian machine would have written: endian byte 1 and every binary number
in big-endian order (the text parts are kept as they are).

Usage: tracedat-swap.py [--pages N [--cut-original OUT-LE.dat]] IN.dat OUT.dat

What is swapped:
  - file header: page size; header_page / header_event sizes; the ftrace
    format count and sizes; event systems: count, events per system, format
    sizes; kallsyms and printk sizes; saved cmdlines size; CPU count;
  - options: id and size; CPUCOUNT (u32), TRACEID (u64), TSC2NSEC (u32 mult,
    u32 shift, u64 offset), BUFFER (u64 offset, then the name); the text
    options (DATE, CPUSTAT, TRACECLOCK, UNAME, HOOK, OFFSET, VERSION,
    PROCMAPS) unchanged; any other id is refused;
  - flyrecord CPU tables (u64 offset, u64 size per CPU) of the top buffer and
    of each BUFFER instance, and the trace clock size (u64) after a table;
  - ring-buffer pages: time stamp, commit (its flag bits kept), the lost
    events count stored after the data (commit bit 30); event headers
    re-encoded (type_len moves from the low 5 bits to the high 5 bits) and
    written big-endian; the u32 after a type_len 0 / 29 / 30 / 31 header;
  - record fields per the event's format (found by common_type): integers
    of 2/4/8 bytes, static arrays element by element, __data_loc/__rel_loc
    words and their contents when the element is wider than a byte,
    zero-size trailing arrays per element up to the end of the record
    (char and u8 arrays are bytes: kept; __be16/__le32... kept); ftrace
    bprint's `u32 buf[]`: the arguments of its printk format (found by the
    record's fmt address in printk_formats), laid out as the kernel's
    vbin_printf stores them (numbers of 1/2/4/8 bytes, 8-byte ones 4-aligned,
    strings inline).

Left as they are, and listed on stderr: bprint records whose format is not
in printk_formats or has a conversion not understood, fields whose element
size cannot be told from the format, records of unknown event ids.
-R of trace-cmd prints static arrays of wider elements byte by byte in file
order: such lines differ between the two byte orders by nature.
"""
import re
import struct
import sys

MAGIC = b"\x17\x08\x44tracing"

OPT_TEXT = {1: "DATE", 2: "CPUSTAT", 4: "TRACECLOCK", 5: "UNAME", 6: "HOOK",
            7: "OFFSET", 9: "VERSION", 10: "PROCMAPS"}
OPT_BUFFER, OPT_CPUCOUNT, OPT_TRACEID, OPT_TSC2NSEC = 3, 8, 11, 14


class SwapError(Exception):
    pass


def rev(buf, pos, n):
    """Reverse n bytes at pos (one integer from one byte order to the other)."""
    if n > 1:
        buf[pos:pos + n] = buf[pos:pos + n][::-1]


class Swapper:
    def __init__(self, data):
        self.b = bytearray(data)
        self.p = 0
        self.long_size = 8
        self.page_size = 4096
        self.cpus = 0
        self.hp = {"timestamp": (0, 8), "commit": (8, 8), "data": (16, 0)}
        self.events = {}          # id -> event description
        self.common_type = (0, 2)
        self.buffers = []         # (offset, name) of v6 BUFFER options
        self.not_swapped = {}     # what was left as it was -> records
        self.unknown_ids = {}
        self.max_pages = None     # --pages: keep that many pages of each CPU
        self.cuts = []            # (file offset of a CPU size, new size)
        self.pages_done = set()
        self.printk = {}          # address -> trace_printk format (printk_formats)
        self.bprint_args = {}     # format -> argument list, None when not understood

    # ---- reading with swapping, in file order
    def need(self, n, what):
        if self.p + n > len(self.b):
            raise SwapError("truncated at 0x%x (%s)" % (self.p, what))

    def num(self, n, what):
        """Read an n-byte little-endian number at p, swap it in place."""
        self.need(n, what)
        v = int.from_bytes(self.b[self.p:self.p + n], "little")
        rev(self.b, self.p, n)
        self.p += n
        return v

    def cstr(self, what):
        z = self.b.find(b"\0", self.p)
        if z < 0:
            raise SwapError("unterminated string at 0x%x (%s)" % (self.p, what))
        s = bytes(self.b[self.p:z]).decode("latin-1")
        self.p = z + 1
        return s

    def blob(self, n, what):
        self.need(n, what)
        s = bytes(self.b[self.p:self.p + n])
        self.p += n
        return s

    # ---- formats
    def type_size(self, t):
        """Size of one element of C type t, None when unknown, 0 = never swap."""
        t = re.sub(r"\b(const|volatile|__data_loc|__rel_loc|struct|enum)\b", " ", t)
        t = t.replace("[]", " ")
        t = " ".join(t.split())
        if "*" in t:
            return self.long_size
        if re.fullmatch(r"__(be|le)(16|32|64)", t):
            return 0  # stored in that byte order on every machine
        t = re.sub(r"^(unsigned|signed) ?", "", t) or "int"
        if t in ("char", "bool", "_Bool", "u8", "s8", "__u8", "__s8", "uint8_t", "int8_t"):
            return 1
        if t in ("short", "short int", "u16", "s16", "__u16", "__s16", "uint16_t", "int16_t"):
            return 2
        if t in ("int", "u32", "s32", "__u32", "__s32", "uint32_t", "int32_t", "pid_t", "gfp_t",
                 "uid_t", "gid_t", "dev_t"):
            return 4
        if t in ("long long", "long long int", "u64", "s64", "__u64", "__s64", "uint64_t",
                 "int64_t", "loff_t", "ktime_t"):
            return 8
        if t in ("long", "long int", "size_t", "ssize_t", "uintptr_t", "cpumask_t"):
            return self.long_size
        return None

    def parse_format(self, sysname, text):
        txt = text.decode("latin-1")
        m = re.search(r"^name: *(\S+)", txt, re.M)
        i = re.search(r"^ID: *(\d+)", txt, re.M)
        if not m or not i:
            raise SwapError("format of system %s without name or ID" % sysname)
        name = "%s:%s" % (sysname, m.group(1))
        ops = []
        common = not self.events
        fmt_field = None  # bprint: where the format pointer is
        for fl in re.finditer(r"field(?: special)?:([^;]*);\s*offset:(\d+);\s*size:(\d+);", txt):
            decl, off, size = fl.group(1).strip(), int(fl.group(2)), int(fl.group(3))
            d = re.fullmatch(r"(.*?)\s*([A-Za-z_]\w*)\s*(\[([^\]]*)\])?", decl)
            if not d:
                raise SwapError("%s: cannot read field '%s'" % (name, decl))
            typ, fname, arr, dim = d.group(1), d.group(2), d.group(3), d.group(4)
            if common and fname == "common_type":
                self.common_type = (off, size)
            if fname == "fmt" and size in (4, 8):
                fmt_field = (off, size)
            what = "%s.%s" % (name, fname)
            k = int(dim, 0) if dim and re.fullmatch(r"\d+|0x[0-9a-fA-F]+", dim) else 0
            if typ.startswith("__data_loc") or typ.startswith("__rel_loc"):
                el = self.type_size(typ)
                if el is None:
                    ops.append(("left", "%s: dynamic array of '%s', element size unknown" % (what, typ)))
                elif el > 1:
                    ops.append(("dyn", off, size, el, typ.startswith("__rel_loc")))
                elif size in (2, 4):
                    ops.append(("int", off, size))
            elif size == 0 and (arr is None or k == 0):
                # trailing array (older kernels declare it without brackets):
                # up to the end of the record
                el = self.type_size(typ)
                if name == "ftrace:bprint" and fname == "buf" and fmt_field:
                    ops.append(("bprint", off, fmt_field))
                elif el is None:
                    ops.append(("left", "%s: array of '%s', element size unknown" % (what, typ)))
                elif el > 1:
                    ops.append(("rest", off, el))
            elif arr is not None:
                el = size // k if k and size % k == 0 else self.type_size(typ)
                if self.type_size(typ) == 1:
                    continue  # text or bytes (even when size / count says otherwise)
                if el is None:
                    ops.append(("left", "%s: array of '%s', element size unknown" % (what, typ)))
                elif el > 1 and self.type_size(typ) != 0:
                    # kernel_stack / user_stack records hold `size` callers, maybe
                    # more than the declared count: swap up to the end of the record
                    rest = name in ("ftrace:kernel_stack", "ftrace:user_stack")
                    ops.append(("array", off, size, el, rest))
            elif size in (2, 4, 8):
                if self.type_size(typ) != 0:
                    ops.append(("int", off, size))
            elif size != 1:
                ops.append(("left", "%s: '%s' of %d bytes" % (what, typ, size)))
        self.events[int(i.group(1))] = (name, ops)

    # ---- the header
    def header(self):
        b = self.b
        if bytes(b[:10]) != MAGIC:
            raise SwapError("not a trace.dat file")
        self.p = 10
        ver = self.cstr("version")
        if ver != "6":
            raise SwapError("version %s: only version 6 files are swapped" % ver)
        self.need(2, "endian")
        if b[self.p] != 0:
            raise SwapError("not a little-endian file")
        b[self.p] = 1
        self.long_size = b[self.p + 1]
        if self.long_size not in (4, 8):
            raise SwapError("long size %d" % self.long_size)
        self.p += 2
        self.page_size = self.num(4, "page size")
        for want in ("header_page", "header_event"):
            if self.cstr(want) != want:
                raise SwapError("expected %s" % want)
            text = self.blob(self.num(8, want + " size"), want).decode("latin-1")
            if want == "header_page":
                for fl in re.finditer(r"field:[^;]*?(\w+);\s*offset:(\d+);\s*size:(\d+);", text):
                    if fl.group(1) in ("timestamp", "commit", "data"):
                        self.hp[fl.group(1)] = (int(fl.group(2)), int(fl.group(3)))
            elif not (re.search(r"type_len\s*:\s*5 bits", text)
                      and re.search(r"time_delta\s*:\s*27 bits", text)):
                raise SwapError("event header is not type_len 5 bits + time_delta 27 bits")
        for _ in range(self.num(4, "ftrace formats")):
            self.parse_format("ftrace", self.blob(self.num(8, "ftrace format size"), "format"))
        for _ in range(self.num(4, "event systems")):
            sysname = self.cstr("system name")
            for _ in range(self.num(4, "events of " + sysname)):
                self.parse_format(sysname, self.blob(self.num(8, "format size"), "format"))
        self.blob(self.num(4, "kallsyms size"), "kallsyms")
        text = self.blob(self.num(4, "printk size"), "printk formats").decode("latin-1")
        for m in re.finditer(r'^\s*0x([0-9a-fA-F]+) : "(.*)"\s*$', text, re.M):
            self.printk[int(m.group(1), 16)] = m.group(2)
        self.blob(self.num(8, "cmdlines size"), "saved cmdlines")
        self.cpus = self.num(4, "cpus")
        while True:
            tag = self.blob(10, "section tag")
            if tag == b"options  \0":
                self.options()
            elif tag == b"latency  \0":
                return  # the rest is text
            elif tag == b"flyrecord\0":
                self.cpu_table("top buffer", self.p)
                for off, name in self.buffers:
                    o = off + 10 if bytes(b[off:off + 10]) == b"flyrecord\0" else off
                    self.cpu_table("instance " + name, o)
                return
            else:
                raise SwapError("unknown section %r at 0x%x" % (tag, self.p - 10))

    def options(self):
        while True:
            oid = self.num(2, "option id")
            if oid == 0:
                return
            size = self.num(4, "option size")
            end = self.p + size
            self.need(size, "option data")
            if oid in OPT_TEXT:
                pass
            elif oid == OPT_CPUCOUNT and size == 4:
                self.cpus = self.num(4, "CPUCOUNT")
            elif oid == OPT_TRACEID and size == 8:
                self.num(8, "TRACEID")
            elif oid == OPT_TSC2NSEC and size == 16:
                self.num(4, "TSC2NSEC mult")
                self.num(4, "TSC2NSEC shift")
                self.num(8, "TSC2NSEC offset")
            elif oid == OPT_BUFFER and size >= 9:
                off = self.num(8, "BUFFER offset")
                self.buffers.append((off, self.cstr("BUFFER name")))
            else:
                raise SwapError("option id %d (%d bytes) at 0x%x: do not know how to swap it"
                                % (oid, size, self.p - 6))
            self.p = end

    def cpu_table(self, what, at):
        self.p = at
        table = []
        for _ in range(self.cpus):
            off = self.num(8, "cpu offset of " + what)
            size = self.num(8, "cpu size of " + what)
            if self.max_pages is not None and size > self.max_pages * self.page_size:
                size = self.max_pages * self.page_size
                self.cuts.append((self.p - 8, size))
            table.append((off, size))
        # the trace clock: size u64 + text, unless the CPU data starts right here
        data = [o for o, s in table if s]
        if self.p + 8 <= len(self.b) and (not data or self.p + 8 <= min(data)):
            self.num(8, "trace clock size of " + what)
        for off, size in table:
            self.cpu_data(off, size)

    # ---- ring-buffer pages
    def cpu_data(self, off, size):
        ps = self.page_size
        end = min(off + size, len(self.b))
        while off + ps <= end:
            if off not in self.pages_done:  # never swap a page twice
                self.pages_done.add(off)
                self.page(off)
            off += ps

    def page(self, pg):
        b = self.b
        ts_off, ts_size = self.hp["timestamp"]
        c_off, c_size = self.hp["commit"]
        d_off = self.hp["data"][0]
        commit = int.from_bytes(b[pg + c_off:pg + c_off + c_size], "little")
        rev(b, pg + ts_off, ts_size)
        rev(b, pg + c_off, c_size)
        size = commit & ((1 << 27) - 1)
        if size > self.page_size - d_off:
            raise SwapError("page at 0x%x: commit %d larger than the page" % (pg, size))
        data = pg + d_off
        if commit & (1 << 31) and commit & (1 << 30) and size + self.long_size <= self.page_size - d_off:
            rev(b, data + size, self.long_size)  # lost events count
        pos = 0
        while pos + 4 <= size:
            h = data + pos
            w = int.from_bytes(b[h:h + 4], "little")
            type_len, delta = w & 31, w >> 5
            struct.pack_into(">I", b, h, (type_len << 27) | delta)
            ptr = pos + 4
            if type_len == 29:  # padding: length in array[0], from after the header
                if ptr + 4 > size:
                    break
                length = int.from_bytes(b[data + ptr:data + ptr + 4], "little")
                rev(b, data + ptr, 4)
                pos = ptr + length
                continue
            if type_len in (30, 31):  # time extend, absolute time stamp
                if ptr + 4 > size:
                    break
                rev(b, data + ptr, 4)
                pos = ptr + 4
                continue
            if type_len == 0:
                if ptr + 4 > size:
                    break
                length = int.from_bytes(b[data + ptr:data + ptr + 4], "little")
                rev(b, data + ptr, 4)
                length = 0 if length < 4 else (length - 4 + 3) & ~3
                ptr += 4
            else:
                length = type_len * 4
            if length > size - ptr:
                raise SwapError("page at 0x%x: record past the commit size" % pg)
            self.record(data + ptr, length)
            pos = ptr + length

    def record(self, r, n):
        b = self.b
        to, ts = self.common_type
        if to + ts > n:
            return
        eid = int.from_bytes(b[r + to:r + to + ts], "little")
        ev = self.events.get(eid)
        if ev is None:
            self.unknown_ids[eid] = self.unknown_ids.get(eid, 0) + 1
            return
        name, ops = ev
        for op in ops:
            kind, off = op[0], op[1]
            if kind == "int":
                if off + op[2] <= n:
                    rev(b, r + off, op[2])
            elif kind == "array":
                _, _, size, el, rest = op
                stop = n if rest else min(off + size, n)
                for e in range(off, stop - el + 1, el):
                    rev(b, r + e, el)
            elif kind == "rest":
                el = op[2]
                if el > 1:
                    for e in range(off, n - el + 1, el):
                        rev(b, r + e, el)
            elif kind == "dyn":
                _, _, size, el, rel = op
                if off + size > n or size not in (2, 4):
                    continue
                v = int.from_bytes(b[r + off:r + off + size], "little")
                rev(b, r + off, size)
                if el <= 1:
                    continue
                o = v & 0xffff
                ln = (v >> 16) & 0xffff if size == 4 else n - o
                if rel:
                    o += off + size
                for e in range(o, min(o + ln, n) - el + 1, el):
                    rev(b, r + e, el)
            elif kind == "bprint":
                self.bprint(r, n, off, op[2])
            elif kind == "left":
                self.not_swapped[off] = self.not_swapped.get(off, 0) + 1

    def bprint_layout(self, fmt):
        """The arguments a trace_printk format stores in bprint's buf, as the
        kernel's vbin_printf writes them: ("num", size, align) or ("str",).
        None when a conversion is not understood."""
        if fmt in self.bprint_args:
            return self.bprint_args[fmt]
        out, i, n, ls = [], 0, len(fmt), self.long_size
        try:
            while i < n:
                if fmt[i] != "%":
                    i += 1
                    continue
                i += 1
                if fmt[i] == "%":
                    i += 1
                    continue
                while fmt[i] in "-+ #0":
                    i += 1
                for part in ("width", "precision"):
                    if part == "precision":
                        if fmt[i] != ".":
                            break
                        i += 1
                    if fmt[i] == "*":
                        out.append(("num", 4, 4))
                        i += 1
                    while fmt[i].isdigit():
                        i += 1
                q = ""
                while fmt[i] in "hlLzZt":
                    q += fmt[i]
                    i += 1
                c = fmt[i]
                i += 1
                if c == "s":
                    out.append(("str",))
                elif c == "p":
                    ext = fmt[i] if i < n and fmt[i].isalnum() else ""
                    while i < n and fmt[i].isalnum():
                        i += 1
                    if ext and ext not in "SsFfxKe":
                        out.append(("str",))  # dereferenced: stored formatted
                    else:
                        out.append(("num", ls, 4))
                elif c == "c":
                    out.append(("num", 1, 1))
                elif c in "diuxXo":
                    size = {"": 4, "h": 2, "hh": 1, "l": ls, "ll": 8, "L": 8,
                            "z": ls, "Z": ls, "t": ls}[q]
                    out.append(("num", size, min(size, 4)))
                else:
                    raise KeyError(c)
        except (IndexError, KeyError):
            out = None
        self.bprint_args[fmt] = out
        return out

    def bprint(self, r, n, buf, fmt_field):
        b = self.b
        fo, fs = fmt_field
        # the fmt field was swapped already (it comes before buf)
        addr = int.from_bytes(b[r + fo:r + fo + fs], "big")
        fmt = self.printk.get(addr)
        args = self.bprint_layout(fmt) if fmt is not None else None
        if args is None:
            why = "ftrace:bprint.buf: format at 0x%x %s" % (
                addr, "not in printk_formats" if fmt is None else "not understood: " + fmt)
            self.not_swapped[why] = self.not_swapped.get(why, 0) + 1
            return
        p = buf
        for a in args:
            if a[0] == "str":
                z = b.find(b"\0", r + p, r + n)
                if z < 0:
                    break
                p = z + 1 - r
                continue
            size, align = a[1], a[2]
            p = (p - buf + align - 1) // align * align + buf
            if p + size > n:
                break
            rev(b, r + p, size)
            p += size


USAGE = """usage: tracedat-swap.py [--pages N [--cut-original OUT-LE.dat]] IN.dat OUT.dat
  --pages N         keep only the first N pages of each CPU's data (in every
                    buffer instance): a short copy of a big file
  --cut-original F  also write IN cut the same way, still little-endian, to
                    compare with OUT
"""


def main(argv):
    args = argv[1:]
    pages, orig_out = None, None
    while args and args[0].startswith("--"):
        if args[0] == "--pages" and len(args) > 1 and args[1].isdigit():
            pages = int(args[1])
        elif args[0] == "--cut-original" and len(args) > 1:
            orig_out = args[1]
        else:
            args = []
            break
        args = args[2:]
    if len(args) != 2 or (orig_out and pages is None):
        sys.stderr.write(USAGE)
        return 2
    argv = [argv[0]] + args
    with open(argv[1], "rb") as f:
        data = f.read()
    s = Swapper(data)
    s.max_pages = pages
    try:
        s.header()
    except SwapError as e:
        sys.stderr.write("tracedat-swap: %s: %s\n" % (argv[1], e))
        return 1
    for what, count in sorted(s.not_swapped.items()):
        sys.stderr.write("tracedat-swap: not swapped in %d records: %s\n" % (count, what))
    for eid, count in sorted(s.unknown_ids.items()):
        sys.stderr.write("tracedat-swap: not swapped: %d records of unknown event id %d\n" % (count, eid))
    if orig_out:
        cut = bytearray(data)
        for at, size in s.cuts:
            struct.pack_into("<Q", cut, at, size)
        with open(orig_out, "wb") as f:
            f.write(cut)
    for at, size in s.cuts:
        struct.pack_into(">Q", s.b, at, size)
    with open(argv[2], "wb") as f:
        f.write(s.b)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
