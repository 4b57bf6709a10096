# Shared by the bench scripts (sourced): bench_keep NAME CMD... runs CMD once under
# bench/rtime.py (stdout dropped, stderr kept in $work/err) and keeps, per NAME, the run
# with the least CPU time in the associative arrays bcpu, bwall (seconds) and brss (KiB).
# Needs $top and $work; exits when CMD fails.
declare -A bcpu bwall brss
bench_keep() {
	local name=$1
	shift
	"$top/bench/rtime.py" -f '%e %U %S %M' -o "$work/time" "$@" > /dev/null 2> "$work/err" ||
		{ echo "$name failed: $(tail -2 "$work/err")" >&2; exit 1; }
	local w u s m c
	read -r w u s m < <(tail -1 "$work/time")
	c=$(echo "$u + $s" | bc -l)
	if [ -z "${bcpu[$name]:-}" ] || [ "$(echo "$c < ${bcpu[$name]}" | bc -l)" = 1 ]; then
		bcpu[$name]=$c bwall[$name]=$w brss[$name]=$m
	fi
}
