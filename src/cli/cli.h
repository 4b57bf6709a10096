/* Shared pieces of the traceio subcommands. */
#ifndef TIO_CLI_H
#define TIO_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traceio/traceio.h"

int cli_print(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_convert(int argc, char **argv);
int cli_check(int argc, char **argv);

bool cli_path_exists(const char *path);
const char *cli_format_list(void);

/* Open every input (directories are searched for traces).  Prints errors. */
int cli_open_inputs(char **paths, size_t npaths, const char *format, tio_trace ***traces,
		    size_t *ntraces);
void cli_free_traces(tio_trace **traces, size_t n);

/*
 * Parse a babeltrace2 time (print.c): "[-]SEC[.NS]" (ns from origin),
 * "YYYY-MM-DD HH:MM[:SS[.NS]]" or "HH:MM[:SS[.NS]]" (*tod set).  0 or -1.
 */
int cli_parse_time(const char *s, bool gmt, int64_t *ns, bool *tod);

/* Print "traceio: <message>" for the last library error. */
void cli_error(const char *what);

/*
 * Drive messages from `mux` to `sink`.  Returns the process exit status:
 * 0 when everything was read, 1 when errors were skipped (or --strict stopped).
 */
int cli_run(tio_mux *mux, tio_sink *sink, bool strict);

#endif
