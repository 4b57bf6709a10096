/*
 * trace.dat reader internals (trace-cmd.dat(5) v6 and v7): shared between
 * the container parser (tracedat-file.c), the event format parser
 * (ftrace-format.c) and the ring-buffer page reader (ftrace-ring.c).
 */
#ifndef TIO_FTRACE_TRACEDAT_H
#define TIO_FTRACE_TRACEDAT_H

#include "ir/ir.h"

/* How one field of an event record is decoded (compiled from its format line). */
enum td_kind {
	TD_INT,	    /* 1/2/4/8-byte integer */
	TD_SSTR,    /* char[N]: static-length string */
	TD_ARRAY,   /* T[N] of 1/2/4/8-byte integers */
	TD_DLSTR,   /* __data_loc/__rel_loc char[]: string */
	TD_DLBLOB,  /* __data_loc/__rel_loc T[]: bytes */
	TD_RESTSTR, /* char x[] of size 0: the rest of the record, as a string */
	TD_RESTBLOB,/* T x[] of size 0: the rest of the record, as bytes */
	TD_BLOB,    /* anything else with a fixed size */
	TD_FLOAT,   /* "float" (4 bytes) or "double" (8 bytes): IEEE 754 bits */
};

typedef struct td_field {
	uint8_t kind;	/* enum td_kind */
	uint8_t is_signed;
	uint8_t rel;	/* __rel_loc: offset relative to the end of the field */
	uint32_t offset, size, elem, count;
	const tio_fc *fc;
} td_field;

/* Decode plan of one event class (ec->user) or of the common fields. */
typedef struct td_plan {
	td_field *f;
	uint32_t n;
	uint32_t nvals; /* values when every array is static (dynamic ones add none) */
	uint32_t min_size; /* bytes the fixed part needs */
	/* every field a 1/2/4/8-byte integer: decoded with 8-byte loads when the
	   record's buffer has load_end readable bytes (decode's fast path) */
	bool all_int;
	uint32_t load_end;
} td_plan;

/* One ring-buffer data span of one CPU of one buffer instance. */
typedef struct td_cpu {
	uint32_t cpu;
	uint64_t offset, size; /* in the file (compressed: the chunk list) */
} td_cpu;

/* A TIME_SHIFT sample: from `time` on (a raw guest stamp), the host's clock is
   (raw * scaling >> fraction) + offset (trace-cmd's tsync; tracedat.md) */
typedef struct td_tsample {
	int64_t time, offset, scaling;
	uint32_t fraction; /* a shift count, masked to 6 bits as x86 does */
	uint32_t ord;	   /* its place in the file (the first of equal times is kept) */
} td_tsample;

/* A CPU's TIME_SHIFT samples, sorted by time, each time once. */
typedef struct td_tsync {
	td_tsample *s;
	uint32_t n;
	bool interp; /* flag TRACECMD_TSYNC_FLAG_INTERPOLATE: offsets interpolated between samples */
} td_tsync;

typedef struct td_buffer {
	char *name;  /* "" for the top instance */
	char *clock;
	uint32_t page_size;
	bool compressed;
	td_cpu *cpus;
	uint32_t ncpus;
	tio_stream_class *sc;
	uint64_t opt_at; /* file offset of its BUFFER option's data (0: the top instance) */
} td_buffer;

typedef struct td_file {
	tio_map map;
	const char *path;
	int version;
	bool be;
	uint32_t long_size, page_size;
	uint32_t ncpus; /* "cpus=" of trace-cmd report */
	char comp[32];	/* "none", "zstd", "zlib" */
	/* header_page */
	uint32_t hp_ts_off, hp_commit_off, hp_commit_size, hp_data_off;
	uint64_t hp_at; /* file offset of its text (compressed: of its section), for errors */
	td_buffer *bufs;
	uint32_t nbufs;
	uint64_t ncpus_all; /* CPUs of all buffers (TD_CPUS_ALL_MAX) */
	int64_t ts_offset; /* OFFSET option */
	/* TSC2NSEC option (`record --tsc2nsec`): raw stamps are TSC cycles, turned
	   into ns by td_time as trace-cmd does; tsc_mult 0 when none */
	int64_t tsc_mult; /* its u32 read as an int, sign-extended, as trace-cmd does */
	uint32_t tsc_shift;
	/* TIME_SHIFT option (a guest's trace.dat from `record -A`): the top
	   instance's CPU i's raw stamps go to the host's clock first, by tsync[i] */
	td_tsync *tsync;
	uint32_t ntsync;
	/* reader option ts2secs (trace-cmd report --ts2secs HZ): 1e9 / HZ, each
	   stamp multiplied by it (after TIME_SHIFT, instead of TSC2NSEC); 0: none */
	double ts2secs;
	/* reader option raw-ts (trace-cmd report --raw-ts): the ring buffer's
	   stamps as they are, no TIME_SHIFT, ts2secs, TSC2NSEC nor OFFSET/DATE */
	bool raw_ts;
	int64_t saved_offset; /* ts_offset while raw_ts makes it 0 */
	bool clock_v6_list; /* the clock is named only by v6's list after the CPU table */
	td_plan common;
	uint64_t max_page_events; /* values array sizing */
	/* side tables read on first use (tio_trace_class.load_table): where
	   their text is; `sect`: in the v7 section at `off` (compressed), read
	   again with it; else the text's `len` bytes at file offset `off` */
	struct td_lazy {
		char key[16];
		uint64_t off;
		uint32_t len;
		uint16_t id;
		bool sect;
	} lazy[2];
	uint32_t nlazy;
	/* formats parsed from the file, for every instance */
	tio_event_class **ecs;
	uint32_t necs;
	tio_fc *common_fc;
} td_file;

static inline uint16_t td_u16(const td_file *f, const void *p) { return f->be ? tio_be16(p) : tio_le16(p); }
static inline uint32_t td_u32(const td_file *f, const void *p) { return f->be ? tio_be32(p) : tio_le32(p); }
static inline uint64_t td_u64(const td_file *f, const void *p) { return f->be ? tio_be64(p) : tio_le64(p); }
static inline uint64_t td_num(const td_file *f, const uint8_t *p, uint32_t size)
{
	switch (size) {
	case 1: return p[0];
	case 2: return td_u16(f, p);
	case 4: return td_u32(f, p);
	case 8: return td_u64(f, p);
	}
	return 0;
}

/* A raw stamp of a CPU with TIME_SHIFT samples on the host's clock (tracedat-file.c). */
uint64_t td_host_time(const td_tsync *y, uint64_t raw);

/*
 * A record's time stamp as trace-cmd report shows it: the host's clock of
 * TIME_SHIFT (`y`: the CPU's samples, NULL when none), then the ts2secs
 * option's factor, or else TSC2NSEC's mul_u64_u32_shr (32-bit halves; shift
 * counts masked as x86 does) when the file has it, then the OFFSET/DATE
 * sum, wrapping as unsigned.
 */
static inline uint64_t td_time(const td_file *f, const td_tsync *y, uint64_t raw)
{
	if (TIO_UNLIKELY(f->raw_ts))
		return raw; /* ts_offset is 0 then */
	if (TIO_UNLIKELY(y != NULL))
		raw = td_host_time(y, raw);
	if (TIO_UNLIKELY(f->ts2secs != 0)) {
		/* as trace-cmd's `ts *= ts2secs` (a double); a product of 2^64 or
		   more, undefined in C, gives 0 as x86-64's conversion does */
		double d = (double)raw * f->ts2secs;
		raw = d < 18446744073709551616.0 ? (uint64_t)d : 0;
	} else if (f->tsc_mult) {
		uint64_t mul = (uint64_t)f->tsc_mult, al = raw & 0xffffffffu, ah = raw >> 32;
		uint64_t r = (al * mul) >> (f->tsc_shift & 63);
		if (ah)
			r += (ah * mul) << ((32u - f->tsc_shift) & 63);
		raw = r;
	}
	return raw + (uint64_t)f->ts_offset;
}
/* The least raw stamp whose td_time (offset aside) is >= rel: for seeks and cuts (tracedat-file.c). */
uint64_t td_raw_at(const td_file *f, const td_tsync *y, uint64_t rel);
/* The TIME_SHIFT samples of a buffer's CPU, or NULL. */
const td_tsync *td_tsync_of(const td_file *f, const td_buffer *b, uint32_t cpu);

/* ftrace-format.c */
int td_parse_format(td_file *f, const char *sys, const char *text, size_t len,
		    tio_event_class **out, tio_fc **common);
void td_plan_free(td_plan *p);
void td_ec_free_user(tio_event_class *ec);
tio_event_class *td_ec_copy(const tio_event_class *ec);

/* ftrace-ring.c */
int td_stream_new(td_file *f, td_buffer *b, uint32_t i, tio_stream **out);

/* tracedat-file.c */
int td_decompress(const td_file *f, const uint8_t *src, uint64_t csize, uint8_t *dst,
		  uint64_t usize);
/*
 * Before allocating `usize` bytes for `csize` compressed ones: refuse a size
 * the data cannot decompress to (the zstd frame's own content size when it
 * declares one; zlib's 1032:1 maximum ratio).  0, or TIO_ERR_LIMIT with the
 * error saying what (the caller adds where).
 */
int td_usize_check(const td_file *f, const uint8_t *src, uint64_t csize, uint64_t usize);

#endif
