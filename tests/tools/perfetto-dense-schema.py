#!/usr/bin/python3
"""Make the schema that decodes Perfetto's dense generic ftrace events.

usage: perfetto-dense-schema.py DECODED.txt SCHEMA.proto OUTDIR

DECODED.txt is `protoc --decode=perfetto.protos.Trace` of a trace with
SCHEMA.proto, in which the dense generic events (FtraceEvent fields 65536 on,
Perfetto's denser_generic_event_encoding) show as unknown numbered fields.
Their descriptions are in the trace itself: each
FtraceEventBundle.generic_event_descriptors {field_id, event_descriptor} holds
a serialized google.protobuf.DescriptorProto, as trace_processor reads them
(GenericFtraceTracker::AddDescriptor).  This script decodes them all with
protoc and Debian's descriptor.proto (one call: the descriptors concatenated
as FileDescriptorProto.message_type, field 4), then writes
OUTDIR/<basename of SCHEMA.proto>: SCHEMA.proto in which FtraceEvent no
longer reserves 65536 to 131072 and has, for each descriptor, a field
`g<field_id>_<event name>` of a message TioDense<field_id> with the
descriptor's fields; and OUTDIR/dense.json: {FtraceEvent field name: [event
name, {field: proto type}]} for cmp-perfetto.py.  Fails when a field_id is
described twice differently, or a descriptor has a field type other than
int64, uint64 and string (the ones traceio writes).
"""
import json
import os
import re
import subprocess
import sys

DESCRIPTOR_PROTO = '/usr/include/google/protobuf/descriptor.proto'


def _cmp_perfetto():
    """cmp-perfetto.py beside this file, as a module (its text-format unquoting)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        'cmp_perfetto', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cmp-perfetto.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


unquote_bytes = _cmp_perfetto().unquote_bytes


def varint(n):
    """n as a protobuf varint."""
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7f | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def main():
    """Read the descriptors, decode them with protoc, write the schema copy and the map."""
    dec, schema, outdir = sys.argv[1:4]
    descs = {}  # field_id -> descriptor bytes
    fid = None
    with open(dec, encoding='utf-8', errors='surrogateescape') as f:
        for line in f:
            line = line.strip()
            if line.startswith('field_id: '):
                fid = int(line[10:])
            elif line.startswith('event_descriptor: '):
                b = unquote_bytes(line[18:])
                if fid in descs and descs[fid] != b:
                    sys.exit('field_id %d described twice differently' % fid)
                descs[fid] = b
                fid = None
    ids = sorted(descs)
    parsed = []
    if ids:
        blob = b''.join(b'\x22' + varint(len(descs[i])) + descs[i] for i in ids)
        r = subprocess.run(['protoc', '--proto_path=' + os.path.dirname(os.path.dirname(os.path.dirname(DESCRIPTOR_PROTO))),
                            '--decode=google.protobuf.FileDescriptorProto', 'google/protobuf/descriptor.proto'],
                           input=blob, capture_output=True)
        if r.returncode or r.stderr:
            sys.exit('protoc --decode=google.protobuf.FileDescriptorProto: ' + r.stderr.decode(errors='replace'))
        cur = fld = None
        depth = 0
        for line in r.stdout.decode('utf-8', 'surrogateescape').splitlines():
            t = line.strip()
            if t == 'message_type {':
                cur = {'name': None, 'fields': []}
                depth = 1
            elif t == 'field {' and depth == 1:
                fld = {}
                depth = 2
            elif t == '}':
                if depth == 2:
                    cur['fields'].append(fld)
                elif depth == 1:
                    parsed.append(cur)
                depth -= 1
            elif re.match(r'^\d+[: ]', t):
                sys.exit('unknown field in a DescriptorProto: ' + t)
            else:
                k, _, v = t.partition(': ')
                if depth == 1 and k == 'name':
                    cur['name'] = json.loads(v)
                elif depth == 2:
                    fld[k] = json.loads(v) if v.startswith('"') else v
    if len(parsed) != len(ids):
        sys.exit('%d descriptors, %d decoded' % (len(ids), len(parsed)))
    types = {'TYPE_INT64': 'int64', 'TYPE_UINT64': 'uint64', 'TYPE_STRING': 'string'}
    msgs, fields, dense = [], [], {}
    for fid, d in zip(ids, parsed):
        body = []
        fmap = {}
        for f in d['fields']:
            if f.get('type') not in types or f.get('label', 'LABEL_OPTIONAL') != 'LABEL_OPTIONAL':
                sys.exit('%s: field %s of type %s' % (d['name'], f.get('name'), f.get('type')))
            body.append('  optional %s %s = %s;' % (types[f['type']], f['name'], f['number']))
            fmap[f['name']] = types[f['type']]
        msgs.append('message TioDense%d {\n%s\n}\n' % (fid, '\n'.join(body)))
        fname = 'g%d_%s' % (fid, re.sub(r'[^A-Za-z0-9_]', '_', d['name'] or ''))
        fields.append('  optional TioDense%d %s = %d;' % (fid, fname, fid))
        dense[fname] = [d['name'], fmap]
    with open(schema) as f:
        s = f.read()
    if ids:
        s, n = re.subn(r'(\nmessage FtraceEvent \{\n)((?:.*\n)*?)  reserved 65536 to 131072;\n',
                       lambda m: m.group(1) + '\n'.join(fields) + '\n' + m.group(2), s, count=1)
        if n != 1:
            sys.exit(schema + ': no FtraceEvent reserving 65536 to 131072')
        s += '\n// traceio test: the dense generic events described in the trace\n' + '\n'.join(msgs)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, os.path.basename(schema)), 'w') as f:
        f.write(s)
    with open(os.path.join(outdir, 'dense.json'), 'w') as f:
        json.dump(dense, f)


if __name__ == '__main__':
    main()
