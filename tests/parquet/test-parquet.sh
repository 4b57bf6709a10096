#!/bin/bash
# traceio convert --to parquet, read back by DuckDB (the @duckdb/node-api
# package from npm), by Apache Arrow's Rust reader (arrow-rs, as the npm
# package parquet-wasm) and by polars (nodejs-polars), all installed by
# tests/parquet/duckdb-setup.sh:
#  - every row and column of every file of every converted suite trace, as
#    each of the three reads it (CTF
#    1.8: babeltrace's suite, LTTng recordings in tests/data; CTF 2:
#    babeltrace 2.1's suite; yactfr's CTF 1 / CTF 2 decoding tests; LTTng
#    0.x; the 2008 LTTng layout and new LTT; trace.dat v6/v7; when this
#    machine can record: a system-wide `-e all` recording and every kernel
#    event class in rewritten records, also big-endian) equals `traceio print --style json`
#    (tests/parquet/pq-compare.py), and with small row groups, a small
#    memory budget, each compression, two traces with --partition-by trace
#    and a trace damaged mid-stream, 1 KiB pages (chunks of many pages, dictionaries given
#    up after some pages); the compression worker writes the same bytes as inline;
#  - parquet_schema() / parquet_metadata(): types, statistics, encodings,
#    row groups, codecs; count(*) GROUP BY name equals `traceio info`;
#  - the page index (ColumnIndex, OffsetIndex) and the row groups'
#    sorting_columns as hyparquet (npm) reads them (tests/parquet/pageindex.mjs);
#  - the comparer fails on a changed value (it can fail);
#  - output is atomic: OUT refused when it exists, replaced with --force.
. "$(dirname "$0")/../lib.sh"
HERE=$TIO_TOP/tests/parquet
if ! TIO_NODE_MODULES=$("$HERE/duckdb-setup.sh" 2>"$TMP/setup.err"); then
	notok "DuckDB (npm @duckdb/node-api) installed" "$(tail -5 "$TMP/setup.err")"
	exit 1
fi
export TIO_NODE_MODULES
duck() { node "$HERE/duck.mjs" "$@"; }
PY=/usr/bin/python3
S=$PEER/ctf/babeltrace-2.1/ctf-traces
DAT=$PEER/tracedat/samples
OUT=$TMP/out
mkdir -p "$OUT"
: > "$TMP/manifest"
n=0
# conv TRACE [OPTIONS...]: convert into $OUT/N, add it to the manifest
conv() {
	local t=$1
	shift
	n=$((n + 1))
	"$TIO" convert -q --to parquet -o "$OUT/$n" "$@" "$t" > /dev/null 2> "$TMP/conv.err"
	local rc=$?
	if [ $rc -gt 1 ] || [ ! -f "$OUT/$n/meta.json" ]; then
		"$TIO" info "$t" > /dev/null 2>&1 || return 1 # a trace traceio refuses (yactfr's odd ones)
		notok "convert $t $*" "exit $rc" "$(head -3 "$TMP/conv.err")"
		return 1
	fi
	last=$OUT/$n
	manifest "$t" "$last"
}

# manifest INPUT OUT: the lines of pq-compare.py's manifest for one conversion
# (several traces: OUT/<trace>/ each, compared with INPUT's events of that trace)
manifest() {
	if grep -q '"traces"' "$2/meta.json"; then
		$PY -c 'import json,sys
for t in json.load(open(sys.argv[2]+"/meta.json"))["traces"]: print(sys.argv[1]+"\t"+sys.argv[2]+"/"+t["dir"])' "$1" "$2" >> "$TMP/manifest"
	else
		printf '%s\t%s\n' "$1" "$2" >> "$TMP/manifest"
	fi
}

# the suites: each trace alone (several traces found under one directory
# are converted apart: one directory per trace, compared one by one)
corpus=("$TIO_TOP"/tests/data/ctf/*/ "$S"/1/succeed/*/ "$S"/2/succeed/*/ "$PEER"/ctf/yactfr-iter-data/*/pass-*/ "$PEER"/ltt0x/traces/*/)
if is_sanitized; then dats=("$DAT"/lisa-tests-assets-sched_load-arm64-v6.dat "$DAT"/langraph-x86_64-v7-zstd.dat)
else dats=("$DAT"/*.dat "$PEER"/tracedat/converted-by-trace-cmd-3.1.6/*zstd*.dat); fi
# the LTT formats no other tool writes: seed 000's 2008 LTTng layout and seed 001's new LTT,
# hand-made in both byte orders (tests/ltt/mk-*.py), and a peer LTTng 0.x trace written as new LTT
ltt=()
for o in little big; do
	python3 "$TIO_TOP/tests/ltt/mk-ltt2008.py" "$TMP/ltt2008-$o" $o > /dev/null && ltt+=("$TMP/ltt2008-$o")
done
python3 "$TIO_TOP/tests/ltt/mk-lttnew.py" "$TMP/lttnew-le" little ILP32 > /dev/null && ltt+=("$TMP/lttnew-le")
python3 "$TIO_TOP/tests/ltt/mk-lttnew.py" "$TMP/lttnew-be" big LP64 --freq > /dev/null && ltt+=("$TMP/lttnew-be")
"$TIO" convert -q --to ltt -o "$TMP/lttnew-peer" "$PEER/ltt0x/traces/$(ls "$PEER/ltt0x/traces" | head -1)" &&
	ltt+=("$TMP/lttnew-peer")
if [ ${#ltt[@]} -eq 5 ]; then ok "LTT traces made: ${#ltt[@]}"; else notok "LTT traces made: ${#ltt[@]} of 5"; fi
ntr=0
for t in "${corpus[@]}" "${ltt[@]}" "${dats[@]}"; do
	conv "${t%/}" && ntr=$((ntr + 1))
done
ok "converted $ntr suite traces"

# an event class name of 300 bytes (CTF sets no limit; LTTng's 255 with the provider): its file
# name is cut to fit a file system's 255 bytes with the side file's suffix, meta.json maps the
# class to it, and the rows are compared below with the others (they were not written: "File
# name too long")
cp -r "$TIO_TOP/tests/data/ctf/handmade-bitfields" "$TMP/longname"
long=$(printf 'e%.0s' $(seq 300))
sed -i "s/name = \"bf\"/name = \"$long\"/" "$TMP/longname/metadata"
if conv "$TMP/longname" && f=$($PY -c 'import json,sys; print(*[c["file"] for c in json.load(open(sys.argv[1]))["classes"] if c["name"] == sys.argv[2]])' "$last/meta.json" "$long") &&
	[ -f "$last/$f" ] && [ ${#f} -le 200 ]; then
	ok "an event class name of 300 bytes: written to $(echo "$f" | cut -c1-12)... (${#f} bytes), as meta.json says"
else
	notok "an event class name of 300 bytes" "file: ${f:-none}" "$(head -3 "$TMP/conv.err")"
fi

# options: small row groups, a small memory budget, each compression, two traces partitioned
LISA=$DAT/lisa-tests-assets-sched_load-arm64-v6.dat
UST=$TIO_TOP/tests/data/ctf/lttng-ust-discard
conv "$LISA" --row-group-size 100 && RG=$last
# every integer INT64 (--int-width 64): arm32's 4-byte longs, and CTF 2's suite (arrays, sequences,
# variants, enumerations, bit maps) compared value by value like the others
conv "$DAT/lisa-tests-trace-arm32-v6-large.dat" --int-width 64
for t in "$S"/2/succeed/*/; do conv "${t%/}" --int-width 64; done
conv "$LISA" --dictionary-size 8 && SMALLDICT=$last
conv "$DAT/langraph-x86_64-v7-zstd.dat" --buffer-size 1M && BUDGET=$last
conv "$UST" --compression none && C_NONE=$last
conv "$UST" --compression snappy && C_SNAPPY=$last
conv "$UST" --compression zstd && C_ZSTD=$last
conv "$UST" --compression-level 19 && C_L19=$last
conv "$UST" --compression-level -5 && C_LM5=$last
# 1 KiB pages: chunks of many pages (lists across pages, page bounds merged into the chunk's),
# and dictionaries given up after some dictionary-encoded pages (--dictionary-size 18)
conv "$LISA" --page-size 1K --row-group-size 1000 && PAGES=$last
conv "$LISA" --page-size 1K --dictionary-size 18 && PAGES_DICT=$last
conv "$UST" --page-size 1K && UST_PAGES=$last
for t in "$S"/2/succeed/*array*/ "$S"/1/succeed/*sequence*/; do
	[ -d "$t" ] && conv "${t%/}" --page-size 1K
done
# the compression worker writes the same bytes as compressing inline (small pages, a small
# budget; row groups of 1000 rows: events.parquet's runs of rows cut at the row-group size)
for c in "$DAT/langraph-x86_64-v7-zstd.dat --page-size 1K --buffer-size 1M" "$LISA --page-size 1K --row-group-size 1000"; do
	set -- $c
	n=$((n + 1))
	rm -rf "$TMP/inline"
	"$TIO" convert -q --to parquet "${@:2}" -o "$OUT/$n" "$1" 2> "$TMP/conv.err" &&
		TIO_PQ_THREADS=0 "$TIO" convert -q --to parquet "${@:2}" -o "$TMP/inline" "$1" 2>> "$TMP/conv.err"
	rc=$?
	same=0
	for f in "$OUT/$n"/*.parquet; do cmp -s "$f" "$TMP/inline/$(basename "$f")" || same=1; done
	if [ $rc -eq 0 ] && [ $same -eq 0 ] && [ "$(ls "$OUT/$n"/*.parquet | wc -l)" -eq "$(ls "$TMP/inline"/*.parquet | wc -l)" ]; then
		ok "compression worker: the same bytes as TIO_PQ_THREADS=0 (inline), $(ls "$OUT/$n"/*.parquet | wc -l) files: $(basename "$1") ${*:2}"
		manifest "$1" "$OUT/$n"
	else
		notok "compression worker: the same bytes as TIO_PQ_THREADS=0 (inline): $c" "exit $rc" "$(head -3 "$TMP/conv.err")"
	fi
done
n=$((n + 1))
PART=$OUT/$n
"$TIO" convert -q --to parquet --partition-by trace -o "$PART" "$LISA" "$DAT/lisa-trappy-tests-trace_idle-arm64-v6.dat" 2> "$TMP/conv.err"
rc=$?
if [ $rc -eq 0 ] && [ -f "$PART/meta.json" ]; then
	manifest "$LISA $DAT/lisa-trappy-tests-trace_idle-arm64-v6.dat" "$PART"
	ok "partition-by trace: two inputs converted"
else
	notok "partition-by trace: two inputs converted" "exit $rc" "$(head -3 "$TMP/conv.err")"
fi

# in parts (TIO_THREADS=3: each part read in order on its own thread, the parts' files put
# one after the other): pq-compare checks every row and its order against print --style
# json (manifest); here, meta.json is one thread's and the row groups end where the parts
# meet (the parts were used, not the one-thread read they fall back to)
pn=0
for t in "$UST" "$S/2/succeed/multi-domains" "$LISA" "$DAT/lisa-tests-trace-arm32-v6-large.dat" \
	"$DAT/langraph-x86_64-v7-zstd.dat" "$PEER/ltt0x/traces/$(ls "$PEER/ltt0x/traces" | head -1)"; do
	pn=$((pn + 1))
	mkdir -p "$TMP/p1-$pn" "$OUT/p3-$pn"
	if ! TIO_THREADS=3 "$TIO" convert -q --to parquet -o "$OUT/p3-$pn/x" "$t" 2> "$TMP/conv.err" ||
		! TIO_THREADS=1 "$TIO" convert -q --to parquet -o "$TMP/p1-$pn/x" "$t" 2>> "$TMP/conv.err"; then
		notok "in 3 parts: $t" "$(head -3 "$TMP/conv.err")"
		continue
	fi
	manifest "$t" "$OUT/p3-$pn/x"
	same=yes
	for m in $(cd "$TMP/p1-$pn/x" && find . -name meta.json); do
		cmp -s "$TMP/p1-$pn/x/$m" "$OUT/p3-$pn/x/$m" || same="no: $m"
	done
	ev=$(find "$OUT/p3-$pn/x" -name events.parquet | head -1)
	rg3=$(duck sql "SELECT count(DISTINCT row_group_id) AS n FROM parquet_metadata('$ev')" | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["n"])')
	rg1=$(duck sql "SELECT count(DISTINCT row_group_id) AS n FROM parquet_metadata('$TMP/p1-$pn/x${ev#$OUT/p3-$pn/x}')" | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["n"])')
	echo "$t: meta.json same: $same; events.parquet row groups: $rg1 on one thread, $rg3 in 3 parts" >> "$TMP/parts.log"
	if [ "$same" = yes ]; then
		ok "in 3 parts: meta.json as one thread's; events.parquet in $rg3 row groups (one thread: $rg1): $(basename "$t")"
	else
		notok "in 3 parts: meta.json as one thread's: $t" "$same"
	fi
	case $t in *ltt0x*) ;; *) [ "$rg3" -gt "$rg1" ] && pparts=$((${pparts:-0} + 1)) ;; esac
done
if [ "${pparts:-0}" -ge 4 ]; then
	ok "in 3 parts: $pparts traces read in parts (more row groups than one thread's)"
else
	notok "in 3 parts: traces read in parts" "$(cat "$TMP/parts.log")"
fi

# the page index (a ColumnIndex and an OffsetIndex per column chunk) as hyparquet reads it, a
# reader that plans its page reads with it (tests/parquet/pageindex.mjs: the pages tile each
# chunk, their first rows, null counts and bounds are those of the rows; the boundary order):
# 4 KiB pages and row groups of 20000 rows (many pages a chunk), snappy (hyparquet reads no
# zstd), on one thread and in 3 parts (pq_append moves the pages' offsets); funcs-v6.dat's
# `function` class has a BLOB (`args`) of bytes that are not UTF-8
pi=0 pibad=
for t in "$UST" "$S/2/succeed/multi-domains" "$LISA" "$DAT/langraph-x86_64-v7-zstd.dat" \
	"$PEER/ltt0x/traces/$(ls "$PEER/ltt0x/traces" | head -1)" "$TIO_TOP/tests/data/ftrace/funcs-v6.dat"; do
	for th in 1 3; do
		pi=$((pi + 1))
		if ! TIO_THREADS=$th "$TIO" convert -q --to parquet --compression snappy --page-size 4096 \
			--row-group-size 20000 -o "$TMP/pi-$pi" "$t" 2> "$TMP/conv.err"; then
			pibad="$pibad; convert $t: $(head -2 "$TMP/conv.err")"
			continue
		fi
		if ! node "$HERE/pageindex.mjs" $(find "$TMP/pi-$pi" -name '*.parquet' | sort) > "$TMP/pi.out" 2>&1; then
			pibad="$pibad; $t ($th): $(head -3 "$TMP/pi.out")"
			continue
		fi
		echo "$(basename "$t") threads=$th $(tail -1 "$TMP/pi.out")" >> "$TMP/pi.log"
	done
done
pisum=$($PY -c 'import json,sys
t=[json.loads(l.split(" ",2)[2]) for l in open(sys.argv[1])]
print(len(t), sum(x["chunks"] for x in t), sum(x["pages"] for x in t), sum(x["column_indexes"] for x in t), sum(x["checked_pages"] for x in t), sum(x["ts_ascending"] for x in t), sum(x["sorted_row_groups"] for x in t), sum(x["unsorted_row_groups"] for x in t))' "$TMP/pi.log" 2>/dev/null)
read -r pin pic pip pici pichk pits pisrt piuns <<< "$pisum"
if [ -z "$pibad" ] && [ "${pin:-0}" -eq 12 ] && [ "$pip" -gt "$pic" ] && [ "$pichk" -gt 0 ] && [ "$pits" -gt 0 ] &&
	[ "$pisrt" -gt 0 ] && [ "$piuns" -eq 0 ]; then
	ok "page index: 12 conversions read by hyparquet: $pic chunks, $pip pages, $pici column indexes, $pichk pages' bounds checked against their rows, ts ascending in $pits; sorting_columns ts in all $pisrt row groups"
else
	notok "page index read by hyparquet" "$pibad" "$(cat "$TMP/pi.log" 2>/dev/null)"
fi
# a time window read with the page index: hyparquet fetches the window's pages only, and
# finds DuckDB's rows (1 KiB pages: a 59 000-event trace.dat's events.parquet has hundreds)
WD=$DAT/lisa-tests-trace-arm32-v6-large.dat
if "$TIO" convert -q --to parquet --compression snappy --page-size 1024 -o "$TMP/pw" "$WD" 2> "$TMP/conv.err"; then
	read -r wa wb <<< "$(duck sql "SELECT min(epoch_ns(ts)) AS a, max(epoch_ns(ts)) AS b FROM '$TMP/pw/events.parquet'" |
		$PY -c 'import json,sys; r=json.load(sys.stdin)[0]; a,b=int(r["a"]),int(r["b"]); print(a+(b-a)*30//100, a+(b-a)*32//100)')"
	wn=$(duck sql "SELECT count(*) AS n FROM '$TMP/pw/events.parquet' WHERE epoch_ns(ts) >= $wa AND epoch_ns(ts) < $wb" |
		$PY -c 'import json,sys; print(json.load(sys.stdin)[0]["n"])')
	wj=$(node "$HERE/pageindex.mjs" window "$TMP/pw/events.parquet" "$wa" "$wb" 2>&1)
	if $PY -c 'import json,sys; w=json.loads(sys.argv[1]); n=int(sys.argv[2])
sys.exit(not (n > 0 and w["rows"] == n == w["rows_without"] and 0 < w["bytes_with"] * 3 < w["bytes_without"]))' "$wj" "$wn" 2>/dev/null; then
		ok "page index: a 2% time window of events.parquet read by hyparquet: $wn rows as DuckDB's; bytes fetched with the page index / without: $wj"
	else
		notok "page index: a time window read with the page index" "DuckDB: $wn rows" "$wj"
	fi
else
	notok "page index: convert $WD" "$(head -3 "$TMP/conv.err")"
fi
# sorting_columns left out where ts goes down: CPU 1's times of a trace.dat put 1 s back from
# one event on (a TIME_SHIFT option, tests/tools/add-time-shift.py), where events.parquet's ts
# go down exactly where its second 1 KiB page starts (each page in order: the pages' order
# counts too); and where ts are null (a CTF trace without a clock, read without the page
# index: hyparquet cannot read a TIMESTAMP ColumnIndex with a page of nulls only; snappy: it
# reads no zstd)
SHIFTED=$TMP/shifted.dat
if $PY "$TIO_TOP/tests/tools/add-time-shift.py" "$TIO_TOP/tests/data/ftrace/funcs-v6.dat" "$SHIFTED" \
	--json '{"cpus":[{"times":[0],"offsets":[0]},{"times":[0,2894940130953,9999999999999],"offsets":[0,-1000000000,-1000000000]}]}' &&
	"$TIO" convert -q --to parquet --compression snappy --page-size 1K -o "$TMP/sc" "$SHIFTED" 2> "$TMP/conv.err" &&
	node "$HERE/pageindex.mjs" $(find "$TMP/sc" -name '*.parquet' | sort) > "$TMP/sc.out" 2>&1 &&
	"$TIO" convert -q --to parquet --compression snappy -o "$TMP/sc0" "$S/1/succeed/smalltrace" 2>> "$TMP/conv.err" &&
	node "$HERE/pageindex.mjs" sorting $(find "$TMP/sc0" -name '*.parquet' | sort) > "$TMP/sc0.out" 2>&1 &&
	$PY -c 'import json,sys; a=json.loads(open(sys.argv[1]).read().splitlines()[-1]); b=json.loads(open(sys.argv[2]).read().splitlines()[-1])
sys.exit(not (a["unsorted_row_groups"] > 0 and a["down_at_pages"] > 0 and b["unsorted_row_groups"] > 0 and a["bad"] == b["bad"] == 0))' "$TMP/sc.out" "$TMP/sc0.out"; then
	ok "sorting_columns: none where ts go down ($(tail -1 "$TMP/sc.out")) or are null ($(tail -1 "$TMP/sc0.out"))"
else
	notok "sorting_columns where ts go down or are null" "$(head -3 "$TMP/conv.err")" "$(tail -3 "$TMP/sc.out" 2>/dev/null)" "$(tail -3 "$TMP/sc0.out" 2>/dev/null)"
fi
if SC_TAMPER=1 node "$HERE/pageindex.mjs" sorting $(find "$TMP/pi-1" -name '*.parquet' | sort) > "$TMP/pi.out" 2>&1; then
	notok "sorting_columns: a wrong sorting_columns is found" "$(tail -2 "$TMP/pi.out")"
else
	ok "sorting_columns: a wrong sorting_columns is found ($(grep -c '^not ok' "$TMP/pi.out") failures)"
fi
# the checks can fail: the same files, as if every page but the first started a row later
if PI_TAMPER=1 node "$HERE/pageindex.mjs" $(find "$TMP/pi-1" "$TMP/pi-7" -name '*.parquet' | sort) > "$TMP/pi.out" 2>&1; then
	notok "page index: a wrong first row is found" "$(tail -2 "$TMP/pi.out")"
else
	ok "page index: a wrong first row is found ($(grep -c '^not ok' "$TMP/pi.out") failures)"
fi

# more than 32767 row groups in a file (one row each; in 3 parts, so that the parts' row groups
# are appended through their side files of footer metadata): RowGroup.ordinal, an optional i16,
# is left out past 32767; DuckDB reads every row and column as in a conversion with the default
# row groups (rows paired by position), and polars reads events.parquet's rows as DuckDB does
MANY=$DAT/langraph-x86_64-v7-zstd.dat
if TIO_THREADS=3 "$TIO" convert -q --to parquet --row-group-size 1 -o "$TMP/many" "$MANY" 2> "$TMP/conv.err" &&
	"$TIO" convert -q --to parquet -o "$TMP/many0" "$MANY" 2>> "$TMP/conv.err"; then
	q=
	for f in "$TMP"/many/*.parquet; do
		b=$(basename "$f")
		q="${q:+$q UNION ALL }SELECT '$b' AS f, count(*) AS n, count(a.ts) AS na, count(b.ts) AS nb, count(*) FILTER (WHERE a IS DISTINCT FROM b) AS diff, (SELECT count(DISTINCT row_group_id) FROM parquet_metadata('$f')) AS rgs FROM read_parquet('$f') a POSITIONAL JOIN read_parquet('$TMP/many0/$b') b"
	done
	duck sql "$q" > "$TMP/many.json" 2>&1
	bad=$($PY -c 'import json, sys
rows = json.load(open(sys.argv[1]))
bad = [r for r in rows if not (r["n"] == r["na"] == r["nb"] == r["rgs"] and r["diff"] == "0")]
ev = [int(r["rgs"]) for r in rows if r["f"] == "events.parquet"]
print("; ".join(map(str, bad)) if bad or len(rows) != int(sys.argv[2]) or not ev or ev[0] <= 32767 else "")' \
		"$TMP/many.json" "$(ls "$TMP"/many/*.parquet | wc -l)" 2>&1)
	if [ -z "$bad" ] && [ -s "$TMP/many.json" ]; then
		ok "more than 32767 row groups in a file: $(ls "$TMP"/many/*.parquet | wc -l) files read back by DuckDB as with default row groups ($(grep -o '"f":"events.parquet","n":"[0-9]*"' "$TMP/many.json" | grep -o '[0-9]*"$' | tr -d '"') in events.parquet)"
	else
		notok "more than 32767 row groups in a file: DuckDB reads them as with default row groups" "$bad" "$(head -c 300 "$TMP/many.json")"
	fi
	node "$HERE/polars.mjs" dump "$TMP/many-pl.jsonl" "$TMP/many/events.parquet" 2> "$TMP/polars.err"
	duck dump "$TMP/many-dk.jsonl" "$TMP/many0/events.parquet"
	if $PY -c 'import json, sys
a = json.loads(open(sys.argv[1]).readline()); b = json.loads(open(sys.argv[2]).readline())
sys.exit(not (len(a["rows"]) == len(b["rows"]) > 32767 and a["rows"] == b["rows"]))' "$TMP/many-pl.jsonl" "$TMP/many-dk.jsonl"; then
		ok "more than 32767 row groups in a file: polars reads events.parquet's rows as DuckDB reads the default conversion's"
	else
		notok "more than 32767 row groups: polars reads events.parquet" "$(head -c 300 "$TMP/many-pl.jsonl")" "$(head -c 300 "$TMP/many-dk.jsonl")" "$(tail -3 "$TMP/polars.err")"
	fi
	left=$(find "$TMP/many" "$TMP/many0" -name '*.rowgroups' | wc -l)
	if [ "$left" -eq 0 ]; then ok "no side file of footer metadata left in the output"; else notok "side files left in the output: $left"; fi
	# files kept open between row groups: at most a quarter of the descriptor limit (here 6
	# of 24, for 3 parts' 9 files each); the others are opened for each row group, and every
	# file's bytes are the same
	if (ulimit -n 24 && TIO_THREADS=3 "$TIO" convert -q --to parquet --row-group-size 1 -o "$TMP/many24" "$MANY") 2> "$TMP/conv.err"; then
		d=$(cd "$TMP/many" && for f in *.parquet; do cmp -s "$f" "$TMP/many24/$f" || echo "$f"; done)
		if [ -z "$d" ] && [ "$(ls "$TMP/many24" | wc -l)" = "$(ls "$TMP/many" | wc -l)" ]; then
			ok "row groups of one row under ulimit -n 24: the same files"
		else
			notok "row groups of one row under ulimit -n 24: the same files" "differ: $d"
		fi
	else
		notok "row groups of one row under ulimit -n 24" "$(head -3 "$TMP/conv.err")"
	fi
	rm -rf "$TMP/many" "$TMP/many0" "$TMP/many24"
else
	notok "more than 32767 row groups in a file: converted" "$(head -3 "$TMP/conv.err")"
fi

# a trace damaged mid-stream: the packet is reported and skipped, every other event written
cp -r "$TIO_TOP/tests/data/ctf/lttng-ust-discard" "$TMP/damaged"
$PY - "$TMP/damaged" <<'EOF'
import glob, sys
for f in sorted(glob.glob(sys.argv[1] + "/**/*_0", recursive=True)):
    d = bytearray(open(f, "rb").read())
    first = d.find(b"\xc1\x1f\xfc\xc1")
    second = d.find(b"\xc1\x1f\xfc\xc1", first + 1)
    if second > 0:
        d[second:second + 4] = b"\xde\xad\xbe\xef"
        open(f, "wb").write(d)
        break
EOF
# damaged NAME INPUT PATTERN: INPUT converts with exit 1, its first error matching PATTERN
# (file and offset), and an output every reader compares with print --style json
damaged() {
	n=$((n + 1))
	"$TIO" convert -q --to parquet -o "$OUT/$n" "$2" > /dev/null 2> "$TMP/dmg.err"
	local rc=$?
	if [ $rc -eq 1 ] && grep -q "$3" "$TMP/dmg.err" && [ -f "$OUT/$n/events.parquet" ]; then
		ok "$1: reported ($(head -1 "$TMP/dmg.err" | cut -c1-120)...), exit 1, output written"
		printf '%s\t%s\n' "$2" "$OUT/$n" >> "$TMP/manifest"
	else
		notok "$1: reported, exit 1, output written" "exit $rc" "$(head -3 "$TMP/dmg.err")"
	fi
}
damaged "damaged packet" "$TMP/damaged" "damaged.*@0x"

# a trace.dat damaged mid-file: a page whose commit size runs past it, garbage in the next
# page's first record; reported with file and offset, exit 1, every other event written
$PY - "$LISA" "$TMP/damaged.dat" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
p = d.find(b"flyrecord\0") + 10
off = struct.unpack_from("<Q", d, p + 16 * 3)[0]  # CPU 3's data
page = off + 4 * 4096
struct.pack_into("<Q", d, page + 8, 0xfff0)
struct.pack_into("<I", d, page + 4096 + 16, 0xffffffff)
open(sys.argv[2], "wb").write(d)
EOF
damaged "damaged trace.dat page" "$TMP/damaged.dat" "damaged.dat@0x[0-9a-f]*: section flyrecord cpu 3: page commit size"

# recordings of this machine (when it can record: root, tracefs, not the sanitizer build):
# a system-wide `-e all`, and every event class of the kernel from test-allformats' rewritten
# marker records (tests/tools/synth-records.py), also swapped to big-endian
why=$(why_no_recording)
if [ -n "$why" ]; then
	echo "ok recordings converted # skip $why"
else
	T=/sys/kernel/tracing
	timeout 300 flock /tmp/tio-record.lock $NS trace-cmd record -q -b 20000 -o "$TMP/all.dat" -e all \
		sh -c 'ls -R /usr/share/doc > /dev/null; sleep 0.05' > "$TMP/rec.log" 2>&1
	timeout 300 flock /tmp/tio-record.lock $NS trace-cmd record -q --file-version 6 -b 60000 -o "$TMP/m.dat" -e all -F \
		bash -c "for i in \$(seq 2500); do printf '%1400s' x > $T/trace_marker; done" >> "$TMP/rec.log" 2>&1
	if [ -s "$TMP/all.dat" ] && [ -s "$TMP/m.dat" ] &&
		python3 "$TIO_TOP/tests/tools/synth-records.py" "$TMP/m.dat" "$TMP/synth.dat" 1 > "$TMP/synth" 2>&1 &&
		python3 "$TIO_TOP/tests/tools/tracedat-swap.py" "$TMP/synth.dat" "$TMP/synth-be.dat" >> "$TMP/synth" 2>&1; then
		rn=0
		for t in "$TMP/all.dat" "$TMP/synth.dat" "$TMP/synth-be.dat"; do
			conv "$t" && rn=$((rn + 1))
		done
		c=$(ls "$OUT/$n" | grep -c '\.parquet$')
		if [ $rn -eq 3 ] && [ "$c" -gt 2000 ]; then
			ok "recordings converted: -e all ($(ls "$OUT/$((n - 2))" | grep -c '\.parquet$') files), every class rewritten ($c files), big-endian"
		else
			notok "recordings converted" "converted $rn of 3, $c files for the rewritten classes"
		fi
	else
		notok "recordings made" "$(tail -3 "$TMP/rec.log")" "$(tail -3 "$TMP/synth")"
	fi
fi

# strings mostly distinct: 15 000 trace_marker lines "marker N", then 9 000 times "again" and 6 000
# more distinct lines, in row groups of 15 000 (sql below: MARK)
MARK=
if [ -z "$why" ]; then
	if timeout 120 flock /tmp/tio-record.lock $NS trace-cmd record -q -e sched:sched_process_exit -o "$TMP/marker.dat" \
		sh -c 'T=/sys/kernel/tracing/trace_marker; i=0; while [ $i -lt 15000 ]; do i=$((i+1)); echo "marker $i" > $T; done
			i=0; while [ $i -lt 9000 ]; do i=$((i+1)); echo again > $T; done
			while [ $i -lt 15000 ]; do i=$((i+1)); echo "marker $i" > $T; done' > "$TMP/rec.log" 2>&1 &&
		conv "$TMP/marker.dat" --row-group-size 15000; then
		MARK=$last
	else
		notok "recording of 30 000 trace_marker lines" "$(tail -3 "$TMP/rec.log")"
	fi
fi

# memory with many busy classes: an `-e all -F` recording of 60 000 shell redirections into
# trace_marker (some 270 MB, 3.9 M events, some 170 classes, 24 with more than 10 000 rows; -F: the
# shell's events only, not those of whatever else the machine runs), converted on one thread
# under a 1 MiB budget: the page buffers of every class count in the budget and are given back,
# so the peak RSS stays within 24 MiB of the decode's (44 MiB over it when they did not count)
if [ -z "$why" ]; then
	T=/sys/kernel/tracing
	timeout 300 flock /tmp/tio-record.lock $NS trace-cmd record -q --file-version 6 -b 400000 -o "$TMP/busy.dat" -e all -F \
		bash -c "for i in \$(seq 60000); do printf '%1400s' x > $T/trace_marker; done" > "$TMP/rec-busy.log" 2>&1
	rt() { "$TIO_TOP/bench/rtime.py" -f %M -o "$TMP/rss" "$@" > /dev/null 2> "$TMP/rt.err" && tail -1 "$TMP/rss"; }
	if [ -s "$TMP/busy.dat" ] &&
		dec=$(TIO_THREADS=1 rt "$TIO" print -o dummy "$TMP/busy.dat") &&
		cv=$(TIO_THREADS=1 rt "$TIO" convert -q --to parquet --buffer-size 1M -o "$TMP/busy" "$TMP/busy.dat"); then
		rows=$(duck sql "SELECT count(*) AS n FROM '$TMP/busy/events.parquet'" | sed 's/.*"n":"*\([0-9]*\).*/\1/')
		ev=$("$TIO" info --count "$TMP/busy.dat" | awk '/^  events:/ {print $2}')
		if [ $((cv - dec)) -lt $((24 * 1024)) ] && [ "$rows" = "$ev" ] && [ "$ev" -gt 1000000 ]; then
			ok "many busy classes under a 1 MiB budget: peak RSS $((cv / 1024)) MiB, $(((cv - dec) / 1024)) MiB over the decode's; $ev events read back"
		else
			notok "many busy classes under a 1 MiB budget" "peak RSS $cv KiB, decode $dec KiB; events.parquet $rows rows, info $ev"
		fi
		rm -rf "$TMP/busy"
		# row groups of 100 rows: the footers' row group metadata (some 37 MB here) goes to side
		# files as it is made, so that memory does not grow with the row groups (it was all held
		# until the footers were written, and files of more than 32767 row groups were refused)
		if cv=$(TIO_THREADS=1 rt "$TIO" convert -q --to parquet --buffer-size 1M --row-group-size 100 -o "$TMP/busy" "$TMP/busy.dat"); then
			e=$TMP/busy/events.parquet
			got=$(duck sql "SELECT (SELECT count(*) FROM '$e') AS n, (SELECT count(DISTINCT row_group_id) FROM parquet_metadata('$e')) AS g" |
				$PY -c 'import json,sys; r = json.load(sys.stdin)[0]; print(r["n"], r["g"])')
			if [ $((cv - dec)) -lt $((24 * 1024)) ] && [ "${got% *}" = "$ev" ] && [ "${got#* }" -ge $(((ev + 99) / 100)) ]; then
				ok "row groups of 100 rows: peak RSS $((cv / 1024)) MiB, $(((cv - dec) / 1024)) MiB over the decode's; events.parquet: ${got% *} rows in ${got#* } row groups"
			else
				notok "row groups of 100 rows: memory flat" "peak RSS $cv KiB, decode $dec KiB; events.parquet rows, row groups: $got, for $ev events"
			fi
			rm -rf "$TMP/busy"
		else
			notok "row groups of 100 rows: converted" "$(tail -3 "$TMP/rt.err")"
		fi
	else
		notok "busy recording converted" "$(tail -3 "$TMP/rec-busy.log")" "$(cat "$TMP/rt.err" 2> /dev/null | tail -3)"
	fi
	rm -f "$TMP/busy.dat"
fi

# every value read back by DuckDB against traceio print --style json
find "$OUT" -name '*.parquet' | sort > "$TMP/files"
duck dump "$TMP/dump.jsonl" $(cat "$TMP/files")
if grep -q '^{"file":"[^"]*","error":' "$TMP/dump.jsonl"; then
	notok "DuckDB reads every file" "$(grep '^{"file":"[^"]*","error":' "$TMP/dump.jsonl" | head -3 | cut -c1-300)"
else
	ok "DuckDB reads all $(wc -l < "$TMP/files") files"
fi
$PY "$HERE/pq-compare.py" "$TIO" "$TMP/dump.jsonl" "$TMP/manifest"
# and by a second reader, Apache Arrow's Rust one (arrow-rs, as parquet-wasm), against the same
node "$HERE/arrow.mjs" dump "$TMP/arrow.jsonl" $(cat "$TMP/files")
if grep -q '^{"file":"[^"]*","error":' "$TMP/arrow.jsonl"; then
	notok "arrow-rs reads every file" "$(grep '^{"file":"[^"]*","error":' "$TMP/arrow.jsonl" | head -3 | cut -c1-300)"
else
	ok "arrow-rs reads all $(wc -l < "$TMP/files") files"
fi
$PY "$HERE/pq-compare.py" "$TIO" "$TMP/arrow.jsonl" "$TMP/manifest" arrow-rs
# and by a third, polars (its own Rust reader, as nodejs-polars)
node "$HERE/polars.mjs" dump "$TMP/polars.jsonl" $(cat "$TMP/files") 2> "$TMP/polars.err"
if grep -q '^{"file":"[^"]*","error":' "$TMP/polars.jsonl" || [ "$(wc -l < "$TMP/polars.jsonl")" -ne "$(wc -l < "$TMP/files")" ]; then
	notok "polars reads every file" "$(grep '^{"file":"[^"]*","error":' "$TMP/polars.jsonl" | head -3 | cut -c1-300)" "$(tail -3 "$TMP/polars.err")"
else
	ok "polars reads all $(wc -l < "$TMP/files") files"
fi
$PY "$HERE/pq-compare.py" "$TIO" "$TMP/polars.jsonl" "$TMP/manifest" polars

# the comparer can fail: one value changed in a dump
$PY - "$TMP/dump.jsonl" "$TMP/bad.jsonl" "$RG" <<'EOF'
import json, sys
out = open(sys.argv[2], "w")
done = False
for line in open(sys.argv[1]):
    d = json.loads(line)
    if not done and d["file"].startswith(sys.argv[3] + "/") and d["file"].endswith("sched_switch.parquet"):
        names = [c[0] for c in d["columns"]]
        d["rows"][57][names.index("prev_pid")] += 1
        done = True
    out.write(json.dumps(d) + "\n")
EOF
grep "$RG" "$TMP/manifest" > "$TMP/man1"
if ! $PY "$HERE/pq-compare.py" "$TIO" "$TMP/bad.jsonl" "$TMP/man1" > "$TMP/bad.out" && grep -q 'prev_pid' "$TMP/bad.out"; then
	ok "comparer: a changed value is found ($(grep -v '^not ok' "$TMP/bad.out" | head -1 | sed 's/^ *//' | cut -c1-90))"
else
	notok "comparer: a changed value is found" "$(cat "$TMP/bad.out" | head -3)"
fi

# sql NAME EXPECTED SQL: one query's rows (JSON) must equal EXPECTED
sql() {
	local got
	got=$(duck sql "$3" 2>&1)
	if [ "$got" = "$2" ]; then ok "$1"; else notok "$1" "SQL: $3" "expected: $2" "got:      $got"; fi
}
SW=$RG/sched_switch.parquet
sql "schema: arm64 sched_switch types (TIMESTAMP_NS ts, unsigned cpu/stream, s32 pids, 64-bit long prev_state, strings, __comm)" \
	'[{"name":"ts","type":"INT64","repetition_type":"OPTIONAL","duckdb_type":"TIMESTAMP_NS"},{"name":"cpu","type":"INT32","repetition_type":"OPTIONAL","duckdb_type":"UINTEGER"},{"name":"stream","type":"INT32","repetition_type":"REQUIRED","duckdb_type":"UINTEGER"},{"name":"__comm","type":"BYTE_ARRAY","repetition_type":"OPTIONAL","duckdb_type":"VARCHAR"},{"name":"common_type","type":"INT32","repetition_type":"REQUIRED","duckdb_type":"USMALLINT"},{"name":"common_flags","type":"INT32","repetition_type":"REQUIRED","duckdb_type":"UTINYINT"},{"name":"common_preempt_count","type":"INT32","repetition_type":"REQUIRED","duckdb_type":"UTINYINT"},{"name":"common_pid","type":"INT32","repetition_type":"REQUIRED","duckdb_type":"INTEGER"},{"name":"prev_comm","type":"BYTE_ARRAY","repetition_type":"REQUIRED","duckdb_type":"VARCHAR"},{"name":"prev_pid","type":"INT32","repetition_type":"REQUIRED","duckdb_type":"INTEGER"},{"name":"prev_prio","type":"INT32","repetition_type":"REQUIRED","duckdb_type":"INTEGER"},{"name":"prev_state","type":"INT64","repetition_type":"REQUIRED","duckdb_type":"BIGINT"},{"name":"next_comm","type":"BYTE_ARRAY","repetition_type":"REQUIRED","duckdb_type":"VARCHAR"},{"name":"next_pid","type":"INT32","repetition_type":"REQUIRED","duckdb_type":"INTEGER"},{"name":"next_prio","type":"INT32","repetition_type":"REQUIRED","duckdb_type":"INTEGER"}]' \
	"SELECT name, type, repetition_type, duckdb_type FROM parquet_schema('$SW') WHERE name <> 'schema'"
sql "logical types: TIMESTAMP(NANOS), STRING, INT(16, unsigned) (DuckDB shows the i8 bitWidth as a character)" \
	'[{"name":"common_type","logical_type":"IntType(bitWidth=\u0010, isSigned=0)"},{"name":"prev_comm","logical_type":"StringType()"},{"name":"ts","logical_type":"TimestampType(isAdjustedToUTC=0, unit=TimeUnit(MILLIS=<null>, MICROS=<null>, NANOS=NanoSeconds()))"}]' \
	"SELECT name, logical_type FROM parquet_schema('$SW') WHERE name IN ('ts', 'prev_comm', 'common_type') ORDER BY name"
rows=$(duck sql "SELECT count(*) AS n FROM '$SW'" | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["n"])')
sql "row groups of at most 100 rows: $rows rows in ceil($rows/100) groups, num_rows each" \
	"[{\"groups\":\"$(( (rows + 99) / 100 ))\",\"rows\":\"$rows\",\"biggest\":\"100\"}]" \
	"SELECT count(*) AS groups, sum(n) AS rows, max(n) AS biggest FROM (SELECT row_group_id, any_value(row_group_num_rows) AS n FROM parquet_metadata('$SW') GROUP BY row_group_id)"
sql "statistics: ts min/max and null counts of every row group equal the data's" '[{"bad":"0"}]' \
	"WITH d AS (SELECT (row_number() OVER () - 1) // 100 AS g, ts, __comm FROM '$SW'),
	  s AS (SELECT g, min(ts)::VARCHAR AS mn, max(ts)::VARCHAR AS mx, count(*) - count(__comm) AS nulls FROM d GROUP BY g),
	  m AS (SELECT row_group_id AS g, max(CASE WHEN path_in_schema = 'ts' THEN stats_min_value END) AS mn,
	               max(CASE WHEN path_in_schema = 'ts' THEN stats_max_value END) AS mx,
	               max(CASE WHEN path_in_schema = '__comm' THEN stats_null_count END) AS nulls
	        FROM parquet_metadata('$SW') GROUP BY row_group_id)
	 SELECT count(*) AS bad FROM s FULL JOIN m USING (g) WHERE s.mn IS DISTINCT FROM m.mn OR s.mx IS DISTINCT FROM m.mx OR s.nulls IS DISTINCT FROM m.nulls"
sql "pruning by ts: a range query reads the row groups whose statistics overlap it" \
	"[{\"n\":\"$(duck sql "SELECT count(*) AS n FROM (SELECT ts FROM '$SW' ORDER BY ts LIMIT 250 OFFSET 100)" | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["n"])')\"}]" \
	"SELECT count(*) AS n FROM '$SW' WHERE ts BETWEEN (SELECT ts FROM '$SW' ORDER BY ts LIMIT 1 OFFSET 100) AND (SELECT ts FROM '$SW' ORDER BY ts LIMIT 1 OFFSET 349)"
sql "encodings: dictionary for strings, DELTA_BINARY_PACKED for integers (when smaller than PLAIN), RLE levels" \
	'[{"path_in_schema":"__comm","encodings":"PLAIN, RLE, RLE_DICTIONARY"},{"path_in_schema":"prev_comm","encodings":"PLAIN, RLE, RLE_DICTIONARY"},{"path_in_schema":"prev_pid","encodings":"PLAIN, RLE, DELTA_BINARY_PACKED"},{"path_in_schema":"ts","encodings":"PLAIN, RLE, DELTA_BINARY_PACKED"}]' \
	"SELECT DISTINCT path_in_schema, encodings FROM parquet_metadata('$SW') WHERE path_in_schema IN ('prev_comm', 'prev_pid', '__comm', 'ts') ORDER BY 1"
sql "--dictionary-size 8: prev_comm (more than 8 names) falls back to PLAIN, sched_load_se.path (fewer) stays a dictionary" \
	'[{"file":"sched_load_se.parquet","path_in_schema":"path","enc":"PLAIN, RLE, RLE_DICTIONARY"},{"file":"sched_switch.parquet","path_in_schema":"prev_comm","enc":"PLAIN, RLE"}]' \
	"SELECT regexp_extract(file_name, '[^/]*\$') AS file, path_in_schema, encodings AS enc FROM parquet_metadata('$SMALLDICT/sched_*.parquet') WHERE (path_in_schema = 'prev_comm' AND file_name LIKE '%switch%') OR (path_in_schema = 'path' AND file_name LIKE '%load_se%') ORDER BY 1"
if [ -n "$MARK" ]; then
	sql "mostly distinct strings: a row group whose 4097th distinct string comes within its first 8192 values is PLAIN (zstd) at once; one whose first 9000 repeat keeps its dictionary, compressed" \
		'[{"row_group_id":"0","row_group_num_rows":"15000","encodings":"PLAIN, RLE","compression":"ZSTD","small":true},{"row_group_id":"1","row_group_num_rows":"15000","encodings":"PLAIN, RLE, RLE_DICTIONARY","compression":"ZSTD","small":true}]' \
		"SELECT row_group_id, row_group_num_rows, encodings, compression, total_compressed_size * 4 < total_uncompressed_size AS small FROM parquet_metadata('$MARK/print.parquet') WHERE path_in_schema = 'buf' ORDER BY 1"
else
	echo "ok mostly distinct strings # skip $why"
fi
sql "--page-size 1K --dictionary-size 18: prev_comm (18 names in its first page, a 19th in row 280) dictionary-encoded in its first page, PLAIN after" \
	'[{"path_in_schema":"prev_comm","encodings":"PLAIN, RLE, RLE_DICTIONARY"}]' \
	"SELECT DISTINCT path_in_schema, encodings FROM parquet_metadata('$PAGES_DICT/sched_switch.parquet') WHERE path_in_schema = 'prev_comm'"
sql "--page-size 1K: row-group ts statistics (merged from the pages') equal the data's" '[{"bad":"0"}]' \
	"WITH d AS (SELECT (row_number() OVER () - 1) // 1000 AS g, ts FROM '$PAGES/sched_switch.parquet'),
	  s AS (SELECT g, min(ts)::VARCHAR AS mn, max(ts)::VARCHAR AS mx FROM d GROUP BY g),
	  m AS (SELECT row_group_id AS g, stats_min_value AS mn, stats_max_value AS mx
	        FROM parquet_metadata('$PAGES/sched_switch.parquet') WHERE path_in_schema = 'ts')
	 SELECT count(*) AS bad FROM s FULL JOIN m USING (g) WHERE s.mn IS DISTINCT FROM m.mn OR s.mx IS DISTINCT FROM m.mx"
# every integer column's bounds (found while trying DELTA_BINARY_PACKED, when
# it is given up mid-page (random values) and on pages of one value (a class's
# common_type)) equal the data's, per row group
for f in "$PAGES/sched_switch.parquet" "$UST_PAGES/corpus_ints.parquet" "$UST_PAGES/corpus_enums.parquet" "$C_ZSTD/corpus_ints.parquet"; do
	cols=$(duck sql "SELECT name FROM parquet_schema('$f') WHERE type IN ('INT32', 'INT64') AND repetition_type <> 'REPEATED' AND name NOT IN ('element', 'ts') ORDER BY name" |
		$PY -c 'import json,sys; print(",".join(json.dumps(r["name"]) for r in json.load(sys.stdin)))')
	ncols=$(echo "$cols" | tr ',' '\n' | grep -c .)
	sql "statistics: min/max of $ncols integer columns of $(basename "$(dirname "$f")")/$(basename "$f") per row group equal the data's" '[{"bad":"0"}]' \
		"WITH m AS (SELECT row_group_id AS g, path_in_schema AS c, row_group_num_rows AS n, stats_min_value AS mn, stats_max_value AS mx
		            FROM parquet_metadata('$f') WHERE path_in_schema IN ($(echo "$cols" | tr '"' "'"))),
		  o AS (SELECT g, n, sum(n) OVER (ORDER BY g) - n AS lo FROM (SELECT DISTINCT g, n FROM m)),
		  v AS (UNPIVOT (SELECT file_row_number AS r, COLUMNS(x -> x IN ($(echo "$cols" | tr '"' "'")))::HUGEINT FROM read_parquet('$f', file_row_number = true))
		        ON COLUMNS(* EXCLUDE (r)) INTO NAME c VALUE x),
		  d AS (SELECT g, c, min(x)::VARCHAR AS mn, max(x)::VARCHAR AS mx FROM v JOIN o ON v.r >= o.lo AND v.r < o.lo + o.n GROUP BY g, c)
		 SELECT count(*) AS bad FROM d FULL JOIN m USING (g, c) WHERE d.mn IS DISTINCT FROM m.mn OR d.mx IS DISTINCT FROM m.mx"
done
sql "--compression none: every column chunk UNCOMPRESSED" '[{"compression":"UNCOMPRESSED"}]' \
	"SELECT DISTINCT compression FROM parquet_metadata('$C_NONE/*.parquet')"
# zstd, snappy: a chunk whose first page the codec does not shrink by 1/16 is
# stored (UNCOMPRESSED, its sizes equal): the corpus' random 64-bit integers
for c in "snappy SNAPPY $C_SNAPPY" "zstd ZSTD $C_ZSTD"; do
	set -- $c
	sql "--compression $1: column chunks $2, or UNCOMPRESSED (random integers) with equal sizes" \
		"[{\"compression\":\"$2\",\"same\":false},{\"compression\":\"UNCOMPRESSED\",\"same\":true}]" \
		"SELECT compression, bool_and(total_compressed_size = total_uncompressed_size) AS same
		 FROM parquet_metadata('$3/*.parquet') GROUP BY compression ORDER BY compression = 'UNCOMPRESSED'"
	sql "--compression $1: corpus:ints s64 (random) stored" '[{"compression":"UNCOMPRESSED"}]' \
		"SELECT compression FROM parquet_metadata('$3/corpus_ints.parquet') WHERE path_in_schema = 's64'"
done
# --compression-level: zstd's level; the values read equal (the manifest), and
# the files (chunks that zstd does not shrink by 1/16 are stored, so only the
# whole says it) are smaller at 19 than at 1 (the default), and at 1 than at -5
fsize() { cat "$1"/*.parquet | wc -c; }
z19=$(fsize "$C_L19") z1=$(fsize "$C_ZSTD") zm5=$(fsize "$C_LM5")
lv=$($PY -c 'import json,sys; print(*[json.load(open(d+"/meta.json"))["compression_level"] for d in sys.argv[1:]])' "$C_L19" "$C_ZSTD" "$C_LM5")
if [ "$z19" -gt 0 ] && [ "$z19" -lt "$z1" ] && [ "$z1" -lt "$zm5" ] && [ "$lv" = "19 1 -5" ]; then
	ok "--compression-level 19 / 1 / -5: files of $z19 < $z1 < $zm5 bytes, meta.json levels $lv"
else notok "--compression-level 19 / 1 / -5: files smaller with the level" "$z19 $z1 $zm5 bytes, levels $lv"; fi
for a in "--compression-level 0" "--compression-level 23" "--compression-level 2x" "--compression none --compression-level 3" \
	"--compression-level 3 --compression snappy"; do
	"$TIO" convert -q --to parquet $a -o "$TMP/x" "$UST" 2> "$TMP/err"; rc=$?
	if [ $rc -eq 2 ] && grep -q 'option compression-level: ' "$TMP/err" && [ ! -e "$TMP/x" ]; then ok "refused: $a"
	else notok "refused: $a" "exit $rc" "$(cat "$TMP/err")"; fi
done
nrg=$(duck sql "SELECT count(DISTINCT (file_name, row_group_id)) AS n FROM parquet_metadata('$BUDGET/*.parquet')" | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["n"])')
nfiles=$(ls "$BUDGET"/*.parquet | wc -l)
if [ "$nrg" -gt "$nfiles" ]; then ok "--buffer-size 1M (41 400 events): row groups written early: $nrg in $nfiles files"
else notok "--buffer-size 1M: row groups written early" "$nrg groups, $nfiles files"; fi

# count(*) GROUP BY name / stream (events.parquet) equals `traceio info`'s counts
"$TIO" info --count "$LISA" > "$TMP/info.txt"
for what in name stream; do
	want=$($PY - "$TMP/info.txt" $what <<'EOF'
import json, re, sys
rows = []
for line in open(sys.argv[1]):
    m = re.match(r"\s+(\d+)\s+(\S+) \(id \d+\)$", line) if sys.argv[2] == "name" else \
        re.match(r"\s+stream (\d+) \(class \d+\): (\d+) events", line)
    if m:
        k, n = (m.group(2), m.group(1)) if sys.argv[2] == "name" else (int(m.group(1)), m.group(2))
        rows.append({sys.argv[2]: k, "n": n})
print(json.dumps(sorted(rows, key=lambda x: x[sys.argv[2]]), separators=(",", ":")))
EOF
	)
	sql "count(*) GROUP BY $what of events.parquet equals traceio info" "$want" \
		"SELECT $what, count(*) AS n FROM '$RG/events.parquet' GROUP BY $what ORDER BY $what"
done
sql "count(*) of each class file equals its events in events.parquet" '[{"bad":"0"}]' \
	"SELECT count(*) AS bad FROM (SELECT name, count(*) AS n FROM '$RG/events.parquet' GROUP BY name) e
	 JOIN (SELECT regexp_extract(filename, '([^/]*)\\.parquet\$', 1) AS name, count(*) AS n FROM read_parquet('$RG/[!e]*.parquet', filename = true) GROUP BY 1) f USING (name) WHERE e.n <> f.n"

# --partition-by trace: OUT/*/sched_switch.parquet is one table with a trace column
# info_count TRACE EVENT: how many EVENT events `traceio info` counts
info_count() { "$TIO" info --count "$1" | awk -v e="$2" '$2 == e && $3 ~ /^\(id/ {s += $1} END {print s + 0}'; }
IDLE=$DAT/lisa-trappy-tests-trace_idle-arm64-v6.dat
sql "partition-by trace: read_parquet('OUT/*/sched_switch.parquet') GROUP BY trace equals traceio info" \
	"[{\"trace\":\"$(basename "$LISA")\",\"n\":\"$(info_count "$LISA" sched_switch)\"},{\"trace\":\"$(basename "$IDLE")\",\"n\":\"$(info_count "$IDLE" sched_switch)\"}]" \
	"SELECT trace, count(*) AS n FROM read_parquet('$PART/*/sched_switch.parquet') GROUP BY trace ORDER BY trace"

# the CPU-time query of docs/formats/parquet.md: each CPU's durations add up to its last switch minus its first
sql "docs query: sum(dur) per trace and CPU over OUT/*/sched_switch.parquet equals last ts - first ts" '[{"bad":"0","cpus":"'"$(duck sql "SELECT count(*) AS n FROM (SELECT DISTINCT trace, cpu FROM read_parquet('$PART/*/sched_switch.parquet'))" | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["n"])')"'"}]' \
	"WITH s AS (SELECT trace, cpu, prev_comm AS comm, ts,
	         epoch_ns(ts) - lag(epoch_ns(ts)) OVER (PARTITION BY trace, cpu ORDER BY ts) AS dur
	         FROM read_parquet('$PART/*/sched_switch.parquet'))
	 SELECT count(*) FILTER (WHERE total <> span) AS bad, count(*) AS cpus FROM
	   (SELECT trace, cpu, coalesce(sum(dur), 0) AS total, epoch_ns(max(ts)) - epoch_ns(min(ts)) AS span FROM s GROUP BY ALL)"

# the polars query of docs/formats/parquet.md (scan_parquet of OUT/*/sched_switch.parquet,
# rows per trace and prev_comm) gives DuckDB's counts
norm='import json, sys; print(json.dumps(sorted((r["trace"], r["prev_comm"], int(r["len"])) for r in json.load(sys.stdin))))'
want=$(duck sql "SELECT trace, prev_comm, count(*) AS len FROM read_parquet('$PART/*/sched_switch.parquet') GROUP BY ALL" | $PY -c "$norm")
got=$(node "$HERE/polars.mjs" fleet "$PART/*/sched_switch.parquet" prev_comm 2> "$TMP/polars.err" | $PY -c "$norm" 2>> "$TMP/polars.err")
if [ -n "$got" ] && [ "$got" = "$want" ] && [ "$(echo "$want" | $PY -c 'import json,sys; print(len(json.load(sys.stdin)))')" -gt 10 ]; then
	ok "docs query in polars: rows per trace and prev_comm over OUT/*/sched_switch.parquet as DuckDB counts them"
else
	notok "docs query in polars: rows per trace and prev_comm as DuckDB counts them" "got ${got:0:200}" "want ${want:0:200}" "$(tail -3 "$TMP/polars.err")"
fi

# a fleet of 32- and 64-bit machines (arm32, arm64, x86-64 trace.dat; a C long of 4 or 8 bytes):
# with --int-width 64 every integer field is INT64, so polars scans OUT/*/sched_switch.parquet
# as one table (with the default narrowest types, arm32's prev_state is INT32 and x86-64's
# INT64, which polars refuses to put in one column); prev_comm is text in every file
# (arm32's `char prev_comm[32]; size:16` is read as the 16 bytes of text libtraceevent reads)
ARM32=$DAT/lisa-tests-trace-arm32-v6-large.dat
FLEET=("$ARM32" "$LISA" "$DAT/langraph-x86_64-v7-zstd.dat")
"$TIO" convert -q --to parquet --partition-by trace -o "$TMP/fleet" "${FLEET[@]}" 2> "$TMP/conv.err" &&
	"$TIO" convert -q --to parquet --partition-by trace --int-width 64 -o "$TMP/fleet64" "${FLEET[@]}" 2>> "$TMP/conv.err"
types() { duck sql "SELECT DISTINCT type FROM parquet_schema('$1/*/*.parquet') WHERE type LIKE 'INT%' AND name NOT IN ('cpu', 'stream') ORDER BY 1" | tr -d '\n'; }
t32=$(duck sql "SELECT type FROM parquet_schema('$TMP/fleet/$(basename "$ARM32")/sched_switch.parquet') WHERE name = 'prev_state'" | tr -d '\n')
t64=$(types "$TMP/fleet64")
comm=$(duck sql "SELECT DISTINCT logical_type FROM parquet_schema('$TMP/fleet/*/sched_switch.parquet') WHERE name IN ('prev_comm', 'next_comm')" | tr -d '\n')
if [ "$t32" = '[{"type":"INT32"}]' ] && [ "$t64" = '[{"type":"INT64"}]' ] && [ "$comm" = '[{"logical_type":"StringType()"}]' ]; then
	ok "fleet of 32- and 64-bit machines: prev_state INT32 on arm32 by default, every integer field INT64 with --int-width 64, prev_comm text everywhere"
else
	notok "fleet of 32- and 64-bit machines: integer types and prev_comm" "arm32 prev_state: $t32" "--int-width 64: $t64" "prev_comm: $comm"
fi
norm2='import json, sys; print(json.dumps(sorted((r["trace"], r["prev_comm"], str(r["prev_state"]), int(r["len"])) for r in json.load(sys.stdin))))'
want=$(duck sql "SELECT trace, prev_comm, prev_state, count(*) AS len FROM read_parquet('$TMP/fleet/*/sched_switch.parquet') GROUP BY ALL" | $PY -c "$norm2")
got=$(node "$HERE/polars.mjs" fleet "$TMP/fleet64/*/sched_switch.parquet" prev_comm,prev_state 2> "$TMP/polars.err" | $PY -c "$norm2" 2>> "$TMP/polars.err")
if [ -n "$got" ] && [ "$got" = "$want" ] && [ "$(echo "$want" | $PY -c 'import json,sys; print(len({r[0] for r in json.load(sys.stdin)}))')" = 3 ]; then
	ok "fleet of 32- and 64-bit machines with --int-width 64: polars counts rows per trace, prev_comm and prev_state as DuckDB does over the default files"
else
	notok "fleet with --int-width 64: polars reads it as one table" "got ${got:0:200}" "want ${want:0:200}" "$(tail -3 "$TMP/polars.err")"
fi
# prev_comm as trace-cmd prints it (`PREV_COMM:PID [PRIO] STATE ==> ...`): rows per comm in arm32's sched_switch
want=$(trace-cmd report -i "$ARM32" 2> /dev/null | sed -n 's/.* sched_switch: *\(.*\):[0-9]* \[[0-9]*\] [^ ]* ==> .*/\1/p' | sort | uniq -c | awk '{print $2, $1}')
got=$(duck sql "SELECT prev_comm AS c, count(*) AS n FROM '$TMP/fleet/$(basename "$ARM32")/sched_switch.parquet' GROUP BY 1" |
	$PY -c 'import json,sys; [print(r["c"], r["n"]) for r in sorted(json.load(sys.stdin), key=lambda r: r["c"])]' | LC_ALL=C sort)
if [ -n "$want" ] && [ "$got" = "$(echo "$want" | LC_ALL=C sort)" ]; then
	ok "arm32's char prev_comm[32] of 16 bytes: $(echo "$want" | wc -l) names, each as often as trace-cmd report prints it"
else
	notok "arm32's prev_comm as trace-cmd prints it" "$(diff <(echo "$want" | LC_ALL=C sort) <(echo "$got") | head -5)"
fi
rm -rf "$TMP/fleet" "$TMP/fleet64"

# more inputs than parts: each read and closed before the next is opened (tio_sink_end_trace).
# Each trace's directory must be, byte for byte, what converting its input alone into a
# directory of that name gives; the same CTF trace given twice is still one trace; and the
# peak RSS must not grow with the inputs (16 inputs of langraph's 7 MB kallsyms: 73 MiB
# read all at once, against 16 MiB for 2)
EACH=("$ARM32" "$LISA" "$DAT/langraph-x86_64-v7-zstd.dat" "$UST" "$DAT/igt-tests-trace-x86_64-i915-v6.dat")
TIO_THREADS=1 "$TIO" convert -q --to parquet --partition-by trace -o "$TMP/each" "${EACH[@]}" 2> "$TMP/conv.err"; rc=$?
mapfile -t dirs < <($PY -c 'import json, sys; [print(t["dir"]) for t in json.load(open(sys.argv[1]))["traces"]]' "$TMP/each/meta.json" 2> /dev/null)
bad=""
mkdir -p "$TMP/alone"
[ $rc -eq 0 ] && [ ${#dirs[@]} = ${#EACH[@]} ] || bad="exit $rc, traces: ${dirs[*]}"
for ((i = 0; i < ${#EACH[@]} && ${#bad} == 0; i++)); do # each input holds one trace: its directory is the i-th
	d=${dirs[$i]}
	TIO_THREADS=1 "$TIO" convert -q --to parquet --partition-by trace -o "$TMP/alone/$d" "${EACH[$i]}" 2>> "$TMP/conv.err" &&
		diff -r "$TMP/each/$d" "$TMP/alone/$d" > "$TMP/each.diff" 2>&1 || bad="$d (${EACH[$i]}): $(head -2 "$TMP/each.diff")"
done
# OUT is the temporary directory renamed: made as mkdir makes one (umask), not mkdtemp's 0700
mode=$(stat -c %a "$TMP/each" 2> /dev/null) want=$(printf '%o' $((0777 & ~$(umask))))
[ -n "$bad" ] || [ "$mode" = "$want" ] || bad="OUT's mode $mode, not $want (umask $(umask))"
if [ -z "$bad" ]; then
	ok "${#EACH[@]} inputs one after another: each trace's files and meta.json as its input's alone"
else
	notok "inputs one after another: each trace's files as its input's alone" "$bad" "$(head -3 "$TMP/conv.err")"
fi
rm -rf "$TMP/each" "$TMP/alone"
TIO_THREADS=1 "$TIO" convert -q --to parquet -o "$TMP/twice" "$UST" "$UST/" 2> "$TMP/conv.err"; rc=$?
ev=$("$TIO" info --count "$UST" "$UST/" | awk '/^  events:/ {s += $2} END {print s + 0}')
rows=$(duck sql "SELECT count(*) AS n FROM '$TMP/twice/events.parquet'" 2>&1 | sed 's/.*"n":"*\([0-9]*\).*/\1/')
if [ $rc -eq 0 ] && [ "$(ls -d "$TMP"/twice/*/ 2> /dev/null | wc -l)" = 0 ] && [ "$rows" = "$ev" ] && [ "$ev" -gt 0 ]; then
	ok "the same CTF trace given twice: one trace (no directory per input), $rows events as info counts them"
else
	notok "the same CTF trace given twice: one trace" "exit $rc, events.parquet: $rows rows, info: $ev" "$(ls "$TMP/twice" 2>&1 | head -3)" "$(head -3 "$TMP/conv.err")"
fi
rm -rf "$TMP/twice"
# a fleet's inputs on several threads (convert_each: a range of the inputs per thread, each
# into its own sink, merged in order): OUT byte for byte one thread's (the same buffer for
# both: row groups follow each thread's share of it), the same exit status and messages, line
# for line (each thread's kept and printed in the inputs' order), with a damaged input and a
# trace whose open warns (w/t: a clock offset out of range); two paths that give one name
# (a/b/x.dat and a_b/x.dat: one thread names the later `trace<k>`, which the threads cannot
# know) read again on one thread, the same names, the warning printed once (twice until
# session 21); and the threads are there: more tasks than with --strict (one thread), counted
# by strace
mkdir -p "$TMP/mt/a/b" "$TMP/mt/a_b" "$TMP/mt/c" "$TMP/mt/d" "$TMP/mt/e" "$TMP/mt/w"
ln -s "$IDLE" "$TMP/mt/a/b/x.dat" && ln -s "$LISA" "$TMP/mt/a_b/x.dat" && ln -s "$TMP/damaged.dat" "$TMP/mt/c/x.dat" &&
	ln -s "$DAT/langraph-x86_64-v7-zstd.dat" "$TMP/mt/d/x.dat" && ln -s "$UST" "$TMP/mt/e/x" &&
	python3 "$TIO_TOP/tests/tools/gen-ctf-clocks.py" bigoffset "$TMP/mt/w/t" > /dev/null 2>&1
for set in "3:w/t c/x.dat d/x.dat e/x a/b/x.dat" "2:a/b/x.dat w/t d/x.dat a_b/x.dat e/x"; do
	th=${set%%:*} in=() && for f in ${set#*:}; do in+=("$TMP/mt/$f"); done
	rm -rf "$TMP/mt1" "$TMP/mtn"
	TIO_THREADS=1 "$TIO" convert -q --to parquet --partition-by trace --buffer-size 1G -o "$TMP/mt1" "${in[@]}" 2> "$TMP/mt1.err"; rc1=$?
	TIO_THREADS=$th "$TIO" convert -q --to parquet --partition-by trace --buffer-size 1G -o "$TMP/mtn" "${in[@]}" 2> "$TMP/mtn.err"; rcn=$?
	dirs=$(cd "$TMP/mtn" 2> /dev/null && ls -d */ | tr -d / | tr '\n' ' ')
	bad=""
	[ $rc1 = $rcn ] && [ -f "$TMP/mtn/meta.json" ] || bad="exit $rc1 on one thread, $rcn on $th"
	[ -n "$bad" ] || diff -r "$TMP/mt1" "$TMP/mtn" > "$TMP/mt.diff" 2>&1 || bad="OUT differs: $(head -3 "$TMP/mt.diff")"
	[ -n "$bad" ] || cmp -s "$TMP/mt1.err" "$TMP/mtn.err" || bad="messages differ: $(diff "$TMP/mt1.err" "$TMP/mtn.err" | head -3)"
	[ -n "$bad" ] || [ "$(grep -c "warning: .*w/t: clock monotonic: .*does not fit" "$TMP/mtn.err")" = 1 ] || bad="the warning not printed once: $(grep -c warning "$TMP/mtn.err")"
	case $th in
	3) [ -n "$bad" ] || { [ $rcn = 1 ] && grep -q "c/x.dat@0x[0-9a-f]*: section flyrecord cpu 3" "$TMP/mtn.err"; } || bad="the damaged input not reported (exit $rcn)" ;;
	2) [ -n "$bad" ] || [ "$dirs" = "a_b_x.dat d_x.dat e_x_ust_uid_0_64-bit trace3 w_t " ] || bad="names: $dirs" ;;
	esac
	if [ -z "$bad" ]; then
		ok "${#in[@]} inputs on $th threads: OUT as one thread's (exit $rcn; $dirs)"
	else
		notok "${#in[@]} inputs on $th threads: OUT as one thread's" "$bad" "$(head -3 "$TMP/mtn.err")"
	fi
done
if command -v strace > /dev/null && ! is_sanitized; then
	# readers: the threads that opened an input
	readers() { # TH: TIO_THREADS (empty: as by default)
		rm -rf "$TMP/mtn"
		env -u TIO_THREADS ${TH:+TIO_THREADS=$TH} strace -f -qq -e trace=openat -o "$TMP/strace" "$TIO" convert -q --to parquet "$@" -o "$TMP/mtn" \
			"$TMP"/mt/[de]/x* "$TMP/mt/a/b/x.dat" "$ARM32" 2> /dev/null
		grep -E "openat\(AT_FDCWD, \"($TMP/mt/|$ARM32)" "$TMP/strace" | awk '{print $1}' | sort -u | wc -l
	}
	r1=$(TH=3 readers --strict) rn=$(TH=3 readers)
	if [ "$r1" = 1 ] && [ "$rn" = 3 ]; then ok "4 inputs on 3 threads: opened by $rn threads, by $r1 with --strict (one thread)"
	else notok "4 inputs on 3 threads: opened by 3 threads" "$rn threads, $r1 with --strict"; fi
	# by default a thread per CPU and per 8 MiB of --buffer-size, however small the inputs
	# (these 4 hold some 20 MB; until session 21 a thread per 32 MiB of inputs: one here)
	cpus=$(nproc) && want=$((cpus < 4 ? cpus : 4))
	rd=$(TH= readers) r2=$(TH= readers --buffer-size 8M)
	if [ "$rd" = "$want" ] && [ "$r2" = 1 ]; then ok "4 small inputs by default: opened by $rd threads ($cpus CPUs), by $r2 with --buffer-size 8M"
	else notok "4 small inputs by default: opened by $want threads" "$rd threads ($cpus CPUs), $r2 with --buffer-size 8M"; fi
else
	echo "ok 4 inputs on 3 threads: opened by 3 threads # skip no strace, or sanitizer build"
	echo "ok 4 small inputs by default: opened by a thread per CPU # skip no strace, or sanitizer build"
fi
rm -rf "$TMP/mt" "$TMP/mt1" "$TMP/mtn"
# out of memory (address space limited, 15 to 300 MB): exit 1 with a word on memory naming
# the input or the file (a bare "out of memory" until session 21: a reader's open, the end of a
# fleet's trace), or 0 with the whole output, never a crash (json-c asserted on a NULL object
# building meta.json), and nothing left behind; one input, and three on 2 threads (a thread
# that cannot start: one)
if ! is_sanitized; then
	bad="" n0=0 n1=0
	for v in $(seq 15000 15000 300000); do
		for how in one fleet; do
			in=("$ARM32") && [ $how = fleet ] && in=("$IDLE" "$LISA" "$UST")
			rm -rf "$TMP/oom"*
			(ulimit -v $v && TIO_THREADS=$([ $how = fleet ] && echo 2 || echo 1) "$TIO" convert -q --to parquet -o "$TMP/oom" "${in[@]}") > /dev/null 2> "$TMP/oom-err"
			rc=$?
			left=$(ls -d "$TMP"/oom.tmp-* 2> /dev/null | wc -l)
			case $rc in
			0) n0=$((n0 + 1)) && [ -f "$TMP/oom/meta.json" ] && [ "$left" = 0 ] || bad="$bad $how@${v}K: exit 0, $left left" ;;
			1) n1=$((n1 + 1)) && grep -qi "memory" "$TMP/oom-err" && ! grep -qx "traceio: out of memory" "$TMP/oom-err" &&
				[ ! -e "$TMP/oom" ] && [ "$left" = 0 ] ||
				bad="$bad $how@${v}K: exit 1 ($(head -1 "$TMP/oom-err")), $left left" ;;
			*) bad="$bad $how@${v}K: exit $rc ($(tail -1 "$TMP/oom-err"))" ;;
			esac
		done
	done
	if [ -z "$bad" ] && [ $n0 -gt 0 ] && [ $n1 -gt 0 ]; then
		ok "out of memory (ulimit -v 15-300 MB): $n1 conversions exit 1 (memory), $n0 complete, none crashed, nothing left"
	else
		notok "out of memory: exit 1 or a whole output, nothing left" "${bad:0:600}" "$n1 failed, $n0 complete"
	fi
	rm -rf "$TMP/oom"*
fi
# a fleet's layout, hosts/<host>/trace.dat and hosts/<host>/session (two LTTng sessions of the
# same ust/uid/0/64-bit layout): each trace named by its path below the directory holding the
# inputs, as directory and as the trace column, read one after another and all at once (-b 0)
mkdir -p "$TMP/hosts/web1" "$TMP/hosts/web2" "$TMP/hosts/db1" "$TMP/hosts/db2"
ln -s "$LISA" "$TMP/hosts/web1/trace.dat" && ln -s "$IDLE" "$TMP/hosts/web2/trace.dat" &&
	ln -s "$UST" "$TMP/hosts/db1/session" && ln -s "$TIO_TOP/tests/data/ctf/lttng-ust-cyg" "$TMP/hosts/db2/session"
want='[{"trace":"db1_session_ust_uid_0_64-bit"},{"trace":"db2_session_ust_uid_0_64-bit"},{"trace":"web1_trace.dat"},{"trace":"web2_trace.dat"}]'
for how in "one after another" "all at once"; do
	b=() && [ "$how" = "all at once" ] && b=(-b 0)
	rm -rf "$TMP/hostsout"
	"$TIO" convert -q --to parquet --partition-by trace "${b[@]}" -o "$TMP/hostsout" "$TMP"/hosts/*/* 2> "$TMP/conv.err"; rc=$?
	dirs=$(cd "$TMP/hostsout" 2> /dev/null && ls -d */ | tr -d / | tr '\n' ' ')
	got=$(duck sql "SELECT DISTINCT trace FROM read_parquet('$TMP/hostsout/*/events.parquet') ORDER BY 1" 2>&1)
	if [ $rc -eq 0 ] && [ "$dirs" = "db1_session_ust_uid_0_64-bit db2_session_ust_uid_0_64-bit web1_trace.dat web2_trace.dat " ] && [ "$got" = "$want" ]; then
		ok "fleet layout ($how): traces named by host directory: $dirs"
	else
		notok "fleet layout ($how): traces named by host directory" "exit $rc, directories: $dirs" "trace column: ${got:0:300}" "$(head -3 "$TMP/conv.err")"
	fi
done
rm -rf "$TMP/hosts" "$TMP/hostsout"
if ! is_sanitized; then
	mkdir -p "$TMP/lk"
	for i in $(seq 16); do mkdir -p "$TMP/lk/m$i" && ln -sf "$DAT/langraph-x86_64-v7-zstd.dat" "$TMP/lk/m$i/langraph.dat"; done
	rt() { "$TIO_TOP/bench/rtime.py" -f %M -o "$TMP/rss" "$@" > /dev/null 2> "$TMP/rt.err" && tail -1 "$TMP/rss"; }
	r2=$(TIO_THREADS=1 rt "$TIO" convert -q --to parquet -o "$TMP/lk2" "$TMP"/lk/m1/langraph.dat "$TMP"/lk/m2/langraph.dat)
	r16=$(TIO_THREADS=1 rt "$TIO" convert -q --to parquet -o "$TMP/lk16" "$TMP"/lk/m*/langraph.dat)
	n16=$(ls -d "$TMP"/lk16/*/ 2> /dev/null | wc -l)
	if [ -n "$r2" ] && [ -n "$r16" ] && [ "$n16" = 16 ] && [ $((r16 - r2)) -lt $((8 * 1024)) ]; then
		ok "16 inputs one after another: peak RSS $((r16 / 1024)) MiB, 2 inputs $((r2 / 1024)) MiB"
	else
		notok "16 inputs: peak RSS flat" "16: $r16 KiB ($n16 traces), 2: $r2 KiB" "$(tail -3 "$TMP/rt.err")"
	fi
	rm -rf "$TMP/lk" "$TMP/lk2" "$TMP/lk16"
fi

# atomic output: an existing OUT is refused, replaced with --force; nothing left behind
"$TIO" convert -q --to parquet -o "$C_ZSTD" "$UST" 2> "$TMP/err"; rc=$?
if [ $rc -eq 2 ] && grep -q 'already exists' "$TMP/err"; then ok "existing OUT refused without --force"
else notok "existing OUT refused without --force" "exit $rc" "$(cat "$TMP/err")"; fi
"$TIO" convert -q --to parquet --force --compression snappy -o "$C_ZSTD" "$UST" 2> "$TMP/err"; rc=$?
left=$(ls -d "$OUT"/*.tmp-* "$OUT"/*.old-* 2> /dev/null | wc -l)
if [ $rc -eq 0 ] && [ "$left" -eq 0 ] && [ "$(duck sql "SELECT count(*) AS n FROM parquet_metadata('$C_ZSTD/*.parquet') WHERE compression = 'ZSTD'")" = '[{"n":"0"}]' ]; then
	ok "--force replaces OUT, no temporary directory left"
else notok "--force replaces OUT, no temporary directory left" "exit $rc, $left left" "$(cat "$TMP/err")"; fi
mkdir "$TMP/notours" && echo x > "$TMP/notours/keep"
"$TIO" convert -q --to parquet --force -o "$TMP/notours" "$UST" 2> "$TMP/err"; rc=$?
if [ $rc -ne 0 ] && [ -f "$TMP/notours/keep" ] && [ "$(ls -d "$TMP"/notours.* 2> /dev/null | wc -l)" -eq 0 ]; then
	ok "--force does not replace a directory that is not a Parquet output"
else notok "--force does not replace a directory that is not a Parquet output" "exit $rc" "$(cat "$TMP/err")"; fi
"$TIO" convert -q --to parquet --compression lz4 -o "$TMP/x" "$UST" 2> "$TMP/err"; rc=$?
if [ $rc -eq 2 ] && grep -q 'none, zstd or snappy' "$TMP/err" && [ ! -e "$TMP/x" ]; then ok "bad --compression refused"
else notok "bad --compression refused" "exit $rc" "$(cat "$TMP/err")"; fi

# bench/parquet.sh's peers (bench/parquet-peers.mjs): DuckDB and polars write the tables of a
# conversion again, and each writer's files hold every row (events.parquet's and the classes')
"$TIO" convert -q --to parquet -o "$TMP/peers-in" "$DAT/lisa-tests-assets-sched_load-arm64-v6.dat" 2> "$TMP/err"
ev=$("$TIO" info --count "$DAT/lisa-tests-assets-sched_load-arm64-v6.dat" | awk '/^  events:/ {s += $2} END {print s + 0}')
node "$TIO_TOP/bench/parquet-peers.mjs" "$TMP/peers-in" "$TMP/peers-out" 2 1 1 > "$TMP/peers.json" 2> "$TMP/err"
got=$($PY -c 'import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
print(" ".join("%s:%d:%d:%d" % (r["writer"], r["rows"], r["rows_written"], r["bytes"] > 0) for r in rs))' "$TMP/peers.json" 2>&1)
if [ "$ev" -gt 0 ] && [ "$got" = "duckdb:$((2 * ev)):$((2 * ev)):1 polars:$((2 * ev)):$((2 * ev)):1" ] && [ ! -e "$TMP/peers-out" ]; then
	ok "bench/parquet-peers.mjs: DuckDB and polars write the $((2 * ev)) rows again"
else notok "bench/parquet-peers.mjs: DuckDB and polars write the rows again" "events $ev, got $got" "$(tail -3 "$TMP/err")"; fi
