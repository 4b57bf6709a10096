/*
 * Fuzz target: -F filter texts (src/filter).  The input is one filter per
 * line ("-v " before a line inverts it); each is parsed (and, parsed, printed
 * back by fx_dump), then the whole filter is checked and matched against
 * every event of two small bundled traces, so that the per-class compiler
 * and the evaluator (regexes, globs, COMM, CPU, stack traces) run on real
 * classes: tests/data/ftrace/funcs-v6.dat (trace.dat) and
 * tests/data/ctf/wk-heartbeat-u (LTTng-UST, vpid/vtid contexts).
 */
#include <stdlib.h>
#include <string.h>

#include "filter/filter-int.h"
#include "fuzz.h"

#ifndef TIO_FUZZ_DATA
#define TIO_FUZZ_DATA "tests/data"
#endif

/* The traces, opened once for every input. */
static tio_trace *traces[2];
static size_t ntraces;

static void open_traces(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	const char *paths[] = {TIO_FUZZ_DATA "/ftrace/funcs-v6.dat",
			       TIO_FUZZ_DATA "/ctf/wk-heartbeat-u"};
	for (size_t i = 0; i < 2; i++)
		if (!tio_trace_open(paths[i], NULL, &traces[ntraces]))
			ntraces++;
	tio_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	open_traces();
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	tio_filter *f = NULL;
	if (tio_filter_new(&f))
		goto out;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		bool inv = !strncmp(line, "-v ", 3);
		if (inv)
			line += 3;
		fx_filter x;
		if (!fx_parse(line, &x)) {
			tio_buf b = {0};
			fx_dump(&x, &b);
			tio_buf_free(&b);
		}
		fx_filter_fini(&x);
		tio_filter_add(f, line, inv); /* errors are fine: the others stay */
	}
	tio_filter_check(f, traces, ntraces);
	for (size_t i = 0; i < ntraces; i++) {
		tio_mux *mux = NULL;
		if (tio_mux_new(&traces[i], 1, &mux))
			continue;
		const tio_msg *m;
		int r;
		for (int k = 0; k < 5000 && (r = tio_mux_next(mux, &m)) != 0; k++)
			if (r > 0)
				tio_filter_match(f, m);
		tio_mux_free(mux);
	}
out:
	tio_filter_free(f);
	tio_err_clear();
	free(text);
	return 0;
}
