/*
 * traceio: the command-line tool.  One file per subcommand; this one
 * dispatches.  The CLI uses only the public API (include/traceio/).
 */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f,
		"traceio %s: read, print, convert and check trace files from Linux tracers\n"
		"\n"
		"usage: traceio [COMMAND] [OPTIONS] TRACE...\n"
		"\n"
		"commands:\n"
		"  print TRACE...    print the events of every TRACE merged by time (the default\n"
		"                    when the first argument is a path)\n"
		"  info TRACE...     formats, streams, event classes, packets, time range and\n"
		"                    estimated events from the packet index (--count: read\n"
		"                    everything and count per class)\n"
		"  check TRACE...    read every TRACE to the end and list every problem with its\n"
		"                    location; exit 0 only when clean\n"
		"  convert -o OUT INPUT...\n"
		"                    write every INPUT, merged by time, as one trace in another\n"
		"                    format: CTF 1.8 or 2, trace.dat, new LTT, LTTng 2008 layout,\n"
		"                    Perfetto, SQLite, Parquet\n"
		"                    (see traceio help convert)\n"
		"  sql TRACE... 'SELECT ...'\n"
		"                    SQL (SQLite) over the traces, read directly: events, one\n"
		"                    table per event class, sched_slice, thread_state...\n"
		"                    (see traceio help sql; the same tables in the sqlite3\n"
		"                    shell: .load libtraceio_sqlite)\n"
		"  help [COMMAND]    this text, or the options of COMMAND\n"
		"\n"
		"formats read: %s\n"
		"formats written: ctf (1.8, 2), tracedat, ltt, lttng0, perfetto, sqlite, parquet\n"
		"\n"
		"environment: TIO_READAHEAD=0 reads CTF without the helper thread that maps\n"
		"the next packet while one is decoded (used when there are 2 CPUs or more);\n"
		"TIO_SEEK=0 makes --begin read every trace from its beginning instead of\n"
		"going there through the packet index; TIO_THREADS=N decodes on N threads\n"
		"(default: the CPUs online when 8 MiB or more are left to read; 1: all\n"
		"on one thread; CTF and trace.dat streams; the output is the same);\n"
		"print -o dummy, info --count and check read the traces in N parts, one\n"
		"thread each, when there is 32 MiB or more per part (8 parts at most) or\n"
		"TIO_THREADS says N; so does\n"
		"convert --to parquet, with one part per 32 MiB of --buffer-size at most\n"
		"(the same rows; row groups also end where the parts meet);\n"
		"TIO_PQ_THREADS=0 makes convert --to parquet (in one part) compress its\n"
		"pages and write events.parquet on the decoding thread instead of a\n"
		"worker (used when there are 2 CPUs or more; the same bytes)\n",
		TRACEIO_VERSION, cli_format_list());
}

int main(int argc, char **argv)
{
#ifdef M_TRIM_THRESHOLD
	/* memory flat: freed memory over 4 MiB goes back to the system (glibc
	   keeps up to 32 MiB by default, and more once big blocks were freed:
	   the Parquet writer's page and chunk buffers, 105 MB peak RSS instead
	   of 120 MB on bench/parquet.sh's UST trace, same speed) */
	mallopt(M_TRIM_THRESHOLD, 4 << 20);
#endif
#ifdef M_MMAP_THRESHOLD
	/* setting M_TRIM_THRESHOLD stops glibc from raising its mmap threshold as big blocks are
	   freed: left at 128 KiB, every page buffer the Parquet writer grows past it (pages of up
	   to 256 KiB) was mapped, unmapped when given back and faulted in again (57,000 page faults
	   and 0.3 s of system time on bench/parquet.sh's UST trace; 37,000 and 0.18 s with 512 KiB);
	   column chunks (MiBs) are still mapped, so their memory still goes back at once */
	mallopt(M_MMAP_THRESHOLD, 512 << 10);
#endif
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		if (argc > 2 && !strcmp(argv[2], "print"))
			return cli_print(2, (char *[]){"print", "--help", NULL});
		if (argc > 2 && !strcmp(argv[2], "info"))
			return cli_info(2, (char *[]){"info", "--help", NULL});
		if (argc > 2 && !strcmp(argv[2], "check"))
			return cli_check(2, (char *[]){"check", "--help", NULL});
		if (argc > 2 && !strcmp(argv[2], "sql"))
			return cli_sql(2, (char *[]){"sql", "--help", NULL});
		if (argc > 2 && !strcmp(argv[2], "convert"))
			return cli_convert(2, (char *[]){"convert", "--help", NULL});
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("traceio %s\n", TRACEIO_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "print"))
		return cli_print(argc - 1, argv + 1);
	if (!strcmp(cmd, "info"))
		return cli_info(argc - 1, argv + 1);
	if (!strcmp(cmd, "check"))
		return cli_check(argc - 1, argv + 1);
	if (!strcmp(cmd, "convert"))
		return cli_convert(argc - 1, argv + 1);
	if (!strcmp(cmd, "sql"))
		return cli_sql(argc - 1, argv + 1);
	if (cmd[0] == '-' || strchr(cmd, '/') || cli_path_exists(cmd))
		return cli_print(argc, argv); /* argv[0] stands for "print" */
	fprintf(stderr, "traceio: unknown command '%s' (try 'traceio --help')\n", cmd);
	return 2;
}
