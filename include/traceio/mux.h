/* traceio: merging the streams of one or more traces by time. */
#ifndef TRACEIO_MUX_H
#define TRACEIO_MUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traceio/msg.h"
#include "traceio/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tio_mux tio_mux;

/* The traces stay owned by the caller and must outlive the mux. */
int tio_mux_new(tio_trace *const *traces, size_t n, tio_mux **out);

/* Keep only messages in [begin, end] (ns from origin). */
void tio_mux_set_begin(tio_mux *m, int64_t begin_ns);
void tio_mux_set_end(tio_mux *m, int64_t end_ns);

/*
 * Bounds given as a time of day (ns since midnight), as babeltrace2's
 * "HH:MM:SS.NS": the day is the one of the first message, in UTC or in
 * local time.
 */
void tio_mux_set_begin_time_of_day(tio_mux *m, int64_t ns_in_day, bool utc);
void tio_mux_set_end_time_of_day(tio_mux *m, int64_t ns_in_day, bool utc);

/*
 * Events dropped because they come before the begin bound are handed to
 * fn first, in time order (the merge still decodes them).  For sinks that
 * keep state from earlier events, such as trace-cmd's comm names: see
 * tio_sink_skip.
 */
typedef void (*tio_mux_skip_fn)(void *arg, const tio_msg *msg);
void tio_mux_set_skip_hook(tio_mux *m, tio_mux_skip_fn fn, void *arg);

/*
 * The next message in time order: 1 with *msg set (valid until the next
 * call), 0 at the end, or a negative status.  After an error in one stream
 * the caller may call again: the other streams go on.
 */
int tio_mux_next(tio_mux *m, const tio_msg **msg);

/* Number of errors seen (and skipped) so far. */
uint64_t tio_mux_errors(const tio_mux *m);

void tio_mux_free(tio_mux *m);

#ifdef __cplusplus
}
#endif
#endif
