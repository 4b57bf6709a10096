/*
 * The new LTT trace format (seed 001): internals shared by the lenient XML
 * reader (lttnew-xml.c), the event type descriptions (lttnew-types.c), the
 * reader (lttnew-read.c) and the writer (lttnew-write.c).
 * docs/formats/ltt.md lists every choice the seed leaves open.
 */
#ifndef TIO_LTTNEW_H
#define TIO_LTTNEW_H

#include "ir/ir.h"

/* ---------------------------------------------------------------- lenient XML */

typedef struct lx_attr {
	char *name, *value;
} lx_attr;

typedef struct lx_node {
	char *name;
	lx_attr *attrs;
	uint32_t nattrs;
	struct lx_node **kids;
	uint32_t nkids;
	size_t kids_cap;
	char *text; /* character data directly inside, entities decoded, trimmed */
	size_t text_len, text_cap; /* runs are appended to text (grown by doubling) */
	uint32_t line;
} lx_node;

/*
 * Parse `len` bytes of the XML subset the seed uses: elements, attributes
 * quoted or not, comments, <?...?> and <!...> skipped, entities &lt; &gt;
 * &amp; &quot; &apos;.  Lenient as the seed's own examples need: an end tag
 * closes the nearest open element of that name (or the current one when
 * none has it); int, uint, float, string and typeref never have children;
 * a description holds text only (an element closes it, a second
 * <description> is taken for </description>).
 * Errors name "PATH:LINE: what".  *out is a synthetic root holding the
 * top-level elements.
 */
int lx_parse(const char *text, size_t len, const char *path, lx_node **out);
void lx_free(lx_node *n);
const char *lx_attr_get(const lx_node *n, const char *name);

/* ---------------------------------------------------------------- types */

enum lt_kind {
	LT_INT,
	LT_UINT,
	LT_FLOAT,
	LT_STRING,
	LT_ENUM,
	LT_ARRAY,
	LT_SEQUENCE,
	LT_STRUCT,
	LT_UNION,
	LT_TYPEREF,
};

typedef struct lt_type lt_type;

typedef struct lt_field {
	char *name;
	char *desc;
	lt_type *t;
} lt_field;

struct lt_type {
	int kind;
	char *size;	 /* as written: "4", "short", "long"...; array: the length */
	char *format;	 /* printf format attribute, may be NULL */
	char *ref;	 /* typeref: the name */
	const lt_type *target; /* typeref: resolved (not owned) */
	char **labels;	 /* enum */
	uint32_t nlabels;
	lt_field *fields; /* struct, union */
	uint32_t nfields;
	lt_type *elem;	 /* array, sequence */
	uint8_t height;	 /* 1 + the nesting below it once typerefs are followed, 0 until known (check_cycles) */
};

typedef struct lt_event {
	char *name, *desc;
	lt_type *t;
} lt_event;

typedef struct lt_named {
	char *name;
	lt_type *t;
} lt_named;

typedef struct lt_facility {
	char *name, *desc;
	lt_event *events;
	uint32_t nevents;
	lt_named *types;
	uint32_t ntypes;
	uint32_t checksum; /* CRC-32 of the canonical text (lt_facility_text) */
	struct lt_facility *builtin; /* owned: the builtin types its typerefs may point to */
} lt_facility;

/* Architecture: sizes of the isize words and byte order. */
typedef struct lt_arch {
	uint8_t long_size; /* 4 (LP32, ILP32) or 8 (LP64, ILP64) */
	uint8_t int_size;  /* "medium": 4 (2 for LP32) */
	bool be;
} lt_arch;

void lt_type_free(lt_type *t);
void lt_facility_free(lt_facility *f);

/* A <facility> element to a facility; resolves typerefs (builtin types too). */
int lt_facility_from_xml(const lx_node *n, const char *path, lt_facility **out);

/* The facility's canonical XML (what the writer writes, what the checksum covers). */
int lt_facility_text(const lt_facility *f, tio_buf *b);

/* The builtin facility: facility_load, block_start, block_end, time_heartbeat. */
int lt_builtin(lt_facility **out);

/* Size in bytes of an isize/fsize word, 0 when it is not one. */
uint32_t lt_size(const char *word, const lt_arch *a);

/*
 * The model's field class of a type (structs stay structs; a sequence
 * becomes a struct {length, elements}, a union a struct {tag, value}, marked
 * by attrs "ltt:sequence" / "ltt:union"; typerefs are expanded).
 */
int lt_type_fc(const lt_type *t, const lt_arch *a, const char *path, tio_fc **out);
/* The same, counting the classes made in *nodes (all the event classes of
 * a trace): more than LT_MAX_NODES in all is TIO_ERR_LIMIT. */
#define LT_MAX_NODES (1u << 18)
int lt_type_fc_count(const lt_type *t, const lt_arch *a, const char *path, uint64_t *nodes, tio_fc **out);

/* The inverse: a type from a model field class (TIO_ERR_UNSUPPORTED when none fits). */
int lt_type_from_fc(const tio_fc *fc, const char *path, lt_type **out);

/*
 * The forms a sequence or union takes in the model, the reader's own and
 * what a trip through CTF 1.8 or CTF 2 makes of them (docs/formats/ltt.md,
 * "Back from CTF"):
 *   LT_SHAPE_SEQ     struct {length: uint, elements: SEQUENCE or DSTRING
 *                    whose length is `length`} (marked "ltt:sequence", or
 *                    unmarked with exactly these names);
 *   LT_SHAPE_UNION   struct {tag: uint, value: VARIANT selected by `tag`,
 *                    option i for tag i} (marked "ltt:union", or unmarked
 *                    with exactly these names);
 *   LT_SHAPE_UNION_TAGGED  struct {tag: uint, value__tag: enum, value:
 *                    VARIANT selected by value__tag, option i for i}: the
 *                    union after CTF 1.8, whose writer adds `value__tag`;
 *                    written as a union whose tag is `tag` (which must
 *                    select the chosen option), value__tag dropped.
 * Anything else is LT_SHAPE_NONE.
 */
enum lt_shape { LT_SHAPE_NONE, LT_SHAPE_SEQ, LT_SHAPE_UNION, LT_SHAPE_UNION_TAGGED };
int lt_fc_shape(const tio_fc *fc);

/* ---------------------------------------------------------------- tracefiles */

/* Builtin event ids (base code 0) and the fixed sizes of the framing events. */
enum {
	LT_ID_FACILITY_LOAD = 0,
	LT_ID_BLOCK_START = 1,
	LT_ID_BLOCK_END = 2,
	LT_ID_HEARTBEAT = 3,
	LT_NBUILTIN = 4,
};
#define LT_EV_HDR 6u	    /* u16 event type id, u32 time delta */
#define LT_TIMESTAMP 16u    /* timestamp: u32 seconds, u32 nanoseconds, u64 cycle_count */
#define LT_BLOCK_TS 20u	    /* block_timestamp: timestamp, u32 block_id */
#define LT_FRAME (LT_EV_HDR + LT_BLOCK_TS) /* a block_start or block_end event */
#define LT_BLOCK_MIN (2 * LT_FRAME + 4u)     /* smallest block: start, end, trailer */
#define LT_BLOCK_MAX (1u << 30)

/*
 * Event types whose top-level struct has exactly these member names, in
 * this order, the last one being event_fields, carry the model's other
 * event scopes (the writer makes them for traces that have contexts).
 */
#define LT_WRAP_PKT "stream_packet_context"
#define LT_WRAP_COMMON "stream_event_context"
#define LT_WRAP_SPEC "event_context"
#define LT_WRAP_FIELDS "event_fields"

/* system.xml's arch_size word to type sizes; false when it is not one. */
bool lt_arch_parse(const char *word, lt_arch *a);

#endif
