/* traceio: opening a trace of any supported format. */
#ifndef TRACEIO_TRACE_H
#define TRACEIO_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tio_trace tio_trace;

/*
 * Open the trace at `path` (a CTF directory, a trace.dat file, an LTT trace
 * directory...).  `format` names the reader ("ctf", "tracedat", "lttng0",
 * "ltt") or is NULL to guess from the contents.  A directory that holds
 * several CTF traces (LTTng's ust/uid/... tree) is opened as one trace per
 * metadata file: see tio_trace_open_all().
 */
int tio_trace_open(const char *path, const char *format, tio_trace **out);

/*
 * Open every trace found under `path`, recursively, as babeltrace2 does for
 * a directory argument.  *out receives a malloc'd array of *n traces.
 */
int tio_trace_open_all(const char *path, const char *format, tio_trace ***out, size_t *n);

void tio_trace_free(tio_trace *t);

/*
 * Merge the traces of `v` that are the same trace found in several places
 * (CTF: the same UUID, as babeltrace2 does: e.g. the same trace given twice,
 * or chunks of a rotated LTTng session): their streams join, a packet
 * present in both is read once.  Merged traces leave `v` (*n shrinks) and
 * are freed with the trace they joined.
 */
int tio_traces_merge(tio_trace **v, size_t *n);

/*
 * Set a reader option of an opened trace, before its first message is
 * read: key/value strings as the CLI takes them.  A key the trace's reader
 * does not take returns TIO_ERR_UNSUPPORTED, a bad value TIO_ERR_USAGE.
 * Options:
 *   lttng0  "ltt-tsc" = "auto" (default), "nocarry" or "lttv": how the 27
 *           TSC bits of a compact event header extend the previous TSC
 *           (docs/formats/ltt0x.md, "Compact timestamps").
 *   tracedat "ts2secs" = HZ: the time stamps count at HZ per second
 *           (trace-cmd report --ts2secs): each one times 1e9 / HZ
 *           (docs/formats/tracedat.md); for the counter and x86-tsc
 *           clocks, whose rate the file does not give.
 *   tracedat "raw-ts" = "1" or "0" (default): the ring buffer's stamps as
 *           they are (trace-cmd report --raw-ts): no TIME_SHIFT, ts2secs,
 *           TSC2NSEC nor OFFSET/DATE.
 *   every format  "clock-exact" = "1" or "0" (default): clock values to ns
 *           as exact integer floors instead of babeltrace2's doubles
 *           (docs/formats/ctf.md, "Clock values to nanoseconds").
 */
int tio_trace_set(tio_trace *t, const char *key, const char *value);

/*
 * The i-th warning (0, 1, ...) found on opening the trace, NULL past the
 * last: a problem its reader reads past, such as a clock offset whose
 * seconds do not fit in 64-bit ns.  Owned by the trace.
 */
const char *tio_trace_warning(const tio_trace *t, size_t i);

/*
 * What a trace's packet index tells without decoding events (built on
 * first use from packet headers only: CTF packet contexts, trace.dat page
 * headers and the first and last pages' records, LTTng 0.x block headers).
 * The 2008 LTTng layout and new LTT have no index yet: their streams count
 * in `streams` but not in `indexed`.
 */
typedef struct tio_index_info {
	bool has_range;		  /* begin_ns and end_ns are known */
	int64_t begin_ns, end_ns; /* CTF: first packet's beginning, last packet's end;
				     trace.dat: first and last events */
	uint64_t packets;	  /* CTF packets, trace.dat ring-buffer pages */
	uint64_t bytes;		  /* bytes of event records in them */
	uint64_t events;	  /* estimated from the first packets' density */
	bool has_discarded;	  /* discarded: the packets' discarded-events counters (CTF) */
	uint64_t discarded;
	uint32_t streams, indexed, seekable; /* streams; with an index; that seek by time */
} tio_index_info;

/* The whole trace's index (every stream's, summed), or stream i's alone with tio_trace_stream_index. */
int tio_trace_index(tio_trace *t, tio_index_info *out);
int tio_trace_stream_index(tio_trace *t, uint32_t i, tio_index_info *out);

/* The name of the reader that opened it ("ctf", "tracedat", ...). */
const char *tio_trace_format(const tio_trace *t);

/* The path it was opened from. */
const char *tio_trace_path(const tio_trace *t);

/* Names of the readers built in, NULL-terminated. */
const char *const *tio_formats(void);

#ifdef __cplusplus
}
#endif
#endif
