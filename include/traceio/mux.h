/* traceio: merging the streams of one or more traces by time. */
#ifndef TRACEIO_MUX_H
#define TRACEIO_MUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traceio/class.h"
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
 * With a skip hook: the event classes whose earlier events the hook needs.
 * `wants` answers once per class and stream: TIO_SKIP_WANT (every event of
 * the class), TIO_SKIP_NONE (none), or TIO_SKIP_ASK (ask again for the
 * events of the class, where any answer but TIO_SKIP_WANT passes over it;
 * a "no" stands until the hook is next called, since what a hook needs
 * changes only with what it is shown).
 * tio_sink_skip_wants suits it.  Streams that tell an event's class
 * without decoding it (trace.dat) pass over the unwanted events before the
 * begin bound without decoding them; the others decode them all.  Without
 * it, the hook sees every earlier event.
 */
typedef int (*tio_mux_skip_class_fn)(void *arg, const tio_event_class *ec);
void tio_mux_set_skip_classes(tio_mux *m, tio_mux_skip_class_fn wants, void *arg);

/*
 * Only the events of the classes `wants` accepts (TIO_SKIP_WANT; asked once
 * per class and stream, before the first message) are needed: streams
 * that tell an event's class without decoding it (trace.dat) pass over the
 * others without decoding them; the other streams still return them, so a
 * caller checks the class anyway.  A lost-events message of a trace.dat
 * page then comes with the page's first event that is returned.  Call it
 * before the first tio_mux_next.
 */
void tio_mux_set_event_classes(tio_mux *m, tio_mux_skip_class_fn wants, void *arg);

/*
 * Go to time `ns` (ns from origin): the next messages are those at or
 * after it, as if the begin bound were `ns` (the end bound stays).  Any
 * number of times, forwards or backwards.  Each stream goes straight to
 * the packet that holds its first message at or after `ns` through its
 * packet index (built on first use: CTF packets, trace.dat pages and
 * chunks, LTTng 0.x blocks), in O(log packets) plus that packet's decoding; a stream without
 * an index (the 2008 LTTng layout and new LTT, a damaged or untimed CTF stream) is read again
 * from its beginning.  A begin bound set before the first message seeks
 * the same way, unless a skip hook is set (it must see the events before
 * the bound).  A skip hook does not see what a seek passes over.
 */
int tio_mux_seek(tio_mux *m, int64_t ns);

/*
 * The next message in time order: 1 with *msg set (valid until the next
 * call), 0 at the end, or a negative status.  After an error in one stream
 * the caller may call again: the other streams go on.  Equal times come in
 * babeltrace2's order: by trace (CTF traces by UUID, then by trace name;
 * other formats after, in the order given), stream class id, stream id,
 * then message kind.
 */
int tio_mux_next(tio_mux *m, const tio_msg **msg);

/*
 * Decoding on several cores: before the first tio_mux_next, the number of
 * threads that decode (1: all on the caller's thread; 0, the default: the
 * TIO_THREADS environment variable, else the number of CPUs online).  With
 * more than one, worker threads decode the streams whose reader allows it
 * (CTF and trace.dat) ahead of the merge, into bounded queues;
 * the messages, their order and their errors are the same as with one.
 * Callbacks given to tio_mux_set_event_classes may then be called from a
 * worker thread.  A skip hook (tio_mux_set_skip_hook) keeps one thread.
 */
void tio_mux_set_threads(tio_mux *m, unsigned n);

/*
 * Reading traces in parts, one per thread: before the first tio_mux_next,
 * make this mux read part `k` (0 to n - 1) of `n`.  Each part is read by
 * its own mux over its own open of the same traces (same paths, opened the
 * same way, on any thread).  Every part cuts each stream at the same
 * n - 1 times, chosen from the packet indexes so that the parts hold about
 * as many bytes, and a stream is cut between packets only: together the
 * parts return every message exactly once, each as a whole read returns
 * it.  Within a part, messages come in time order; across parts they do
 * not (a packet that spans a cut stays whole in its part), so this is for
 * consumers whose result does not depend on that order: counts, sums,
 * checks of each value.  A stream that cannot be cut (no packet index,
 * damaged packet headers, compressed trace.dat) is read whole by part 0.
 * A part decodes on its caller's thread.  Not with a begin bound (the
 * first tio_mux_next fails with TIO_ERR_USAGE) or tio_mux_seek (which
 * fails so).  Returns 0, or TIO_ERR_USAGE when k >= n.
 */
int tio_mux_set_part(tio_mux *m, unsigned k, unsigned n);

/*
 * As tio_mux_set_part, with the parts in order: part `k` returns exactly
 * the messages that have a time that a whole read returns at or after
 * the part's first cut time and before its second, in the whole read's
 * order (every stream goes to the first cut through its index, and stops
 * before the second; discarded-records messages are not trimmed), so
 * that the parts one after another are the whole read.  Messages without
 * a time (packet and stream beginnings and ends) come as with a begin and
 * end bound.  A part fails (TIO_ERR_FORMAT) when it meets an event without
 * a time, or a stream whose times go back across its first cut: the parts
 * would then not be the whole read.  For writers whose output keeps the
 * order (the Parquet sink, tio_sink_merge).
 */
int tio_mux_set_part_in_order(tio_mux *m, unsigned k, unsigned n);

/* Number of errors seen (and skipped) so far. */
uint64_t tio_mux_errors(const tio_mux *m);

void tio_mux_free(tio_mux *m);

#ifdef __cplusplus
}
#endif
#endif
