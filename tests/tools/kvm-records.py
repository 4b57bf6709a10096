#!/usr/bin/env python3
"""Rewrite the trace_marker records of a real kvm recording into kvm and
kvmmmu records this host cannot make, so that `trace-cmd report` (its kvm
plugin) is the reference for them.

The recording (trace.dat v6, `-e kvm -e kvmmmu`, tests/tools/kvm-guest -m N)
carries the format of every kvm/kvmmmu event and fixed-size ftrace:print
records; those become, in time order:
  - kvm_exit with every exit code 0..0x8f and others for isa 2 (SVM),
    0..70 and others for isa 1 (VMX), and isa values the plugin does not
    know (the PVM host this was written on never fires kvm_exit);
  - kvm_entry, kvm_nested_vmexit, kvm_nested_vmexit_inject;
  - kvm_emulate_insn of every length 0..15 (0: the plugin shows the bytes
    of the record before), longer ones (the bytes after insn), failed;
  - kvm_mmu_get_page / sync / unsync / prepare_zap_page with every single
    role bit, every level, access, quadrant, smm, odd root counts;
  - kvmmmu:fast_page_fault with its print fmt changed to call
    is_writable_pte() (as kernels before 5.x did, through __spte_satisfied),
    alone and after `==` (a function is not an operator to rotate into).
The rest of the file is kept (real records, formats), except kallsyms,
which is cut (no kvm text uses it).  64-bit little- or big-endian v6 only.

With --old, kvm_exit, kvm_entry and kvm_nested_vmexit get the formats of
older kernels first (kvm_exit and kvm_entry of 2.6.3x: no isa, no info1/2,
no rip in kvm_entry; kvm_nested_vmexit before 5.x: rip and exit_code, the
fields the plugin was written for).

Usage: kvm-records.py [--old] IN.dat OUT.dat
"""
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tdv6  # noqa: E402

SVM_EXTRA = [0x400, 0x401, 0x402, 0x403, 0x404, 0x80000001, 0x7fffffff, 0xfffffffe, 0xffffffff]
VMX_EXTRA = [74, 75, 84, 0xffff, 0x10000, 0x80000000, 0x80000021, 0xffffffff]


def items():
    """The records to make: (event, {field: value})"""
    out = []
    k = 0
    for isa, codes in ((2, list(range(0x90)) + SVM_EXTRA), (1, list(range(71)) + VMX_EXTRA),
                       (0, [0x7b, 12]), (3, [0x7b]), (0xffffffff, [1])):
        for c in codes:
            k += 1
            out.append(('kvm_exit', dict(exit_reason=c, isa=isa, guest_rip=0xffffffff81000000 + 0x10 * k,
                                         info1=(k * 0x1001) if k % 3 else 0,
                                         info2=0xfee00000 + k if k % 2 else 0,
                                         intr_info=0x80000000 | k, error_code=k % 5,
                                         vcpu_id=k % 3, requests=k)))
    for v, rip in ((0, 0x10000), (1, 0xffffffff81234567), (0xffffffff, 0), (7, 0xffffffffffffffff)):
        out.append(('kvm_entry', dict(vcpu_id=v, rip=rip, immediate_exit=v & 1, intr_info=v, error_code=1)))
    for isa, c in ((2, 0x7b), (2, 0x400), (1, 30), (1, 0x80000021)):
        out.append(('kvm_nested_vmexit', dict(exit_reason=c, isa=isa, guest_rip=0x401000 + c, info1=c,
                                              info2=0x1000, intr_info=0, error_code=0, vcpu_id=0,
                                              rip=0x401000 + c, exit_code=c, exit_info1=c, exit_info2=0x1000,
                                              exit_int_info=0x80000300 + c, exit_int_info_err=7)))
    for isa, c in ((2, 0x7b), (2, 0x400), (2, 0x72), (2, 0x2), (2, 0xffffffff), (1, 30), (1, 48), (1, 3),
                   (5, 0x7b)):
        out.append(('kvm_nested_vmexit_inject', dict(exit_code=c, isa=isa, exit_info1=c * 0x10001,
                                                     exit_info2=0xfffffffffffff000 if c & 1 else 0,
                                                     exit_int_info=0x80000b0e if c & 2 else 0,
                                                     exit_int_info_err=c & 0xff)))
    insn = bytes(range(0xf0, 0xff)) + b'\x0f'
    for n in list(range(1, 16)) + [0, 0, 3, 0, 16, 20, 60, 15]:
        failed = 1 if n in (3, 20) else 0
        out.append(('kvm_emulate_insn', dict(rip=0xffffffff81000000 + n, csbase=0xf0000 if n & 1 else 0, len=n,
                                             insn=insn[:15] if n != 3 else b'\x0f\x0b\x90',
                                             flags=(0, 1, 3, 5, 9, 0xff)[n % 6], failed=failed)))
    roles = [1 << b for b in range(32)] + [0, 0xffffffff, 0x1782, 0x10f24, 0x3004, 0x1e04, 0x1c02]
    roles += [lv for lv in range(16)] + [a << 8 for a in range(8)] + [q << 5 | 2 for q in range(4)]
    roles += [0x01001782, 0x80000000 | 0x1f01, 0x00ff0000 | 0x1703]
    for i, r in enumerate(roles):
        out.append(('kvm_mmu_get_page', dict(mmu_valid_gen=i & 3, gfn=(0xfffffffffffff if i == 3 else i * 0x1000),
                                             role=r, root_count=(0, 1, 0xffffffff, 0x80000000, 3)[i % 5],
                                             unsync=(0, 1, 2)[i % 3], created=i & 1)))
    for ev in ('kvm_mmu_sync_page', 'kvm_mmu_unsync_page', 'kvm_mmu_prepare_zap_page', 'kvm_mmu_zap_page'):
        for i, r in enumerate((0x1782, 0xf0000001, 0x000fe3ff, 0x00004c13)):
            out.append((ev, dict(mmu_valid_gen=i, gfn=0x100 + i, role=r, root_count=i, unsync=i & 1)))
    for old, new, ret in ((0x8000000000000003, 0x8000000000000001, 1), (0x2, 0x0, 1),
                          (0x0, 0x2, 0), (0x0, 0xfffffffffffffffe, 6), (0x6, 0x3, 5)):
        out.append(('fast_page_fault', dict(vcpu_id=ret, cr2_or_gpa=0x7f0000 + ret, error_code=(ret * 3) & 0x1f,
                                            sptep=0xffff888100000000 + 8 * ret, old_spte=old, new_spte=new,
                                            ret=ret)))
    return out


def fmt_fields(text):
    f = {}
    for m in re.finditer(r'field:(.*?);\s*offset:(\d+);\s*size:(\d+);', text):
        name = re.sub(r'\[.*', '', m.group(1).split()[-1])
        f[name] = (int(m.group(2)), int(m.group(3)))
    return f


# is_writable_pte as kernels before 5.6 used it (through __spte_satisfied), and
# alone: the value the plugin's function returns, and after `==`
FPF_PRINT = ('print fmt: "vcpu %d gva %llx error_code %s sptep %p old %#llx new %llx spurious %d fixed %d'
             ' w %d eq %d", REC->vcpu_id, REC->cr2_or_gpa, __print_flags(REC->error_code, "|",'
             ' { 1, "P" }, { 2, "W" }, { 4, "U" }, { 8, "RSVD" }, { 16, "F" }), REC->sptep,'
             ' REC->old_spte, REC->new_spte, (REC->ret && is_writable_pte(REC->old_spte)),'
             ' (REC->ret && is_writable_pte(REC->new_spte)), is_writable_pte(REC->old_spte),'
             ' 2 == is_writable_pte(REC->new_spte)\n')


COMMON = ('\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n'
          '\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n'
          '\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n'
          '\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n')
OLD = {
    'kvm_exit': ('\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n'
                 '\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n\n'
                 'print fmt: "reason %s rip 0x%lx", __print_symbolic(REC->exit_reason, { 0, "EXCEPTION_NMI" },'
                 ' { 1, "EXTERNAL_INTERRUPT" }, { 12, "HLT" }, { 30, "IO_INSTRUCTION" }), REC->guest_rip\n'),
    'kvm_entry': ('\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n\n'
                  'print fmt: "vcpu %u", REC->vcpu_id\n'),
    'kvm_nested_vmexit': ('\tfield:__u64 rip;\toffset:8;\tsize:8;\tsigned:0;\n'
                          '\tfield:__u32 exit_code;\toffset:16;\tsize:4;\tsigned:0;\n'
                          '\tfield:__u64 exit_info1;\toffset:24;\tsize:8;\tsigned:0;\n'
                          '\tfield:__u64 exit_info2;\toffset:32;\tsize:8;\tsigned:0;\n'
                          '\tfield:__u32 exit_int_info;\toffset:40;\tsize:4;\tsigned:0;\n'
                          '\tfield:__u32 exit_int_info_err;\toffset:44;\tsize:4;\tsigned:0;\n'
                          '\tfield:__u32 isa;\toffset:48;\tsize:4;\tsigned:0;\n\n'
                          'print fmt: "rip: 0x%016llx reason: %s ext_inf1: 0x%016llx ext_inf2: 0x%016llx'
                          ' ext_int: 0x%08x ext_int_err: 0x%08x", REC->rip, (REC->isa == 1) ?'
                          ' __print_symbolic(REC->exit_code, { 30, "IO_INSTRUCTION" }) :'
                          ' __print_symbolic(REC->exit_code, { 0x07b, "io" }, { 0x400, "npf" }),'
                          ' REC->exit_info1, REC->exit_info2, REC->exit_int_info, REC->exit_int_info_err\n'),
}


def main(inp, out, old=False):
    v = tdv6.V6(bytearray(open(inp, 'rb').read()))
    assert v.long_size == 8, '64-bit only'
    b, e, u = v.b, v.e, v.u
    ev = {}  # name -> (id, fields)
    for text in v.ftrace:
        m = re.search(r'name: (\S+)\nID: (\d+)', text)
        ev[m.group(1)] = (int(m.group(2)), fmt_fields(text))
    systems = v.systems
    clock = bytes(b[v.clock_at:v.clock_at + 8 + u('Q', v.clock_at)])

    # the kvm formats, fast_page_fault's print fmt changed
    new_systems = []
    for sname, texts in systems:
        nt = []
        for t in texts:
            m = re.search(r'name: (\S+)\nID: (\d+)', t)
            if m and m.group(1) not in ev:
                ev[m.group(1)] = (int(m.group(2)), fmt_fields(t))
            if old and sname == 'kvm' and m and m.group(1) in OLD:
                t = t[:t.index('format:')] + 'format:\n' + COMMON + OLD[m.group(1)]
                ev[m.group(1)] = (int(m.group(2)), fmt_fields(t))
            if sname == 'kvmmmu' and m and m.group(1) == 'fast_page_fault' and \
                    {'vcpu_id', 'cr2_or_gpa', 'error_code', 'sptep', 'old_spte', 'new_spte', 'ret'} <= \
                    set(fmt_fields(t)):
                t = t[:t.index('print fmt:')] + FPF_PRINT
            nt.append(t)
        new_systems.append((sname, nt))
    if 'fast_page_fault' in ev and 'ret' not in ev['fast_page_fault'][1]:
        del ev['fast_page_fault']

    # the print records, in time order
    recs = [r for r in v.records() if u('H', r[2]) == ev['print'][0] and r[3] >= 100]
    recs.sort()
    todo = [(name, vals) for name, vals in items() if name in ev]
    if len(recs) < len(todo):
        sys.exit('kvm-records.py: %d marker records for %d kvm records' % (len(recs), len(todo)))
    for (ts, cpu, data, dlen), (name, vals) in zip(recs, todo):
        eid, fields = ev[name]
        struct.pack_into(e + 'H', b, data, eid)
        b[data + 8:data + dlen] = bytes(dlen - 8)
        for fname, val in vals.items():
            if fname not in fields:
                continue
            off, size = fields[fname]
            if isinstance(val, bytes):
                b[data + off:data + off + min(size, len(val))] = val[:size]
            else:
                struct.pack_into(e + {1: 'B', 2: 'H', 4: 'I', 8: 'Q'}[size], b, data + off,
                                 val & ((1 << (8 * size)) - 1))

    # written with the new formats and no kallsyms (CPU data moved)
    sysb = struct.pack(e + 'I', len(new_systems))
    for sname, texts in new_systems:
        sysb += sname.encode() + b'\0' + struct.pack(e + 'I', len(texts))
        for t in texts:
            sysb += struct.pack(e + 'Q', len(t.encode())) + t.encode()
    v.write(out, bytes(b[:v.sys_at]) + sysb + struct.pack(e + 'I', 0) + bytes(b[v.rest_at:v.table_at]), clock)
    print('%d of %d marker records rewritten' % (len(todo), len(recs)))


if __name__ == '__main__':
    a = sys.argv[1:]
    o = bool(a) and a[0] == '--old'
    if o:
        a = a[1:]
    if len(a) != 2:
        sys.exit(__doc__)
    main(a[0], a[1], o)
