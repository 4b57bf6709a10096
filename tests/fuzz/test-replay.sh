#!/bin/bash
# Every input of every fuzz corpus (fuzz/corpora/<target>/: seeds from real
# traces and every input that once crashed, leaked or hung) through its
# target once, without libFuzzer (<target>-replay): no crash, no sanitizer
# report (in the ASan+UBSan build), no hang.
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
	if timeout 600 "$bin" "$dir" >"$TMP/out" 2>&1; then
		ok "replay $t: $(tail -1 "$TMP/out")"
	else
		notok "replay $t (exit $?)" "$(grep -E 'ERROR|SUMMARY|runtime error|Running' "$TMP/out" | head -5)"
	fi
done
[ $n -ge 7 ] && ok "fuzz corpora: $n targets" || notok "fuzz corpora: only $n targets"
