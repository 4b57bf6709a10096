/*
 * The "json" sink: one JSON object per line per message (JSON Lines), with
 * every scope of an event as JSON and every value exact.  The format is
 * described in docs/formats/json.md; in short:
 *
 *   integers            JSON numbers, printed from the 64-bit value (no
 *                       double rounding); wider than 64 bits: "0x..." text
 *   enumerations        {"value": N, "labels": [...]}
 *   bit maps            {"value": N, "flags": [...]}
 *   booleans            true / false
 *   floats              shortest text that reads back to the same value;
 *                       "nan", "inf", "-inf" as strings
 *   strings             JSON strings (UTF-16/32 converted to UTF-8; each
 *                       invalid UTF-8 sequence becomes U+FFFD)
 *   BLOBs               lower-case hex text
 *   structures          objects, members in order
 *   arrays              arrays (text arrays: strings)
 *   variants            {"option": NAME-or-index, "value": ...}
 *   optionals           the value, or null when absent
 *
 * Everything is built in one reused buffer: nothing is allocated per event.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>

#include "sink/sink.h"

typedef struct json_sink {
	tio_sink base;
	tio_buf b;
	const tio_stream *pfx_stream; /* pfx holds the start of this stream's event objects */
	tio_buf pfx;
} json_sink;

/* ---------------------------------------------------------------- strings */

static const char hexd[] = "0123456789abcdef";

static void put_u_escape(tio_buf *b, unsigned c)
{
	char e[6] = {'\\', 'u', '0', '0', hexd[(c >> 4) & 15], hexd[c & 15]};
	tio_buf_add(b, e, 6);
}

#define REPLACEMENT 0xFFFDu

/* The inside of a JSON string from UTF-8 bytes (not NUL-terminated). */
static void put_chars(tio_buf *b, const char *str, size_t len)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t i = 0;
	while (i < len) {
		/* the common case: a run of printable ASCII without '"' and '\' */
		size_t j = i;
		while (j < len && s[j] >= 0x20 && s[j] < 0x80 && s[j] != '"' && s[j] != '\\')
			j++;
		if (j > i) {
			tio_buf_add(b, s + i, j - i);
			i = j;
			continue;
		}
		uint8_t c = s[i];
		if (c < 0x80) {
			switch (c) {
			case '"': tio_buf_addl(b, "\\\""); break;
			case '\\': tio_buf_addl(b, "\\\\"); break;
			case '\n': tio_buf_addl(b, "\\n"); break;
			case '\r': tio_buf_addl(b, "\\r"); break;
			case '\t': tio_buf_addl(b, "\\t"); break;
			case '\b': tio_buf_addl(b, "\\b"); break;
			case '\f': tio_buf_addl(b, "\\f"); break;
			default: put_u_escape(b, c); break;
			}
			i++;
			continue;
		}
		size_t skip;
		size_t n = tio_utf8_seq(s + i, len - i, &skip);
		if (n) {
			tio_buf_add(b, s + i, n);
			i += n;
		} else {
			tio_buf_add_cp(b, REPLACEMENT);
			i += skip;
		}
	}
}

/* A JSON string from UTF-8 bytes (not NUL-terminated). */
static void put_str(tio_buf *b, const char *str, size_t len)
{
	tio_buf_reserve(b, len + 2);
	tio_buf_addc(b, '"');
	put_chars(b, str, len);
	tio_buf_addc(b, '"');
}

/* A JSON string from UTF-16/UTF-32 code units, up to the first zero unit. */
static void put_wide(tio_buf *b, const tio_fc *fc, const tio_val *v)
{
	const uint8_t *q = (const uint8_t *)v->v.s.p;
	uint64_t len = v->v.s.len;
	unsigned unit = fc->s.encoding == TIO_ENC_UTF16 ? 2 : 4;
	bool be = fc->s.byte_order == TIO_BE;
	tio_buf_addc(b, '"');
	for (uint64_t k = 0; k + unit <= len; k += unit) {
		uint32_t cu = unit == 2 ? (be ? tio_be16(q + k) : tio_le16(q + k))
					: (be ? tio_be32(q + k) : tio_le32(q + k));
		if (!cu)
			break;
		if (unit == 2 && cu >= 0xD800 && cu < 0xE000) {
			uint32_t lo2 = k + 4 <= len ? (be ? tio_be16(q + k + 2) : tio_le16(q + k + 2)) : 0;
			if (cu < 0xDC00 && lo2 >= 0xDC00 && lo2 < 0xE000) {
				cu = 0x10000 + ((cu - 0xD800) << 10) + (lo2 - 0xDC00);
				k += 2;
			} else {
				cu = REPLACEMENT; /* unpaired surrogate */
			}
		}
		if (cu > 0x10FFFF || (cu >= 0xD800 && cu < 0xE000))
			cu = REPLACEMENT;
		if (cu < 0x80) {
			char c = (char)cu;
			put_chars(b, &c, 1);
			continue;
		}
		tio_buf_add_cp(b, cu);
	}
	tio_buf_addc(b, '"');
}

/* ---------------------------------------------------------------- numbers */

static void put_float(tio_buf *b, const tio_fc *fc, double d)
{
	if (isnan(d)) {
		tio_buf_addl(b, "\"nan\"");
		return;
	}
	if (isinf(d)) {
		if (d < 0)
			tio_buf_addl(b, "\"-inf\"");
		else
			tio_buf_addl(b, "\"inf\"");
		return;
	}
	/* the shortest text that reads back to the same value of the field's precision */
	bool single = fc->f.exp_dig == 8 && fc->f.mant_dig == 24;
	char tmp[40];
	for (int prec = single ? 6 : 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		double back = strtod(tmp, NULL);
		if (single ? (float)back == (float)d : back == d)
			break;
	}
	tio_buf_adds(b, tmp);
}

/* An integer wider than 64 bits: "0x" and its hex digits, most significant first. */
static void put_big(tio_buf *b, const tio_fc *fc, const tio_val *v)
{
	uint32_t size = fc->i.size;
	const uint8_t *p = v->v.big;
	tio_buf_addl(b, "\"0x");
	uint32_t top = size % 4 ? size % 4 : 4; /* bits of the most significant digit */
	bool started = false;
	for (uint32_t done = 0; done < size;) {
		uint32_t n = done ? 4 : top;
		unsigned d;
		if (fc->i.byte_order == TIO_BE)
			d = (unsigned)tio_bits_be(p, done, n);
		else
			d = (unsigned)tio_bits_le(p, size - done - n, n);
		done += n;
		if (!d && !started && done < size)
			continue;
		started = true;
		tio_buf_addc(b, hexd[d & 15]);
	}
	tio_buf_addc(b, '"');
}

static void put_int(tio_buf *b, bool sgn, const tio_val *v)
{
	if (sgn)
		tio_buf_addi(b, v->v.i);
	else
		tio_buf_addu(b, v->v.u);
}

static bool in_ranges(const tio_mapping *m, const tio_val *v, bool sgn)
{
	for (uint32_t r = 0; r < m->nranges; r++) {
		if (sgn ? (v->v.i >= m->ranges[r].lo && v->v.i <= m->ranges[r].hi)
			: (v->v.u >= (uint64_t)m->ranges[r].lo && v->v.u <= (uint64_t)m->ranges[r].hi))
			return true;
	}
	return false;
}

/* {"value": N, "labels": [...]}: every mapping whose ranges hold the value */
static void put_mapped(tio_buf *b, const tio_mapping *maps, uint32_t nmaps, bool sgn, const tio_val *v)
{
	tio_buf_addl(b, "{\"value\":");
	put_int(b, sgn, v);
	tio_buf_addl(b, ",\"labels\":[");
	int cnt = 0;
	for (uint32_t k = 0; k < nmaps; k++) {
		if (!in_ranges(&maps[k], v, sgn))
			continue;
		if (cnt++)
			tio_buf_addc(b, ',');
		const char *l = maps[k].label ? maps[k].label : "";
		put_str(b, l, strlen(l));
	}
	tio_buf_addl(b, "]}");
}

/* {"value": N, "flags": [...]}: a flag is set when one of the bits its ranges name is */
static void put_bitmap(tio_buf *b, const tio_fc *fc, const tio_val *v)
{
	tio_buf_addl(b, "{\"value\":");
	tio_buf_addu(b, v->v.u);
	tio_buf_addl(b, ",\"flags\":[");
	int cnt = 0;
	for (uint32_t k = 0; k < fc->i.nmappings; k++) {
		const tio_mapping *mp = &fc->i.mappings[k];
		bool on = false;
		for (uint32_t r = 0; r < mp->nranges && !on; r++) {
			int64_t lo = mp->ranges[r].lo < 0 ? 0 : mp->ranges[r].lo, hi = mp->ranges[r].hi;
			if (lo > 63 || hi < lo)
				continue;
			if (hi > 63)
				hi = 63;
			uint64_t mask = (hi - lo == 63 ? UINT64_MAX : ((1ULL << (hi - lo + 1)) - 1)) << lo;
			on = (v->v.u & mask) != 0;
		}
		if (!on)
			continue;
		if (cnt++)
			tio_buf_addc(b, ',');
		const char *l = mp->label ? mp->label : "";
		put_str(b, l, strlen(l));
	}
	tio_buf_addl(b, "]}");
}

static void put_hex(tio_buf *b, const char *p, uint64_t len)
{
	tio_buf_reserve(b, 2 * len + 2);
	tio_buf_addc(b, '"');
	for (uint64_t k = 0; k < len; k++) {
		uint8_t c = (uint8_t)p[k];
		char h[2] = {hexd[c >> 4], hexd[c & 15]};
		tio_buf_add(b, h, 2);
	}
	tio_buf_addc(b, '"');
}

/* ---------------------------------------------------------------- values */

/* Writes value i as JSON and returns the index past its subtree. */
static uint32_t put_value(tio_buf *b, const tio_val *vals, uint32_t i, int depth)
{
	const tio_val *v = &vals[i];
	const tio_fc *fc = v->fc;
	if (depth > 512) { /* the reader limits nesting to 256 */
		tio_buf_addl(b, "null");
		return v->end;
	}
	switch (fc->kind) {
	case TIO_FC_INT:
		if (fc->i.size > 64)
			put_big(b, fc, v);
		else if (fc->i.nmappings)
			put_mapped(b, fc->i.mappings, fc->i.nmappings, fc->i.is_signed, v);
		else
			put_int(b, fc->i.is_signed, v);
		return i + 1;
	case TIO_FC_ENUM:
		if (fc->i.size > 64)
			put_big(b, fc, v);
		else
			put_mapped(b, fc->i.mappings, fc->i.nmappings, fc->i.is_signed, v);
		return i + 1;
	case TIO_FC_BOOL:
		if (v->v.u)
			tio_buf_addl(b, "true");
		else
			tio_buf_addl(b, "false");
		return i + 1;
	case TIO_FC_BITMAP:
		put_bitmap(b, fc, v);
		return i + 1;
	case TIO_FC_FLOAT:
		put_float(b, fc, v->v.d);
		return i + 1;
	case TIO_FC_VARINT:
		if (fc->vi.nmappings)
			put_mapped(b, fc->vi.mappings, fc->vi.nmappings, fc->vi.is_signed, v);
		else
			put_int(b, fc->vi.is_signed, v);
		return i + 1;
	case TIO_FC_STRING:
	case TIO_FC_SSTRING:
	case TIO_FC_DSTRING:
		if (fc->s.encoding == TIO_ENC_UTF16 || fc->s.encoding == TIO_ENC_UTF32)
			put_wide(b, fc, v);
		else
			put_str(b, v->v.s.p, v->v.s.len ? strnlen(v->v.s.p, v->v.s.len) : 0);
		return i + 1;
	case TIO_FC_SBLOB:
	case TIO_FC_DBLOB:
		put_hex(b, v->v.s.p, v->v.s.len);
		return i + 1;
	case TIO_FC_STRUCT: {
		tio_buf_addc(b, '{');
		uint32_t j = i + 1;
		for (uint32_t k = 0; k < v->n && k < fc->st.nmembers; k++) {
			if (k)
				tio_buf_addc(b, ',');
			const char *nm = fc->st.members[k].name ? fc->st.members[k].name : "";
			put_str(b, nm, strlen(nm));
			tio_buf_addc(b, ':');
			j = put_value(b, vals, j, depth + 1);
		}
		tio_buf_addc(b, '}');
		return v->end;
	}
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE: {
		if (fc->a.text && v->n == 0 && v->v.s.p) {
			put_str(b, v->v.s.p, strnlen(v->v.s.p, v->v.s.len));
			return v->end;
		}
		tio_buf_addc(b, '[');
		uint32_t j = i + 1;
		for (uint32_t k = 0; k < v->n; k++) {
			if (k)
				tio_buf_addc(b, ',');
			j = put_value(b, vals, j, depth + 1);
		}
		tio_buf_addc(b, ']');
		return v->end;
	}
	case TIO_FC_VARIANT: {
		tio_buf_addl(b, "{\"option\":");
		const char *nm = v->opt < fc->v.noptions ? fc->v.options[v->opt].name : NULL;
		if (nm)
			put_str(b, nm, strlen(nm));
		else
			tio_buf_addu(b, v->opt);
		tio_buf_addl(b, ",\"value\":");
		if (v->n)
			put_value(b, vals, i + 1, depth + 1);
		else
			tio_buf_addl(b, "null");
		tio_buf_addc(b, '}');
		return v->end;
	}
	case TIO_FC_OPTIONAL:
		if (v->n)
			put_value(b, vals, i + 1, depth + 1);
		else
			tio_buf_addl(b, "null");
		return v->end;
	}
	return v->end;
}

/* ---------------------------------------------------------------- messages */

/*
 * Public (traceio/field.h): one value as JSON text, as `print --style
 * json` writes it, appended to a caller's growable buffer (so that a
 * program, or the SQLite module, writes the same JSON as the CLI without
 * a second writer).
 */
int tio_field_json(const tio_field *f, char **buf, size_t *len, size_t *cap)
{
	if (!f || !buf || !len || !cap || *len > *cap)
		return tio_err_set(TIO_ERR_USAGE, "tio_field_json: no field or buffer");
	tio_buf b = {*buf, *len, *cap};
	tio_err_clear(); /* a failed allocation leaves its message: the only sign of it */
	uint32_t at = tio_val_index(f);
	put_value(&b, f - at, at, 0);
	if (!b.p || strstr(tio_error_message(), "out of memory") || (b.len + 1 > b.cap && tio_buf_reserve(&b, 1))) {
		free(b.p);
		*buf = NULL;
		*len = *cap = 0;
		return tio_err_oom();
	}
	*buf = b.p;
	b.p[b.len] = 0;
	*len = b.len;
	*cap = b.cap;
	return 0;
}

static void put_key(tio_buf *b, const char *key_with_quotes_and_colon, size_t n)
{
	tio_buf_add(b, key_with_quotes_and_colon, n);
}
#define KEY(b, lit) put_key((b), "," lit ":", sizeof(lit) + 1)

/* "type", trace, stream class and stream, shared by every message */
static void put_head(tio_buf *b, const tio_msg *m, const char *type)
{
	const tio_stream *s = m->stream;
	tio_buf_addl(b, "{\"type\":\"");
	tio_buf_adds(b, type);
	tio_buf_addc(b, '"');
	if (s && s->trace) {
		const char *tp = s->trace->path ? s->trace->path : "";
		KEY(b, "\"trace\"");
		put_str(b, tp, strlen(tp));
	}
	if (s && s->sc) {
		KEY(b, "\"stream_class_id\"");
		tio_buf_addu(b, s->sc->id);
	}
	if (s) {
		KEY(b, "\"stream_id\"");
		tio_buf_addu(b, s->id);
		if (s->name) {
			KEY(b, "\"stream\"");
			put_str(b, s->name, strlen(s->name));
		}
	}
}

static void put_time(tio_buf *b, const tio_msg *m)
{
	if (!m->has_ts)
		return;
	KEY(b, "\"cycles\"");
	tio_buf_addu(b, m->cycles);
	KEY(b, "\"ns\"");
	tio_buf_addi(b, m->ns);
}

static void put_scope(tio_buf *b, const tio_msg *m, int scope, const char *key, size_t keylen)
{
	const tio_val *v = m->scope[scope];
	if (!v || !m->vals)
		return;
	put_key(b, key, keylen);
	put_value(b, m->vals, (uint32_t)(v - m->vals), 0);
}
#define SCOPE(b, m, sc, lit) put_scope((b), (m), (sc), "," lit ":", sizeof(lit) + 1)

static void put_event(json_sink *j, const tio_msg *m)
{
	tio_buf *b = &j->b;
	const tio_event_class *ec = m->ec;
	/* the head is the same for every event of a stream: built once per stream change */
	if (j->pfx_stream != m->stream) {
		tio_buf_reset(&j->pfx);
		put_head(&j->pfx, m, "event");
		j->pfx_stream = m->stream;
	}
	tio_buf_add(b, j->pfx.p, j->pfx.len);
	if (ec) {
		const char *nm = ec->name ? ec->name : "";
		KEY(b, "\"event_class\"");
		put_str(b, nm, strlen(nm));
		KEY(b, "\"event_class_id\"");
		tio_buf_addu(b, ec->id);
	}
	put_time(b, m);
	KEY(b, "\"offset\"");
	tio_buf_addu(b, m->offset);
	SCOPE(b, m, TIO_SCOPE_EV_HEADER, "\"event_header\"");
	SCOPE(b, m, TIO_SCOPE_EV_COMMON_CTX, "\"common_context\"");
	SCOPE(b, m, TIO_SCOPE_EV_SPEC_CTX, "\"specific_context\"");
	SCOPE(b, m, TIO_SCOPE_PAYLOAD, "\"payload\"");
	tio_buf_addl(b, "}\n");
}

static void put_packet(tio_buf *b, const tio_msg *m)
{
	put_head(b, m, m->type == TIO_MSG_PACKET_BEGIN ? "packet_begin" : "packet_end");
	put_time(b, m);
	KEY(b, "\"offset\"");
	tio_buf_addu(b, m->offset);
	SCOPE(b, m, TIO_SCOPE_PKT_HEADER, "\"packet_header\"");
	SCOPE(b, m, TIO_SCOPE_PKT_CTX, "\"packet_context\"");
	tio_buf_addl(b, "}\n");
}

static void put_discarded(tio_buf *b, const tio_msg *m)
{
	put_head(b, m, m->type == TIO_MSG_DISCARDED_EVENTS ? "discarded_events" : "discarded_packets");
	KEY(b, "\"count\"");
	if (m->count)
		tio_buf_addu(b, m->count);
	else
		tio_buf_addl(b, "null");
	if (m->has_range) {
		KEY(b, "\"begin_cycles\"");
		tio_buf_addu(b, m->begin_cycles);
		KEY(b, "\"begin_ns\"");
		tio_buf_addi(b, m->begin_ns);
		KEY(b, "\"end_cycles\"");
		tio_buf_addu(b, m->end_cycles);
		KEY(b, "\"end_ns\"");
		tio_buf_addi(b, m->end_ns);
	}
	tio_buf_addl(b, "}\n");
}

static int flush_out(json_sink *j) { return tio_sink_flush_buf(&j->base, &j->b); }

static int json_consume(tio_sink *s, const tio_msg *m)
{
	json_sink *j = (json_sink *)s;
	switch (m->type) {
	case TIO_MSG_EVENT:
		put_event(j, m);
		break;
	case TIO_MSG_PACKET_BEGIN:
	case TIO_MSG_PACKET_END:
		put_packet(&j->b, m);
		break;
	case TIO_MSG_DISCARDED_EVENTS:
	case TIO_MSG_DISCARDED_PACKETS:
		put_discarded(&j->b, m);
		break;
	default:
		return 0;
	}
	if (TIO_UNLIKELY(!j->b.p))
		return TIO_ERR_NOMEM;
	return j->b.len >= 65536 ? flush_out(j) : 0;
}

static int json_finish(tio_sink *s)
{
	json_sink *j = (json_sink *)s;
	int r = flush_out(j);
	if (r)
		return r;
	return fflush(s->out) ? tio_err_set(TIO_ERR_IO, "write error on output") : 0;
}

static void json_fini(tio_sink *s)
{
	json_sink *j = (json_sink *)s;
	tio_buf_free(&j->b);
	tio_buf_free(&j->pfx);
}

const tio_sink_ops tio_sink_json_ops = {
	.name = "json",
	.size = sizeof(json_sink),
	.consume = json_consume,
	.finish = json_finish,
	.fini = json_fini,
};
