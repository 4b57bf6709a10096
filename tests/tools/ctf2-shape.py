#!/usr/bin/env python3
"""Compare the structure of CTF 2 metadata streams (CTF2-SPEC-2.0) with
reference ones: every (object type, property) pair, every field-location
property and every (scope, role) pair that the checked streams use must
occur in some reference stream (real CTF 2 traces: babeltrace 2.1's suite,
yactfr's tests), or be listed in SPEC_ONLY below with the spec section that
allows it.  Also checks what the references always do: fragments are JSON
objects with a `type`, the first one is the preamble with version 2.

Usage: ctf2-shape.py --ref REF_METADATA... --check METADATA...
Exit 0 when every checked stream fits; prints what was checked, or each
pair missing from the references."""
import json
import sys

# Pairs the spec allows that no reference trace uses (CTF2-SPEC-2.0 sections named).
SPEC_ONLY = {
    # "Field location": a location without origin is relative (yactfr's rel-data-loc tests
    # use it inside aliases; listed in case a run has no such reference)
    ("field-location", "path"),
    # "Fixed-length integer field class": preferred-display-base belongs to both signednesses
    # (the references only show it on unsigned ones)
    ("fixed-length-signed-integer", "preferred-display-base"),
}

SCOPE_KEYS = ("packet-header-field-class", "packet-context-field-class", "event-record-header-field-class",
              "event-record-common-context-field-class", "specific-context-field-class", "payload-field-class")


def fragments(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] in (b"\x57\x1d\xd1\x75", b"\x75\xd1\x1d\x57"):  # packetized (CTF2-PMETA-1.0)
        le = data[:4] == b"\x57\x1d\xd1\x75"
        out, off = b"", 0
        while off + 37 <= len(data):
            content = int.from_bytes(data[off + 24:off + 28], "little" if le else "big") // 8
            total = int.from_bytes(data[off + 28:off + 32], "little" if le else "big") // 8
            out += data[off + 37:off + content]
            off += total if total else len(data)
        data = out
    for piece in data.split(b"\x1e"):
        if piece.strip():
            yield json.loads(piece.decode("utf-8"))


def walk(o, shapes, scope):
    if isinstance(o, dict):
        t = o.get("type")
        for k, v in o.items():
            if t is not None:
                shapes.add((t, k))
            if k.endswith("-field-location") and isinstance(v, dict):
                for lk in v:
                    shapes.add(("field-location", lk))
            if k == "roles" and isinstance(v, list):
                for r in v:
                    shapes.add(("role@" + scope, r))
            walk(v, shapes, k if k in SCOPE_KEYS else scope)
    elif isinstance(o, list):
        for v in o:
            walk(v, shapes, scope)


def shapes_of(path):
    shapes = set()
    frags = list(fragments(path))
    if not frags or frags[0].get("type") != "preamble" or frags[0].get("version") != 2:
        raise ValueError("%s: the first fragment is not a version 2 preamble" % path)
    for i, f in enumerate(frags):
        if not isinstance(f, dict) or "type" not in f:
            raise ValueError("%s: fragment %d has no type" % (path, i + 1))
        walk(f, shapes, "")
    return shapes


def main():
    args = sys.argv[1:]
    if "--check" not in args or args[0] != "--ref":
        print(__doc__)
        return 2
    i = args.index("--check")
    refs, checks = args[1:i], args[i + 1:]
    ref = set()
    for p in refs:
        ref |= shapes_of(p)
    used, bad = set(), []
    for p in checks:
        try:
            s = shapes_of(p)
        except ValueError as e:
            bad.append(str(e))
            continue
        used |= s
        for pair in sorted(s - ref - SPEC_ONLY):
            bad.append("%s: %s '%s' is in no reference trace" % (p, pair[0], pair[1]))
    if bad:
        print("\n".join(bad[:20]))
        return 1
    print("%d metadata streams, %d (type, property) and (scope, role) pairs, all in the %d references"
          % (len(checks), len(used), len(refs)))
    return 0


sys.exit(main())
