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
int cli_sql(int argc, char **argv);

bool cli_path_exists(const char *path);
const char *cli_format_list(void);

/* Open every input (directories are searched for traces).  Prints errors. */
int cli_open_inputs(char **paths, size_t npaths, const char *format, tio_trace ***traces,
		    size_t *ntraces);
void cli_free_traces(tio_trace **traces, size_t n);

/*
 * Reader options, the same for print, info, convert and check: each is a
 * tio_trace_set() key applied to the traces of the format that takes it.
 */
typedef struct cli_reader_opts {
	const char *ltt_tsc; /* --ltt-tsc RULE: LTTng 0.x compact timestamps */
	bool clock_exact;    /* --clock-exact: ns as exact integer floors (every format) */
} cli_reader_opts;

#define CLI_READER_OPTS_HELP                                                                    \
	"  --ltt-tsc RULE        LTTng 0.x: how a compact event header's 27 TSC bits extend the\n" \
	"                        previous event's TSC: nocarry (the high bits change only through\n" \
	"                        full 64-bit TSCs: an event a little earlier than the one before\n" \
	"                        it stays so, in file order), lttv (LTTV's rule and times: low\n" \
	"                        bits lower than the previous event's add 2^27), or auto (the\n" \
	"                        default: the tracer's own rule, nocarry for 32-bit traces\n" \
	"                        (arch_size 4), lttv's carry for 64-bit ones)\n" \
	"  --clock-exact         clock values to ns as exact integer floors; by default they\n" \
	"                        are computed as babeltrace2 does (through doubles: 1 ns less\n" \
	"                        for some values of clocks that do not tick at 1 GHz)\n"

/*
 * argv[*i] is a reader option: take it (and its value, moving *i) into `o`
 * and return 1; 0 when it is not one; -1 (message printed) when its value
 * is missing or bad.
 */
int cli_reader_opt(int argc, char **argv, int *i, cli_reader_opts *o);

/* Apply `o` to every trace whose reader takes it.  Prints errors; 0 or 1. */
int cli_apply_reader_opts(tio_trace **traces, size_t n, const cli_reader_opts *o);

/* Print the traces' warnings (tio_trace_warning) to stderr, "traceio: warning: ...". */
void cli_print_warnings(tio_trace **traces, size_t n);

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
