/*
 * Internal sink interface.  A sink is a struct whose first member is a
 * `struct tio_sink`; ops->size says how big it is.  Sinks read the model
 * (src/ir) directly: they are inside the library.
 */
#ifndef TIO_SINK_INTERNAL_H
#define TIO_SINK_INTERNAL_H

#include "ir/ir.h"
#include "traceio/sink.h"

typedef struct tio_sink_ops {
	const char *name;
	size_t size;
	int (*init)(tio_sink *s);
	int (*set)(tio_sink *s, const char *key, const char *value);
	int (*add_trace)(tio_sink *s, const tio_trace *t); /* optional: an input, before messages */
	int (*consume)(tio_sink *s, const tio_msg *m);
	int (*skip)(tio_sink *s, const tio_msg *m); /* optional: see tio_sink_skip */
	int (*skip_wants)(tio_sink *s, const tio_event_class *ec); /* optional: see tio_sink_skip_wants */
	int (*filtered)(tio_sink *s, const tio_msg *m); /* optional: see tio_sink_filtered */
	int (*merge)(tio_sink *into, tio_sink *from); /* optional: see tio_sink_merge */
	int (*merge_begin)(tio_sink *into, tio_sink *from); /* optional: see tio_sink_merge_begin */
	int (*flush)(tio_sink *s);			/* optional: see tio_sink_flush */
	int (*end_trace)(tio_sink *s, const tio_trace *t); /* optional: see tio_sink_end_trace */
	int (*finish)(tio_sink *s);
	void (*fini)(tio_sink *s);
} tio_sink_ops;

struct tio_sink {
	const tio_sink_ops *ops;
	FILE *out;
	FILE *err;
};

/*
 * Write the text gathered in `b` to the sink's output and empty `b`:
 * straight to the file descriptor (no second copy through stdio), stdio
 * flushed first so that nothing written before is overtaken.
 */
int tio_sink_flush_buf(tio_sink *s, tio_buf *b);

/* Parse a boolean option value ("1", "yes", "true", "on" / "0", "no"...). */
int tio_sink_bool(const char *key, const char *value, bool *out);

/*
 * Names of several traces' directories, for the writers (option "input"):
 * the inputs as given, and the deepest directory that holds them all.
 */
typedef struct tio_sink_inputs {
	char **v; /* option input, once per input */
	size_t n, cap;
	char *base; /* absolute, found by tio_sink_trace_path; NULL: none (no input with a path) */
	bool known; /* base found */
} tio_sink_inputs;

/* Option "input": one more input path. */
int tio_sink_input_add(tio_sink_inputs *in, const char *path);
void tio_sink_inputs_free(tio_sink_inputs *in);

/*
 * Trace k's path below the deepest directory holding every input (a file
 * input: its directory): the inputs of option "input" or, without it,
 * where each of the n traces (`at(ctx, j)`) was found (its path less its
 * name below its input).  Points into *abs (free it); NULL when the trace
 * has no path or is not below it (then *abs is NULL).  TIO_ERR_NOMEM in
 * *err.
 */
const char *tio_sink_trace_path(tio_sink_inputs *in, const tio_trace *(*at)(const void *ctx, size_t j),
				const void *ctx, size_t n, size_t k, char **abs, int *err);

#endif
