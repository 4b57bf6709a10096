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
	const char *ts2secs; /* --ts2secs HZ: trace.dat time stamps' rate */
	bool raw_ts;	     /* --raw-ts: trace.dat stamps without corrections */
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
	"  --ts2secs HZ          trace.dat: the time stamps count at HZ per second (as trace-cmd\n" \
	"                        report --ts2secs: each one times 1e9 / HZ, after TIME_SHIFT,\n" \
	"                        instead of TSC2NSEC), for the counter and x86-tsc clocks,\n" \
	"                        whose rate the file does not give\n" \
	"  --raw-ts              trace.dat: the ring buffer's time stamps as they are (as\n" \
	"                        trace-cmd report --raw-ts: no TIME_SHIFT, --ts2secs, TSC2NSEC,\n" \
	"                        OFFSET nor --date offset; shown as integers)\n" \
	"  --clock-exact         clock values to ns as exact integer floors; by default they\n" \
	"                        are computed as babeltrace2 does (through doubles: 1 ns less\n" \
	"                        for some values of clocks that do not tick at 1 GHz)\n"

/*
 * argv[*i] is a reader option: take it (and its value, moving *i) into `o`
 * and return 1; 0 when it is not one; -1 (message printed) when its value
 * is missing or bad.
 */
int cli_reader_opt(int argc, char **argv, int *i, cli_reader_opts *o);

/* The trace.dat options given with no trace.dat among the inputs, or --ltt-tsc with no LTTng 0.x
   one: 1 (message printed), as the SQL module and Python refuse an option no input takes; print,
   info and convert call it (check goes path by path). */
int cli_reader_opts_unused(tio_trace **traces, size_t n, const cli_reader_opts *o);
/* The same for inputs opened one after another: their formats counted as they come. */
typedef struct cli_seen {
	size_t tracedat, lttng0;
} cli_seen;
void cli_formats_seen(tio_trace **traces, size_t n, cli_seen *seen);
int cli_reader_opts_unused_seen(const cli_seen *seen, const cli_reader_opts *o);
/* Apply `o` to every trace whose reader takes it.  Prints errors; 0 or 1. */
int cli_apply_reader_opts(tio_trace **traces, size_t n, const cli_reader_opts *o);
/* The same without a word (the error stays set). */
int cli_set_reader_opts(tio_trace **traces, size_t n, const cli_reader_opts *o);
/*
 * cli_open_inputs then cli_set_reader_opts, printing nothing (the inputs
 * were opened once already, which said it all, or the caller opens them
 * again to say it): 0 or 1, also 1 for an option that no input takes
 * (cli_reader_opts_unused).
 */
int cli_open_inputs_quiet(char **paths, size_t npaths, const char *format, const cli_reader_opts *o,
			  tio_trace ***traces, size_t *ntraces);

/* Print the traces' warnings (tio_trace_warning) to cli_err(), "traceio: warning: ...". */
void cli_print_warnings(tio_trace **traces, size_t n);

/*
 * Parse a babeltrace2 time (print.c): "[-]SEC[.NS]" (ns from origin),
 * "YYYY-MM-DD HH:MM[:SS[.NS]]" or "HH:MM[:SS[.NS]]" (*tod set).  0 or -1.
 */
int cli_parse_time(const char *s, bool gmt, int64_t *ns, bool *tod);

/* Print "traceio: <message>" for the last library error (to cli_err()). */
void cli_error(const char *what);

/*
 * Where this thread's messages go (cli_error, warnings, the reader options'
 * refusals): stderr unless cli_err_to gave another stream (convert_each's
 * threads: a buffer each, printed in the inputs' order once they end).
 */
FILE *cli_err(void);
void cli_err_to(FILE *f);

/*
 * The selection options of print and convert (src/cli/filter.c): -F/--filter
 * EXPR (repeatable), -v (the -F after it drop what they match), --cpu LIST,
 * --pid LIST, --comm LIST.
 */
#define CLI_MAX_FILTERS 64
typedef struct cli_filter_opts {
	const char *exprs[CLI_MAX_FILTERS];
	bool inverted[CLI_MAX_FILTERS];
	size_t n;
	bool invert; /* a -v was seen */
	const char *cpus, *pids, *comms;
} cli_filter_opts;

#define CLI_FILTER_OPTS_HELP                                                                     \
	"  -F, --filter EXPR     keep the events EXPR matches, trace-cmd report's syntax:\n"          \
	"                        'EVENTS[: FIELD OP VALUE [&&|| ...]]', e.g.\n"                      \
	"                        -F 'sched_switch: prev_pid != 0 && next_comm =~ \"^bash\"';\n"     \
	"                        EVENTS: NAME, SYSTEM/NAME or provider:event, comma-separated\n"      \
	"                        regular expressions; OP: == != < <= > >= =~ !~ (regex), ~\n"        \
	"                        (glob), & | ^ + - * / %% << >> (true when not 0); !, (), &&\n"     \
	"                        and || (same precedence, from the left); COMM and CPU are the\n"    \
	"                        task name and CPU.  Several -F: an event passes if one does;\n"     \
	"                        classes that no -F names are dropped (docs/API.md, Filters)\n"      \
	"  -v                    (before -F) the -F after it drop the events they match\n"           \
	"  --pid PID[,PID...]    only these tasks (trace.dat: common_pid, pid or next_pid, as\n"     \
	"                        trace-cmd; CTF: also tid, vpid, vtid, next_tid)\n"                 \
	"  --comm NAME[,NAME...] only these task names (trace.dat: the pids of the saved\n"         \
	"                        command lines, as trace-cmd; CTF: procname, comm, next_comm)\n"

/* argv[*i] is a selection option: take it (1), not one (0), bad (-1, message printed). */
int cli_filter_opt(int argc, char **argv, int *i, cli_filter_opts *o);

typedef struct cli_filter {
	tio_filter *f; /* NULL: no -F, --pid, --comm */
	bool *cpus;    /* --cpu when the CLI applies it (NULL: every CPU) */
	size_t ncpus;
} cli_filter;

/*
 * Make the filter of `o` for these traces (cpu_in_sink: the sink applies
 * --cpu itself).  Returns an exit status: 0, 1 (error), 2 (bad option);
 * messages printed.
 */
int cli_filter_build(const cli_filter_opts *o, tio_trace **traces, size_t n, bool cpu_in_sink, cli_filter *cf);
/*
 * Tell the mux which classes can pass (tio_filter_wants), so that trace.dat
 * streams pass over the others undecoded.  Not for a sink that must see
 * the events a filter drops (the trace-cmd style: tio_sink_filtered).
 */
void cli_filter_classes(cli_filter *cf, tio_mux *mux);
int cli_filter_match(cli_filter *cf, const tio_msg *m);
/* 1: keep m, 0: drop it, < 0: error.  cf may be NULL.  In line: called per message. */
static inline int cli_filter_keep(cli_filter *cf, const tio_msg *m)
{
	return cf && (cf->cpus || cf->f) ? cli_filter_match(cf, m) : 1;
}
void cli_filter_free(cli_filter *cf);

/*
 * Drive messages from `mux` to `sink`, those `cf` drops (cf may be NULL)
 * going to tio_sink_filtered.  Returns the process exit status: 0 when
 * everything was read, 1 when errors were skipped (or --strict stopped).
 */
int cli_run(tio_mux *mux, tio_sink *sink, bool strict, cli_filter *cf);

/*
 * Commands that do little with each message (print -o dummy, info --count,
 * check), when they read through one mux (not in parts, or again after a
 * part's error), use no worker thread unless TIO_THREADS says otherwise:
 * handing messages between threads costs them more than it saves
 * (bench/threads.sh).  On big traces they read in parts instead (below).
 */
void cli_decode_only_threads(tio_mux *mux);

/*
 * print -o dummy and info --count on every core (src/cli/parts.c; check.c
 * cuts its traces with cli_parts too, with a loop of its own): how
 * many parts to read the traces in, one thread each (TIO_THREADS, else
 * the CPUs online, 8 at most, when the packet indexes hold 32 MiB or more
 * per part; 1: none), and the read itself: each part opens the inputs again and
 * reads its part through its own merge into its own `sink_name` sink
 * (tio_mux_set_part); the sinks are merged (tio_sink_merge) and the first
 * finishes.  Returns the exit status, or -1 when nothing was printed and
 * the caller must read the whole inputs itself (a part met an error: a
 * whole read prints it, in its place).
 */
unsigned cli_parts(tio_trace **traces, size_t n);
int cli_run_parts(char **inputs, size_t ninputs, const char *format, const cli_reader_opts *ropts,
		  const char *sink_name, unsigned nparts);

/*
 * print -o dummy before it opens the traces itself (the open and the index
 * cost some 3 ms on a 247 MB trace): the parts from the inputs' file sizes
 * (cli_parts_of_paths: the sizes of the files under them), and part 0's
 * warnings printed as a whole open prints them when the parts succeed.
 */
unsigned cli_parts_of_paths(char **paths, size_t n);
/* The parts for `bytes` of inputs (TIO_THREADS, else a CPU per 32 MiB, 8 at most), and an
 * input's bytes (the files under it, its own path resolved first: a fleet's inputs may be links). */
unsigned cli_parts_for(uint64_t bytes);
uint64_t cli_input_bytes(const char *path);
int cli_run_parts_unopened(char **inputs, size_t ninputs, const char *format, const cli_reader_opts *ropts,
			   const char *sink_name, unsigned nparts);

/*
 * cli_run_parts for a writer whose output keeps the order (convert --to
 * parquet), before the caller opens the inputs (nparts from
 * cli_parts_of_paths): the parts are read in order
 * (tio_mux_set_part_in_order), each part's sink is set up by `setup`
 * (options, inputs added) and flushed on its thread (tio_sink_flush);
 * part 0's open warnings are printed as a whole open prints them.  A part
 * whose open has nothing to cut (cli_parts < 2: no index, a small one) or
 * whose events' times go back fails the whole (-1: the caller reads on one
 * thread).  `progress`: convert's progress line on stderr (the events of
 * every part, shown from part 0's thread).
 */
typedef int (*cli_part_setup)(tio_sink *sink, tio_trace **traces, size_t n, unsigned nparts, void *arg);
int cli_run_parts_in_order(char **inputs, size_t ninputs, const char *format, const cli_reader_opts *ropts,
			   const char *sink_name, unsigned nparts, cli_part_setup setup, void *arg, bool progress);

#endif
