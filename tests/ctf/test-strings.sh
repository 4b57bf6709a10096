#!/bin/bash
# NUL-terminated strings of 0 to 40 bytes at every offset, and strings that
# end exactly at a packet's content end (tests/tools/gen-ctf-strings.py): the
# decoder finds a short string's end in the words after it when they are in
# the content, else with memchr.  Every string's bytes (JSON) and the 8-bit
# length after each one must be the generator's.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
python3 "$TIO_TOP/tests/tools/gen-ctf-strings.py" tr || notok "generate the strings trace"
"$TIO" print --style json tr 2>err | python3 -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if o.get("type") == "event":
        p = o["payload"]
        print(o["event_class"], p["s"].encode().hex(), *([p["len"]] if "len" in p else []))
' >got
same "strings of 0 to 40 bytes and at packet ends: every string and the field after it ($(wc -l <tr.expect) events)" tr.expect got
"$TIO" print -o dummy tr >/dev/null 2>err && [ ! -s err ] && ok "print -o dummy: no error" || notok "print -o dummy" "$(cat err)"
