/*
 * The API additions (tio_field_next_child in src/ir/api-field.c, tio_msg_discarded_cycles in src/ir/api-class.c) and the string byte order of
 * tio_field_class_byte_order, on real traces (public headers only):
 *
 * - tio_field_next_child walks every compound value of every event and
 *   packet of a trace to the same values as tio_field_member/element(i),
 *   NULL after the last; wrong calls are TIO_ERR_USAGE with a message;
 * - tio_msg_discarded_cycles gives the range tio_msg_discarded gives in ns
 *   (the ns are the cycles through the stream's clock), false otherwise;
 * - UTF-16/32 string classes tell their code units' byte order.
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

static const char *top(const char *rel)
{
	const char *t = getenv("TIO_TOP");
	snprintf(path_buf, sizeof(path_buf), "%s/%s", t ? t : ".", rel);
	return path_buf;
}

typedef struct opened {
	tio_trace **v;
	size_t n;
	tio_mux *mux;
} opened;

static bool open_all(const char *path, opened *o)
{
	memset(o, 0, sizeof(*o));
	if (tio_trace_open_all(path, NULL, &o->v, &o->n) || tio_mux_new(o->v, o->n, &o->mux)) {
		printf("FAIL cannot open %s: %s\n", path, tio_error_message());
		failures++;
		return false;
	}
	return true;
}

static void close_all(opened *o)
{
	tio_mux_free(o->mux);
	for (size_t i = 0; i < o->n; i++)
		tio_trace_free(o->v[i]);
	free(o->v);
}

static uint64_t walked;

/* Check next_child against member/element(i) on f and every value below it. */
static void check_walk(const tio_field *f, int depth)
{
	int kind = tio_field_kind(f);
	uint64_t n;
	if (depth > 300 || (kind != TIO_FIELD_STRUCT && kind != TIO_FIELD_ARRAY && kind != TIO_FIELD_SEQUENCE &&
			    kind != TIO_FIELD_VARIANT && kind != TIO_FIELD_OPTIONAL))
		return;
	if (kind == TIO_FIELD_VARIANT || kind == TIO_FIELD_OPTIONAL) {
		const tio_field *v = NULL;
		if (kind == TIO_FIELD_VARIANT)
			tio_field_variant(f, NULL, NULL, &v);
		else
			tio_field_optional(f, &v);
		if (v) {
			const tio_field *nx = (const tio_field *)1;
			CHECK(tio_field_next_child(f, v, &nx) == 0 && nx == NULL, "variant/optional: one child only");
			check_walk(v, depth + 1);
		}
		return;
	}
	const tio_field *first;
	if (kind == TIO_FIELD_STRUCT ? tio_field_member(f, 0, &first) : tio_field_element(f, 0, &first)) {
		/* empty, or a text array (no element values) */
		tio_error_clear();
		const tio_field *nx;
		CHECK(tio_field_next_child(f, f, &nx) == TIO_ERR_USAGE, "a value without children refuses next_child");
		tio_error_clear();
		return;
	}
	CHECK(tio_field_length(f, &n) == 0 && n > 0, "length of a compound with a first child");
	const tio_field *c = first;
	for (uint64_t i = 0; i < n; i++) {
		const tio_field *want;
		int r = kind == TIO_FIELD_STRUCT ? tio_field_member(f, i, &want) : tio_field_element(f, i, &want);
		CHECK(r == 0 && c == want, "child %" PRIu64 " of %" PRIu64 ": next_child differs from member/element(i)", i, n);
		if (c != want)
			return;
		walked++;
		check_walk(c, depth + 1);
		const tio_field *nx = (const tio_field *)1;
		CHECK(tio_field_next_child(f, c, &nx) == 0, "next_child: %s", tio_error_message());
		if (i + 1 == n)
			CHECK(nx == NULL, "next_child after the last of %" PRIu64 " is not NULL", n);
		c = nx;
	}
	/* wrong calls: the parent as its own child, a child as the parent of its sibling */
	const tio_field *nx;
	CHECK(tio_field_next_child(f, f, &nx) == TIO_ERR_USAGE && *tio_error_message(), "parent as its own child accepted");
	tio_error_clear();
	if (n > 1 && tio_field_kind(first) != TIO_FIELD_STRUCT && tio_field_kind(first) != TIO_FIELD_ARRAY &&
	    tio_field_kind(first) != TIO_FIELD_SEQUENCE && tio_field_kind(first) != TIO_FIELD_VARIANT &&
	    tio_field_kind(first) != TIO_FIELD_OPTIONAL) {
		const tio_field *second;
		tio_field_next_child(f, first, &second);
		CHECK(tio_field_next_child(first, second, &nx) == TIO_ERR_USAGE, "a leaf taken as a parent accepted");
		tio_error_clear();
	}
}

static void walk_trace(const char *path, uint64_t min_values)
{
	opened o;
	if (!open_all(path, &o))
		return;
	walked = 0;
	const tio_msg *m;
	int r;
	while ((r = tio_mux_next(o.mux, &m)) != 0) {
		if (r < 0) {
			tio_error_clear();
			continue;
		}
		for (int s = 0; s < TIO_SCOPE_COUNT; s++) {
			const tio_field *root = tio_msg_scope(m, s);
			if (root)
				check_walk(root, 0);
		}
		/* the values of two scopes are not each other's children */
		const tio_field *a = tio_msg_scope(m, TIO_SCOPE_EVENT_PAYLOAD), *b = tio_msg_scope(m, TIO_SCOPE_EVENT_HEADER);
		const tio_field *nx;
		if (a && b && tio_field_kind(a) == TIO_FIELD_STRUCT) {
			uint64_t n;
			if (tio_field_length(a, &n) == 0 && n)
				CHECK(tio_field_next_child(a, b, &nx) == TIO_ERR_USAGE, "another scope's value taken as a child");
			tio_error_clear();
		}
	}
	CHECK(walked >= min_values, "%s: walked %" PRIu64 " values, expected at least %" PRIu64, path, walked, min_values);
	close_all(&o);
}

static void wrong_calls(void)
{
	const tio_field *nx;
	CHECK(tio_field_next_child(NULL, NULL, &nx) == TIO_ERR_USAGE && *tio_error_message(), "NULL parent");
	tio_error_clear();
	CHECK(!tio_msg_discarded_cycles(NULL, NULL, NULL), "NULL message");
}

static void discarded(void)
{
	opened o;
	if (!open_all(top("tests/data/ctf/lttng-ust-discard"), &o))
		return;
	const tio_msg *m;
	int r;
	uint64_t with_range = 0, events = 0;
	while ((r = tio_mux_next(o.mux, &m)) != 0) {
		if (r < 0) {
			tio_error_clear();
			continue;
		}
		uint64_t bc = 1, ec = 2, count;
		bool has_range;
		int64_t bns, ens;
		if (!tio_msg_discarded(m, &count, &has_range, &bns, &ens)) {
			CHECK(!tio_msg_discarded_cycles(m, &bc, &ec) && bc == 1 && ec == 2, "cycles of a non-discarded message");
			events++;
			continue;
		}
		CHECK(tio_msg_discarded_cycles(m, &bc, &ec) == has_range, "discarded_cycles says a range when discarded does");
		if (!has_range)
			continue;
		with_range++;
		const tio_clock *c = tio_stream_class_clock(tio_stream_get_class(tio_msg_stream(m)));
		int64_t b2, e2;
		CHECK(c && bc <= ec, "a range in cycles on a stream with a clock");
		CHECK(c && tio_clock_cycles_to_ns(c, bc, &b2) == 0 && b2 == bns, "begin cycles %" PRIu64 " -> ns", bc);
		CHECK(c && tio_clock_cycles_to_ns(c, ec, &e2) == 0 && e2 == ens, "end cycles %" PRIu64 " -> ns", ec);
	}
	CHECK(with_range > 0 && events > 0, "lttng-ust-discard: %" PRIu64 " discarded messages with a range", with_range);
	close_all(&o);
}

static void string_byte_order(const char *path, const char *event, const char *member, int want)
{
	opened o;
	if (!open_all(path, &o))
		return;
	const tio_event_class *ec = NULL;
	for (size_t i = 0; i < o.n && !ec; i++)
		ec = tio_trace_event_class_by_name(o.v[i], event);
	const tio_field_class *pl = ec ? tio_event_class_scope(ec, TIO_SCOPE_EVENT_PAYLOAD) : NULL, *fc = NULL;
	for (uint32_t k = 0; k < tio_field_class_member_count(pl); k++)
		if (!strcmp(tio_field_class_member_name(pl, k), member))
			fc = tio_field_class_member_class(pl, k);
	CHECK(fc && tio_field_class_kind(fc) == TIO_FIELD_STRING && tio_field_class_byte_order(fc) == want,
	      "%s: %s.%s: string byte order %d, want %d", path, event, member, fc ? tio_field_class_byte_order(fc) : -9, want);
	close_all(&o);
}

int main(void)
{
	wrong_calls();
	walk_trace(top("tests/data/ctf/lttng-ust-discard"), 100000);
	walk_trace(top("tests/data/ftrace/kvm-v7-zstd.dat"), 9000);
	walk_trace(peer("ctf/babeltrace-2.1/ctf-traces/2/succeed/fl-bm"), 5);
	walk_trace(peer("ctf/yactfr-iter-data/ctf-2/pass-opts"), 4);
	discarded();
	string_byte_order(peer("ctf/yactfr-iter-data/ctf-2/pass-nt-str-utf-16be"), "test", "str", TIO_FIELD_BE);
	string_byte_order(peer("ctf/yactfr-iter-data/ctf-2/pass-nt-str-utf-16le"), "test", "str", TIO_FIELD_LE);
	string_byte_order(peer("ctf/yactfr-iter-data/ctf-2/pass-nt-str-utf-32be"), "test", "str", TIO_FIELD_BE);
	/* UTF-8: no byte order */
	string_byte_order(top("tests/data/ctf/lttng-ust-discard"), "corpus:strings", "str", -1);
	if (failures)
		printf("%d failures\n", failures);
	else
		printf("ok\n");
	return failures != 0;
}
