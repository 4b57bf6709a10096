/*
 * CTF decoding plans: the metadata's field classes compiled into flat
 * instruction arrays that ctf-decode.c runs (yactfr's idea: a table of
 * small procedures beats walking the class tree).  CTF 1.8.3 section 4
 * (types) and 5-6 (packets, events).
 */
#ifndef TIO_CTF_PLAN_H
#define TIO_CTF_PLAN_H

#include "ir/ir.h"

enum plan_op {
	OP_U8,	   /* byte-aligned 8-bit integer */
	OP_U16LE,  /* byte-aligned 16/32/64-bit integer, little-endian */
	OP_U32LE,
	OP_U64LE,
	OP_U16BE,
	OP_U32BE,
	OP_U64BE,
	OP_BITSLE, /* any other integer up to 64 bits */
	OP_BITSBE,
	OP_BIGINT, /* integer wider than 64 bits */
	OP_F32,	   /* byte-aligned binary32 / binary64 */
	OP_F64,
	OP_FLOAT,  /* other float sizes */
	OP_STRING,
	OP_TEXT,   /* array/sequence of 8-bit chars decoded as one string value */
	OP_STRUCT,
	OP_ARRAY,
	OP_SEQ,
	OP_VARIANT,
	OP_VARINT,  /* LEB128 (CTF 2 variable-length integer) */
	OP_SBYTES,  /* static-length string or BLOB: n bytes */
	OP_DBYTES,  /* dynamic-length string or BLOB: length from a slot */
	OP_OPTIONAL,
};

enum plan_flag {
	PF_SIGNED = 1,
	PF_CLOCK = 2,	  /* updates the stream's default clock */
	PF_SAVE = 4,	  /* value saved in a slot for later references */
	PF_ROLE = 8,	  /* carries a role the reader acts on */
	PF_BE = 16,
	PF_SEQ_TEXT = 32, /* OP_TEXT: length comes from a slot */
	PF_BOOLSEL = 64,  /* OP_OPTIONAL: the selector is a boolean */
	PF_BITREV = 128,  /* integers: CTF 2 reversed bit order (bits read, then reversed) */
};

/* A variant's options by selector value. */
typedef struct plan_vrange {
	uint64_t lo, hi;
	uint32_t opt; /* instruction index of the option */
	uint32_t ord; /* option number */
} plan_vrange;

typedef struct plan_ins {
	uint8_t op;
	uint8_t flags;
	uint8_t role;
	uint32_t size;	 /* bits (ints, floats) */
	uint32_t align;	 /* bits */
	int32_t slot;	 /* save slot (PF_SAVE) or the slot to read (SEQ, VARIANT, TEXT seq) */
	uint32_t next;	 /* index just past this instruction's subtree */
	uint32_t n;	 /* STRUCT: members; ARRAY/TEXT: static length; VARIANT: nranges */
	uint32_t parent; /* enclosing instruction, UINT32_MAX at the root */
	const char *name;/* member name (for error paths) */
	const tio_fc *fc;
	plan_vrange *vr; /* VARIANT: sorted selector ranges */
	uint64_t mask;	 /* OP_BITS*: (1 << size) - 1 */
	uint8_t unit;	 /* OP_STRING: code unit size in bytes (1, 2, 4) */
	uint32_t bf_unit;/* GNU/C bit-field unit in bits (start at the next unit rather than cross one) */
} plan_ins;

/* One compiled scope: instructions in pre-order, the root at index 0. */
typedef struct plan {
	plan_ins *ins;
	uint32_t n, cap;
	const char *scope; /* "packet.header", "event.fields"... */
} plan;

/*
 * Compile a scope.  `nslots` counts the save slots handed out so far in
 * the trace (shared by every plan of the trace).
 */
/*
 * `def_clock` is the stream class's default clock: only integers mapped to
 * it update the stream's clock (a stream may map fields to other clocks too).
 */
int plan_compile(plan *p, const tio_fc *fc, const char *scope, int32_t def_clock, uint32_t *nslots);
void plan_free(plan *p);

/* Give every field class that some reference targets a save slot. */
int plan_assign_slots(tio_trace_class *tc, uint32_t *nslots);

#endif
