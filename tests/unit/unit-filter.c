/*
 * The -F filter language (src/filter): the parser's trees (precedence,
 * negation, parentheses, event lists, LTTng provider:event names), its
 * errors and their columns, and tio_filter_match on real traces against
 * counts made here through the public value API (tio_msg_lookup).
 */
#include <stdlib.h>
#include <string.h>

#include "filter/filter-int.h"
#include "traceio/traceio.h"
#include "unit-check.h"

/* The tree of `text` printed back, or "ERR: <message>". */
static const char *dump(const char *text)
{
	static char out[1024];
	fx_filter f;
	if (fx_parse(text, &f)) {
		snprintf(out, sizeof(out), "ERR: %s", tio_error_message());
	} else {
		tio_buf b = {0};
		fx_dump(&f, &b);
		snprintf(out, sizeof(out), "%.*s", (int)b.len, b.p ? b.p : "");
		tio_buf_free(&b);
	}
	fx_filter_fini(&f);
	return out;
}

#define TREE(text, want)                                                                           \
	do {                                                                                       \
		const char *got_ = dump(text);                                                     \
		CHECK(!strcmp(got_, want), "%s\n  want %s\n  got  %s", text, want, got_);          \
	} while (0)

static void parse_tests(void)
{
	TREE("sched_switch", "sched_switch");
	TREE("sched/sched_switch, irq", "sched/sched_switch,irq");
	TREE("sched_switch: prev_pid != 0", "sched_switch: prev_pid != 0");
	/* && and || have the same precedence, from the left (libtraceevent) */
	TREE("e: a == 1 || b == 2 && c == 3", "e: ((a == 1 || b == 2) && c == 3)");
	TREE("e: a == 1 && b == 2 || c == 3", "e: ((a == 1 && b == 2) || c == 3)");
	TREE("e: a == 1 || (b == 2 && c == 3)", "e: (a == 1 || (b == 2 && c == 3))");
	TREE("e: !a == 1 && b == 2", "e: (!a == 1 && b == 2)");
	TREE("e: !(a == 1 && b == 2)", "e: !(a == 1 && b == 2)");
	TREE("e: !!a == 1", "e: !!a == 1");
	TREE("e:a<=0x10&&b>=010", "e: (a <= 16 && b >= 8)");
	TREE("e: s == \"x y\" || t != 'z' || u =~ \"^a\" || v !~ \"b\" || w ~ \"c*\"",
	     "e: ((((s == \"x y\" || t != 122) || u =~ \"^a\") || v !~ \"b\") || w ~ \"c*\")");
	TREE("e: f & 4", "e: f & 4");
	TREE("e: f % 3 || f / 2 || f >> 1 || f << 1 || f ^ 1 || f | 0 || f + 1 || f - 1 || f * 2",
	     "e: ((((((((f % 3 || f / 2) || f >> 1) || f << 1) || f ^ 1) || f | 0) || f + 1) || f "
	     "- 1) || f * 2)");
	TREE("e: x == -1", "e: x == 18446744073709551615");
	TREE("e: s == \"a\\\"b\"", "e: s == \"a\"b\"");
	/* LTTng provider:event names */
	TREE("corpus:ints: s8 > 3", "corpus:ints: s8 > 3");
	TREE("corpus:ints", "corpus:ints");
	TREE("corpus:ints,corpus:strings: x == 1", "corpus:ints,corpus:strings: x == 1");
	TREE("corpus:.*", "corpus:.*");
	TREE("sched:next_pid==123", "sched: next_pid == 123");
	TREE("payload.a: context.vtid == 1", "payload.a: context.vtid == 1");
	/* errors name the column */
	TREE("e: a => 1", "ERR: -F: unknown operator '=>' at 6");
	TREE("e: a = 1", "ERR: -F: unknown operator '=' at 6");
	TREE("e: a == 1 &&", "ERR: -F: expected a field, '!' or '(', found end of filter at 13");
	TREE("e: (a == 1", "ERR: -F: expected ')' for the '(' at 4, found end of filter at 11");
	TREE("e: a == 1)", "ERR: -F: expected '&&', '||' or the end, found ')' at 10");
	TREE("e: a", "ERR: -F: expected an operator after 'a', found end of filter at 5");
	TREE(
	    "e: a == b",
	    "ERR: -F: comparing field 'a' with field 'b' is not supported (nor by trace-cmd) at 9");
	TREE("e: a < \"x\"", "ERR: -F: illegal comparison for a string (==, !=, =~, !~, ~) at 6");
	TREE("e: a ~ 3", "ERR: -F: '~' needs a string at 6");
	TREE("e: a & \"x\"", "ERR: -F: arithmetic on a string at 6");
	TREE("e: a == 99999999999999999999", "ERR: -F: bad number '99999999999999999999' at 9");
	TREE("e: a == \"x", "ERR: -F: unterminated string at 9");
	TREE("e:", "ERR: -F: empty filter after ':' at 3");
	TREE(",e: a == 1", "ERR: -F: expected an event name at 1");
	TREE("a == 1", "ERR: -F: expected 'EVENTS:' before the expression at 3");
	TREE("e: a == 1 # x", "ERR: -F: unexpected character '#' at 11");
	TREE("s/: a == 1", "ERR: -F: expected SYSTEM/EVENT at 1");
	TREE("[: a == 1", "ERR: -F: bad event name regular expression '[' at 1");
	/* nesting is bounded */
	char deep[2100];
	memset(deep, '(', 1000);
	strcpy(deep + 1000, "a == 1");
	char *p = deep + strlen(deep);
	memset(p, ')', 1000);
	p[1000] = 0;
	char text[2200];
	snprintf(text, sizeof(text), "e: %s", deep);
	CHECK(strstr(dump(text), "nested too deeply"), "deep nesting: %s", dump(text));
	/* and so is the length of a chain (evaluation recurses along it) */
	size_t cap = 12 * 5000 + 16;
	char *chain = malloc(cap);
	strcpy(chain, "e: a == 1");
	char *end = chain + strlen(chain);
	for (int i = 1; i < 5000; i++, end += 10)
		memcpy(end, " || a == 1", 11);
	CHECK(strstr(dump(chain), "filter too long (more than 4096 tests)"), "long chain: %s", dump(chain));
	chain[strlen("e: a == 1") + 10 * 4000] = 0; /* 4001 tests: fine */
	CHECK(!strncmp(dump(chain), "e: ((((", 7), "4001 tests: %.60s", dump(chain));
	free(chain);
}

/* Events of `path` the filters keep (0: invert none, else the -F after the first `nv` are
 * inverted). */
static long count(const char *path, const char *const *exprs, size_t n, size_t first_inverted)
{
	tio_trace *t;
	if (tio_trace_open(path, NULL, &t)) {
		CHECK(0, "open %s: %s", path, tio_error_message());
		return -1;
	}
	tio_filter *f;
	CHECK(!tio_filter_new(&f), "new");
	for (size_t i = 0; i < n; i++)
		CHECK(!tio_filter_add(f, exprs[i], i >= first_inverted), "add %s: %s", exprs[i],
		      tio_error_message());
	CHECK(!tio_filter_check(f, &t, 1), "check: %s", tio_error_message());
	tio_mux *mux;
	long kept = 0;
	if (!tio_mux_new(&t, 1, &mux)) {
		const tio_msg *m;
		while (tio_mux_next(mux, &m) > 0)
			if (tio_msg_kind(m) == TIO_MSG_KIND_EVENT)
				kept += tio_filter_match(f, m) == 1;
		tio_mux_free(mux);
	}
	tio_filter_free(f);
	tio_trace_free(t);
	return kept;
}

/* Integer value of `path` in m, or -1 when absent. */
static int64_t ival(const tio_msg *m, const char *path)
{
	const tio_field *v;
	int64_t x;
	uint64_t u;
	if (tio_msg_lookup(m, path, &v))
		return -1;
	if (!tio_field_int(v, &x))
		return x;
	return tio_field_uint(v, &u) ? -1 : (int64_t)u;
}

static void match_tests(void)
{
	const char *top = getenv("TIO_TOP");
	char hb[1024], fn[1024];
	snprintf(hb, sizeof(hb), "%s/tests/data/ctf/wk-heartbeat-u", top ? top : ".");
	snprintf(fn, sizeof(fn), "%s/tests/data/ftrace/funcs-v6.dat", top ? top : ".");
	/* what the filters below should keep, counted through tio_msg_lookup */
	long n_all = 0, n_vtid = 0, n_cpu = 0, n_odd = 0;
	tio_trace *t;
	if (tio_trace_open(hb, NULL, &t)) {
		CHECK(0, "open %s", hb);
		return;
	}
	tio_mux *mux;
	if (!tio_mux_new(&t, 1, &mux)) {
		const tio_msg *m;
		while (tio_mux_next(mux, &m) > 0) {
			if (tio_msg_kind(m) != TIO_MSG_KIND_EVENT)
				continue;
			n_all++;
			int64_t vtid = ival(m, "vtid"), cpu = ival(m, "cpu_id");
			n_vtid += vtid > 3214;
			n_cpu += cpu == 2 || vtid == 3215;
			n_odd += (vtid & 1) == 0;
		}
		tio_mux_free(mux);
	}
	tio_trace_free(t);
	CHECK(n_all == 20 && n_vtid > 0 && n_vtid < n_all, "heartbeat counts %ld %ld", n_all,
	      n_vtid);

	const char *a[] = {"heartbeat:msg: vtid > 3214"};
	CHECK(count(hb, a, 1, 1) == n_vtid, "vtid > 3214: %ld, want %ld", count(hb, a, 1, 1),
	      n_vtid);
	const char *b[] = {"heartbeat:msg: CPU == 2", "msg: vtid == 3215"};
	CHECK(count(hb, b, 2, 2) == n_cpu, "CPU == 2 or vtid == 3215: %ld, want %ld",
	      count(hb, b, 2, 2), n_cpu);
	const char *c[] = {"heartbeat/msg", "heartbeat:msg: vtid & 1"};
	CHECK(count(hb, c, 2, 1) == n_odd, "-v vtid & 1: %ld, want %ld", count(hb, c, 2, 1), n_odd);
	const char *d[] = {"heartbeat: msg == \"heartbeat\" && COMM =~ \"^nothing\""};
	CHECK(count(hb, d, 1, 1) == 0, "no procname context: COMM is false");
	const char *e[] = {"heartbeat: msg ~ \"heart*\" && !(bogus == 1)"};
	CHECK(count(hb, e, 1, 1) == n_all, "glob: %ld", count(hb, e, 1, 1));
	const char *g[] = {"other_event_that_is_not_there: x == 1"};
	CHECK(count(hb, g, 0, 0) == n_all, "no filter keeps all");
	/* a filter naming another class drops these */
	tio_filter *f;
	CHECK(!tio_filter_new(&f) && !tio_filter_add(f, g[0], false), "add");
	CHECK(tio_filter_check(f, &t, 0) == TIO_ERR_USAGE &&
		  strstr(tio_error_message(),
			 "no event matches 'other_event_that_is_not_there' at 1"),
	      "check: %s", tio_error_message());
	tio_filter_free(f);

	/* tio_filter_wants: the classes a filter can keep (for tio_mux_set_event_classes) */
	if (!tio_trace_open(hb, NULL, &t)) {
		const tio_event_class *ec = tio_trace_event_class_by_name(t, "heartbeat:msg");
		tio_filter *w = NULL;
		CHECK(ec && !tio_filter_new(&w), "heartbeat:msg class");
		if (!w) {
			tio_trace_free(t);
			return;
		}
		CHECK(tio_filter_wants(w, ec) == TIO_SKIP_WANT, "no filter: every class");
		tio_filter_add(w, "heartbeat/other", true);
		CHECK(tio_filter_wants(w, ec) == TIO_SKIP_WANT, "inverted filters only: every class");
		tio_filter_add(w, "sched_switch", false);
		CHECK(tio_filter_wants(w, ec) == TIO_SKIP_NONE, "a positive filter on another class");
		tio_filter_add(w, "HEARTBEAT/MS.: vtid > 3", false);
		CHECK(tio_filter_wants(w, ec) == TIO_SKIP_WANT, "a positive filter naming it");
		tio_filter_free(w);
		tio_trace_free(t);
	}

	/* trace.dat: COMM from the saved command lines, common_* fields */
	long n_fn = 0, n_pid = 0;
	if (!tio_trace_open(fn, NULL, &t) && !tio_mux_new(&t, 1, &mux)) {
		const tio_msg *m;
		while (tio_mux_next(mux, &m) > 0) {
			if (tio_msg_kind(m) != TIO_MSG_KIND_EVENT)
				continue;
			const char *en = tio_msg_event_name(m);
			int64_t pid = ival(m, "common_pid");
			n_fn += en && !strcmp(en, "function");
			const char *comm = tio_trace_comm(t, pid);
			n_pid += comm && pid > 0 && !strcmp(comm, tio_trace_comm(t, pid));
		}
		tio_mux_free(mux);
		tio_trace_free(t);
	}
	const char *h[] = {"ftrace/function"};
	CHECK(count(fn, h, 1, 1) == n_fn && n_fn > 0, "ftrace/function: %ld want %ld",
	      count(fn, h, 1, 1), n_fn);
	const char *k[] = {".*: common_pid > 0 && COMM != \"<...>\""};
	CHECK(count(fn, k, 1, 1) == n_pid, "COMM: %ld want %ld", count(fn, k, 1, 1), n_pid);
}

int main(void)
{
	parse_tests();
	match_tests();
	if (failures)
		printf("%d failure(s)\n", failures);
	return failures != 0;
}
