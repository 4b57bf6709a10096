/*
 * The common trace model: what every reader produces and every writer and
 * sink consumes.  CTF 1.8, CTF 2, trace.dat and both LTT formats map onto
 * these types without loss (see docs/ARCHITECTURE.md, "The model").
 *
 * Two halves:
 *   - classes (tio_fc, tio_event_class, tio_stream_class, tio_clock,
 *     tio_trace_class): built once when a trace is opened, immutable after;
 *   - instances (tio_val trees, tio_msg): decoded into buffers that each
 *     stream reuses, so decoding never allocates per event.
 *
 * Formats include this header; they never include each other.
 */
#ifndef TIO_IR_H
#define TIO_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

/* ---------------------------------------------------------------- field classes */

typedef enum tio_fc_kind {
	TIO_FC_INT,	 /* fixed-length integer (1..64 bits, or wider: see tio_val.big) */
	TIO_FC_ENUM,	 /* integer with mappings (CTF 1 enum) */
	TIO_FC_BOOL,	 /* CTF 2 fixed-length boolean */
	TIO_FC_BITMAP,	 /* CTF 2 fixed-length bit array with flag mappings */
	TIO_FC_FLOAT,	 /* IEEE 754 binary of any exponent/mantissa size */
	TIO_FC_VARINT,	 /* CTF 2 variable-length (LEB128) integer */
	TIO_FC_STRING,	 /* null-terminated string */
	TIO_FC_SSTRING,	 /* static-length string (CTF 2) */
	TIO_FC_DSTRING,	 /* dynamic-length string (CTF 2) */
	TIO_FC_SBLOB,	 /* static-length BLOB */
	TIO_FC_DBLOB,	 /* dynamic-length BLOB */
	TIO_FC_STRUCT,	 /* structure */
	TIO_FC_ARRAY,	 /* static-length array */
	TIO_FC_SEQUENCE, /* dynamic-length array */
	TIO_FC_VARIANT,	 /* variant with a selector */
	TIO_FC_OPTIONAL, /* optional with a boolean or integer selector */
} tio_fc_kind;

enum tio_byte_order { TIO_LE = 0, TIO_BE = 1 };

enum tio_encoding { TIO_ENC_NONE = 0, TIO_ENC_UTF8, TIO_ENC_UTF16, TIO_ENC_UTF32 };

/*
 * Roles: what a field means to the reader beyond its value (CTF 2 roles,
 * CTF 1 well-known field names).  A reader sets them; the decoder acts on
 * them; writers use them to rebuild headers.
 */
enum tio_role {
	TIO_ROLE_NONE = 0,
	TIO_ROLE_MAGIC,
	TIO_ROLE_UUID,
	TIO_ROLE_STREAM_CLASS_ID,
	TIO_ROLE_STREAM_ID,
	TIO_ROLE_PACKET_SIZE,	   /* total size, bits */
	TIO_ROLE_CONTENT_SIZE,	   /* content size, bits */
	TIO_ROLE_BEGIN_TS,	   /* packet beginning default clock timestamp */
	TIO_ROLE_END_TS,	   /* packet end default clock timestamp */
	TIO_ROLE_DISCARDED,	   /* discarded event record counter snapshot */
	TIO_ROLE_SEQ_NUM,	   /* packet sequence number */
	TIO_ROLE_EVENT_CLASS_ID,   /* event record class id */
	TIO_ROLE_EVENT_TS,	   /* default clock timestamp of the event */
	TIO_ROLE_METADATA_UUID,
};

typedef struct tio_fc tio_fc;

/* One range of an enumeration / variant option / integer mapping. */
typedef struct tio_range {
	int64_t lo, hi; /* inclusive; compared as unsigned when the selector is unsigned */
} tio_range;

/* A labelled set of ranges: enum mappings, bit map flags, variant option ranges. */
typedef struct tio_mapping {
	char *label;
	tio_range *ranges;
	uint32_t nranges;
} tio_mapping;

typedef struct tio_member {
	char *name;
	tio_fc *fc;
} tio_member;

/*
 * Where a dynamic-length array, dynamic string/BLOB, variant or optional
 * finds its length/selector.  Readers fill `path` (text, for messages) and
 * `target` (the resolved field class).  tio_plan_compile() assigns each
 * target a save slot so the decoder can look its last value up in O(1).
 */
typedef struct tio_ref {
	char *path;	      /* as written in the metadata, e.g. "event.fields._len" */
	const tio_fc *target; /* resolved length/selector field class */
	/*
	 * Other field classes the same path designates when it goes through a
	 * variant whose options each hold a field of that name (CTF 2 field
	 * locations, yactfr's CTF 1 paths): the value is that of whichever of
	 * `target` and `alts` was decoded last (they share one save slot).
	 * NULL/0 for a single target.  The array is owned by the reference
	 * (tio_fc_free/tio_fc_copy), the classes by the tree.
	 */
	const tio_fc **alts;
	uint32_t nalts;
} tio_ref;

struct tio_fc {
	tio_fc_kind kind;
	uint32_t align;	     /* in bits, >= 1 */
	uint32_t role;	     /* enum tio_role */
	int32_t save_slot;   /* >= 0 when another field refers to this one (set by plan compile) */
	void *user;	     /* free for the format that built it (e.g. CTF 2 JSON node) */
	char *attrs;	     /* opaque extra attributes text kept for lossless writing (may be NULL) */
	union {
		struct { /* INT, ENUM, BOOL, BITMAP */
			uint32_t size; /* bits; > 64 allowed (value in tio_val.v.big) */
			uint8_t is_signed;
			uint8_t byte_order; /* enum tio_byte_order */
			uint8_t base;	    /* display base: 2, 8, 10, 16 */
			uint8_t encoding;   /* enum tio_encoding (char arrays print as text) */
			uint8_t bit_rev;    /* CTF 2 bit order opposite to the byte order's own
					       (LE + last-to-first, BE + first-to-last): 0 normally */
			int32_t clock;	    /* index in trace class clocks, -1 if none */
			uint32_t bf_unit;   /* CTF 1 GNU/C bit-field (4.1.6): the unit size in bits; a
					       field that would cross a unit boundary starts at the
					       next unit; 0 for ordinary integers */
			tio_mapping *mappings;
			uint32_t nmappings;
		} i;
		struct { /* FLOAT */
			uint32_t exp_dig, mant_dig; /* CTF 1 meaning: mant_dig includes the implicit bit */
			uint8_t byte_order;
			uint8_t bit_rev;    /* CTF 2 bit order opposite to the byte order's own (as i.bit_rev) */
		} f;
		struct { /* VARINT */
			uint8_t is_signed;
			uint8_t base;
			tio_mapping *mappings;
			uint32_t nmappings;
		} vi;
		struct { /* STRING, SSTRING, DSTRING, SBLOB, DBLOB */
			uint8_t encoding;
			uint8_t byte_order; /* of UTF-16/UTF-32 code units (enum tio_byte_order) */
			uint64_t length; /* static length in bytes (SSTRING/SBLOB) */
			tio_ref len;	 /* DSTRING/DBLOB */
			char *media_type;
		} s;
		struct { /* STRUCT */
			tio_member *members;
			uint32_t nmembers;
		} st;
		struct { /* ARRAY, SEQUENCE */
			tio_fc *elem;
			uint64_t length; /* ARRAY */
			tio_ref len;	 /* SEQUENCE */
			uint8_t text;	 /* elements are 8-bit ints with an encoding: print as a string */
		} a;
		struct { /* VARIANT, OPTIONAL (one option) */
			tio_ref sel;
			tio_member *options;  /* name may be NULL in CTF 2 */
			tio_mapping *ranges;  /* per option selector ranges (CTF 2), or NULL */
			uint32_t noptions;
		} v;
	};
};

/* ---------------------------------------------------------------- classes */

typedef struct tio_clock {
	char *name;
	char *description;
	uint64_t freq;	   /* Hz */
	int64_t offset_s;  /* seconds from origin */
	int64_t offset;	   /* cycles, added to offset_s */
	uint64_t precision;
	uint8_t uuid[16];
	bool has_uuid;
	bool origin_unix; /* "absolute" / origin is the Unix epoch */
	bool exact;	  /* ns as exact integer floors, not babeltrace2's doubles (tio_clock_ns) */
	void *user;
} tio_clock;

typedef struct tio_kv {
	char *key;
	bool is_int;
	int64_t ival;
	char *sval;
} tio_kv;

typedef struct tio_event_class {
	uint64_t id;
	char *name;
	int64_t loglevel;	/* INT64_MIN when absent */
	char *emf_uri;		/* NULL when absent */
	tio_fc *spec_ctx;	/* specific context, NULL if none */
	tio_fc *payload;	/* NULL if none */
	tio_kv *attrs;		/* other attributes, kept for writers */
	uint32_t nattrs;
	struct tio_stream_class *sc;
	void *user;		/* the format's own per-class data (e.g. ftrace print fmt) */
	uint64_t count;		/* events seen so far (for `info`) */
	/*
	 * One sink's data for this class, found without a lookup per event:
	 * sink_val is the sink's when sink_key is the key the sink holds
	 * (unique in the process, never 0; the Parquet writer's table of
	 * the class).  A class read by two sinks in turn is looked up
	 * again by each; a trace is read by one thread at a time.
	 */
	uint64_t sink_key;
	void *sink_val;
} tio_event_class;

typedef struct tio_stream_class {
	uint64_t id;
	char *name;
	int32_t clock;		/* default clock index, -1 if none */
	tio_fc *pkt_ctx;	/* packet context, NULL if none */
	tio_fc *ev_header;	/* event header, NULL if none */
	tio_fc *ev_common_ctx;	/* event common context, NULL if none */
	tio_event_class **ecs;	/* sorted by id */
	uint32_t necs;
	struct tio_trace_class *tc;
	void *user;
	/*
	 * Properties the trace states for this stream class, as key/values
	 * (trace.dat: a buffer instance's "clock", "page_size", "cpus" and
	 * "data_bytes", the ring-buffer data it holds in the file).  May be empty.
	 */
	tio_kv *env;
	uint32_t nenv;
} tio_stream_class;

/*
 * A user annotation attached to a time interval of a trace (new LTT
 * format: info/bookmarks.xml).  The interval is in ns from the trace's
 * default clock origin, or in clock cycles when `in_cycles` is set; a
 * single instant has begin == end.
 */
typedef struct tio_annotation {
	char *name;	/* may be NULL */
	char *text;	/* may be NULL */
	int64_t cpu;	/* -1 when the annotation names no CPU */
	bool in_cycles;
	uint64_t begin, end; /* ns (as int64_t bits) or cycles, see in_cycles */
} tio_annotation;

typedef struct tio_trace_class {
	uint8_t uuid[16];
	bool has_uuid;
	uint8_t byte_order;	/* default byte order */
	tio_fc *pkt_header;	/* NULL if none */
	tio_clock **clocks;
	uint32_t nclocks;
	tio_stream_class **scs;
	uint32_t nscs;
	tio_kv *env;
	uint32_t nenv;
	void *user;
	/*
	 * Named side tables of the trace that are neither metadata nor events
	 * (trace.dat: "kallsyms", "printk_formats", "saved_cmdlines"): the text
	 * as the tracer saved it, for sinks that resolve addresses or process
	 * names.  Kept apart from env so that env stays small.  May be empty.
	 * A table's `ival` is its size in bytes as the trace stores it (its
	 * `sval` text ends at the first NUL, so it may be shorter).  Read
	 * them through tio_trace_class_table: a big table (trace.dat's
	 * kallsyms, megabytes) has no `sval` until then, and the format reads
	 * it on that first use by load_table from its file (table_ctx); both
	 * NULL once the file is closed.
	 */
	tio_kv *tables;
	uint32_t ntables;
	int (*load_table)(struct tio_trace_class *tc, tio_kv *kv);
	void *table_ctx;
	/* User annotations (bookmarks), in the order the trace lists them.  May be empty. */
	tio_annotation *annotations;
	uint32_t nannotations;
	/* Warnings found on opening (tio_trace_warning), each a malloc'd line. */
	char **warnings;
	uint32_t nwarnings;
} tio_trace_class;

/* ---------------------------------------------------------------- values */

/*
 * A decoded field tree, stored flat in pre-order in a reusable array.
 * A compound value (struct, array, sequence, variant, optional) is followed
 * by its children; `end` is the index just past its subtree, `n` the number
 * of direct children (members, elements, 1 for a variant's chosen option,
 * 0/1 for an optional).  Strings and BLOBs point into the mapped input.
 */
typedef struct tio_val {
	const tio_fc *fc;
	uint32_t end;
	uint32_t n;
	union {
		uint64_t u;
		int64_t i;
		double d;
		struct {
			const char *p;
			uint64_t len; /* bytes, without the terminating NUL */
		} s;
		const uint8_t *big; /* INT wider than 64 bits: the raw bits (see fc->i.byte_order) */
	} v;	/* ARRAY of byte-aligned elements: a reader may set v.s to the array's
		   bytes in the input (v.s.p NULL when it does not) */
	uint32_t opt;	/* VARIANT: index of the chosen option */
} tio_val;

/* ---------------------------------------------------------------- messages */

typedef enum tio_msg_type {
	TIO_MSG_EVENT = 0,
	TIO_MSG_DISCARDED_EVENTS,
	TIO_MSG_DISCARDED_PACKETS,
	TIO_MSG_PACKET_BEGIN,
	TIO_MSG_PACKET_END,
	TIO_MSG_STREAM_BEGIN,
	TIO_MSG_STREAM_END,
} tio_msg_type;

/* Scopes of an event, in the order CTF 1.8 defines them. */
enum tio_scope {
	TIO_SCOPE_PKT_HEADER = 0,
	TIO_SCOPE_PKT_CTX,
	TIO_SCOPE_EV_HEADER,
	TIO_SCOPE_EV_COMMON_CTX,
	TIO_SCOPE_EV_SPEC_CTX,
	TIO_SCOPE_PAYLOAD,
	TIO_NSCOPES
};

struct tio_stream;

typedef struct tio_msg {
	tio_msg_type type;
	struct tio_stream *stream;
	const tio_event_class *ec; /* EVENT */
	bool has_ts;
	uint64_t cycles;	  /* default clock value */
	int64_t ns;		  /* ns from the clock origin (tio_clock_ns) */
	/* DISCARDED_*: the range and the count (count 0 = unknown) */
	bool has_range;
	uint64_t begin_cycles, end_cycles;
	int64_t begin_ns, end_ns;
	uint64_t count;
	/* PACKET_BEGIN: the packet's end time, when known (the mux drops the
	   beginnings of packets that end before its begin bound) */
	bool has_pkt_end;
	int64_t pkt_end_ns;
	/* EVENT: the scope roots inside `vals` (NULL where the scope is absent) */
	const tio_val *scope[TIO_NSCOPES];
	const tio_val *vals; /* owned by the stream; valid until its next message */
	uint32_t nvals;
	uint64_t offset;     /* byte offset of the record in its file (for errors, `check`) */
	/*
	 * EVENT: the record's bytes as stored, when the reader has them as one
	 * span (trace.dat: the event data after the ring-buffer header, common
	 * fields included); NULL otherwise.  Valid as long as `vals`.
	 */
	const uint8_t *raw;
	uint64_t raw_len;
	uint64_t raw_cap;    /* bytes readable at raw (>= raw_len: the rest of its page) */
} tio_msg;

/* ---------------------------------------------------------------- streams and traces */

typedef struct tio_stream tio_stream;
typedef struct tio_trace tio_trace;

/*
 * A stream reader implements these.  next() returns 1 with *msg filled,
 * 0 at the end, or a negative status with the error set (tio_err_*).
 * After an error the reader may be called again: it resumes after the
 * damaged packet (recovery), or returns 0.
 */
/* What a stream's packet index knows, without decoding events (tio_stream_ops.index). */
typedef struct tio_stream_index {
	bool has_range;
	int64_t begin_ns, end_ns;  /* the first packet's beginning, the last one's end */
	uint64_t packets;	   /* packets (CTF), pages (trace.dat), blocks (LTT) */
	uint64_t bytes;		   /* bytes of event data in them */
	uint64_t events;	   /* events: exact when events_exact, else an estimate */
	bool events_exact;
	bool has_discarded;	   /* discarded: the last packet's discarded-events counter */
	uint64_t discarded;
	bool seekable;		   /* seek() finds a packet by time (else it goes to the beginning) */
} tio_stream_index;

typedef struct tio_stream_ops {
	int (*next)(tio_stream *s, const tio_msg **msg);
	void (*free)(tio_stream *s);
	/*
	 * Go to the first packet that may hold a message at or after `ns`
	 * (INT64_MIN: the beginning), with what next() carries from packet to
	 * packet (discarded counters, sequence numbers, the clock) set as
	 * reading up to there would have set it.  Messages of that packet
	 * before `ns` still come (the mux drops them).  A stream that cannot
	 * locate the packet (no index, no timestamps, damage) goes to its
	 * beginning.  Returns 0 or a negative status.
	 */
	int (*seek)(tio_stream *s, int64_t ns);
	/* Fill *out from the stream's index (built on first use); 0 or a negative status. */
	int (*index)(tio_stream *s, tio_stream_index *out);
	/*
	 * Optional, before the first next(): until a message at or after
	 * `until_ns`, the stream may pass over events of the classes `want`
	 * refuses without decoding them (they are before the mux's begin
	 * bound, and the skip hook has no use for them).  A TIO_SKIP_ASK
	 * class's "no" stands while *epoch (the skip hook's calls; NULL: ask
	 * for each event) stays the same.
	 */
	void (*skip_filter)(tio_stream *s, int64_t until_ns, int (*want)(void *arg, const tio_event_class *ec),
			    void *arg, const uint64_t *epoch);
	/*
	 * Optional: a reader that has it lets a worker thread run next()
	 * (src/mux/pipe.c), so it promises that next() shares no mutable state
	 * with the other streams, and that what its messages point to besides
	 * `vals` (strings, BLOBs, raw bytes, wide integers) stays valid until
	 * the trace is freed, or until mt_cut names again the slot that was
	 * current when the message was returned.  From this call on, next() puts the values of
	 * the messages it returns one after the other in its value array number
	 * `slot` (< TIO_MT_SLOTS), never over those of a message it returned
	 * since the call, and leaves its other arrays alone: the messages
	 * returned before keep pointing into theirs, which stay as they are
	 * until a later call names them again (the values those messages
	 * shared with later ones, such as the packet scopes, are copied into
	 * the new array).  The array may move as it grows: the reader keeps
	 * tio_stream.mt_vals on its current place after each next().
	 * `slot` TIO_MT_SLOTS: back to overwriting the values message after message.
	 */
	void (*mt_cut)(tio_stream *s, unsigned slot);
	/*
	 * Optional, for reading a stream in parts on several threads, each
	 * part by its own open of the trace (tio_mux_set_part).  Both see the
	 * stream's packets (CTF packets, trace.dat pages) through its index:
	 * cut(ns) is the number of leading packets that begin before `ns` (a
	 * binary search, so that it never decreases as `ns` grows, whatever
	 * the data; 0 for INT64_MIN, every packet for INT64_MAX).
	 * part_bytes: the bytes of the packets before cut(ns), or UINT64_MAX
	 * when the stream cannot be cut (no index, damage).  part_keep, before
	 * the first next(): read only packets [cut(lo), cut(hi)), with what
	 * next() carries from packet to packet set as reading up to there
	 * would have set it; 0 or a negative status.
	 */
	uint64_t (*part_bytes)(tio_stream *s, int64_t ns);
	int (*part_keep)(tio_stream *s, int64_t lo, int64_t hi);
	/*
	 * Optional, cheap (no decoding): the bytes of packets from where next()
	 * is to the stream's end, at least what next() will read (decompressed
	 * bytes for compressed data), or at least `cap` when there are more;
	 * UINT64_MAX when unknown.  The mux reads streams with less than a few
	 * MiB in all on the caller's thread, without the workers of
	 * src/mux/pipe.c (worth_threads in src/mux/mux.c).
	 */
	uint64_t (*bytes_left)(tio_stream *s, uint64_t cap);
} tio_stream_ops;

/* Value arrays a reader keeps for tio_stream_ops.mt_cut. */
#define TIO_MT_SLOTS 8

struct tio_stream {
	const tio_stream_ops *ops;
	tio_trace *trace;
	const tio_stream_class *sc;
	uint64_t id;		/* stream id (CTF: stream instance id / CPU) */
	char *name;		/* e.g. the data file path */
	char *path;		/* first data file, for messages */
	uint32_t index;		/* position in trace->streams */
	bool id_is_cpu;		/* `id` is the CPU the stream was recorded on (tio_msg_cpu) */
	void *user;
	bool has_index;		/* `pk_index` holds what ops->index said (asked once: it samples events) */
	tio_stream_index pk_index;
	const tio_val *mt_vals;	/* with mt_cut: where the current value array is, after each next() */
	void *mt;		/* the pipe's proxy while a worker may read the stream (mt_pause) */
	bool part_past;		/* tio_mux_set_part_in_order: an event at or after the part's begin came */
	bool in_part;		/* read as one part of several (tio_mux_set_part, in order too): the other
				   parts' threads keep the CPUs busy, so no read-ahead helper (2 parts
				   on 2 CPUs: 0.171 s without, 0.186 s with; a Parquet conversion in
				   parts: the same time, 22 MiB less peak RSS) */
};

/*
 * While a mux's worker may read stream `s`: stop it (mt_pause) before
 * touching the reader from another thread, let it go on after
 * (mt_resume).  Nothing when no worker reads it (src/mux/pipe.c).
 */
void mt_pause(tio_stream *s);
void mt_resume(tio_stream *s);

typedef struct tio_format_ops tio_format_ops;

struct tio_trace {
	const tio_format_ops *fmt;
	char *path;
	char *name;		/* trace name (babeltrace2: env trace_name or dir name) */
	tio_trace_class *tc;
	tio_stream **streams;
	uint32_t nstreams;
	uint32_t index;		/* place in the merge's tie-break (tio_mux_new: babeltrace2's order of traces) */
	void *user;
	/* traces merged into this one (same trace in several places): kept
	 * alive because their streams may still refer to their classes */
	struct tio_trace **merged;
	uint32_t nmerged;
	struct tio_comms *comms; /* pid -> comm from saved_cmdlines, built at the first tio_trace_comm */
};

/*
 * A format reader.  probe() scores how likely `path` is of this format
 * (0 = not at all, 100 = certain, e.g. a magic number matched); open()
 * fills the trace class and its streams.
 */
struct tio_format_ops {
	const char *name;
	int (*probe)(const char *path);
	int (*open)(tio_trace *t, const char *path);
	void (*free)(tio_trace *t);
	/*
	 * Optional: when `from` is the same trace as `into` (babeltrace2: CTF
	 * traces with the same UUID), move its streams into `into` and return 1;
	 * return 0 when they are different traces.  `from` is then kept in
	 * into->merged.
	 */
	int (*merge)(tio_trace *into, tio_trace *from);
	/*
	 * Equal times across traces come in babeltrace2's order (tio_mux_new):
	 * by trace UUID, traces without one by babeltrace2's trace name, all
	 * before the traces of formats without this flag (CTF only).
	 */
	bool bt2_trace_order;
};

/* ---------------------------------------------------------------- helpers (ir.c) */

/* The index of a value in its message's array (its subtree's `end`s are
   indexes there): the first leaf under it knows its own (api-field.c). */
uint32_t tio_val_index(const tio_val *v);

tio_fc *tio_fc_new(tio_fc_kind kind);
void tio_fc_free(tio_fc *fc);
tio_fc *tio_fc_copy(const tio_fc *fc);
void tio_event_class_free(tio_event_class *ec);
void tio_stream_class_free(tio_stream_class *sc);
void tio_trace_class_free(tio_trace_class *tc);
const tio_kv *tio_trace_class_env(const tio_trace_class *tc, const char *key);
/* babeltrace2's trace name, appended to b: the env's hostname and the trace's
 * path below the input (tio_trace.name), joined by '/' */
void tio_trace_bt2_name(tio_buf *b, const tio_trace *t);
/* A side table by name (see tio_trace_class.tables), NULL if absent. */
const tio_kv *tio_trace_class_table(const tio_trace_class *tc, const char *key);
tio_event_class *tio_stream_class_find_ec(const tio_stream_class *sc, uint64_t id);
void tio_stream_class_sort(tio_stream_class *sc);
tio_stream_class *tio_trace_class_find_sc(const tio_trace_class *tc, uint64_t id);

/* Nanoseconds from the clock's origin for a clock value, as babeltrace2 computes it. */
int tio_clock_ns(const tio_clock *c, uint64_t cycles, int64_t *ns);
/* The pid -> comm table of tio_trace_comm (src/ir/api-class.c). */
void tio_comms_free(struct tio_comms *c);
/* Add a warning line to the trace class (tio_trace_warning); 0 or TIO_ERR_NOMEM. */
int tio_trace_class_warn(tio_trace_class *tc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True when the offset's seconds do not fit in 64-bit ns (tio_clock_ns wraps as babeltrace 1). */
bool tio_clock_offset_wraps(const tio_clock *c);

/* Struct member lookup; returns index or -1. */
int tio_fc_member_index(const tio_fc *st, const char *name);

#endif
