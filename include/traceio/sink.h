/* traceio: where messages go (text printers, summaries, writers). */
#ifndef TRACEIO_SINK_H
#define TRACEIO_SINK_H

#include <stdio.h>

#include "traceio/class.h"
#include "traceio/msg.h"
#include "traceio/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tio_sink tio_sink;

/*
 * Create a sink by name (tio_sinks() lists them): the texts of `traceio
 * print`, "babeltrace" (babeltrace2's pretty text), "trace-cmd" (trace-cmd
 * report's), "lttv" (LTTV's textDump) and "json"; "info", "dummy"
 * (decodes, prints nothing), and the writers of `traceio convert` ("ctf",
 * "tracedat", "ltt", "lttng0", "perfetto", "parquet": option "output"
 * names the file or directory written).  Output goes to `out`; warnings
 * (discarded events...) to `err`.
 */
int tio_sink_new(const char *name, FILE *out, FILE *err, tio_sink **sink);

/*
 * Set an option before the first message: key/value strings as the CLI
 * takes them (e.g. "names" = "all", "clock-gmt" = "1").  A NULL value is
 * a flag: boolean options take it as "1", the others return
 * TIO_ERR_USAGE, as do unknown keys.
 */
int tio_sink_set(tio_sink *s, const char *key, const char *value);

/*
 * Announce an input before the first message (writers: a trace none of
 * whose messages arrive, e.g. no event in range, is still written with
 * its classes).  Sinks that do not need it ignore it.  The trace must
 * outlive the sink's use.
 */
int tio_sink_add_trace(tio_sink *s, const tio_trace *t);

int tio_sink_consume(tio_sink *s, const tio_msg *m);

/*
 * An event that is not to be shown but came before the ones that are
 * (trimmed by --begin): sinks whose output depends on earlier events
 * update their state as if they had printed it (the trace-cmd style
 * learns comm names from sched_switch/sched_wakeup as trace-cmd's plugin
 * does); the others ignore it.  Suits tio_mux_set_skip_hook.
 */
int tio_sink_skip(tio_sink *s, const tio_msg *m);

/*
 * Whether tio_sink_skip needs the events of class `ec`, as
 * tio_mux_set_skip_classes asks it: the trace-cmd style wants
 * sched_switch/sched_wakeup* (their plugin registers comm names), the
 * function tracer's and function-graph events, and is asked again for
 * each event of the others (it wants them all once a function-graph entry
 * was skipped).  Suits tio_mux_set_skip_classes.
 */
int tio_sink_skip_wants(tio_sink *s, const tio_event_class *ec);

/*
 * An event that a filter (tio_filter) drops: sinks update only what their
 * peer updates for a record it reads but does not print.  The trace-cmd
 * style: a function graph entry waiting for the next record of its file
 * still sees it (trace-cmd peeks before filtering), and the "EVENTS DROPPED"
 * note of its CPU goes with it, unprinted; comm names are not learnt from
 * it.  The other sinks ignore it.
 */
int tio_sink_filtered(tio_sink *s, const tio_msg *m);

/*
 * Parts of traces read by several sinks of one kind (tio_mux_set_part, a
 * sink per part): add what `from` has gathered into `into`, whose
 * tio_sink_finish then tells the whole.  The parts' traces must stay open
 * until then (`into` may print from them).  The "info" sink (its counts,
 * for traces opened the same way in every part), "dummy" and "parquet"
 * (its files, for parts read with tio_mux_set_part_in_order: from's row
 * groups go after into's; or, when every trace of both sinks ended
 * (tio_sink_end_trace, option several-traces), from's traces after into's,
 * TIO_ERR_UNSUPPORTED when one sink reading all of them would name one
 * otherwise) take it; the others return TIO_ERR_UNSUPPORTED.
 * Merge the parts in order (1, 2... into 0): "info" prints several traces
 * in the order a whole read first sees them, and returns
 * TIO_ERR_UNSUPPORTED when the parts cannot tell that order (a trace's
 * first message without a time, two at the same time): read on one thread
 * then.
 */
int tio_sink_merge(tio_sink *into, tio_sink *from);

/*
 * Begin tio_sink_merge(into, from) early: `into` has read its part to the
 * end (tio_sink_flush, and the parts before `from` merged into it), while
 * `from` may still be consuming its part on another thread.  The Parquet
 * sink (parts read with tio_mux_set_part_in_order) copies what `from` has
 * written so far after into's files and writes from's later row groups
 * there, so that tio_sink_merge(into, from), still needed once `from` is
 * flushed, has nothing left to copy; the files are byte for byte the same.
 * The other sinks do nothing (two sinks of different kinds:
 * TIO_ERR_UNSUPPORTED).  Not concurrently with another call on `into`; a
 * non-zero result: read on one thread (as when the merge fails).
 */
int tio_sink_merge_begin(tio_sink *into, tio_sink *from);

/*
 * Write out what the sink holds back so far (the Parquet sink: every row
 * group buffered), so that a part's sink ends its work on the part's
 * thread before tio_sink_merge.  Nothing for the other sinks.
 */
int tio_sink_flush(tio_sink *s);

/*
 * No more messages of trace `t` will come (an input read to its end, its
 * messages consumed): a writer may finish what it writes of `t` now and
 * forget it, so that the caller can close `t` and read the next input,
 * and memory holds one trace at a time.  The Parquet sink closes the
 * trace's files and writes its meta.json (its directory is renamed into
 * place by tio_sink_finish; set option "several-traces" first for the
 * several-traces layout).  The other sinks ignore it, and their traces
 * must then stay open until tio_sink_finish.
 */
int tio_sink_end_trace(tio_sink *s, const tio_trace *t);

/* Flush; prints summaries.  Call once after the last message. */
int tio_sink_finish(tio_sink *s);

void tio_sink_free(tio_sink *s);

/* Names of the sinks built in, NULL-terminated. */
const char *const *tio_sinks(void);

#ifdef __cplusplus
}
#endif
#endif
