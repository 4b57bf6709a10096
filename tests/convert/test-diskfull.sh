#!/bin/bash
# A full disk: every writer (ctf, tracedat, ltt, lttng0, perfetto, sqlite, parquet) writing into
# a small tmpfs fails with exit 1 and an error that names its output (below OUT) and says the
# disk is full, leaves nothing behind, and an OUT that was there stays as it was when --force
# was to replace it (outputs are written under a temporary name and renamed at the end).  Two
# sizes, so that the writes fail at different stages (data, indexes and footers, metadata).
# Each conversion runs in a private mount namespace (unshare -m) holding the tmpfs.
. "$(dirname "$0")/../lib.sh"
FULL=$TMP/full
mkdir -p "$FULL"
if [ "$(id -u)" != 0 ] || ! unshare -m --propagation private sh -c "mount -t tmpfs -o size=64k tmpfs '$FULL'" 2> /dev/null; then
	echo "ok disk full # skip: cannot mount a tmpfs in a private mount namespace here"
	exit 0
fi
BIG=$PEER/tracedat/samples/lisa-tests-trace-arm32-v6-large.dat
SMALL=$PEER/tracedat/samples/lisa-trappy-tests-trace-arm32-v6.dat
LTT0=$PEER/ltt0x/traces/$(ls "$PEER/ltt0x/traces" | head -1)

# in_full SIZE OLD CMD...: CMD (its OUT in $FULL) in a private mount namespace where $FULL is a
# fresh tmpfs of SIZE; OLD: a command run before it there (making the OUT that --force is to
# replace), or ":".  Prints CMD's exit status, the checksum of every file then in $FULL (old
# and after), and CMD's stderr goes to $TMP/err.
in_full() {
	local size=$1 old=$2
	shift 2
	unshare -m --propagation private bash -c '
		mount -t tmpfs -o size="$1" tmpfs "$2" || exit 99
		cd "$2" && eval "$3" > /dev/null 2>&1 || exit 98
		echo "old: $(find . -type f | sort | xargs -r md5sum | md5sum | cut -c1-8) $(find . | wc -l)"
		shift 3
		"$@" > /dev/null 2> "'"$TMP/err"'"
		echo "rc=$?"
		echo "after: $(find . -type f | sort | xargs -r md5sum | md5sum | cut -c1-8) $(find . | wc -l)"
	' sh "$size" "$FULL" "$old" "$@"
}

for w in ctf tracedat ltt lttng0 perfetto sqlite parquet; do
	in=$BIG old=("$SMALL")
	case $w in
	tracedat) out=out.dat ;;
	perfetto) out=out.pftrace ;;
	sqlite) out=out.db ;;
	lttng0) out=out in=$LTT0 old=(-n kernel.syscall_exit "$LTT0") ;;
	*) out=out ;;
	esac
	# the earlier output, for --force: the tmpfs then holds it and 160 KiB more
	rm -rf "$TMP/old"
	mkdir -p "$TMP/old"
	"$TIO" convert -q --to $w -o "$TMP/old/$out" "${old[@]}" 2> "$TMP/err" || notok "--to $w: the earlier output" "$(head -3 "$TMP/err")"
	oldkb=$(du -sk "$TMP/old" | cut -f1)
	for size in 32k 256k $((oldkb + 160))k; do
		force= mk=:
		if [ $size = $((oldkb + 160))k ]; then
			force=--force
			mk="cp -a '$TMP/old/$out' ."
		fi
		got=$(in_full $size "$mk" "$TIO" convert -q --to $w $force -o "$FULL/$out" "$in")
		rc=$(echo "$got" | sed -n 's/^rc=//p')
		before=$(echo "$got" | sed -n 's/^old: //p')
		after=$(echo "$got" | sed -n 's/^after: //p')
		msg=$(head -c 300 "$TMP/err")
		name="disk full ($size), --to $w${force:+ $force over an earlier output}"
		if [ "$rc" = 1 ] && [ -n "$before" ] && [ "$before" = "$after" ] && { [ -z "$force" ] || [ "${before#* }" -gt 1 ]; } &&
			grep -q "$FULL/$out[^ ]*: .*\(No space left on device\|disk is full\)" "$TMP/err"; then
			ok "$name: exit 1, the output named, the disk as it was ($(echo "$msg" | sed "s|$FULL/||g; s|^traceio: [^ ]*@0x[0-9a-f]*: |traceio: |" | head -1 | cut -c1-90))"
		else
			notok "$name" "got: $got" "stderr: $msg"
		fi
		rm -f "$TMP/err"
	done
done

# a fleet's inputs on 2 threads (convert --to parquet of more inputs than parts: each thread's
# sink in its own temporary directory beside OUT): the same exit, message and empty disk
for size in 32k 256k; do
	got=$(in_full $size : env TIO_THREADS=2 "$TIO" convert -q --to parquet -o "$FULL/out" "$BIG" "$SMALL" "$LTT0")
	rc=$(echo "$got" | sed -n 's/^rc=//p')
	before=$(echo "$got" | sed -n 's/^old: //p')
	after=$(echo "$got" | sed -n 's/^after: //p')
	msg=$(head -c 300 "$TMP/err")
	if [ "$rc" = 1 ] && [ -n "$before" ] && [ "$before" = "$after" ] &&
		grep -q "$FULL/out[^ ]*: .*\(No space left on device\|disk is full\)" "$TMP/err"; then
		ok "disk full ($size), --to parquet, 3 inputs on 2 threads: exit 1, the output named, the disk as it was"
	else
		notok "disk full ($size), --to parquet, 3 inputs on 2 threads" "got: $got" "stderr: $msg"
	fi
	rm -f "$TMP/err"
done

# one trace in 2 parts (TIO_THREADS=2): the parts' files, their merge (copies of part 1's chunks
# into part 0's files), the footers, meta.json.
# A write that fails anywhere there sends the conversion back to one thread (which needs less
# room: no second copy of part 1's chunks), so each size must give either exit 1 with the
# output named and the disk as it was, or exit 0 with the files of a conversion in 2 parts or
# (after such a failure) on one thread.  When this was written (strace), at 760k a merge's
# copy_file_range failed and one thread then wrote it, and at 840k the parts' merge fitted;
# which outcome a size gives is not asserted (it moves with the writer's sizes), only that
# each is one of these.
rm -rf "$TMP/one" "$TMP/two"
TIO_THREADS=1 "$TIO" convert -q --to parquet -o "$TMP/one" "$BIG" 2> "$TMP/err" || notok "--to parquet: one thread" "$(head -3 "$TMP/err")"
TIO_THREADS=2 "$TIO" convert -q --to parquet -o "$TMP/two" "$BIG" 2> "$TMP/err" || notok "--to parquet: 2 parts" "$(head -3 "$TMP/err")"
for size in 32k 720k 760k 800k 840k; do
	rm -f "$TMP/sums"
	got=$(in_full $size : bash -c 'TIO_THREADS=2 "$1" convert -q --to parquet -o "$2" "$3" && cd "$2" && md5sum *.parquet | sort > "$4"' sh "$TIO" "$FULL/out" "$BIG" "$TMP/sums")
	rc=$(echo "$got" | sed -n 's/^rc=//p')
	before=$(echo "$got" | sed -n 's/^old: //p')
	after=$(echo "$got" | sed -n 's/^after: //p')
	msg=$(head -c 300 "$TMP/err")
	name="disk full ($size), --to parquet in 2 parts"
	if [ "$rc" = 1 ] && [ -n "$before" ] && [ "$before" = "$after" ] &&
		grep -q "$FULL/out[^ ]*: .*\(No space left on device\|disk is full\)" "$TMP/err"; then
		ok "$name: exit 1, the output named, the disk as it was"
	elif [ "$rc" = 0 ] && [ -s "$TMP/sums" ] && [ "$(cat "$TMP/sums")" = "$(cd "$TMP/one" && md5sum *.parquet | sort)" ]; then
		ok "$name: exit 0, the files of one thread's conversion (the parts failed)"
	elif [ "$rc" = 0 ] && [ -s "$TMP/sums" ] && [ "$(cat "$TMP/sums")" = "$(cd "$TMP/two" && md5sum *.parquet | sort)" ]; then
		ok "$name: exit 0, the files of a conversion in 2 parts"
	else
		notok "$name" "got: $got" "stderr: $msg"
	fi
	rm -f "$TMP/err"
done
