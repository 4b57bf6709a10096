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
	PF_SEQ_TEXT = 32, /* OP_TEXT (and LK_TEXT, LK_ARR ops): length comes from a slot */
	PF_BOOLSEL = 64,  /* OP_OPTIONAL: the selector is a boolean */
	PF_BITREV = 128,  /* integers, floats: CTF 2 reversed bit order (bits read, then reversed) */
};

/* A variant's options by selector value. */
typedef struct plan_vrange {
	uint64_t lo, hi;
	uint32_t opt; /* instruction index of the option */
	uint32_t ord; /* option number */
	uint32_t lin; /* the option's first op in plan.lin (when made) */
} plan_vrange;

/* 64 bytes, the fields the decoder reads for every value first. */
typedef struct plan_ins {
	uint8_t op;
	uint8_t flags;
	uint8_t role;
	uint8_t sh;	 /* 64 - size (integers up to 64 bits) */
	uint8_t unit;	 /* OP_STRING: code unit size in bytes (1, 2, 4) */
	uint32_t size;	 /* bits (ints, floats) */
	uint32_t align;	 /* bits */
	uint32_t next;	 /* index just past this instruction's subtree */
	/*
	 * A structure member that starts a run of byte-aligned 8/16/32/64-bit
	 * integers with nothing to save or act on, each after the first aligned
	 * to at most a byte: once the first is aligned, the run's layout is
	 * fixed, so it is decoded with one bound check (run_n members, run_bits
	 * bits in all; 0 when the member is not such an integer).
	 */
	uint32_t run_n, run_bits;
	uint32_t bf_unit;/* GNU/C bit-field unit in bits (start at the next unit rather than cross one) */
	const tio_fc *fc;
	int32_t slot;	 /* save slot (PF_SAVE) or the slot to read (SEQ, VARIANT, TEXT seq) */
	uint32_t n;	 /* STRUCT: members; ARRAY/TEXT: static length; VARIANT: nranges */
	uint32_t parent; /* enclosing instruction, UINT32_MAX at the root */
	const char *name;/* member name (for error paths) */
	plan_vrange *vr; /* VARIANT: sorted selector ranges */
} plan_ins;

/*
 * The same scope as a flat program run by one loop, without recursion:
 * structures become begin/end markers, runs of byte-aligned integers,
 * other integers, byte-aligned floats and UTF-8 strings are decoded in
 * line, and any other subtree (variant, array, sequence, optional, BLOB,
 * bit-field...) is a call to the tree interpreter.
 */
enum lin_kind {
	LK_SB,	  /* structure begins: its value, then its members */
	LK_SE,	  /* structure ends */
	LK_RUN,	  /* n run members follow (LK_RUNMEM), bits in all */
	LK_RUNMEM,
	LK_INT,	  /* one integer of any kind (run_int) */
	LK_F32,
	LK_F64,
	LK_STR,	  /* NUL-terminated UTF-8 string */
	LK_CALL,  /* the subtree at `ins`, by the tree interpreter */
	LK_END,
	LK_VAR,	  /* variant: its value, then a jump to the chosen option's ops (lin_opt[aux + ord]) */
	LK_VEND,  /* an option's ops end: the variant ends, jump to op n */
	LK_ARR,	  /* array or sequence of packed byte-aligned integers (element: op + 1) */
	LK_TEXT,  /* array or sequence of 8-bit characters as one string value (OP_TEXT) */
	LK_SE_END, /* LK_SE then LK_END (the scope's root structure ends) */
	/* byte-aligned 8/16/32/64-bit integers that are saved, have a role or
	   set the clock (event ids, timestamps, lengths), read in line; LK_INT
	   is left for the others (bit-fields, reversed bits...) */
	LK_FINT,     /* any of those effects (int_effects) */
	LK_FINT_CLK, /* sets the clock only */
	LK_FINT_SAVE, /* is saved only (a length, a selector) */
	LK_FINT_SR,  /* is saved and has a role (LTTng's event id) */
	LK_SBF,	     /* structure of a fixed number of values (aux, itself included):
			its end is known at its beginning, and no LK_SE follows */
	LK_SB0,	     /* empty structure: its value (aligned, not past the content's end) */
	LK_VEND_SE_END, /* LK_VEND to an LK_SE_END: the variant and the scope's root structure end */
};

typedef struct lin_op {
	uint8_t kind;
	uint8_t flags; /* PF_* */
	uint8_t sh;    /* 64 - size */
	uint32_t size; /* bits; LK_RUN: bits of the whole run */
	uint32_t amask; /* alignment in bits - 1: the position is rounded up with it (0: none) */
	uint32_t ins;  /* the plan instruction */
	uint32_t n;    /* LK_SB: members; LK_RUN: run members; LK_CALL: values still to come in line;
			  LK_VEND: the op after the variant; LK_ARR: static length;
			  LK_FINT_SAVE, LK_FINT_SR: the save slot; LK_VAR: the selector's slot */
	uint32_t aux;  /* LK_VAR: first of its options' op indexes in plan.lin_opt;
			  LK_SBF: its values; LK_ARR with PF_SEQ_TEXT: the length's slot;
			  LK_FINT_CLK, LK_FINT_SR: the role (an event's time has PF_ROLE
			  cleared: nothing reads it) */
	const tio_fc *fc;
} lin_op;

/* One compiled scope: instructions in pre-order, the root at index 0. */
typedef struct plan {
	plan_ins *ins;
	uint32_t n, cap;
	const char *scope; /* "packet.header", "event.fields"... */
	lin_op *lin;	   /* the flat program, NULL when not made (then ins is run) */
	uint32_t nlin;
	uint32_t lin_vals; /* values the in-line ops make (calls not counted; every option counted) */
	uint32_t *lin_opt; /* LK_VAR: op index of each option's first op, by option number */
	uint32_t nlin_opt;
	int32_t def_clock; /* the stream class's default clock (integers mapped to it update it) */
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
