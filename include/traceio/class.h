/*
 * traceio: what a trace declares (event and stream classes, clocks,
 * environment) and where a message comes from.
 *
 * Classes are built when the trace is opened and live as long as it;
 * pointers returned here are borrowed from the trace.
 */
#ifndef TRACEIO_CLASS_H
#define TRACEIO_CLASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traceio/field.h"
#include "traceio/msg.h"
#include "traceio/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tio_stream_class tio_stream_class;
typedef struct tio_clock tio_clock;
typedef struct tio_stream tio_stream;

/* ------------------------------------------------------------ event classes */

/* An event's class, NULL when the message is not an event. */
const tio_event_class *tio_msg_event_class(const tio_msg *m);
const char *tio_event_class_name(const tio_event_class *ec); /* may be NULL (unnamed CTF class) */
uint64_t tio_event_class_id(const tio_event_class *ec);
/* Log level (CTF `loglevel`), false when the class has none. */
bool tio_event_class_log_level(const tio_event_class *ec, int64_t *level);
const char *tio_event_class_emf_uri(const tio_event_class *ec); /* NULL when none */
/* The event's system (trace.dat: "sched" for sched_switch), NULL when the format has none. */
const char *tio_event_class_system(const tio_event_class *ec);
const tio_stream_class *tio_event_class_stream_class(const tio_event_class *ec);
/* The class of a scope: specific context and payload here, the others from the stream class. */
const tio_field_class *tio_event_class_scope(const tio_event_class *ec, int scope);

/* ------------------------------------------------------------ stream classes */

uint64_t tio_stream_class_id(const tio_stream_class *sc);
const char *tio_stream_class_name(const tio_stream_class *sc); /* may be NULL */
/* packet header (from the trace), packet context, event header, common context; NULL when absent */
const tio_field_class *tio_stream_class_scope(const tio_stream_class *sc, int scope);
/* The default clock, NULL when the stream class has none. */
const tio_clock *tio_stream_class_clock(const tio_stream_class *sc);
uint32_t tio_stream_class_event_class_count(const tio_stream_class *sc);
const tio_event_class *tio_stream_class_event_class(const tio_stream_class *sc, uint32_t i);

/* ------------------------------------------------------------ the trace */

uint32_t tio_trace_stream_class_count(const tio_trace *t);
const tio_stream_class *tio_trace_stream_class(const tio_trace *t, uint32_t i);
/* An event class by name over every stream class (the first found), NULL when none. */
const tio_event_class *tio_trace_event_class_by_name(const tio_trace *t, const char *name);

/* Environment (CTF `env`, trace.dat and LTT header values): i-th key, integer or string value. */
uint32_t tio_trace_env_count(const tio_trace *t);
const char *tio_trace_env_key(const tio_trace *t, uint32_t i);
/* true with *ival set for an integer entry; false with *sval set for a string one */
bool tio_trace_env_value(const tio_trace *t, uint32_t i, int64_t *ival, const char **sval);

/*
 * The trace's UUID (CTF: its trace class's; tio_traces_merge joins traces of
 * the same UUID found in several places), false when it has none.
 */
bool tio_trace_uuid(const tio_trace *t, uint8_t uuid[16]);

uint32_t tio_trace_clock_count(const tio_trace *t);
const tio_clock *tio_trace_clock(const tio_trace *t, uint32_t i);
const char *tio_clock_name(const tio_clock *c);
const char *tio_clock_description(const tio_clock *c); /* NULL when none */
uint64_t tio_clock_frequency(const tio_clock *c);	/* Hz */
/* Offset from the origin: seconds plus cycles. */
void tio_clock_offset(const tio_clock *c, int64_t *seconds, int64_t *cycles);
uint64_t tio_clock_precision(const tio_clock *c);
/* true when the origin is the Unix epoch (CTF `absolute`, LTTng) */
bool tio_clock_origin_is_unix_epoch(const tio_clock *c);
/* true with the 16 bytes copied when the clock has a UUID */
bool tio_clock_uuid(const tio_clock *c, uint8_t uuid[16]);
/* A clock value in cycles as ns from the origin, as messages' times are computed. */
int tio_clock_cycles_to_ns(const tio_clock *c, uint64_t cycles, int64_t *ns);

uint32_t tio_trace_stream_count(const tio_trace *t);
const tio_stream *tio_trace_stream(const tio_trace *t, uint32_t i);

/*
 * trace.dat: the command name trace-cmd shows for `pid` (its saved
 * cmdlines), NULL when the trace does not know it.  Other formats: NULL.
 */
const char *tio_trace_comm(const tio_trace *t, int64_t pid);
/*
 * The other way: the pids whose saved command line is `comm`, in increasing
 * order, into pids[0..max); returns how many there are (may be > max).
 */
size_t tio_trace_comm_pids(const tio_trace *t, const char *comm, int64_t *pids, size_t max);

/* ------------------------------------------------------------ streams and where a message comes from */

const tio_stream *tio_msg_stream(const tio_msg *m);
const tio_trace *tio_stream_trace(const tio_stream *s);
const tio_stream_class *tio_stream_get_class(const tio_stream *s);
uint64_t tio_stream_id(const tio_stream *s);	  /* CTF: stream instance id; trace.dat, LTT: the CPU */
const char *tio_stream_name(const tio_stream *s); /* e.g. its first data file */

/*
 * The CPU a message was recorded on: trace.dat's per-CPU buffers, LTT's
 * per-CPU tracefiles, a CTF packet context's `cpu_id` (LTTng).  False when
 * the format does not say.
 */
bool tio_msg_cpu(const tio_msg *m, uint64_t *cpu);

/* The default clock's value in cycles (false when the message has no time). */
bool tio_msg_cycles(const tio_msg *m, uint64_t *cycles);

/*
 * DISCARDED_EVENTS / DISCARDED_PACKETS messages: the count (0 when the
 * trace does not say how many) and, when known, the time range in ns from
 * the origin.  Returns false for other messages.
 */
bool tio_msg_discarded(const tio_msg *m, uint64_t *count, bool *has_range, int64_t *begin_ns, int64_t *end_ns);
/* The same range as clock values (cycles of the stream's default clock); false when none. */
bool tio_msg_discarded_cycles(const tio_msg *m, uint64_t *begin_cycles, uint64_t *end_cycles);

#ifdef __cplusplus
}
#endif

#endif
