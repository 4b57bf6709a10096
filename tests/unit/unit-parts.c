/*
 * Reading in parts (tio_mux_set_part, tio_sink_merge), the calls a program
 * can get wrong (public headers only): a part number out of range, a part
 * with a begin bound, a seek on a part, merging sinks that cannot be, or
 * of two kinds.  Each is TIO_ERR_USAGE or TIO_ERR_UNSUPPORTED with a
 * message, and a part that refused to start reads nothing.  The parts
 * themselves: tests/api/test-parts.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "traceio/error.h"
#include "traceio/mux.h"
#include "traceio/sink.h"
#include "traceio/trace.h"
#include "unit-check.h"

static tio_trace *open_trace(void)
{
	const char *t = getenv("TIO_TOP");
	char p[4096];
	snprintf(p, sizeof(p), "%s/tests/data/ctf/lttng-ust-discard", t ? t : ".");
	return unit_open_one(p);
}

int main(void)
{
	tio_trace *t = open_trace();
	if (!t)
		return 1;
	tio_mux *m = NULL;
	const tio_msg *msg;

	CHECK(!tio_mux_new(&t, 1, &m), "mux");
	CHECK(tio_mux_set_part(m, 2, 2) == TIO_ERR_USAGE, "part 2 of 2 accepted");
	CHECK(strstr(tio_error_message(), "part 2 of 2") != NULL, "message: %s", tio_error_message());
	CHECK(tio_mux_set_part(m, 0, 0) == TIO_ERR_USAGE, "part 0 of 0 accepted");
	tio_mux_free(m);

	/* a begin bound: the first message is the error, then nothing */
	CHECK(!tio_mux_new(&t, 1, &m), "mux");
	tio_mux_set_begin(m, 0);
	CHECK(!tio_mux_set_part(m, 0, 2), "part 0 of 2");
	CHECK(tio_mux_next(m, &msg) == TIO_ERR_USAGE, "a part with a begin bound read");
	CHECK(strstr(tio_error_message(), "begin bound") != NULL, "message: %s", tio_error_message());
	CHECK(tio_mux_next(m, &msg) == 0, "a part that refused to start read something");
	tio_mux_free(m);
	tio_trace_free(t);

	/* a seek on a part */
	t = open_trace();
	CHECK(t && !tio_mux_new(&t, 1, &m), "mux");
	CHECK(!tio_mux_set_part(m, 1, 2), "part 1 of 2");
	CHECK(tio_mux_next(m, &msg) == 1, "part 1 of 2: no message");
	CHECK(tio_mux_seek(m, 0) == TIO_ERR_USAGE, "a seek on a part");
	CHECK(strstr(tio_error_message(), "tio_mux_set_part") != NULL, "message: %s", tio_error_message());
	tio_mux_free(m);
	tio_trace_free(t);

	/* sinks */
	tio_sink *a = NULL, *b = NULL, *c = NULL;
	CHECK(!tio_sink_new("json", stdout, stderr, &a) && !tio_sink_new("json", stdout, stderr, &b), "json sinks");
	CHECK(tio_sink_merge(a, b) == TIO_ERR_UNSUPPORTED, "two json sinks merged");
	CHECK(strstr(tio_error_message(), "cannot be merged") != NULL, "message: %s", tio_error_message());
	CHECK(!tio_sink_new("info", stdout, stderr, &c), "info sink");
	CHECK(tio_sink_merge(c, a) == TIO_ERR_UNSUPPORTED, "an info and a json sink merged");
	tio_sink_free(a);
	tio_sink_free(b);
	tio_sink_free(c);
	CHECK(!tio_sink_new("dummy", stdout, stderr, &a) && !tio_sink_new("dummy", stdout, stderr, &b), "dummy sinks");
	CHECK(!tio_sink_merge(a, b), "two dummy sinks not merged");
	tio_sink_free(a);
	tio_sink_free(b);

	if (failures)
		printf("%d failures\n", failures);
	else
		printf("ok\n");
	return failures != 0;
}
