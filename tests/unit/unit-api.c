/*
 * The public value and class API (include/traceio/field.h, class.h) on real
 * traces of ../shared/peer-data and tests/data: every getter kind, right and
 * wrong calls (a wrong kind or index is TIO_ERR_USAGE with a message, never
 * a crash), lookups by path and by resolved reference.  Public headers only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "traceio/class.h"
#include "traceio/error.h"
#include "traceio/field.h"
#include "traceio/mux.h"
#include "traceio/trace.h"
#include "unit-check.h"

static char path_buf[4096];

static const char *peer(const char *rel)
{
	const char *sh = getenv("TIO_SHARED");
	snprintf(path_buf, sizeof(path_buf), "%s/peer-data/%s", sh ? sh : "../shared", rel);
	return path_buf;
}

typedef struct opened {
	tio_trace *t;
	tio_mux *mux;
} opened;

static bool open_one(const char *path, const char *fmt, opened *o)
{
	o->t = NULL;
	o->mux = NULL;
	if (tio_trace_open(path, fmt, &o->t) || tio_mux_new(&o->t, 1, &o->mux)) {
		printf("FAIL cannot open %s: %s\n", path, tio_error_message());
		failures++;
		return false;
	}
	return true;
}

static void close_one(opened *o)
{
	tio_mux_free(o->mux);
	tio_trace_free(o->t);
}

/* The next event (skipping other messages and damaged records), NULL at the end. */
static const tio_msg *next_event(opened *o)
{
	const tio_msg *m;
	for (;;) {
		int r = tio_mux_next(o->mux, &m);
		if (r == 0)
			return NULL;
		if (r < 0) {
			tio_error_clear();
			continue;
		}
		if (tio_msg_kind(m) == TIO_MSG_KIND_EVENT)
			return m;
	}
}

static bool usage_error(int r, const char *want)
{
	return r == TIO_ERR_USAGE && strstr(tio_error_message(), want) != NULL;
}

/* babeltrace's `sequence` trace: sequences, an enum tag, a variant of structures. */
static void test_sequence(void)
{
	opened o;
	if (!open_one(peer("ctf/babeltrace-2.1/ctf-traces/1/succeed/sequence"), NULL, &o))
		return;
	const tio_msg *m = next_event(&o);
	CHECK(m != NULL, "sequence: an event");
	if (!m)
		goto out;
	const tio_field *f, *e;
	int64_t i;
	uint64_t u, n;
	CHECK(!tio_msg_lookup(m, "payload.seq_int_field[2]", &f) && !tio_field_int(f, &i) && i == -3,
	      "seq_int_field[2] = -3: %s", tio_error_message());
	CHECK(tio_field_uint(f, &u) == TIO_ERR_USAGE, "a negative value refused as unsigned");
	/* "_seq_int_field_length" found by its escaped and unescaped names */
	CHECK(!tio_msg_lookup(m, "seq_int_field_length", &f) && !tio_field_uint(f, &u) && u == 6, "length by plain name");
	CHECK(!tio_msg_lookup(m, "_seq_int_field_length", &f) && !tio_field_uint(f, &u) && u == 6, "length by escaped name");
	CHECK(!tio_msg_lookup(m, "seq_long_field", &f) && tio_field_kind(f) == TIO_FIELD_SEQUENCE &&
		      !tio_field_length(f, &n) && n == 6,
	      "a sequence of 6");
	CHECK(!tio_field_element(f, 5, &e) && !tio_field_int(e, &i) && i == 60, "element 5 = 60");
	CHECK(usage_error(tio_field_element(f, 6, &e), "element 6 of an array of 6"), "element 6 of 6: %s",
	      tio_error_message());
	CHECK(usage_error(tio_field_member(f, 0, &e), "sequence") || usage_error(tio_field_member(f, 0, &e), "array"),
	      "a member of an array refused: %s", tio_error_message());
	const char *s;
	size_t len;
	CHECK(usage_error(tio_field_string(e, &s, &len), "integer"), "a string from an integer: %s", tio_error_message());
	double d;
	CHECK(tio_field_double(e, &d) == TIO_ERR_USAGE, "a double from an integer");
	/* the event header: an enum tag and a variant whose options are structures */
	CHECK(!tio_msg_lookup(m, "header.id", &f) && tio_field_kind(f) == TIO_FIELD_ENUM && tio_field_label(f, 0) &&
		      !strcmp(tio_field_label(f, 0), "extended") && tio_field_label(f, 1) == NULL,
	      "header.id: enum labelled 'extended'");
	CHECK(!tio_msg_lookup(m, "header.v", &f) && tio_field_kind(f) == TIO_FIELD_VARIANT, "header.v: a variant");
	uint32_t opt;
	const char *oname;
	CHECK(!tio_field_variant(f, &opt, &oname, &e) && oname && !strcmp(oname, "extended") &&
		      tio_field_kind(e) == TIO_FIELD_STRUCT,
	      "the chosen option 'extended', a structure");
	CHECK(!tio_field_member_by_name(e, "timestamp", &f) && !tio_field_uint(f, &u) && u == 35412414943861ULL,
	      "extended.timestamp");
	CHECK(usage_error(tio_field_member_by_name(e, "nope", &f), "no member 'nope'"), "an unknown member");
	CHECK(!tio_msg_lookup(m, "header.v.extended.timestamp", &f) && !tio_field_uint(f, &u) && u == 35412414943861ULL,
	      "a path through the variant");
	CHECK(usage_error(tio_msg_lookup(m, "header.v.compact.timestamp", &f), "absent"), "an option not chosen: %s",
	      tio_error_message());
	CHECK(usage_error(tio_msg_lookup(m, "no_such_field", &f), "no field 'no_such_field'"), "an unknown path: %s",
	      tio_error_message());
	CHECK(tio_msg_lookup(m, "seq_int_field[x]", &f) == TIO_ERR_USAGE, "a bad index");
	/* the class tree */
	const tio_event_class *ec = tio_msg_event_class(m);
	CHECK(ec && !strcmp(tio_event_class_name(ec), "sequence event") && tio_event_class_id(ec) == 0, "event class");
	const tio_field_class *pl = tio_event_class_scope(ec, TIO_SCOPE_EVENT_PAYLOAD);
	CHECK(pl && tio_field_class_kind(pl) == TIO_FIELD_STRUCT && tio_field_class_member_count(pl) == 4, "payload: 4 members");
	const tio_field_class *sq = tio_field_class_member_class(pl, 1);
	CHECK(sq && tio_field_class_kind(sq) == TIO_FIELD_SEQUENCE && tio_field_class_length_path(sq) &&
		      strstr(tio_field_class_length_path(sq), "seq_int_field_length") &&
		      tio_field_class_int_signed(tio_field_class_element(sq)),
	      "sequence class: length path, signed element");
	const tio_field_class *hv = tio_field_class_member_class(tio_event_class_scope(ec, TIO_SCOPE_EVENT_HEADER), 1);
	CHECK(hv && tio_field_class_kind(hv) == TIO_FIELD_VARIANT && tio_field_class_member_count(hv) == 2 &&
		      tio_field_class_selector_path(hv) != NULL,
	      "variant class: 2 options, a selector");
	const tio_field_class *tag = tio_field_class_member_class(tio_event_class_scope(ec, TIO_SCOPE_EVENT_HEADER), 0);
	uint64_t lo, hi;
	CHECK(tag && tio_field_class_label_count(tag) == 2 && tio_field_class_label_range_count(tag, 0) >= 1 &&
		      !tio_field_class_label_range(tag, 0, 0, &lo, &hi),
	      "enum class labels and ranges");
	CHECK(tio_field_class_label_range(tag, 9, 0, &lo, &hi) == TIO_ERR_USAGE, "label 9 refused");
	/* a resolved reference: same value as the lookup, on every event */
	tio_field_ref ref, ref2;
	CHECK(!tio_field_ref_resolve(ec, "seq_long_field[3]", &ref) && !tio_field_ref_resolve(ec, "header.id", &ref2),
	      "resolve: %s", tio_error_message());
	CHECK(tio_field_ref_resolve(ec, "payload.nope", &ref) == TIO_ERR_USAGE, "resolve an unknown field");
	CHECK(!tio_field_ref_resolve(ec, "seq_long_field[3]", &ref), "resolve again");
	uint64_t events = 0, same = 0;
	for (; m; m = next_event(&o)) {
		events++;
		const tio_field *a = tio_msg_field(m, &ref), *b;
		if (a && !tio_msg_lookup(m, "payload.seq_long_field[3]", &b) && a == b && !tio_field_int(a, &i) && i == 40)
			same++;
		CHECK(tio_msg_field(m, &ref2) && tio_field_kind(tio_msg_field(m, &ref2)) == TIO_FIELD_ENUM, "header.id by ref");
	}
	CHECK(events > 1 && same == events, "ref == lookup on %" PRIu64 " of %" PRIu64 " events", same, events);
	/* where the messages come from */
	CHECK(tio_trace_clock_count(o.t) == 1 && tio_clock_frequency(tio_trace_clock(o.t, 0)) > 0, "a clock");
out:
	close_one(&o);
}

/* A variant chosen by an enum, a string option. */
static void test_variant_string(void)
{
	opened o;
	if (!open_one(peer("ctf/babeltrace-2.1/ctf-traces/1/succeed/meta-variant-one-underscore"), NULL, &o))
		return;
	const tio_msg *m = next_event(&o);
	const tio_field *f, *v;
	const char *s, *nm;
	size_t len;
	CHECK(m && !tio_msg_lookup(m, "var", &f), "var");
	if (!m)
		goto out;
	CHECK(!tio_field_variant(f, NULL, &nm, &v) && !strcmp(nm, "PELCHAT") && !tio_field_string(v, &s, &len) &&
		      len == 13 && !memcmp(s, "Daniel Lavoie", 13),
	      "variant PELCHAT: 'Daniel Lavoie'");
	CHECK(!tio_msg_lookup(m, "var.PELCHAT", &v) && !tio_field_string(v, &s, &len) && len == 13, "path into the option");
	CHECK(usage_error(tio_field_optional(f, &v), "variant"), "optional of a variant refused: %s", tio_error_message());
	CHECK(!tio_msg_lookup(m, "tag", &f) && !strcmp(tio_field_label(f, 0), "PELCHAT"), "tag label");
	int64_t lvl;
	CHECK(!tio_event_class_log_level(tio_msg_event_class(m), &lvl) || lvl >= 0, "log level getter");
	bool b;
	CHECK(tio_field_bool(f, &b) == TIO_ERR_USAGE, "bool of an enum refused");
out:
	close_one(&o);
}

/* Floats, structures in contexts, strings (yactfr's all-basic-features CTF 1.8 trace). */
static void test_float_struct(void)
{
	opened o;
	if (!open_one(peer("ctf/yactfr-iter-data/ctf-1/pass-all-basic-features-le"), "ctf", &o))
		return;
	const tio_msg *m;
	bool seen_float = false, seen_ctx = false;
	while ((m = next_event(&o))) {
		const tio_field *f;
		const char *name = tio_event_class_name(tio_msg_event_class(m));
		if (!seen_float && name && !strcmp(name, "keratin")) {
			double d;
			uint64_t u;
			CHECK(!tio_msg_lookup(m, "payload.fff", &f) && !tio_field_double(f, &d) && d > 2.71827 && d < 2.71829,
			      "fff = 2.71828");
			CHECK(tio_field_uint(f, &u) == TIO_ERR_USAGE, "an integer from a float refused");
			const tio_field_class *fc = tio_field_get_class(f);
			CHECK(tio_field_class_kind(fc) == TIO_FIELD_FLOAT && tio_field_class_float_mant_digits(fc) >= 24,
			      "float class");
			seen_float = true;
		}
		if (!seen_ctx && !tio_msg_lookup(m, "common_context.ctx2", &f)) {
			const char *s;
			size_t len;
			const tio_field *root = tio_msg_scope(m, TIO_SCOPE_COMMON_CONTEXT), *c;
			uint64_t n;
			CHECK(!tio_field_string(f, &s, &len) && len > 0, "ctx2 is a string");
			CHECK(root && !tio_field_length(root, &n) && n == 2 && !tio_field_member(root, 1, &c) && c == f,
			      "member 1 of the common context is ctx2");
			CHECK(usage_error(tio_field_member(root, 2, &c), "member 2 of a structure of 2"), "member 2 of 2: %s",
			      tio_error_message());
			CHECK(!strcmp(tio_field_class_member_name(tio_field_get_class(root), 1), "ctx2"), "member name");
			seen_ctx = true;
		}
	}
	CHECK(seen_float && seen_ctx, "a float and a context seen");
	close_one(&o);
}

/* CTF 2: bit maps, booleans, optionals. */
static void test_ctf2(void)
{
	opened o;
	if (open_one(peer("ctf/babeltrace-2.1/ctf-traces/2/succeed/fl-bm"), NULL, &o)) {
		const tio_msg *m;
		bool seen = false;
		while ((m = next_event(&o)) && !seen) {
			const tio_field *root = tio_msg_scope(m, TIO_SCOPE_EVENT_PAYLOAD), *f;
			uint64_t n;
			if (!root || tio_field_length(root, &n))
				continue;
			for (uint64_t k = 0; k < n && !tio_field_member(root, k, &f); k++)
				if (tio_field_kind(f) == TIO_FIELD_BITMAP) {
					uint64_t u;
					CHECK(!tio_field_uint(f, &u), "bit map value");
					const tio_field_class *fc = tio_field_get_class(f);
					size_t nl = 0;
					while (tio_field_label(f, nl))
						nl++;
					CHECK(tio_field_class_label_count(fc) > 0, "bit map flags in the class");
					/* each label given holds: a flag of the value */
					CHECK(nl <= tio_field_class_label_count(fc), "labels of the value");
					seen = true;
				}
		}
		CHECK(seen, "fl-bm: a bit map");
		close_one(&o);
	}
	if (open_one(peer("ctf/yactfr-iter-data/ctf-2/pass-opts"), "ctf", &o)) {
		const tio_msg *m;
		int absent = 0, present = 0;
		while ((m = next_event(&o))) {
			const tio_field *f, *v;
			bool b;
			if (tio_msg_lookup(m, "payload.opt", &f)) {
				tio_error_clear();
				continue;
			}
			CHECK(!tio_field_optional(f, &v), "optional getter");
			if (v)
				present++;
			else
				absent++;
			if (!tio_msg_lookup(m, "payload.sel", &f) && tio_field_kind(f) == TIO_FIELD_BOOL)
				CHECK(!tio_field_bool(f, &b), "bool getter");
		}
		CHECK(absent > 0 && present > 0, "optionals absent (%d) and present (%d)", absent, present);
		close_one(&o);
	}
}

/* trace.dat: CPUs, common fields, comm names from saved cmdlines. */
static void test_tracedat(void)
{
	const char *top = getenv("TIO_TOP");
	char p[4096];
	snprintf(p, sizeof(p), "%s/tests/data/ftrace/kmem-tlb-v7-zstd.dat", top ? top : ".");
	opened o;
	if (!open_one(p, NULL, &o))
		return;
	const tio_msg *m;
	uint64_t events = 0, with_cpu = 0, with_comm = 0;
	while ((m = next_event(&o))) {
		const tio_field *f;
		int64_t pid;
		uint64_t cpu;
		events++;
		if (tio_msg_cpu(m, &cpu) && cpu == tio_stream_id(tio_msg_stream(m)))
			with_cpu++;
		if (!tio_msg_lookup(m, "common_pid", &f) && !tio_field_int(f, &pid) && tio_trace_comm(o.t, pid))
			with_comm++;
	}
	CHECK(events > 0 && with_cpu == events, "trace.dat: every event has its CPU (%" PRIu64 "/%" PRIu64 ")", with_cpu,
	      events);
	CHECK(with_comm > 0, "trace.dat: comms of common_pid from saved cmdlines (%" PRIu64 ")", with_comm);
	CHECK(tio_trace_comm(o.t, 0) && !strcmp(tio_trace_comm(o.t, 0), "<idle>"), "pid 0 is <idle>");
	close_one(&o);
}

/* LTTng CTF: the CPU is the packet context's cpu_id. */
static void test_ctf_cpu(void)
{
	const char *top = getenv("TIO_TOP");
	char p[4096];
	snprintf(p, sizeof(p), "%s/tests/data/ctf/lttng-ust-discard/ust/uid/0/64-bit", top ? top : ".");
	opened o;
	if (!open_one(p, NULL, &o))
		return;
	const tio_msg *m;
	uint64_t events = 0, same = 0;
	while ((m = next_event(&o))) {
		const tio_field *f;
		uint64_t cpu, u;
		events++;
		if (tio_msg_cpu(m, &cpu) && !tio_msg_lookup(m, "packet.context.cpu_id", &f) && !tio_field_uint(f, &u) &&
		    u == cpu)
			same++;
	}
	CHECK(events > 0 && same == events, "CTF: tio_msg_cpu = packet.context.cpu_id (%" PRIu64 "/%" PRIu64 ")", same,
	      events);
	close_one(&o);
}

int main(void)
{
	test_ctf_cpu();
	test_sequence();
	test_variant_string();
	test_float_struct();
	test_ctf2();
	test_tracedat();
	/* NULLs: errors, no crash */
	uint64_t u;
	const tio_field *f;
	CHECK(tio_field_uint(NULL, &u) == TIO_ERR_USAGE && tio_msg_lookup(NULL, "x", &f) == TIO_ERR_USAGE &&
		      tio_field_kind(NULL) < 0 && tio_msg_field(NULL, NULL) == NULL && tio_field_class_kind(NULL) < 0,
	      "NULL arguments");
	if (failures)
		printf("%d failure(s)\n", failures);
	return failures != 0;
}
