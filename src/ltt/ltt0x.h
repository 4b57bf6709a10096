/*
 * LTTng 0.x ("LTT trace format" 2.3, 2.5, 2.6) internals shared by the
 * marker description side (ltt0x-marker.c) and the reader (ltt0x-read.c).
 * The format is the one of seed 000 as the LTTng 0.x kernel tracer wrote it
 * in 2008-2011: see docs/formats/ltt0x.md for every concrete choice.
 */
#ifndef TIO_LTT0X_H
#define TIO_LTT0X_H

#include "ir/ir.h"

/* Field types of a marker, as LTTV's marker.c names them. */
enum ltt0x_type {
	LTT0X_NONE = 0,
	LTT0X_SIGNED,
	LTT0X_UNSIGNED,
	LTT0X_POINTER,
	LTT0X_STRING,
};

typedef struct ltt0x_field {
	char *name;
	char *fmt;	   /* printf text LTTV prints integers with ("%lld", "0x%llX"), NULL for strings */
	uint8_t type;	   /* enum ltt0x_type */
	uint8_t size;	   /* bytes (integers) */
	bool net_order;	   /* 'n' attribute: big-endian whatever the trace byte order */
} ltt0x_field;

/* One marker (event description) of one channel. */
typedef struct ltt0x_marker {
	char *name;
	char *format;	/* from core_marker_format; NULL until then */
	uint16_t id;
	uint8_t int_size, long_size, pointer_size, size_t_size, alignment;
	bool has_id;	/* a core_marker_id event gave the id and sizes */
	ltt0x_field *fields;
	uint32_t nfields;
	uint8_t largest_align;
	char *bad;	/* why the format cannot be decoded (NULL when fine) */
	tio_event_class *ec;
} ltt0x_marker;

/*
 * Parse mk->format into mk->fields with LTTV's rules (field names are the
 * word before each conversion, "#" trace types override the C types, sizes
 * come from the marker's int/long/pointer/size_t sizes).  A format that
 * cannot be decoded sets mk->bad; only allocation failures return < 0.
 */
int ltt0x_marker_parse(ltt0x_marker *mk);
void ltt0x_marker_clear_fields(ltt0x_marker *mk);

/* The payload structure class of a parsed marker (NULL fc when no field). */
int ltt0x_marker_payload(const ltt0x_marker *mk, bool reverse, tio_fc **out);

/*
 * An index of the metadata's names and ids, so that reading N metadata
 * events is O(N) whatever they say (a linear search per event made a 4 MB
 * metadata file of distinct names minutes): open addressing on a hash,
 * values are indexes + 1 in the owner's array, 0 is a free slot.
 */
typedef struct ltt0x_ix {
	uint64_t *h;
	uint32_t *v;
	uint32_t cap, n;
} ltt0x_ix;

uint64_t ltt0x_ix_hash(const char *s, size_t len);
/* The index stored under `h` for which same(owner, index, key) holds, or UINT32_MAX. */
uint32_t ltt0x_ix_find(const ltt0x_ix *ix, uint64_t h, bool (*same)(const void *owner, uint32_t v, const void *key),
		       const void *owner, const void *key);
/* Add index `v` (not there yet) under `h`. */
int ltt0x_ix_add(ltt0x_ix *ix, uint64_t h, uint32_t v);
void ltt0x_ix_free(ltt0x_ix *ix);

/* Reader option ltt-tsc (tio_trace_set, dispatched by src/mux/source.c). */
int tio_ltt0x_set(tio_trace *t, const char *key, const char *value);
/* tio_msg_out_of_order() for LTTng 0.x messages (src/mux/msg-where.c); false for others. */
bool tio_ltt0x_msg_back(const tio_msg *m, int64_t *ns_back, uint64_t *cycles_back);

/* LTTV's ltt_align(): padding to put before an object of `size` at `drift`. */
static inline uint32_t ltt0x_align(uint64_t drift, uint32_t size, uint32_t alignment)
{
	if (!alignment || !size)
		return 0;
	uint32_t a = alignment < size ? alignment : size;
	if (a & (a - 1))
		return 0; /* not a power of two: LTTV's mask would be meaningless */
	return (uint32_t)((a - drift) & (a - 1));
}

#endif
