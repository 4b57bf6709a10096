# Helpers for test scripts.  Each check prints "ok NAME" or "not ok NAME"
# followed by what differed; tests/run.sh counts them.
: "${TIO:?run through tests/run.sh}"
PEER=$TIO_SHARED/peer-data
export TZ=UTC LC_ALL=C
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() { echo "ok $1"; }
notok() { echo "not ok $1"; shift; [ $# -gt 0 ] && printf '%s\n' "$@"; }

# same NAME FILE_EXPECTED FILE_GOT: compare two files line by line.
same() {
	if cmp -s "$2" "$3"; then ok "$1"; else
		notok "$1"; diff "$2" "$3" | head -10
	fi
}

# is_sanitized: true when $TIO was built with ASan (slow: skip big inputs).
is_sanitized() { case "$TIO_BUILD" in *asan*) return 0;; esac; return 1; }
