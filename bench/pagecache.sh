#!/bin/bash
# Put trace files in a known page cache state before a bench (every tool
# then reads them from memory, in the same state):
#   bench/pagecache.sh keep PATH...   leave them as they are (the default of
#                                     the benches: CACHE=keep)
#   bench/pagecache.sh disk PATH...   drop them from the page cache and read
#                                     them back once, as from disk (CACHE=disk)
# Why it matters: a fault on a file mapping maps what the page cache holds
# around it.  A trace fresh from its writer is often held in 4 KiB folios
# (LTTng's consumer splices pages in); read back from disk, on kernels with
# large folios (6.x), in folios of up to 2 MiB.  Measured on the 5.4 M-event
# UST trace: mapping it costs ~27 ms of kernel time in the first state and
# ~2 ms in the second, about 8% of a one-thread decode.
set -euo pipefail
mode=$1
shift
case $mode in
keep) ;;
disk)
	find "$@" -type f -print0 | while IFS= read -r -d '' f; do
		dd if="$f" iflag=nocache count=0 status=none
		cat "$f" >/dev/null
	done
	;;
*)
	echo "usage: bench/pagecache.sh keep|disk PATH..." >&2
	exit 2
	;;
esac
