#!/usr/bin/env python3
"""Print the records of `traceio print --style json` that a trace writer must
keep, in a form two traces can be compared in: events and discarded records
only (packets are the writer's own), without the keys that name files or
positions (trace, stream, offset) and without the scopes a writer rebuilds
(packet header/context, event header).  With --drop-synth, members named
NAME__len/__tag/__on (a writer's synthesized lengths and selectors) are
dropped too.  Usage: json-events.py [--drop-synth] FILE."""
import json
import re
import sys

SYNTH = re.compile(r".+__(len|tag|on)$")


def drop_synth(v):
    if isinstance(v, dict):
        return {k: drop_synth(x) for k, x in v.items() if not SYNTH.match(k)}
    if isinstance(v, list):
        return [drop_synth(x) for x in v]
    return v


DROP = ("trace", "stream", "offset", "event_header", "packet_header", "packet_context")
args = sys.argv[1:]
synth = args and args[0] == "--drop-synth"
with open(args[-1], encoding="utf-8", errors="surrogateescape") as f:
    for line in f:
        rec = json.loads(line)
        if rec.get("type", "").startswith(("packet", "stream")):
            continue
        for k in DROP:
            rec.pop(k, None)
        if synth:
            rec = drop_synth(rec)
        print(json.dumps(rec, sort_keys=True))
