/*
 * traceio: event filters in trace-cmd report's -F syntax.
 *
 *   tio_filter *f;
 *   tio_filter_new(&f);
 *   tio_filter_add(f, "sched_switch: prev_pid != 0 && next_comm =~ \"^bash\"", false);
 *   tio_filter_check(f, traces, ntraces);      // optional: every event name used exists
 *   while (tio_mux_next(mux, &m) > 0)
 *           if (tio_filter_match(f, m) > 0) ...;  // keep it
 *   tio_filter_free(f);
 *
 * A filter is "EVENTS[: EXPRESSION]" (docs/API.md, "Filters", has the whole
 * syntax).  Each one is parsed once when added; it is compiled for an event
 * class the first time a message of that class is matched (its field names
 * resolved to tio_field_ref once), so matching an event costs no allocation
 * and no string comparison of names.  A filter is for one thread at a time.
 */
#ifndef TRACEIO_FILTER_H
#define TRACEIO_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "traceio/msg.h"
#include "traceio/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tio_filter tio_filter;

/* An empty filter (it keeps every message).  TIO_ERR_NOMEM. */
int tio_filter_new(tio_filter **out);

/*
 * Add one -F expression.  invert: trace-cmd's -v (an event it matches is
 * dropped).  When at least one filter is not inverted, an event is kept only
 * when one of those matches it (events of classes none of them names are
 * dropped), then dropped when any inverted one matches it.  A syntax error
 * returns TIO_ERR_USAGE, with a message naming the column (1-based) in
 * `expr`: "-F: unknown operator '=>' at 23".
 */
int tio_filter_add(tio_filter *f, const char *expr, bool invert);

/*
 * Check the event names of every filter against the event classes of
 * `traces`: a name (or regular expression) that matches no class is an
 * error, TIO_ERR_USAGE (trace-cmd refuses such a filter too).
 */
int tio_filter_check(tio_filter *f, tio_trace *const *traces, size_t n);

/*
 * 1: keep the message, 0: drop it.  Only events are filtered (any other kind
 * of message gives 1).  Call it on every event in order: a kernel_stack or
 * user_stack event that no filter names follows the fate of the event before
 * it on its CPU, as in trace-cmd.  TIO_ERR_NOMEM when compiling a class
 * fails.
 */
int tio_filter_match(tio_filter *f, const tio_msg *m);

/*
 * Whether events of class `ec` can pass: TIO_SKIP_WANT when no filter
 * keeps only named classes, a non-inverted filter names it, or it is a
 * trace.dat stack trace (which may follow a kept event); TIO_SKIP_NONE
 * otherwise (tio_filter_match drops all its events).  Suits
 * tio_mux_set_event_classes, so that trace.dat streams pass over the
 * others without decoding them.
 */
int tio_filter_wants(tio_filter *f, const tio_event_class *ec);

/* Number of filters added (0: tio_filter_match keeps everything). */
size_t tio_filter_count(const tio_filter *f);

void tio_filter_free(tio_filter *f);

#ifdef __cplusplus
}
#endif
#endif
