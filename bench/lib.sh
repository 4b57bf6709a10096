# Shared by the bench scripts (sourced): bench_keep NAME CMD... runs CMD once under
# bench/rtime.py (stdout dropped, stderr kept in $work/err) and keeps, per NAME, the run
# with the least CPU time in the associative arrays bcpu, bwall (seconds) and brss (KiB),
# and every run's wall time in bwalls (space-separated, in the order run: the callers
# alternate their commands, so the k-th of two NAMEs ran side by side).
# Needs $top and $work; exits when CMD fails.
declare -A bcpu bwall brss bwalls
bench_keep() {
	local name=$1
	shift
	"$top/bench/rtime.py" -f '%e %U %S %M' -o "$work/time" "$@" > /dev/null 2> "$work/err" ||
		{ echo "$name failed: $(tail -2 "$work/err")" >&2; exit 1; }
	local w u s m c
	read -r w u s m < <(tail -1 "$work/time")
	c=$(echo "$u + $s" | bc -l)
	bwalls[$name]="${bwalls[$name]:-}$w "
	if [ -z "${bcpu[$name]:-}" ] || [ "$(echo "$c < ${bcpu[$name]}" | bc -l)" = 1 ]; then
		bcpu[$name]=$c bwall[$name]=$w brss[$name]=$m
	fi
}

# bench_ratios A B: B's wall time against A's: "least X.XXx, median of the rounds Y.YYx" (the
# least of each NAME's walls, and the median of B's k-th wall over A's k-th); what a run of
# the machine's noise does not move as much as one pick (a least-CPU run of each can come
# from a slow minute for one and a quick one for the other).
bench_ratios() {
	echo "${bwalls[$1]}" "|" "${bwalls[$2]}" | awk '{
		n = 0; for (i = 1; $i != "|"; i++) a[++n] = $i
		m = 0; for (i++; i <= NF; i++) b[++m] = $i
		la = a[1]; lb = b[1]
		for (k = 1; k <= n; k++) { if (a[k] < la) la = a[k]; r[k] = b[k] / a[k] }
		for (k = 1; k <= m; k++) if (b[k] < lb) lb = b[k]
		for (i = 2; i <= n; i++) { x = r[i]; for (j = i - 1; j >= 1 && r[j] > x; j--) r[j + 1] = r[j]; r[j + 1] = x }
		med = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
		printf "least %.2fx, median of the rounds %.2fx", lb / la, med
	}'
}
