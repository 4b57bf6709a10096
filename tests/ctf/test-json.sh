#!/bin/bash
# The json sink end to end: for every trace of babeltrace's CTF 1 and CTF 2
# suites (succeed/), `print --style json` exits as `print` does, every line
# is one valid JSON object, there is one "event" object per event line of
# the text output, and every packet_begin/event object carries the keys of
# docs/formats/json.md.
. "$(dirname "$0")/../lib.sh"
S=$PEER/ctf/babeltrace-2.1/ctf-traces
for d in "$S"/1/succeed/*/ "$S"/2/succeed/*/; do
	d=${d%/}
	name=${d#$S/}
	"$TIO" print --style json "$d" >"$TMP/j" 2>/dev/null; rj=$?
	"$TIO" print "$d" >"$TMP/p" 2>/dev/null; rp=$?
	np=$(wc -l <"$TMP/p")
	if res=$(python3 - "$TMP/j" "$np" <<'EOF'
import json, sys
events = 0
need = {'event': ('trace', 'stream_class_id', 'stream_id', 'event_class', 'event_class_id', 'offset'),
        'packet_begin': ('trace', 'stream_class_id', 'stream_id', 'offset')}
with open(sys.argv[1], encoding='utf-8') as f:
    for k, line in enumerate(f, 1):
        o = json.loads(line)
        t = o.get('type')
        if t not in ('event', 'packet_begin', 'discarded_events', 'discarded_packets'):
            sys.exit('line %d: bad type %r' % (k, t))
        missing = [x for x in need.get(t, ()) if x not in o]
        if missing:
            sys.exit('line %d: %s without %s' % (k, t, missing))
        events += t == 'event'
if events != int(sys.argv[2]):
    sys.exit('%d event objects, %s text lines' % (events, sys.argv[2]))
print('%d events' % events)
EOF
	) && [ $rj -eq $rp ]; then
		ok "json $name: $res, exit $rj"
	else
		notok "json $name: exit $rj (text: $rp)" "$res"
	fi
done
