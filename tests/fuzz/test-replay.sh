#!/bin/bash
# Every input of every fuzz corpus (fuzz/corpora/<target>/: seeds from real
# traces and every input that once crashed, leaked or hung) through its
# target once, without libFuzzer (<target>-replay): no crash, no sanitizer
# report (in the ASan+UBSan build), no hang, and peak memory under 1 GiB
# (libFuzzer's own limit is 2 GiB; the inputs that once made gigabytes of
# padding stay caught here).
. "$(dirname "$0")/../lib.sh"
n=0
for dir in "$TIO_TOP"/fuzz/corpora/*/; do
	t=$(basename "$dir")
	bin=$TIO_BUILD/${t}_fuzzer-replay
	n=$((n + 1))
	if [ ! -x "$bin" ]; then
		notok "replay $t" "no $bin (fuzz/${t}_fuzzer.c not built?)"
		continue
	fi
	if /usr/bin/time -f %M -o "$TMP/rss" timeout 600 "$bin" "$dir" >"$TMP/out" 2>&1; then
		rss=$(tail -1 "$TMP/rss")
		if [ "${rss:-0}" -lt 1048576 ]; then
			ok "replay $t: $(tail -1 "$TMP/out"), peak RSS $((rss / 1024)) MiB"
		else
			notok "replay $t: peak RSS $((rss / 1024)) MiB (1 GiB at most)"
		fi
	else
		notok "replay $t (exit $?)" "$(grep -E 'ERROR|SUMMARY|runtime error|Running' "$TMP/out" | head -5)"
	fi
done
[ $n -ge 7 ] && ok "fuzz corpora: $n targets" || notok "fuzz corpora: only $n targets"
