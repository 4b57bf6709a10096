/*
 * tio_sink_set with a NULL value (a flag, sink.h) or an empty one, for
 * every option key any sink takes, on every sink: 0 or an error, never a
 * crash (the babeltrace text sink's fields/names/clock-offset/color and the Perfetto
 * writer's output once took NULL for a string).  A key that needs a value
 * says so; the booleans take NULL as on.
 */
#include <string.h>

#include "traceio/error.h"
#include "traceio/sink.h"
#include "unit-check.h"

static const char *const keys[] = {
	/* text, info, lttv, trace-cmd report */
	"fields", "names", "no-delta", "clock-cycles", "clock-seconds", "clock-date", "clock-gmt",
	"verbose", "clock-offset", "clock-offset-ns", "color", "count", "raw", "ns", "latency",
	"ts-diff", "cpu", "trace-path",
	/* writers */
	"output", "force", "input", "ctf-version", "packetize-metadata", "packet-size", "alignment",
	"arch", "arch-size", "block-size", "byte-order", "tsc-bits", "version", "compression",
	"compression-level", "row-group-size", "page-size", "dictionary-size", "buffer-size",
	"several-traces", "parts", "int-width", "partition-by",
	/* nobody's */
	"no-such-option",
};

int main(void)
{
	const char *const *names = tio_sinks();
	int n = 0;
	for (size_t i = 0; names[i]; i++)
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			for (int empty = 0; empty < 2; empty++) {
				tio_sink *s = NULL;
				CHECK(!tio_sink_new(names[i], stdout, stderr, &s), "sink %s: %s", names[i],
				      tio_error_message());
				if (!s)
					continue;
				tio_error_clear();
				int r = tio_sink_set(s, keys[k], empty ? "" : NULL);
				CHECK(r <= 0, "sink %s, %s = %s: %d", names[i], keys[k], empty ? "\"\"" : "NULL", r);
				CHECK(!r || *tio_error_message(), "sink %s, %s = %s: an error without a message",
				      names[i], keys[k], empty ? "\"\"" : "NULL");
				n++;
				tio_sink_free(s);
			}
	/* NULL where a value is needed is refused, named; a boolean takes it */
	tio_sink *s = NULL;
	CHECK(!tio_sink_new("babeltrace", stdout, stderr, &s), "babeltrace sink");
	if (s) {
		CHECK(tio_sink_set(s, "color", NULL) == TIO_ERR_USAGE &&
			  strstr(tio_error_message(), "color: needs a value"),
		      "babeltrace, color = NULL: %s", tio_error_message());
		CHECK(!tio_sink_set(s, "clock-gmt", NULL), "babeltrace, clock-gmt = NULL: %s", tio_error_message());
		tio_sink_free(s);
	}
	CHECK(n > 400, "only %d sink/option pairs tried", n);
	printf("%d sink/option pairs, %d failures\n", n, failures);
	return failures != 0;
}
