/*
 * CTF 1.8 and CTF 2 writer internals (docs/formats/ctf-writer.md,
 * docs/formats/ctf2.md "Writer").
 *
 * tsdl-write.c turns the model's field classes into TSDL text and, in the
 * same pass, into a write plan: a flat pre-order array of nodes that
 * ctf-writer.c walks beside the decoded tio_val tree to serialize a value.
 * The plan records what the text declared that the model does not have
 * (a length member before a dynamic BLOB or a sequence whose length field
 * cannot be named, a tag before a variant whose selector is no enum), so
 * that text and data always agree.
 */
#ifndef TIO_CTF_WRITE_H
#define TIO_CTF_WRITE_H

#include "ir/ir.h"

enum wop {
	W_INT = 0,  /* integer, enum, bool, bit map: `size` bits */
	W_VARINT,   /* LEB128 integer: written as 64 bits */
	W_FLOAT,    /* `size` = exp_dig + mant_dig bits */
	W_STRING,   /* null-terminated (STRING, DSTRING) */
	W_SBYTES,   /* `n` bytes (SSTRING, SBLOB, text arrays) */
	W_DBYTES,   /* v.s.len bytes (DBLOB) */
	W_STRUCT,
	W_ARRAY,    /* `n` elements (child: the element) */
	W_SEQ,      /* v->n elements */
	W_VARIANT,  /* children: the options */
	/* CTF 2 only (ctf2-write.c) */
	W_LEB128,   /* variable-length integer: LEB128 (signed: fc->vi.is_signed) */
	W_BIGINT,   /* integer wider than 64 bits: `n` bytes from v.big */
	W_OPTIONAL, /* child written when the value has one (v->n == 1) */
};

/* A value to write before this member, declared in the text as its own member. */
enum wsynth {
	SYN_NONE = 0,
	SYN_LEN,   /* uint32 length: sequence elements or BLOB bytes */
	SYN_TAG,   /* uint32 enum tag: the chosen variant option's index */
	SYN_ON,    /* uint32 optional selector: 1 when the optional has a value (CTF 2) */
};

typedef struct wnode {
	const tio_fc *fc;
	uint8_t op;	/* enum wop */
	uint8_t synth;	/* enum wsynth */
	uint8_t be;	/* byte order of INT/FLOAT (1 = big endian) */
	uint8_t text;	/* W_ARRAY/W_SEQ of 8-bit text units: bytes may be copied at once */
	uint8_t rev;	/* INT/FLOAT: CTF 2 bit order opposite to the byte order's (bits reversed) */
	uint32_t align; /* bits */
	uint32_t size;	/* INT/FLOAT: bits */
	uint64_t n;	/* W_SBYTES/W_BIGINT bytes, W_ARRAY length, W_STRING code unit
			   bytes (0 or 1: UTF-8, bytes up to the first NUL; 2, 4: UTF-16/32) */
	uint32_t nchild;
	uint32_t next; /* index of the node after this subtree */
} wnode;

typedef struct wplan {
	wnode *nodes;
	size_t n, cap;
} wplan;

/* Where a field was declared, for sequence lengths and variant tags. */
typedef struct wpath {
	const tio_fc *fc;
	char *path; /* absolute TSDL path with written names */
} wpath;

/*
 * The state of one metadata text being written: the text, the clock names
 * as written, the fields that can be referred to so far.
 */
typedef struct tsdlw {
	tio_buf *out;
	const tio_trace_class *tc;
	char **clock_names; /* written clock names (identifiers) */
	bool ns_clocks;	    /* clocks are written as 1 GHz ns-from-origin clocks */
	bool map_clocks;    /* keep `map = clock.X.value` on fields */
	wpath *paths;
	size_t npaths, cap;
	const char *scope; /* "event.fields" while writing the payload... */
	const char *where; /* for errors: "event 'x' payload" */
} tsdlw;

/*
 * Declare `fc` as a member named `name` (as the model has it: written with
 * one more leading '_' so that CTF 1 readers read it back unchanged) at
 * indentation `ind`, appending its nodes to `plan`.  `prefix` is the
 * absolute path of the enclosing structure ("" inside arrays and variants:
 * not referable).  `siblings` are the members declared before it in the
 * same structure (for relative length/tag paths).
 */
int tsdlw_member(tsdlw *w, wplan *plan, const tio_fc *fc, const char *name, int ind,
		 const char *prefix, const tio_member *siblings, uint32_t nsiblings);

/* Declare a scope root `NAME := struct {...};` (fc a struct). */
int tsdlw_scope(tsdlw *w, wplan *plan, const char *decl, const tio_fc *fc, int ind,
		const char *abs_prefix);

/* Forget the referable fields registered after the first `n`. */
void tsdlw_paths_truncate(tsdlw *w, size_t n);
void tsdlw_free(tsdlw *w);

/* The name as written: '_' + the name with characters other than [A-Za-z0-9_] as '_'. */
int tsdlw_name(tio_buf *b, const char *name);
/* A TSDL string literal (quotes included). */
int tsdlw_string(tio_buf *b, const char *s);

void wplan_free(wplan *p);
/* Append a node for `fc` (align = fc->align) to the plan; *idx = its index. */
int wplan_push(wplan *p, const tio_fc *fc, uint8_t op, uint32_t *idx);

/*
 * CTF 2 metadata (ctf2-write.c): the JSON text sequence, one fragment at a
 * time, appended to `out`, with the same write plans as the TSDL side and
 * the same fixed header/context layout as ctf-writer.c's packets:
 *   packet header: magic u32, uuid (16 bytes, when the trace has one),
 *     stream_id (`sid_bits`), stream_instance_id u64;
 *   packet context: [timestamp_begin, timestamp_end u64 when timed],
 *     content_size, packet_size, packet_seq_num, events_discarded u64,
 *     then the members `extra_member` of the input's packet context;
 *   event header: id (`id_bits`), [timestamp u64 when timed], then the
 *     members `hx` of the input's event header (CTF 2 only: those without
 *     a role inside, which other fields may name as length or selector).
 * Every fixed field is byte-aligned in the trace's byte order.
 */
typedef struct ctf2w ctf2w;
/* Members of an input scope written after the fixed fields: their indexes, plan, first nodes. */
typedef struct ctf2w_extras {
	const uint32_t *member;
	uint32_t n;
	wplan *plan;
	uint32_t *node;
} ctf2w_extras;
/* Preamble, trace class and clock classes.  `ns_clocks`: clocks as 1 GHz ns-from-origin clocks. */
int ctf2w_begin(ctf2w **out, tio_buf *text, const tio_trace_class *tc, bool ns_clocks, unsigned sid_bits);
int ctf2w_stream_class(ctf2w *w, const tio_stream_class *sc, unsigned id_bits, bool timed,
		       const uint32_t *extra_member, uint32_t nextras, wplan *extras, uint32_t *extra_node,
		       const ctf2w_extras *hx, wplan *common);
int ctf2w_event_class(ctf2w *w, const tio_event_class *ec, wplan *spec, wplan *payload);
void ctf2w_free(ctf2w *w);

/* Bit packing, CTF style (the inverse of tio_bits_le/tio_bits_be). */
void tio_put_bits_le(uint8_t *p, uint64_t at, unsigned len, uint64_t v);
void tio_put_bits_be(uint8_t *p, uint64_t at, unsigned len, uint64_t v);

/* IEEE 754 encoding of `d` with exp_dig/mant_dig (mant_dig includes the implicit bit). */
uint64_t tio_float_bits(double d, unsigned exp_dig, unsigned mant_dig);

#endif
