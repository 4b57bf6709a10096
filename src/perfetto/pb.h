/*
 * A small protobuf encoder for the Perfetto writer (docs/formats/perfetto.md,
 * "Encoder"): varints, fixed-width numbers and length-delimited fields
 * appended to a growing byte buffer.  A nested message is opened with
 * pb_begin() (its tag and 5 bytes kept for its length) and closed with
 * pb_end(), which writes the length as the shortest varint and moves the
 * message's bytes back over the unused length bytes: no tree of messages is
 * built, and a message is written once, in place.
 *
 * Growing the buffer is the only allocation; a writer reuses its buffers,
 * so nothing is allocated per event once they have their size.
 */
#ifndef TIO_PERFETTO_PB_H
#define TIO_PERFETTO_PB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

#define PB_DEPTH 16

typedef struct pb {
	uint8_t *p;
	size_t len, cap;
	size_t open[PB_DEPTH]; /* offsets of the open messages' length bytes */
	int depth;
	int err; /* TIO_ERR_NOMEM after a failed growth: the buffer is then unusable */
} pb;

/* Make room for `n` more bytes; 0, or TIO_ERR_NOMEM (kept in b->err). */
static inline int pb_room(pb *b, size_t n)
{
	if (TIO_LIKELY(b->len + n <= b->cap))
		return 0;
	if (b->err)
		return b->err;
	size_t nc = b->cap ? b->cap : 4096;
	while (nc < b->len + n)
		nc *= 2;
	uint8_t *np = realloc(b->p, nc);
	if (!np)
		return b->err = tio_err_oom();
	b->p = np;
	b->cap = nc;
	return 0;
}

/* Release the buffer's memory. */
static inline void pb_free(pb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* The number of bytes of `v` as a varint (1 to 10). */
static inline unsigned pb_varint_size(uint64_t v)
{
	/* 7 bits a byte: (bits + 6) / 7, bits of v | 1 so that 0 takes one byte */
	unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);
	return (bits * 9 + 64) / 64;
}

/* Write `v` as a varint at `q` (room for 10 bytes); returns the bytes written. */
static inline unsigned pb_varint_at(uint8_t *q, uint64_t v)
{
	if (TIO_LIKELY(v < 0x80)) { /* the common small values: one byte, no loop */
		q[0] = (uint8_t)v;
		return 1;
	}
	unsigned n = 0;
	while (v >= 0x80) {
		q[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	q[n++] = (uint8_t)v;
	return n;
}

/* Append a raw varint (a tag or a value). */
static inline void pb_varint(pb *b, uint64_t v)
{
	if (pb_room(b, 10))
		return;
	b->len += pb_varint_at(b->p + b->len, v);
}

/* Field `f` with wire type varint: uint32/64, int32/64 (two's complement), bool, enum. */
static inline void pb_uint(pb *b, uint32_t f, uint64_t v)
{
	if (pb_room(b, 15))
		return;
	b->len += pb_varint_at(b->p + b->len, (uint64_t)f << 3);
	b->len += pb_varint_at(b->p + b->len, v);
}

/* An int32/int64 field: negative values take ten bytes, as protobuf says. */
static inline void pb_int(pb *b, uint32_t f, int64_t v) { pb_uint(b, f, (uint64_t)v); }

/* A double field (wire type 1, little-endian IEEE 754). */
static inline void pb_double(pb *b, uint32_t f, double d)
{
	if (pb_room(b, 13))
		return;
	b->len += pb_varint_at(b->p + b->len, (uint64_t)f << 3 | 1);
	memcpy(b->p + b->len, &d, 8); /* the hosts traceio builds on are little-endian */
	b->len += 8;
}

/* A string or bytes field of `n` bytes. */
static inline void pb_bytes(pb *b, uint32_t f, const void *s, size_t n)
{
	if (pb_room(b, n + 15))
		return;
	b->len += pb_varint_at(b->p + b->len, (uint64_t)f << 3 | 2);
	b->len += pb_varint_at(b->p + b->len, n);
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
}

/* A NUL-terminated string field. */
static inline void pb_str(pb *b, uint32_t f, const char *s) { pb_bytes(b, f, s, strlen(s)); }

/* Open the nested message field `f`; close it with pb_end(). */
static inline void pb_begin(pb *b, uint32_t f)
{
	if (pb_room(b, 15) || b->depth >= PB_DEPTH) {
		if (!b->err)
			b->err = tio_err_set(TIO_ERR_LIMIT, "perfetto: messages nested too deep");
		return;
	}
	b->len += pb_varint_at(b->p + b->len, (uint64_t)f << 3 | 2);
	b->open[b->depth++] = b->len;
	b->len += 5;
}

/* Close the innermost open message: its length as the shortest varint. */
static inline void pb_end(pb *b)
{
	if (b->err || !b->depth)
		return;
	size_t at = b->open[--b->depth];
	size_t n = b->len - at - 5;
	unsigned k = pb_varint_at(b->p + at, n);
	if (k < 5) {
		memmove(b->p + at + k, b->p + at + 5, n);
		b->len -= 5 - k;
	}
}

#endif
