# awk -v B=NS -v E=NS -f report-range.awk REPORT_T_TEXT
# The lines of a `trace-cmd report -t` text that a time range [B, E]
# (ns, both inclusive) keeps: the cpus= lines, every event line whose
# timestamp is in range with the "CPU:N [.. EVENTS DROPPED]" lines just
# before it, and the continuation lines (kernel_stack "=> ...") of kept events.
/^ *cpus=/ || /: cpus=/ { print; next }
/CPU:[0-9]+ \[([0-9]+ )?EVENTS DROPPED\]/ { pend = pend $0 "\n"; next }
{
	ts = ""
	for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = $i; break }
	if (ts == "") { if (keep) print; next }
	split(substr(ts, 1, length(ts) - 1), p, ".")
	ns = p[1] * 1000000000 + p[2]
	keep = ns >= B && ns <= E
	if (keep) printf "%s%s\n", pend, $0
	pend = ""
}
