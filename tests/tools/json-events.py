#!/usr/bin/env python3
"""Print the records of `traceio print --style json` that a trace writer must
keep, in a form two traces can be compared in: events and discarded records
only (packets are the writer's own), without the keys that name files or
positions (trace, stream, offset) and without the scopes a writer rebuilds
(packet header/context, event header).  Usage: json-events.py FILE."""
import json
import sys

DROP = ("trace", "stream", "offset", "event_header", "packet_header", "packet_context")
with open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as f:
    for line in f:
        rec = json.loads(line)
        if rec.get("type", "").startswith(("packet", "stream")):
            continue
        for k in DROP:
            rec.pop(k, None)
        print(json.dumps(rec, sort_keys=True))
