#!/bin/sh
# Make the man pages from the CLI's own help texts: traceio.1 from
# `traceio --help`, and traceio-CMD.1 from `traceio CMD --help` for every
# command that `traceio --help` lists under "commands:" (but help).
# Run by the build (CMakeLists.txt, target traceio_man); installed in man1.
#   scripts/manpages.sh TRACEIO_BINARY OUT_DIR
#
# The help texts are plain text with a few conventions, turned into roff:
#   - the first line of `traceio --help`: "traceio VERSION: what it does";
#   - "usage: ..." lines: SYNOPSIS;
#   - a line of its own ending in ':' ("commands:"): a section heading;
#   - "  TERM  TEXT" (two spaces, a term, two or more spaces, text) with its
#     continuation lines (three spaces or more): a tagged paragraph (.TP),
#     under OPTIONS in a command's page;
#   - other lines: paragraphs; a line that starts with a short label
#     ("formats written: ...") starts a new line in its paragraph;
#     "environment: ..." and "Exit status: ..." paragraphs get their own
#     sections.
# SOURCE_DATE_EPOCH, when set, fixes the date in the pages' footer.
set -eu
bin=$1
out=$2
mkdir -p "$out"
rm -f "$out"/*.1
export LC_ALL=C
top=$("$bin" --help)
version=$(printf '%s\n' "$top" | sed -n '1s/^traceio \([^:]*\):.*/\1/p')
[ -n "$version" ] || { echo "manpages.sh: no version in '$bin --help'" >&2; exit 1; }
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%Y-%m-%d)
# "name<TAB>summary" of every command, from the "commands:" list
cmds=$(printf '%s\n' "$top" | awk '
	/^commands:$/ { in_list = 1; next }
	in_list && /^$/ { exit }
	in_list && /^  [^ ]/ {
		if (name != "") print name "\t" text
		line = substr($0, 3); name = line; sub(/ .*/, "", name)
		text = ""
		if (match(line, /   */)) { text = substr(line, RSTART + RLENGTH) }
		next
	}
	in_list && /^   / { t = $0; sub(/^ */, "", t); text = (text == "" ? t : text " " t) }
	END { if (name != "") print name "\t" text }
')

# A term that fills its column leaves one space before its text
# ("  -o, --output-format F text..."): widen the gap when the next line
# continues at that column.
split_full_terms() {
	awk '{ line[NR] = $0 }
	END {
		# the text column of each block of lines (between blank lines):
		# the most common one of the terms split by a gap
		for (i = 1; i <= NR + 1; i++) {
			if (i > NR || line[i] == "") {
				best = 0
				for (c in n) if (best == 0 || n[c] > n[best]) best = c
				for (j = start; j < i; j++) col[j] = best
				split("", n); start = i + 1
				continue
			}
			if (line[i] ~ /^  [^ ]/ && match(substr(line[i], 3), /[^ ]   *[^ ]/))
				n[2 + RSTART + RLENGTH - 1]++
		}
		for (i = 1; i <= NR; i++) {
			l = line[i]; c = col[i] + 0
			if (c > 0 && l ~ /^  [^ ]/ && substr(l, 3) !~ /[^ ]  / &&
			    c < length(l) && substr(l, c - 1, 1) == " " && substr(l, c, 1) != " ")
				l = substr(l, 1, c - 1) " " substr(l, c)
			print l
		}
	}'
}

# roff PAGE_NAME SUMMARY SEE_ALSO: the help text on stdin to a page on stdout
roff() {
	split_full_terms | awk -v page="$1" -v summary="$2" -v seealso="$3" -v version="$version" -v date="$date" '
	function esc(s) {
		gsub(/\\/, "\\e", s)
		gsub(/-/, "\\-", s)
		if (s ~ /^[.'\'']/) s = "\\&" s
		return s
	}
	function section(name) { if (cur != name) { print ".SH " name; cur = name } }
	function endpara() { inpara = 0 }
	BEGIN {
		up = toupper(page)
		print ".\\\" Made by scripts/manpages.sh from the traceio --help texts: edit those, not this."
		printf ".TH %s 1 %s \"traceio %s\" \"User Commands\"\n", up, date, version
		print ".SH NAME"
		print page " \\- " esc(summary)
		synopsis = 0
	}
	NR == 1 && page == "traceio" && /^traceio [^ ]*: / { next }
	/^usage: / {
		if (!synopsis) { section("SYNOPSIS"); synopsis = 1 } else print ".br"
		u = substr($0, 8)
		cmd = u; rest = ""
		if (match(u, / \[|[ ][A-Z-]/)) { cmd = substr(u, 1, RSTART - 1); rest = substr(u, RSTART + 1) }
		print ".B " esc(cmd)
		if (rest != "") print esc(rest)
		endpara(); inlist = 0
		next
	}
	/^$/ { endpara(); if (inlist) { inlist = 0; after_list = 1 }; next }
	/^[A-Za-z][^:]*:$/ {
		h = toupper(substr($0, 1, length($0) - 1))
		section(h); endpara(); inlist = 1; after_list = 0
		next
	}
	/^  [^ ]/ {
		if (!inlist) { section(page == "traceio" ? "COMMANDS" : "OPTIONS"); inlist = 1 }
		line = substr($0, 3); term = line; text = ""
		if (match(line, /   */)) { term = substr(line, 1, RSTART - 1); text = substr(line, RSTART + RLENGTH) }
		print ".TP"
		print "\\fB" esc(term) "\\fR"
		if (text != "") print esc(text)
		endpara()
		next
	}
	/^   +[^ ]/ {
		t = $0; sub(/^ */, "", t)
		if (inlist) { if (t ~ /^[A-Z]+: /) print ".br"; print esc(t); next }
		# an indented block outside a list: keep its lines
		print ".br"; print esc(t); next
	}
	{
		if (!inpara) {
			if ($0 ~ /^[Ee]nvironment: /) section("ENVIRONMENT")
			else if ($0 ~ /^Exit status: /) section("EXIT STATUS")
			else if (cur == "" || cur == "SYNOPSIS") section("DESCRIPTION")
			else if (cur == "OPTIONS" || cur == "COMMANDS") section("NOTES")
			print ".PP"
			inpara = 1
			if (cur == "ENVIRONMENT" || cur == "EXIT STATUS") sub(/^[^:]*: /, "")
		} else if ($0 ~ /^[A-Za-z]+( [A-Za-z]+)?( [A-Za-z]+)?: /) {
			print ".br"
		}
		print esc($0)
	}
	END {
		print ".SH SEE ALSO"
		print seealso
	}'
}

printf '%s\n' "$cmds" | while IFS='	' read -r name summary; do
	[ "$name" = help ] && continue
	"$bin" "$name" --help | roff "traceio-$name" "$summary" '.BR traceio (1)' >"$out/traceio-$name.1"
done
see_main=$(printf '%s\n' "$cmds" | awk -F'\t' '$1 != "help" { printf "%s.BR traceio\\-%s (1)", sep, $1; sep = ",\n" }')
summary=$(printf '%s\n' "$top" | sed -n '1s/^traceio [^:]*: //p')
printf '%s\n' "$top" | roff traceio "$summary" "$see_main" >"$out/traceio.1"
