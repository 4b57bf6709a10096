#!/bin/bash
# The profile-guided build (scripts/pgo.sh, what `make build` makes) falls
# back to a plain build when its training run fails, with a line on stderr
# only: here that fallback is an error.  Builds made otherwise (ASan, a
# plain cmake build) have no training log and are not checked.
. "$(dirname "$0")/../lib.sh"
log=$TIO_BUILD/pgo-train.log
cache=$TIO_BUILD/CMakeCache.txt
[ -f "$log" ] || exit 0
if grep -q '^TIO_PGO:STRING=use$' "$cache"; then
	ok "pgo: the training run passed and the library is built with its profile"
else
	notok "pgo: the training run failed; the build is not profile-guided" "$(tail -5 "$log")" \
		"$(tail -5 "$TIO_BUILD/pgo-build.log" 2>/dev/null)"
fi
# a crash in the training run (the profile would lack what follows it)
if grep -qi 'segmentation fault\|aborted\|core dumped' "$log"; then
	notok "pgo: no crash in the training run" "$(grep -i 'segmentation\|abort\|core' "$log" | head -3)"
else
	ok "pgo: no crash in the training run"
fi
