/*
 * json-print: every message of the traces given, as JSON Lines, written on
 * the public API alone (include/traceio/).  It prints what
 * `traceio print --style json TRACE...` prints, byte for byte
 * (docs/formats/json.md; tests/api/test-examples.sh checks it): a
 * generic pretty-printer that knows no format and no field class in
 * advance, only what the classes and values say about themselves.
 *
 *   cc json-print.c $(pkg-config --cflags --libs traceio)
 *   ./a.out TRACE... | jq .
 *
 * Exit status as `traceio print`: 0, 1 when a trace could not be opened
 * or a damaged part was skipped (the other events are still printed),
 * 2 on bad usage.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceio/class.h>
#include <traceio/error.h>
#include <traceio/field.h>
#include <traceio/msg.h>
#include <traceio/mux.h>
#include <traceio/trace.h>

static FILE *out;

/* ---------------------------------------------------------------- strings */

static const char hexd[] = "0123456789abcdef";

static void put_utf8(uint32_t cp)
{
	if (cp < 0x80) {
		putc((int)cp, out);
	} else if (cp < 0x800) {
		putc(0xC0 | cp >> 6, out);
		putc(0x80 | (cp & 0x3F), out);
	} else if (cp < 0x10000) {
		putc(0xE0 | cp >> 12, out);
		putc(0x80 | ((cp >> 6) & 0x3F), out);
		putc(0x80 | (cp & 0x3F), out);
	} else {
		putc(0xF0 | cp >> 18, out);
		putc(0x80 | ((cp >> 12) & 0x3F), out);
		putc(0x80 | ((cp >> 6) & 0x3F), out);
		putc(0x80 | (cp & 0x3F), out);
	}
}

#define REPLACEMENT 0xFFFDu

/*
 * The length of the valid UTF-8 sequence at s (1 to 4 bytes), or 0 when it
 * is invalid, with *skip = the length of its longest valid beginning
 * ("maximal subpart"), which becomes one U+FFFD.
 */
static size_t utf8_seq(const uint8_t *s, size_t left, size_t *skip)
{
	uint8_t c = s[0], lo = 0x80, hi = 0xBF;
	size_t need;
	*skip = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) {
		need = 1;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	for (size_t k = 1; k <= need; k++) {
		if (k >= left || s[k] < lo || s[k] > hi) {
			*skip = k;
			return 0;
		}
		lo = 0x80;
		hi = 0xBF;
	}
	return need + 1;
}

/* The inside of a JSON string from UTF-8 text of `len` bytes. */
static void put_chars(const char *str, size_t len)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t i = 0;
	while (i < len) {
		uint8_t c = s[i];
		if (c < 0x80) {
			switch (c) {
			case '"': fputs("\\\"", out); break;
			case '\\': fputs("\\\\", out); break;
			case '\n': fputs("\\n", out); break;
			case '\r': fputs("\\r", out); break;
			case '\t': fputs("\\t", out); break;
			case '\b': fputs("\\b", out); break;
			case '\f': fputs("\\f", out); break;
			default:
				if (c < 0x20)
					fprintf(out, "\\u00%c%c", hexd[c >> 4], hexd[c & 15]);
				else
					putc(c, out);
			}
			i++;
			continue;
		}
		size_t skip, n = utf8_seq(s + i, len - i, &skip);
		if (n) {
			fwrite(s + i, 1, n, out);
			i += n;
		} else {
			put_utf8(REPLACEMENT);
			i += skip;
		}
	}
}

static void put_str(const char *s, size_t len)
{
	putc('"', out);
	put_chars(s, len);
	putc('"', out);
}

static void put_cstr(const char *s)
{
	put_str(s ? s : "", s ? strlen(s) : 0);
}

/* A UTF-16 or UTF-32 string as stored (code units in the class's byte order), up to a zero unit. */
static void put_wide(const uint8_t *q, size_t len, unsigned unit, bool be)
{
	putc('"', out);
	for (size_t k = 0; k + unit <= len; k += unit) {
		uint32_t cu = 0;
		for (unsigned b = 0; b < unit; b++)
			cu |= (uint32_t)q[k + (be ? b : unit - 1 - b)] << (8 * (unit - 1 - b));
		if (!cu)
			break;
		if (unit == 2 && cu >= 0xD800 && cu < 0xE000) {
			uint32_t lo = k + 4 <= len ? (be ? (uint32_t)q[k + 2] << 8 | q[k + 3] : (uint32_t)q[k + 3] << 8 | q[k + 2]) : 0;
			if (cu < 0xDC00 && lo >= 0xDC00 && lo < 0xE000) {
				cu = 0x10000 + ((cu - 0xD800) << 10) + (lo - 0xDC00);
				k += 2;
			} else {
				cu = REPLACEMENT; /* an unpaired surrogate */
			}
		}
		if (cu > 0x10FFFF || (cu >= 0xD800 && cu < 0xE000))
			cu = REPLACEMENT;
		if (cu < 0x80) {
			char c = (char)cu;
			put_chars(&c, 1);
		} else {
			put_utf8(cu);
		}
	}
	putc('"', out);
}

/* ---------------------------------------------------------------- numbers */

static void put_u(uint64_t u) { fprintf(out, "%llu", (unsigned long long)u); }
static void put_i(int64_t i) { fprintf(out, "%lld", (long long)i); }

/* An integer of at most 64 bits, as its class's signedness says. */
static void put_int(const tio_field *f)
{
	if (tio_field_class_int_signed(tio_field_get_class(f))) {
		int64_t i = 0;
		tio_field_int(f, &i);
		put_i(i);
	} else {
		uint64_t u = 0;
		tio_field_uint(f, &u);
		put_u(u);
	}
}

/* The `n` bits at bit `at` of an integer stored in `p`, in its byte order. */
static unsigned bits(const uint8_t *p, uint32_t at, uint32_t n, bool be)
{
	unsigned d = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t bit = at + k;
		unsigned v = be ? (p[bit / 8] >> (7 - bit % 8)) & 1 : (p[bit / 8] >> (bit % 8)) & 1;
		d |= be ? v << (n - 1 - k) : v << k;
	}
	return d;
}

/* An integer wider than 64 bits: "0x" and its hex digits, most significant first, no leading zeros. */
static void put_big(const tio_field *f)
{
	const tio_field_class *fc = tio_field_get_class(f);
	uint32_t size = tio_field_class_int_size(fc);
	bool be = tio_field_class_byte_order(fc) == TIO_FIELD_BE;
	const uint8_t *p;
	size_t len;
	fputs("\"0x", out);
	if (tio_field_bytes(f, &p, &len) == 0 && len * 8 >= size) {
		uint32_t top = size % 4 ? size % 4 : 4; /* bits of the most significant digit */
		bool started = false;
		for (uint32_t done = 0; done < size;) {
			uint32_t n = done ? 4 : top;
			unsigned d = be ? bits(p, done, n, true) : bits(p, size - done - n, n, false);
			done += n;
			if (!d && !started && done < size)
				continue;
			started = true;
			putc(hexd[d & 15], out);
		}
	}
	putc('"', out);
}

/* {"value": N, "labels": [...]} (enumerations) or {"value": N, "flags": [...]} (bit maps) */
static void put_labelled(const tio_field *f, const char *key)
{
	fputs("{\"value\":", out);
	if (tio_field_kind(f) == TIO_FIELD_BITMAP) {
		uint64_t u = 0;
		if (tio_field_uint(f, &u)) {
			int64_t i = 0;
			tio_field_int(f, &i);
			u = (uint64_t)i;
		}
		put_u(u);
	} else {
		put_int(f);
	}
	fprintf(out, ",\"%s\":[", key);
	const char *l;
	for (size_t i = 0; (l = tio_field_label(f, i)); i++) {
		if (i)
			putc(',', out);
		put_cstr(l);
	}
	fputs("]}", out);
}

/* The fewest digits that read back to the same number (binary32: 6 to 9, others 15 to 17). */
static void put_float(const tio_field *f)
{
	const tio_field_class *fc = tio_field_get_class(f);
	double d = 0;
	tio_field_double(f, &d);
	if (isnan(d)) {
		fputs("\"nan\"", out);
		return;
	}
	if (isinf(d)) {
		fputs(d < 0 ? "\"-inf\"" : "\"inf\"", out);
		return;
	}
	bool single = tio_field_class_float_exp_digits(fc) == 8 && tio_field_class_float_mant_digits(fc) == 24;
	char tmp[40];
	for (int prec = single ? 6 : 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		double back = strtod(tmp, NULL);
		if (single ? (float)back == (float)d : back == d)
			break;
	}
	fputs(tmp, out);
}

/* ---------------------------------------------------------------- values */

static void put_value(const tio_field *f, int depth);

/* The members or elements of a compound, in order (linear: tio_field_next_child). */
static void put_children(const tio_field *f, uint64_t n, bool names, int depth)
{
	const tio_field_class *fc = tio_field_get_class(f);
	const tio_field *c = NULL;
	if (!n)
		return;
	if (tio_field_kind(f) == TIO_FIELD_STRUCT ? tio_field_member(f, 0, &c) : tio_field_element(f, 0, &c))
		return;
	for (uint64_t k = 0; k < n && c; k++) {
		if (k)
			putc(',', out);
		if (names) {
			put_cstr(tio_field_class_member_name(fc, (uint32_t)k));
			putc(':', out);
		}
		put_value(c, depth + 1);
		if (k + 1 < n && tio_field_next_child(f, c, &c))
			break;
	}
}

static void put_value(const tio_field *f, int depth)
{
	const tio_field_class *fc = tio_field_get_class(f);
	int kind = tio_field_kind(f);
	if (depth > 512) { /* as the CLI: readers refuse nesting deeper than 256 anyway */
		fputs("null", out);
		return;
	}
	switch (kind) {
	case TIO_FIELD_INT:
	case TIO_FIELD_ENUM:
		if (tio_field_class_int_size(fc) > 64)
			put_big(f);
		else if (kind == TIO_FIELD_ENUM || tio_field_class_label_count(fc))
			put_labelled(f, "labels");
		else
			put_int(f);
		return;
	case TIO_FIELD_VARINT:
		if (tio_field_class_label_count(fc))
			put_labelled(f, "labels");
		else
			put_int(f);
		return;
	case TIO_FIELD_BOOL: {
		bool b = false;
		tio_field_bool(f, &b);
		fputs(b ? "true" : "false", out);
		return;
	}
	case TIO_FIELD_BITMAP:
		put_labelled(f, "flags");
		return;
	case TIO_FIELD_FLOAT:
		put_float(f);
		return;
	case TIO_FIELD_STRING:
	case TIO_FIELD_STATIC_STRING:
	case TIO_FIELD_DYNAMIC_STRING: {
		const char *s = "";
		size_t len = 0;
		int enc = tio_field_class_string_encoding(fc);
		tio_field_string(f, &s, &len);
		if (enc == TIO_FIELD_UTF16 || enc == TIO_FIELD_UTF32)
			put_wide((const uint8_t *)s, len, enc == TIO_FIELD_UTF16 ? 2 : 4,
				 tio_field_class_byte_order(fc) == TIO_FIELD_BE);
		else
			put_str(s, len);
		return;
	}
	case TIO_FIELD_STATIC_BLOB:
	case TIO_FIELD_DYNAMIC_BLOB: {
		const uint8_t *p = NULL;
		size_t len = 0;
		tio_field_bytes(f, &p, &len);
		putc('"', out);
		for (size_t k = 0; k < len; k++) {
			putc(hexd[p[k] >> 4], out);
			putc(hexd[p[k] & 15], out);
		}
		putc('"', out);
		return;
	}
	case TIO_FIELD_STRUCT: {
		uint64_t n = 0;
		tio_field_length(f, &n);
		if (n > tio_field_class_member_count(fc))
			n = tio_field_class_member_count(fc);
		putc('{', out);
		put_children(f, n, true, depth);
		putc('}', out);
		return;
	}
	case TIO_FIELD_ARRAY:
	case TIO_FIELD_SEQUENCE: {
		const char *s;
		size_t len;
		/* CTF 1.8 text: one string value (when the reader decoded it as elements, an array) */
		if (tio_field_class_is_text(fc) && tio_field_string(f, &s, &len) == 0) {
			put_str(s, len);
			return;
		}
		tio_error_clear();
		uint64_t n = 0;
		tio_field_length(f, &n);
		putc('[', out);
		put_children(f, n, false, depth);
		putc(']', out);
		return;
	}
	case TIO_FIELD_VARIANT: {
		uint32_t idx = 0;
		const char *name = NULL;
		const tio_field *v = NULL;
		tio_field_variant(f, &idx, &name, &v);
		fputs("{\"option\":", out);
		if (name)
			put_cstr(name);
		else
			put_u(idx);
		fputs(",\"value\":", out);
		if (v)
			put_value(v, depth + 1);
		else
			fputs("null", out);
		putc('}', out);
		return;
	}
	case TIO_FIELD_OPTIONAL: {
		const tio_field *v = NULL;
		tio_field_optional(f, &v);
		if (v)
			put_value(v, depth + 1);
		else
			fputs("null", out);
		return;
	}
	}
}

/* ---------------------------------------------------------------- messages */

/* "type", then where the message comes from: trace, stream class, stream */
static void put_head(const tio_msg *m, const char *type)
{
	const tio_stream *s = tio_msg_stream(m);
	fprintf(out, "{\"type\":\"%s\"", type);
	if (s && tio_stream_trace(s)) {
		fputs(",\"trace\":", out);
		put_cstr(tio_trace_path(tio_stream_trace(s)));
	}
	if (s && tio_stream_get_class(s)) {
		fputs(",\"stream_class_id\":", out);
		put_u(tio_stream_class_id(tio_stream_get_class(s)));
	}
	if (s) {
		fputs(",\"stream_id\":", out);
		put_u(tio_stream_id(s));
		if (tio_stream_name(s)) {
			fputs(",\"stream\":", out);
			put_cstr(tio_stream_name(s));
		}
	}
}

static void put_time(const tio_msg *m)
{
	uint64_t cycles;
	int64_t ns;
	if (!tio_msg_cycles(m, &cycles) || !tio_msg_time_ns(m, &ns))
		return;
	fputs(",\"cycles\":", out);
	put_u(cycles);
	fputs(",\"ns\":", out);
	put_i(ns);
}

static void put_scope(const tio_msg *m, int scope, const char *key)
{
	const tio_field *root = tio_msg_scope(m, scope);
	if (!root)
		return;
	fprintf(out, ",\"%s\":", key);
	put_value(root, 0);
}

static void put_message(const tio_msg *m)
{
	int kind = tio_msg_kind(m);
	switch (kind) {
	case TIO_MSG_KIND_EVENT: {
		const tio_event_class *ec = tio_msg_event_class(m);
		put_head(m, "event");
		if (ec) {
			fputs(",\"event_class\":", out);
			put_cstr(tio_event_class_name(ec));
			fputs(",\"event_class_id\":", out);
			put_u(tio_event_class_id(ec));
		}
		put_time(m);
		fputs(",\"offset\":", out);
		put_u(tio_msg_offset(m));
		put_scope(m, TIO_SCOPE_EVENT_HEADER, "event_header");
		put_scope(m, TIO_SCOPE_COMMON_CONTEXT, "common_context");
		put_scope(m, TIO_SCOPE_SPECIFIC_CONTEXT, "specific_context");
		put_scope(m, TIO_SCOPE_EVENT_PAYLOAD, "payload");
		break;
	}
	case TIO_MSG_KIND_PACKET_BEGIN:
	case TIO_MSG_KIND_PACKET_END:
		put_head(m, kind == TIO_MSG_KIND_PACKET_BEGIN ? "packet_begin" : "packet_end");
		put_time(m);
		fputs(",\"offset\":", out);
		put_u(tio_msg_offset(m));
		put_scope(m, TIO_SCOPE_PACKET_HEADER, "packet_header");
		put_scope(m, TIO_SCOPE_PACKET_CONTEXT, "packet_context");
		break;
	case TIO_MSG_KIND_DISCARDED_EVENTS:
	case TIO_MSG_KIND_DISCARDED_PACKETS: {
		uint64_t count = 0, bc, ec;
		bool has_range = false;
		int64_t bns = 0, ens = 0;
		put_head(m, kind == TIO_MSG_KIND_DISCARDED_EVENTS ? "discarded_events" : "discarded_packets");
		tio_msg_discarded(m, &count, &has_range, &bns, &ens);
		fputs(",\"count\":", out);
		if (count)
			put_u(count);
		else
			fputs("null", out);
		if (has_range && tio_msg_discarded_cycles(m, &bc, &ec)) {
			fputs(",\"begin_cycles\":", out);
			put_u(bc);
			fputs(",\"begin_ns\":", out);
			put_i(bns);
			fputs(",\"end_cycles\":", out);
			put_u(ec);
			fputs(",\"end_ns\":", out);
			put_i(ens);
		}
		break;
	}
	default: /* stream beginnings and ends: nothing to print */
		return;
	}
	fputs("}\n", out);
}

/* ---------------------------------------------------------------- main */

static void error(const char *what)
{
	const char *msg = tio_error_message();
	fprintf(stderr, "json-print: %s%s%s\n", what ? what : "", what && *msg ? ": " : "", msg);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s TRACE...\n", argv[0]);
		return 2;
	}
	out = stdout;
	static char obuf[1 << 16];
	setvbuf(out, obuf, _IOFBF, sizeof(obuf));

	/* every trace under every path (a directory may hold several), then the same trace found twice joined */
	tio_trace **traces = NULL;
	size_t n = 0;
	int status = 0;
	for (int i = 1; i < argc; i++) {
		tio_trace **v;
		size_t k;
		if (tio_trace_open_all(argv[i], NULL, &v, &k)) {
			error(NULL);
			status = 1;
			goto out;
		}
		tio_trace **all = realloc(traces, (n + k) * sizeof(*all));
		if (!all) {
			for (size_t j = 0; j < k; j++)
				tio_trace_free(v[j]);
			free(v);
			fprintf(stderr, "json-print: out of memory\n");
			status = 1;
			goto out;
		}
		traces = all;
		memcpy(traces + n, v, k * sizeof(*v));
		n += k;
		free(v);
	}
	if (tio_traces_merge(traces, &n)) {
		error(NULL);
		status = 1;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const char *w;
		for (size_t k = 0; (w = tio_trace_warning(traces[i], k)); k++)
			fprintf(stderr, "json-print: warning: %s\n", w);
	}

	tio_mux *mux;
	if (tio_mux_new(traces, n, &mux)) {
		error(NULL);
		status = 1;
		goto out;
	}
	for (;;) {
		const tio_msg *m;
		int r = tio_mux_next(mux, &m);
		if (r == 0)
			break;
		if (r < 0) { /* a damaged part: reported and skipped, the other streams go on */
			error(NULL);
			status = 1;
			if (r == TIO_ERR_NOMEM)
				break;
			continue;
		}
		put_message(m);
	}
	tio_mux_free(mux);
	if (fflush(out) || ferror(out)) {
		perror("json-print: stdout");
		status = 1;
	}
out:
	for (size_t i = 0; i < n; i++)
		tio_trace_free(traces[i]);
	free(traces);
	return status;
}
