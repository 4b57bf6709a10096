#!/bin/bash
# `cmake --install` of the build into a temporary DESTDIR, then what a user
# of the installed tree sees: the files (library with its SONAME and links,
# headers, traceio.pc, the CLI, man pages), a program (install-check.c, and
# every examples/*.c) compiled with `pkg-config --cflags --libs traceio` and
# run against the installed library, the exported symbols (nm -D: only tio_*
# and the version node), the CLI using nothing but the public API, the man
# pages rendered by man -l without warnings.
. "$(dirname "$0")/../lib.sh"
top=$TIO_TOP
here=$top/tests/install
cache=$TIO_BUILD/CMakeCache.txt
root=$TMP/root
prefix=/usr/local

if ! DESTDIR=$root cmake --install "$TIO_BUILD" --prefix $prefix >"$TMP/install.log" 2>&1; then
	notok "install: cmake --install" "$(tail -5 "$TMP/install.log")"
	exit 0
fi
ok "install: cmake --install into DESTDIR"
p=$root$prefix
# the library directory as configured (lib, or lib/<multiarch> for /usr)
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$cache")
libdir=${libdir:-lib}
lib=$p/$libdir

# files
missing=""
for f in "$lib/libtraceio.so.0" "$lib/libtraceio.so" "$lib/pkgconfig/traceio.pc" "$p/bin/traceio" \
	"$p/include/traceio/traceio.h"; do
	[ -e "$f" ] || missing="$missing ${f#"$root"}"
done
for h in "$top"/include/traceio/*.h; do
	cmp -s "$h" "$p/include/traceio/$(basename "$h")" || missing="$missing include/traceio/$(basename "$h")"
done
if [ -z "$missing" ]; then ok "install: library, links, headers, pkg-config file, CLI"; else
	notok "install: library, links, headers, pkg-config file, CLI" "missing or different:$missing"
fi
so=$(readelf -d "$lib/libtraceio.so" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$so" = libtraceio.so.0 ] && [ "$(readlink "$lib/libtraceio.so")" = libtraceio.so.0 ] &&
	[ -f "$lib/$(readlink "$lib/libtraceio.so.0")" ]; then
	ok "install: SONAME libtraceio.so.0, libtraceio.so -> libtraceio.so.0 -> $(readlink "$lib/libtraceio.so.0")"
else
	notok "install: SONAME libtraceio.so.0 and its links" "soname '$so'" "$(ls -l "$lib"/libtraceio*)"
fi

# every public header is included by traceio.h
miss=""
for h in "$top"/include/traceio/*.h; do
	b=$(basename "$h")
	[ "$b" = traceio.h ] && continue
	grep -q "^#include \"traceio/$b\"" "$top/include/traceio/traceio.h" || miss="$miss $b"
done
if [ -z "$miss" ]; then ok "install: traceio.h includes every public header"; else
	notok "install: traceio.h includes every public header" "not included:$miss"
fi

# exported symbols: tio_* under version TRACEIO_0, and the version node itself
nm -D --defined-only "$lib/libtraceio.so" | awk '{print $NF}' >"$TMP/syms"
grep -v '^tio_' "$TMP/syms" | sort -u >"$TMP/other"
grep '^tio_' "$TMP/syms" | grep -v '@@TRACEIO_0$' >"$TMP/unversioned"
echo TRACEIO_0 >"$TMP/allowed"
if cmp -s "$TMP/allowed" "$TMP/other" && [ ! -s "$TMP/unversioned" ]; then
	ok "install: nm -D: only tio_* exported ($(grep -c '^tio_' "$TMP/syms") symbols, version TRACEIO_0)"
else
	notok "install: nm -D: only tio_* exported" "not tio_ (only TRACEIO_0 allowed):" \
		"$(head -20 "$TMP/other")" "unversioned: $(head -5 "$TMP/unversioned")"
fi

# the CLI calls nothing of the library that the installed headers do not declare
sed 's/@.*//' "$TMP/syms" | sort -u >"$TMP/exported"
nm -D --undefined-only "$p/bin/traceio" | awk '{print $NF}' | sed 's/@.*//' | sort -u |
	comm -12 - "$TMP/exported" >"$TMP/cli-uses"
internal=""
for s in $(cat "$TMP/cli-uses"); do
	grep -qw "$s" "$p"/include/traceio/*.h || internal="$internal $s"
done
if [ -s "$TMP/cli-uses" ] && [ -z "$internal" ]; then
	ok "install: the CLI uses the public API only ($(wc -l <"$TMP/cli-uses") functions)"
else
	notok "install: the CLI uses the public API only" "not in include/traceio:$internal"
fi

# pkg-config on the installed tree (PKG_CONFIG_SYSROOT_DIR maps the
# installed paths into DESTDIR, as for a staged install)
pc() { PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_LIBDIR=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root pkg-config "$@"; }
ver=$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$cache")
flags=$(pc --cflags --libs traceio 2>"$TMP/pc.err")
if [ "$(pc --modversion traceio)" = "$ver" ] && [ "$(PKG_CONFIG_PATH=$lib/pkgconfig pkg-config --variable=prefix traceio)" = $prefix ] &&
	[[ "$flags" == *"-I$p/include"* ]] && [[ "$flags" == *"-L$lib "* ]] && [[ "$flags" == *-ltraceio* ]]; then
	ok "install: pkg-config --cflags --libs traceio: ${flags//$root/}"
else
	notok "install: pkg-config traceio" "$flags" "$(cat "$TMP/pc.err")" "$(cat "$lib/pkgconfig/traceio.pc")"
fi
# the pkg-config file follows the prefix given at install time
DESTDIR=$TMP/root2 cmake --install "$TIO_BUILD" --prefix /opt/traceio >/dev/null 2>&1
pc2=$TMP/root2/opt/traceio/$libdir/pkgconfig
got=$(PKG_CONFIG_PATH=$pc2 pkg-config --variable=prefix traceio):$(PKG_CONFIG_PATH=$pc2 pkg-config --variable=libdir traceio)
if [ "$got" = "/opt/traceio:/opt/traceio/$libdir" ]; then ok "install: --prefix /opt/traceio gives its own traceio.pc"; else
	notok "install: --prefix /opt/traceio gives its own traceio.pc" "prefix:libdir = $got"
fi

# compile with the build's compiler (and its sanitizers: a sanitized
# library needs its runtime in the program)
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$cache")
cc=${cc:-cc}
extra=""
grep -q '^TIO_SANITIZE:BOOL=ON' "$cache" && extra="-fsanitize=address,undefined -fno-omit-frame-pointer"
# build_prog SRC OUT [FLAGS...]: the project's warnings (CMakeLists.txt)
build_prog() {
	local src=$1 exe=$2
	shift 2
	# shellcheck disable=SC2086,SC2046
	"$cc" "$@" -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Werror $extra \
		$(pc --cflags traceio) "$src" -o "$exe" $(pc --libs traceio) 2>&1
}
# the public headers are ISO C11
if out=$(build_prog "$here/install-check.c" "$TMP/install-check" -std=c11 -pedantic); then
	ok "install: install-check.c builds with pkg-config traceio (-std=c11 -pedantic, $(basename "$cc")${extra:+ with sanitizers})"
else
	notok "install: install-check.c builds with pkg-config traceio" "$out"
fi
# it loads the installed library
export LD_LIBRARY_PATH=$lib
loaded=$(ldd "$TMP/install-check" 2>/dev/null | awk '$1 == "libtraceio.so.0" {print $3}')
if [ "$loaded" = "$lib/libtraceio.so.0" ]; then ok "install: install-check loads the installed libtraceio.so.0"; else
	notok "install: install-check loads the installed libtraceio.so.0" "loads '$loaded'"
fi
for t in ctf/wk-heartbeat-u ctf/lttng-ust-discard ftrace/funcgraph-v6.dat; do
	d=$top/tests/data/$t
	"$TMP/install-check" "$d" >"$TMP/got" 2>"$TMP/err"
	rc=$?
	"$TIO" print --style json "$d" 2>/dev/null | grep '^{"type":"event"' |
		sed 's/.*"event_class":"\([^"]*\)".*"ns":\(-\{0,1\}[0-9]*\),.*/\2 \1/' >"$TMP/want"
	echo "events: $(wc -l <"$TMP/want")" >>"$TMP/want"
	if [ $rc -eq 0 ] && cmp -s "$TMP/want" "$TMP/got"; then
		ok "install: install-check $t: $(tail -1 "$TMP/got"), names and times as traceio print --style json"
	else
		notok "install: install-check $t" "exit $rc" "$(head -3 "$TMP/err")" "$(diff "$TMP/want" "$TMP/got" | head -5)"
	fi
done
unset LD_LIBRARY_PATH

# every example builds the same way
if [ -d "$top/examples" ]; then
	for e in "$top"/examples/*.c; do
		[ -f "$e" ] || continue
		n=$(basename "$e" .c)
		if out=$(build_prog "$e" "$TMP/ex-$n" -std=gnu11); then ok "install: examples/$n.c builds with pkg-config traceio"; else
			notok "install: examples/$n.c builds with pkg-config traceio" "$out"
		fi
	done
fi

# the installed CLI runs from the tree alone (RUNPATH $ORIGIN/../lib)
loaded=$(ldd "$p/bin/traceio" 2>/dev/null | awk '$1 == "libtraceio.so.0" {print $3}')
[ -n "$loaded" ] && loaded=$(realpath -s "$loaded")
d=$top/tests/data/ctf/wk-heartbeat-u
"$TIO" print "$d" >"$TMP/want" 2>&1
"$p/bin/traceio" print "$d" >"$TMP/got" 2>&1
if [ "$loaded" = "$lib/libtraceio.so.0" ] && cmp -s "$TMP/want" "$TMP/got"; then
	ok "install: bin/traceio runs on the installed library"
else
	notok "install: bin/traceio runs on the installed library" "loads '$loaded'" "$(diff "$TMP/want" "$TMP/got" | head -5)"
fi

# man pages: traceio.1 and one per command of `traceio --help`, rendered
# by man -l without a warning
cmds=$("$TIO" --help | awk '/^commands:$/ {l = 1; next} l && /^$/ {exit} l && /^  [a-z]/ {print $1}')
man=$p/share/man/man1
if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
	notok "install: man pages" "man or groff missing (scripts/deps.sh test installs man-db and groff-base)"
	exit 0
fi
for page in traceio $(for c in $cmds; do [ "$c" != help ] && echo "traceio-$c"; done); do
	f=$man/$page.1
	if [ ! -f "$f" ]; then notok "install: man page $page.1" "missing ${f#"$root"}"; continue; fi
	MANWIDTH=80 man --warnings -l "$f" >"$TMP/man.txt" 2>"$TMP/man.err"
	rc=$?
	title=$(echo "$page" | tr a-z A-Z)
	if [ $rc -eq 0 ] && [ ! -s "$TMP/man.err" ] && grep -q "^$title(1)" "$TMP/man.txt" &&
		grep -q "^NAME" "$TMP/man.txt" && grep -q "^ *$page  *- " "$TMP/man.txt" &&
		grep -q '^SYNOPSIS' "$TMP/man.txt"; then
		ok "install: man -l $page.1 ($(grep -c . "$TMP/man.txt") lines)"
	else
		notok "install: man -l $page.1" "exit $rc" "$(head -5 "$TMP/man.err")" "$(head -8 "$TMP/man.txt")"
	fi
done
# every option of a command's --help is in its page
for c in $cmds; do
	[ "$c" = help ] && continue
	"$TIO" "$c" --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$TMP/opts"
	MANWIDTH=200 man -l "$man/traceio-$c.1" 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u >"$TMP/mopts"
	lost=$(comm -23 "$TMP/opts" "$TMP/mopts" | tr '\n' ' ')
	if [ -s "$TMP/opts" ] && [ -z "$lost" ]; then ok "install: traceio-$c.1 has every option of traceio $c --help ($(wc -l <"$TMP/opts"))"; else
		notok "install: traceio-$c.1 has every option of traceio $c --help" "missing: $lost"
	fi
done
