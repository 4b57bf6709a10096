/*
 * Values as SQL values and as JSON text for the virtual tables: the
 * conventions of `traceio print --style json` (docs/formats/json.md), so
 * that json_extract() gives what that output holds.  Written into a
 * buffer each cursor reuses: nothing is allocated per event once it is big
 * enough.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Empty the buffer, keeping its memory. */
void jb_reset(jbuf *b)
{
	b->len = 0;
	b->oom = false;
}

/* Give the buffer's memory back. */
void jb_free(jbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* Make room for n more bytes (and a NUL); false when memory ran out. */
static bool jb_room(jbuf *b, size_t n)
{
	if (b->oom)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + n + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

/* Append n bytes. */
void jb_put(jbuf *b, const char *s, size_t n)
{
	if (!jb_room(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

/* Append one byte. */
void jb_putc(jbuf *b, char c)
{
	if (!jb_room(b, 1))
		return;
	b->p[b->len++] = c;
	b->p[b->len] = 0;
}

/* Append a NUL-terminated string. */
void jb_puts(jbuf *b, const char *s)
{
	jb_put(b, s, strlen(s));
}

/* Append an unsigned number in decimal (no printf: this runs per value). */
void jb_u64(jbuf *b, uint64_t u)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[sizeof(tmp) - 1 - n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	jb_put(b, tmp + sizeof(tmp) - n, (size_t)n);
}

/* Append a signed number in decimal. */
void jb_i64(jbuf *b, int64_t i)
{
	if (i < 0) {
		jb_putc(b, '-');
		jb_u64(b, (uint64_t)0 - (uint64_t)i);
	} else {
		jb_u64(b, (uint64_t)i);
	}
}

static const char hexd[] = "0123456789abcdef";

/* Append code point cp as UTF-8. */
static void jb_utf8(jbuf *b, uint32_t cp)
{
	char t[4];
	size_t n;
	if (cp < 0x80) {
		t[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		t[0] = (char)(0xC0 | cp >> 6);
		t[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		t[0] = (char)(0xE0 | cp >> 12);
		t[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		t[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		t[0] = (char)(0xF0 | cp >> 18);
		t[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		t[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		t[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	jb_put(b, t, n);
}

/*
 * The length of the valid UTF-8 sequence at s, or 0 when invalid with
 * *skip = its longest valid beginning (the maximal subpart that becomes one
 * U+FFFD, as Python's errors="replace").
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

/* Append the inside of a JSON string (escapes; bad UTF-8 as U+FFFD). */
static void jb_json_chars(jbuf *b, const char *str, size_t len)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t i = 0;
	while (i < len) {
		uint8_t c = s[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			size_t j = i + 1;
			while (j < len && s[j] >= 0x20 && s[j] < 0x80 && s[j] != '"' && s[j] != '\\')
				j++;
			jb_put(b, str + i, j - i);
			i = j;
			continue;
		}
		if (c < 0x80) {
			switch (c) {
			case '"': jb_puts(b, "\\\""); break;
			case '\\': jb_puts(b, "\\\\"); break;
			case '\n': jb_puts(b, "\\n"); break;
			case '\r': jb_puts(b, "\\r"); break;
			case '\t': jb_puts(b, "\\t"); break;
			case '\b': jb_puts(b, "\\b"); break;
			case '\f': jb_puts(b, "\\f"); break;
			default: {
				char t[6] = {'\\', 'u', '0', '0', hexd[c >> 4], hexd[c & 15]};
				jb_put(b, t, 6);
			}
			}
			i++;
			continue;
		}
		size_t skip, n = utf8_seq(s + i, len - i, &skip);
		if (n) {
			jb_put(b, str + i, n);
			i += n;
		} else {
			jb_utf8(b, 0xFFFD);
			i += skip;
		}
	}
}

/* Append a JSON string. */
void jb_json_str(jbuf *b, const char *s, size_t len)
{
	jb_putc(b, '"');
	jb_json_chars(b, s, len);
	jb_putc(b, '"');
}

/* Append a UTF-16/32 string as stored (code units in the class's byte order) as UTF-8 JSON text. */
static void jb_json_wide(jbuf *b, const uint8_t *q, size_t len, unsigned unit, bool be, bool quotes)
{
	if (quotes)
		jb_putc(b, '"');
	for (size_t k = 0; k + unit <= len; k += unit) {
		uint32_t cu = 0;
		for (unsigned i = 0; i < unit; i++)
			cu |= (uint32_t)q[k + (be ? i : unit - 1 - i)] << (8 * (unit - 1 - i));
		if (!cu)
			break;
		if (unit == 2 && cu >= 0xD800 && cu < 0xE000) {
			uint32_t lo = k + 4 <= len ? (be ? (uint32_t)q[k + 2] << 8 | q[k + 3] : (uint32_t)q[k + 3] << 8 | q[k + 2]) : 0;
			if (cu < 0xDC00 && lo >= 0xDC00 && lo < 0xE000) {
				cu = 0x10000 + ((cu - 0xD800) << 10) + (lo - 0xDC00);
				k += 2;
			} else {
				cu = 0xFFFD;
			}
		}
		if (cu > 0x10FFFF || (cu >= 0xD800 && cu < 0xE000))
			cu = 0xFFFD;
		if (cu < 0x80) {
			char c = (char)cu;
			if (quotes)
				jb_json_chars(b, &c, 1);
			else
				jb_putc(b, c);
		} else {
			jb_utf8(b, cu);
		}
	}
	if (quotes)
		jb_putc(b, '"');
}

/* The n bits at bit `at` of an integer stored at p, in its byte order. */
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

/* Append an integer wider than 64 bits as 0x and hex digits, no leading zeros. */
void jb_big_hex(jbuf *b, const tio_field *f)
{
	const tio_field_class *fc = tio_field_get_class(f);
	uint32_t size = tio_field_class_int_size(fc);
	bool be = tio_field_class_byte_order(fc) == TIO_FIELD_BE;
	const uint8_t *p;
	size_t len;
	jb_puts(b, "0x");
	if (tio_field_bytes(f, &p, &len) == 0 && len * 8 >= size) {
		uint32_t top = size % 4 ? size % 4 : 4;
		bool started = false;
		for (uint32_t done = 0; done < size;) {
			uint32_t n = done ? 4 : top;
			unsigned d = be ? bits(p, done, n, true) : bits(p, size - done - n, n, false);
			done += n;
			if (!d && !started && done < size)
				continue;
			started = true;
			jb_putc(b, hexd[d & 15]);
		}
	}
}

/* The value as JSON text, as print --style json writes it (tio_field_json). */
void jb_json_value(jbuf *b, const tio_field *f, int depth)
{
	(void)depth;
	if (b->oom)
		return;
	if (tio_field_json(f, &b->p, &b->len, &b->cap))
		b->oom = true;
}

/*
 * One value as the SQL value of a column: integers as INTEGER (an unsigned
 * value above INT64_MAX as REAL, wider than 64 bits as "0x..." TEXT),
 * floats REAL, booleans 0/1, strings TEXT (UTF-16/32 converted), BLOBs,
 * and compounds (arrays, variants, optionals, enums' labels aside) as JSON.
 */
void tio_sqlite_result_field(sqlite3_context *ctx, const tio_field *f, jbuf *scratch)
{
	const tio_field_class *fc = tio_field_get_class(f);
	int kind = tio_field_kind(f);
	switch (kind) {
	case TIO_FIELD_INT:
	case TIO_FIELD_ENUM:
	case TIO_FIELD_BITMAP:
	case TIO_FIELD_VARINT:
	case TIO_FIELD_BOOL: {
		if (kind != TIO_FIELD_VARINT && kind != TIO_FIELD_BOOL && tio_field_class_int_size(fc) > 64) {
			jb_reset(scratch);
			jb_big_hex(scratch, f);
			sqlite3_result_text(ctx, scratch->p ? scratch->p : "", (int)scratch->len, SQLITE_TRANSIENT);
			return;
		}
		int64_t i;
		uint64_t u;
		if (tio_field_int(f, &i) == 0) {
			sqlite3_result_int64(ctx, i);
		} else if (tio_field_uint(f, &u) == 0) {
			sqlite3_result_double(ctx, (double)u);
		} else {
			tio_error_clear();
			sqlite3_result_null(ctx);
		}
		return;
	}
	case TIO_FIELD_FLOAT: {
		double d = 0;
		tio_field_double(f, &d);
		sqlite3_result_double(ctx, d);
		return;
	}
	case TIO_FIELD_STRING:
	case TIO_FIELD_STATIC_STRING:
	case TIO_FIELD_DYNAMIC_STRING:
	case TIO_FIELD_ARRAY:
	case TIO_FIELD_SEQUENCE: {
		const char *s = "";
		size_t len = 0;
		int enc = tio_field_class_string_encoding(fc);
		if (kind == TIO_FIELD_ARRAY || kind == TIO_FIELD_SEQUENCE) {
			if (!tio_field_class_is_text(fc) || tio_field_string(f, &s, &len)) {
				tio_error_clear();
				break; /* JSON below */
			}
		} else {
			tio_field_string(f, &s, &len);
		}
		if (enc == TIO_FIELD_UTF16 || enc == TIO_FIELD_UTF32) {
			jb_reset(scratch);
			jb_json_wide(scratch, (const uint8_t *)s, len, enc == TIO_FIELD_UTF16 ? 2 : 4,
				     tio_field_class_byte_order(fc) == TIO_FIELD_BE, false);
			sqlite3_result_text(ctx, scratch->p ? scratch->p : "", (int)scratch->len, SQLITE_TRANSIENT);
			return;
		}
		/* text up to the first NUL, as the JSON output and babeltrace show it */
		const char *nul = memchr(s, 0, len);
		if (nul)
			len = (size_t)(nul - s);
		sqlite3_result_text(ctx, s, (int)len, SQLITE_TRANSIENT);
		return;
	}
	case TIO_FIELD_STATIC_BLOB:
	case TIO_FIELD_DYNAMIC_BLOB: {
		const uint8_t *p = NULL;
		size_t len = 0;
		tio_field_bytes(f, &p, &len);
		sqlite3_result_blob(ctx, p ? (const void *)p : "", (int)len, SQLITE_TRANSIENT);
		return;
	}
	default:
		break;
	}
	jb_reset(scratch);
	jb_json_value(scratch, f, 0);
	if (scratch->oom) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	sqlite3_result_text(ctx, scratch->p ? scratch->p : "", (int)scratch->len, SQLITE_TRANSIENT);
	sqlite3_result_subtype(ctx, 'J'); /* SQLite's JSON subtype: json_object() embeds it as JSON */
}
