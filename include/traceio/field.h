/*
 * traceio: decoded values (fields) and their classes.
 *
 * A message's values live in an array its stream reuses: a `tio_field`
 * pointer is borrowed from the message and valid until the next
 * tio_mux_next() (or tio_mux_free).  Nothing here allocates.  Field classes
 * belong to the trace and live as long as it.
 *
 * Getters check the kind: asking a string for an integer, an array for
 * element 10 of 3, a structure for a member it lacks... returns
 * TIO_ERR_USAGE with a message (tio_error_message) that names the field
 * class and what was asked; nothing is written to the output arguments.
 */
#ifndef TRACEIO_FIELD_H
#define TRACEIO_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traceio/msg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tio_val tio_field;	 /* a decoded value (opaque, borrowed) */
typedef struct tio_fc tio_field_class;	 /* its class (opaque, owned by the trace) */
typedef struct tio_event_class tio_event_class;

/* What a field class is.  The numbers are stable. */
enum tio_field_kind {
	TIO_FIELD_INT = 0,	/* fixed-length integer, 1..64 bits (wider: bytes, see tio_field_bytes) */
	TIO_FIELD_ENUM,		/* integer with labelled ranges */
	TIO_FIELD_BOOL,		/* boolean (CTF 2) */
	TIO_FIELD_BITMAP,	/* bit map with named flags (CTF 2) */
	TIO_FIELD_FLOAT,	/* IEEE 754 number (read as a double) */
	TIO_FIELD_VARINT,	/* variable-length (LEB128) integer (CTF 2) */
	TIO_FIELD_STRING,	/* null-terminated string */
	TIO_FIELD_STATIC_STRING,  /* static-length string (CTF 2) */
	TIO_FIELD_DYNAMIC_STRING, /* dynamic-length string (CTF 2) */
	TIO_FIELD_STATIC_BLOB,	/* static-length BLOB */
	TIO_FIELD_DYNAMIC_BLOB, /* dynamic-length BLOB */
	TIO_FIELD_STRUCT,	/* structure: named members */
	TIO_FIELD_ARRAY,	/* static-length array */
	TIO_FIELD_SEQUENCE,	/* dynamic-length array */
	TIO_FIELD_VARIANT,	/* one of several options, chosen by a selector */
	TIO_FIELD_OPTIONAL,	/* a value or nothing, by a selector */
};

/* The scopes of a message, in CTF order. */
enum tio_scope_id {
	TIO_SCOPE_PACKET_HEADER = 0,
	TIO_SCOPE_PACKET_CONTEXT,
	TIO_SCOPE_EVENT_HEADER,
	TIO_SCOPE_COMMON_CONTEXT,
	TIO_SCOPE_SPECIFIC_CONTEXT,
	TIO_SCOPE_EVENT_PAYLOAD,
	TIO_SCOPE_COUNT
};

/* ------------------------------------------------------------ from a message */

/*
 * The root value of a scope of an event (every scope) or of a packet
 * beginning (packet header and context), NULL when the message has none.
 * An event's packet scopes are those of its packet.
 */
const tio_field *tio_msg_scope(const tio_msg *m, int scope);

/*
 * Look a value up by path: "payload.hdr.len", "context.vtid",
 * "payload.arr[3]", "packet.context.cpu_id".  The first component may name
 * a scope: "packet.header", "packet.context", "header" (event header),
 * "common_context", "context" (specific context), "payload" (also
 * "event.header", "event.common_context", "event.context",
 * "event.fields", "fields"); without one the name is searched in the
 * payload, then the specific context, the common context, the event
 * header, the packet context (babeltrace's order).  Members whose name a
 * reader escaped (CTF 1.8 `_name`) are found by either name.  Returns 0
 * with *out set, or TIO_ERR_USAGE (no such field in this message, index out
 * of range, not a compound...).
 */
int tio_msg_lookup(const tio_msg *m, const char *path, const tio_field **out);

/*
 * A path resolved once for one event class, so that reading it from each of
 * millions of events is an index (when every value before it has a fixed
 * number of values) or a short walk by member/element position, with no
 * string comparison.  The contents are private.
 */
#define TIO_FIELD_REF_MAX_DEPTH 16
typedef struct tio_field_ref {
	const void *ec;	  /* private: the event class it was resolved for */
	const void *fc;	  /* private: the class of the value it designates */
	int32_t scope;	  /* private */
	int32_t flat;	  /* private: value index from the scope root, -1 when variable */
	uint32_t depth;	  /* private */
	uint32_t step[TIO_FIELD_REF_MAX_DEPTH]; /* private: child positions */
} tio_field_ref;

/* Resolve `path` (as tio_msg_lookup, but the search order needs no message) for `ec`. */
int tio_field_ref_resolve(const tio_event_class *ec, const char *path, tio_field_ref *ref);

/*
 * The value `ref` designates in event `m`, or NULL when m is not an event of
 * the class it was resolved for, or the value is absent in this event (an
 * element past a sequence's length, a variant option not chosen, an empty
 * optional).
 */
const tio_field *tio_msg_field(const tio_msg *m, const tio_field_ref *ref);

/* ------------------------------------------------------------ values */

const tio_field_class *tio_field_get_class(const tio_field *f);
int tio_field_kind(const tio_field *f);

/*
 * Integers (INT, ENUM, BITMAP, VARINT; BOOL as 0/1): the value as unsigned
 * (a negative signed value is refused) or signed (an unsigned value above
 * INT64_MAX is refused).  Integers wider than 64 bits: tio_field_bytes.
 */
int tio_field_uint(const tio_field *f, uint64_t *out);
int tio_field_int(const tio_field *f, int64_t *out);
int tio_field_double(const tio_field *f, double *out); /* FLOAT */
int tio_field_bool(const tio_field *f, bool *out);     /* BOOL */

/*
 * Text (STRING, STATIC_STRING, DYNAMIC_STRING, and arrays of 8-bit
 * characters that CTF 1.8 marks as text): a pointer into the trace (not
 * NUL-terminated in general) and its length in bytes, up to the first NUL
 * for UTF-8; UTF-16/32 strings are given as stored (code units in the
 * string class's byte order: tio_field_class_string_encoding).
 */
int tio_field_string(const tio_field *f, const char **p, size_t *len);

/*
 * Bytes: BLOBs, and integers wider than 64 bits (their bits as stored, in
 * the class's byte order).
 */
int tio_field_bytes(const tio_field *f, const uint8_t **p, size_t *len);

/*
 * ENUM / BITMAP labels that hold the value (enums: each mapping one of whose
 * ranges holds it; bit maps: each flag one of whose bits is set), in the
 * class's order: the i-th such label, NULL past the last.
 */
const char *tio_field_label(const tio_field *f, size_t i);

/* Compounds: number of members (STRUCT), elements (ARRAY, SEQUENCE), 1 or 0 (VARIANT, OPTIONAL). */
int tio_field_length(const tio_field *f, uint64_t *n);
int tio_field_element(const tio_field *f, uint64_t i, const tio_field **out); /* ARRAY, SEQUENCE */
int tio_field_member(const tio_field *f, uint64_t i, const tio_field **out);  /* STRUCT */
int tio_field_member_by_name(const tio_field *f, const char *name, const tio_field **out);
/* VARIANT: the chosen option's index, name (NULL when unnamed) and value. */
int tio_field_variant(const tio_field *f, uint32_t *index, const char **name, const tio_field **out);
/* OPTIONAL: *out = its value, or NULL when absent (still 0). */
int tio_field_optional(const tio_field *f, const tio_field **out);
/*
 * Walking a compound in order: the member or element of `parent` (STRUCT,
 * ARRAY, SEQUENCE; a VARIANT's or OPTIONAL's only value has none after it)
 * after `child`, one of its own members/elements (from tio_field_member,
 * tio_field_element or this function): *out = the next one, or NULL after
 * the last.  Reading all n values this way takes linear time;
 * tio_field_member/tio_field_element(i) walk i siblings each call.
 */
int tio_field_next_child(const tio_field *parent, const tio_field *child, const tio_field **out);

/* ------------------------------------------------------------ field classes */

int tio_field_class_kind(const tio_field_class *fc);
/* Alignment in bits (1 when none). */
uint32_t tio_field_class_alignment(const tio_field_class *fc);

/* Integers (INT, ENUM, BOOL, BITMAP): size in bits, signedness, display base, byte order. */
uint32_t tio_field_class_int_size(const tio_field_class *fc);
bool tio_field_class_int_signed(const tio_field_class *fc); /* also VARINT */
uint32_t tio_field_class_int_base(const tio_field_class *fc); /* 2, 8, 10, 16; also VARINT */
enum tio_field_byte_order { TIO_FIELD_LE = 0, TIO_FIELD_BE = 1 };
int tio_field_class_byte_order(const tio_field_class *fc); /* INT family, FLOAT, UTF-16/32 strings' code units; -1 otherwise */
/* The clock an integer is mapped to (index in the trace's clocks), -1 when none. */
int tio_field_class_int_clock(const tio_field_class *fc);

/*
 * Labels (ENUM and VARINT mappings, BITMAP flags): how many, the i-th one's
 * name and ranges (inclusive; signed classes: compare as int64_t; bit maps:
 * bit indexes).
 */
uint32_t tio_field_class_label_count(const tio_field_class *fc);
const char *tio_field_class_label(const tio_field_class *fc, uint32_t i);
uint32_t tio_field_class_label_range_count(const tio_field_class *fc, uint32_t i);
int tio_field_class_label_range(const tio_field_class *fc, uint32_t i, uint32_t k, uint64_t *lo, uint64_t *hi);

/* FLOAT: exponent and mantissa digits (the mantissa counts the implicit bit: 8/24, 11/53). */
uint32_t tio_field_class_float_exp_digits(const tio_field_class *fc);
uint32_t tio_field_class_float_mant_digits(const tio_field_class *fc);

/* Strings: encoding (TIO_FIELD_UTF8...), and static strings/BLOBs: length in bytes. */
enum tio_field_encoding { TIO_FIELD_ENC_NONE = 0, TIO_FIELD_UTF8, TIO_FIELD_UTF16, TIO_FIELD_UTF32 };
int tio_field_class_string_encoding(const tio_field_class *fc); /* also text arrays' element */
uint64_t tio_field_class_static_length(const tio_field_class *fc); /* ARRAY elements, STATIC_* bytes */
/* Dynamic lengths and selectors: where the length/selector is, as the metadata says it. */
const char *tio_field_class_length_path(const tio_field_class *fc);   /* SEQUENCE, DYNAMIC_* */
const char *tio_field_class_selector_path(const tio_field_class *fc); /* VARIANT, OPTIONAL */
const char *tio_field_class_media_type(const tio_field_class *fc);    /* BLOBs */
/* ARRAY, SEQUENCE: the element class; OPTIONAL: its value's class. */
const tio_field_class *tio_field_class_element(const tio_field_class *fc);
/* Arrays of 8-bit characters that CTF 1.8 marks as text (values are strings). */
bool tio_field_class_is_text(const tio_field_class *fc);

/* STRUCT members and VARIANT options: how many, their names (NULL: unnamed option) and classes. */
uint32_t tio_field_class_member_count(const tio_field_class *fc);
const char *tio_field_class_member_name(const tio_field_class *fc, uint32_t i);
const tio_field_class *tio_field_class_member_class(const tio_field_class *fc, uint32_t i);
/* VARIANT: option i's selector ranges (CTF 2; 0 for CTF 1.8's, chosen by enum label). */
uint32_t tio_field_class_option_range_count(const tio_field_class *fc, uint32_t i);
int tio_field_class_option_range(const tio_field_class *fc, uint32_t i, uint32_t k, uint64_t *lo, uint64_t *hi);

/*
 * The value (and its children) as JSON text, as `traceio print --style
 * json` writes it (docs/formats/json.md), appended at (*buf)[*len]: *buf is
 * a malloc'd buffer of *cap bytes (NULL and 0 to start; realloc'd as
 * needed), NUL-terminated after.  0, or TIO_ERR_NOMEM (the buffer is then
 * freed and *buf NULL).
 */
int tio_field_json(const tio_field *f, char **buf, size_t *len, size_t *cap);

#ifdef __cplusplus
}
#endif

#endif
