#!/bin/bash
# Record real traces with trace-cmd when this machine can (root, tracefs,
# no other trace-cmd running) and compare `traceio print` with
# `trace-cmd report` on them: v6, v7 zstd (default), v7 uncompressed, two
# buffer instances.  Skips cleanly otherwise.
. "$TIO_TOP/tests/lib.sh"
T=/sys/kernel/tracing
skip() { echo "ok live trace-cmd recording # skip $1"; exit 0; }
why=$(why_no_recording)
[ -z "$why" ] || skip "$why"
WL="sh -c 'ls -R /usr/share/doc >/dev/null; echo traceio-live > $T/trace_marker; sleep 0.05'"

rec() { # out args...
	local o=$1; shift
	eval $NS trace-cmd record -o "$o" "$@" $WL > "$TMP/rec.log" 2>&1
}

live() { # name file
	local v opt
	[ -s "$2" ] || { notok "$1 recorded" "$(tail -3 "$TMP/rec.log")"; return; }
	report_same "live $1" "$2"
	# info: the trace-cmd part as `dump --summary`, the counts as report -t's lines
	"$TIO" info --count "$2" > "$TMP/info" 2> "$TMP/err"
	trace-cmd dump --summary "$2" > "$TMP/exp" 2>/dev/null
	awk '/^ Tracing meta data/{p=1; print ""} p && /^  [a-z]/{exit} p' "$TMP/info" > "$TMP/got"
	same "live $1 info = dump --summary" "$TMP/exp" "$TMP/got"
	trace-cmd report -t -i "$2" > "$TMP/exp" 2>/dev/null
	if python3 "$TIO_TOP/tests/tools/cmp-info-report.py" "$TMP/info" "$TMP/exp" > "$TMP/diff"; then
		ok "live $1 info counts = report -t"
	else
		notok "live $1 info counts = report -t" "$(head -5 "$TMP/diff")"
	fi
}

rec "$TMP/v6.dat" --file-version 6 -b 4096 -e sched -e irq -e timer -e syscalls:sys_enter_openat -e syscalls:sys_exit_openat
live v6 "$TMP/v6.dat"
rec "$TMP/v7.dat" -b 4096 -e sched -e irq -e timer -e syscalls:sys_enter_openat -e syscalls:sys_exit_openat
live v7-zstd "$TMP/v7.dat"
rec "$TMP/v7n.dat" --compression none -b 4096 -e sched -e irq
live v7-none "$TMP/v7n.dat"
INSTANCES="tio_long_instance_a" rec "$TMP/inst.dat" --compression none -b 4096 -e sched -B tio_long_instance_a -b 4096 -e irq -e timer
live instances "$TMP/inst.dat"
# several inputs: `report -i A -i B` (prefix width grows with each file's instances)
for order in "inst v6" "v6 inst"; do
	set -- $order
	for v in "" -t -R; do
		trace-cmd report $v -i "$TMP/$1.dat" -i "$TMP/$2.dat" > "$TMP/exp" 2>/dev/null
		"$TIO" print $v "$TMP/$1.dat" "$TMP/$2.dat" > "$TMP/got" 2> "$TMP/err"
		same "live several inputs $1+$2 report$v ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
	done
done
rmdir $T/instances/tio_long_instance_a 2>/dev/null || true
INSTANCES="tio_a tio_b" rec "$TMP/inst6.dat" --file-version 6 -b 4096 -e sched -B tio_a -b 4096 -e irq -B tio_b -e signal
live instances-v6 "$TMP/inst6.dat"
# clocks trace-cmd does not count in ns (time stamps printed as integers),
# and --date (the gettimeofday offset added to every time stamp)
for c in counter x86-tsc boot; do
	grep -qw "$c" $T/trace_clock || continue
	rec "$TMP/clock.dat" -C $c -b 4096 -e sched -e syscalls:sys_enter_openat
	live "clock $c" "$TMP/clock.dat"
done
# the top buffer's clock decides for the whole file, instances included
INSTANCES="tio_clk" rec "$TMP/clock2.dat" -C counter -b 4096 -e sched:sched_switch -B tio_clk -C local -e sched:sched_wakeup -e irq
live "clock counter, an instance on local" "$TMP/clock2.dat"
# TSC2NSEC (`record --tsc2nsec -C x86-tsc`, which this VM refuses: no TSC multiplier in its
# perf page): a real x86-tsc v6 recording with the option and clock trace-cmd would write
# (tests/tools/add-tsc2nsec.py); multipliers of a ~2.8 GHz and a 2 GHz TSC, and one >= 2^31
# (read as a negative int, as trace-cmd does); then as v7 (`trace-cmd convert`), big-endian,
# and written back by traceio as v6 and v7 (the stamps in ns, the clock named tsc2nsec)
if grep -qw x86-tsc $T/trace_clock; then
	rec "$TMP/tsc.dat" --file-version 6 -C x86-tsc -b 4096 -e sched -e irq
	for ms in "766958445 31" "2147483647 32" "3000000000 30"; do
		if python3 "$TIO_TOP/tests/tools/add-tsc2nsec.py" "$TMP/tsc.dat" "$TMP/tsc2ns.dat" $ms > /dev/null 2> "$TMP/err"; then
			report_same "live tsc2nsec (mult shift $ms)" "$TMP/tsc2ns.dat"
		else
			notok "live tsc2nsec file made (mult shift $ms)" "$(cat "$TMP/err")"
		fi
	done
	python3 "$TIO_TOP/tests/tools/add-tsc2nsec.py" "$TMP/tsc.dat" "$TMP/tsc2ns.dat" 766958445 31 > /dev/null
	trace-cmd convert --file-version 7 -i "$TMP/tsc2ns.dat" -o "$TMP/tsc2ns7.dat" > /dev/null 2>&1
	report_same "live tsc2nsec v7 (trace-cmd convert)" "$TMP/tsc2ns7.dat"
	python3 "$TIO_TOP/tests/tools/tracedat-swap.py" "$TMP/tsc2ns.dat" "$TMP/tsc2nsbe.dat" > /dev/null 2>&1
	report_same "live tsc2nsec big-endian" "$TMP/tsc2nsbe.dat"
	trace-cmd report -i "$TMP/tsc2ns.dat" > "$TMP/exp" 2> /dev/null
	for src in tsc2ns tsc2ns7; do
		written_back_same "live $src.dat" "$TMP/exp" "$TMP/$src.dat"
	done
	# a time bound inside the trace: the events from it, as the whole print shows them
	"$TIO" print -t "$TMP/tsc2ns.dat" > "$TMP/all" 2> /dev/null
	from_time_same "live tsc2nsec" "$TMP/all" "$TMP/tsc2ns.dat" 2
fi
rmdir $T/instances/tio_clk 2>/dev/null || true
rec "$TMP/date.dat" --date -b 4096 -e sched -e irq
live date "$TMP/date.dat"
"$TIO" convert --to tracedat -o "$TMP/date-w.dat" "$TMP/date.dat" 2> "$TMP/err"
trace-cmd report -i "$TMP/date.dat" > "$TMP/exp" 2>/dev/null
trace-cmd report -i "$TMP/date-w.dat" > "$TMP/got" 2>/dev/null
same "live date: written back, the same report" "$TMP/exp" "$TMP/got"
# lossy: a tiny buffer, pages with the missed-events flag
eval $NS trace-cmd record -o "$TMP/lossy.dat" --compression none -b 8 -s 200000 -e sched -e irq \
	-e syscalls:sys_enter_read -e syscalls:sys_exit_read -e syscalls:sys_enter_write -e syscalls:sys_exit_write \
	"sh -c 'dd if=/dev/zero of=/dev/null bs=1 count=3000 2>/dev/null; sleep 0.3; dd if=/dev/zero of=/dev/null bs=1 count=3000 2>/dev/null'" \
	> "$TMP/rec.log" 2>&1
live lossy "$TMP/lossy.dat"
# a range over the lossy recording keeps each "EVENTS DROPPED" line with its event
trace-cmd report -t -i "$TMP/lossy.dat" > "$TMP/rep" 2>/dev/null
b=$(awk '/EVENTS DROPPED/ { getline; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { split(substr($i, 1, length($i) - 1), p, "."); printf "%d%09d\n", p[1], p[2]; exit } }' "$TMP/rep")
if [ -n "$b" ]; then
	e=$((b + 20000000))
	awk -v B="$b" -v E="$e" -f "$TIO_TOP/tests/tools/report-range.awk" "$TMP/rep" > "$TMP/exp"
	"$TIO" print -t --begin "$((b / 1000000000)).$(printf %09d $((b % 1000000000)))" \
		--end "$((e / 1000000000)).$(printf %09d $((e % 1000000000)))" "$TMP/lossy.dat" > "$TMP/got" 2>&1
	same "live lossy range from a page that lost events ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
fi
# ranges that begin later: the comm names trace-cmd learnt from the events
# before (sched_switch/sched_wakeup comms, registered until the first lookup
# even for pids saved_cmdlines has) stay as in the full report, and a page's
# "EVENTS DROPPED" line goes with its first record, inside the range or not
for n in 3 4 50 2000; do
	ts=$(sed -n "${n}p" "$TMP/rep" | grep -o '[0-9]*\.[0-9]*:' | head -1 | tr -d :)
	[ -n "$ts" ] || continue
	b=$((10#$(echo "$ts" | tr -d .)))
	e=$((b + 5000000))
	awk -v B="$b" -v E="$e" -f "$TIO_TOP/tests/tools/report-range.awk" "$TMP/rep" > "$TMP/exp"
	"$TIO" print -t --begin "$ts" --end "$((e / 1000000000)).$(printf %09d $((e % 1000000000)))" \
		"$TMP/lossy.dat" > "$TMP/got" 2>&1
	same "live lossy range from report line $n ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
done
if trace-cmd report -i "$TMP/lossy.dat" 2>/dev/null | grep -q "EVENTS DROPPED"; then
	ok "live lossy recording has dropped events"
else
	ok "live lossy recording has dropped events # skip none dropped this time"
fi
# every event type of these systems a small workload fires (net with %pI6c /
# %pISpc addresses, block, jbd2 with jiffies_to_msecs on a journalled ext4
# loop mount when mkfs.ext4 and loop devices are there, signals, workqueues)
cat > "$TMP/wl.sh" <<'WL'
#!/bin/bash
d=$1
if [ -n "$2" ] && mount -o loop "$2" "$d/mnt" 2>/dev/null; then
	for i in 1 2; do dd if=/dev/urandom of="$d/mnt/f$i" bs=4k count=8 conv=fsync 2>/dev/null; done
	flock "$d/mnt/f1" true; rm "$d/mnt/f2"; sync; umount "$d/mnt"
fi
dd if=/dev/urandom of="$d/blk" bs=64k count=4 conv=fsync 2>/dev/null
python3 -c '
import socket, threading, os, signal, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1); p = s.getsockname()[1]
def srv():
    c, _ = s.accept(); c.sendall(c.recv(100)); c.close()
t = threading.Thread(target=srv); t.start()
c = socket.create_connection(("127.0.0.1", p)); c.sendall(b"x" * 50); c.recv(100); c.close(); t.join()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.sendto(b"hi", ("127.0.0.1", 9)); u.close()
signal.signal(signal.SIGUSR1, lambda *a: None); os.kill(os.getpid(), signal.SIGUSR1); time.sleep(0.01)
' 2>/dev/null
sleep 5 & kill -TERM $!; wait
WL
chmod +x "$TMP/wl.sh"
IMG=
mkdir -p "$TMP/mnt"
if command -v mkfs.ext4 > /dev/null && dd if=/dev/zero of="$TMP/fs.img" bs=1M count=16 2>/dev/null &&
	mkfs.ext4 -q -F "$TMP/fs.img" 2>/dev/null; then IMG=$TMP/fs.img; fi
eval $NS trace-cmd record -o "$TMP/sys.dat" -b 8192 -e irq -e timer -e workqueue -e block -e net -e napi \
	-e skb -e sock -e tcp -e udp -e fib -e signal -e jbd2 -e ext4 -e writeback -e filelock \
	-e syscalls:sys_enter_kill -e syscalls:sys_exit_kill "$TMP/wl.sh $TMP $IMG" > "$TMP/rec.log" 2>&1
mountpoint -q "$TMP/mnt" && umount "$TMP/mnt"
live systems "$TMP/sys.dat"
if python3 "$TIO_TOP/tests/tools/cmp-raw-values.py" "$TIO" "$TMP/sys.dat" > "$TMP/diff"; then
	ok "live systems: every payload value = report -R's field ($(head -1 "$TMP/diff"))"
else
	notok "live systems: every payload value = report -R's field" "$(head -8 "$TMP/diff")"
fi
n=$("$TIO" info --count "$TMP/sys.dat" 2>/dev/null | sed -n 's/.* event classes, \([0-9]*\) with events$/\1/p')
ok "live systems recording: ${n:-0} event types with events"

