/*
 * The virtual table's arguments: CREATE VIRTUAL TABLE t USING
 * traceio('PATH' [, 'TABLE'] [, key=value...]).  Kept apart from the module
 * so that the fuzz target (fuzz/sqlargs_fuzzer.c) runs it alone.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tio-sqlite.h"

/* A malloc'd printf-less message: a + b + c. */
static char *msg3(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *m = malloc(la + lb + lc + 1);
	if (m) {
		memcpy(m, a, la);
		memcpy(m + la, b, lb);
		memcpy(m + la + lb, c, lc + 1);
	}
	return m;
}

/*
 * The text of an argument without surrounding blanks and quotes: 'x' and
 * "x" (doubled quotes inside stand for one), [x] and `x` as SQLite quotes
 * identifiers, or bare text.  Malloc'd; NULL when out of memory or when a
 * quote is not closed (*bad set).
 */
static char *dequote(const char *s, size_t n, bool *bad)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	char *out = malloc(n + 1), *o = out;
	if (!out)
		return NULL;
	char q = n ? s[0] : 0, close = q == '[' ? ']' : q;
	if (q == '\'' || q == '"' || q == '`' || q == '[') {
		size_t i = 1;
		for (;;) {
			if (i >= n) {
				*bad = true;
				free(out);
				return NULL;
			}
			if (s[i] == close) {
				if (close != ']' && i + 1 < n && s[i + 1] == close) {
					*o++ = close;
					i += 2;
					continue;
				}
				break;
			}
			*o++ = s[i++];
		}
		if (i + 1 != n) { /* text after the closing quote */
			*bad = true;
			free(out);
			return NULL;
		}
	} else {
		memcpy(o, s, n);
		o += n;
	}
	*o = 0;
	return out;
}

/* Append a malloc'd path to a; false when out of memory (p is freed). */
static bool add_path(tio_sqlite_args *a, char *p)
{
	char **v = realloc(a->paths, (a->npaths + 1) * sizeof(*v));
	if (!v) {
		free(p);
		return false;
	}
	a->paths = v;
	a->paths[a->npaths++] = p;
	return true;
}

/* Split the module's arguments into paths, table and options (tio-sqlite.h). */
int tio_sqlite_parse_args(int argc, const char *const *argv, tio_sqlite_args *a, char **err)
{
	int npos = 0;
	memset(a, 0, sizeof(*a));
	*err = NULL;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		size_t n = strlen(arg);
		const char *eq = NULL;
		bool bad = false;
		/* key=value: a bare word, then '=' (a quoted argument is a value) */
		size_t k = 0;
		while (k < n && isspace((unsigned char)arg[k]))
			k++;
		size_t kb = k;
		while (k < n && (isalnum((unsigned char)arg[k]) || arg[k] == '_' || arg[k] == '-'))
			k++;
		size_t ke = k;
		while (k < n && isspace((unsigned char)arg[k]))
			k++;
		if (ke > kb && k < n && arg[k] == '=')
			eq = arg + k;
		char *val = eq ? dequote(eq + 1, n - (size_t)(eq + 1 - arg), &bad) : dequote(arg, n, &bad);
		if (!val) {
			*err = bad ? msg3("traceio: argument ", arg, ": quote not closed (or text after it)")
				   : NULL;
			goto fail;
		}
		if (!eq) {
			if (npos == 0) {
				if (!*val) {
					free(val);
					*err = msg3("traceio: ", "empty path", "");
					goto fail;
				}
				if (!add_path(a, val))
					goto fail;
			} else if (npos == 1) {
				free(a->table);
				a->table = val;
			} else {
				free(val);
				*err = msg3("traceio: argument ", arg,
					    ": too many (give 'PATH', 'TABLE', then key=value: path=, table=, format=, clock_exact=, ts2secs=, raw_ts=)");
				goto fail;
			}
			npos++;
			continue;
		}
		size_t klen = ke - kb;
		const char *key = arg + kb;
		if (klen == 4 && !strncmp(key, "path", 4)) {
			if (!*val) {
				free(val);
				*err = msg3("traceio: ", "empty path", "");
				goto fail;
			}
			if (!add_path(a, val))
				goto fail;
			if (npos == 0)
				npos = 1;
		} else if (klen == 5 && !strncmp(key, "table", 5)) {
			free(a->table);
			a->table = val;
		} else if (klen == 6 && !strncmp(key, "format", 6)) {
			free(a->format);
			a->format = val;
		} else if ((klen == 11 && (!strncmp(key, "clock_exact", 11) || !strncmp(key, "clock-exact", 11))) ||
			   (klen == 6 && (!strncmp(key, "raw_ts", 6) || !strncmp(key, "raw-ts", 6)))) {
			bool exact = klen == 11;
			if (strcmp(val, "0") && strcmp(val, "1")) {
				*err = msg3(exact ? "traceio: clock_exact='" : "traceio: raw_ts='", val, "': give 0 or 1");
				free(val);
				goto fail;
			}
			*(exact ? &a->clock_exact : &a->raw_ts) = val[0] == '1';
			free(val);
		} else if (klen == 7 && !strncmp(key, "ts2secs", 7)) {
			/* a frequency in Hz: digits, not 0, at most 20 of them (u64) */
			size_t d = strspn(val, "0123456789");
			if (!d || val[d] || d > 20 || strspn(val, "0") == d ||
			    (d == 20 && strcmp(val, "18446744073709551615") > 0)) {
				*err = msg3("traceio: ts2secs='", val, "': give a frequency in Hz (a positive integer)");
				free(val);
				goto fail;
			}
			free(a->ts2secs);
			a->ts2secs = val;
		} else {
			free(val);
			*err = msg3("traceio: argument ", arg,
				    ": unknown key (path=, table=, format=, clock_exact=, ts2secs=, raw_ts=)");
			goto fail;
		}
	}
	if (!a->npaths) {
		*err = msg3("traceio: ", "no trace given: USING traceio('PATH' [, 'TABLE'])", "");
		goto fail;
	}
	return 0;
fail:
	if (!*err)
		*err = msg3("traceio: ", "out of memory", "");
	tio_sqlite_args_free(a);
	return -1;
}

/* Free what tio_sqlite_parse_args made. */
void tio_sqlite_args_free(tio_sqlite_args *a)
{
	for (size_t i = 0; i < a->npaths; i++)
		free(a->paths[i]);
	free(a->paths);
	free(a->table);
	free(a->format);
	free(a->ts2secs);
	memset(a, 0, sizeof(*a));
}
