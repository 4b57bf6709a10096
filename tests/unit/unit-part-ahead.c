/*
 * A part of several (tio_mux_set_part, and tio_mux_set_part_in_order, which
 * convert --to parquet reads its parts with) starts no read-ahead helper
 * thread: the other parts' threads keep the CPUs busy.  Before 2026-11-27
 * only tio_mux_set_part's streams knew they were a part, and a Parquet
 * conversion in parts ran a third thread mapping pages ahead of the two
 * parts (100 ms of CPU time and 15 MiB more peak RSS on the UST bench trace).
 *
 * Both parts of a multi-packet CTF trace are read, each way, in this
 * process: its thread count stays 1.  Then a whole read starts the helper
 * (2 threads), which shows that the count sees it (2 CPUs or more only: on
 * one the helper never starts).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traceio/error.h"
#include "traceio/mux.h"
#include "traceio/trace.h"
#include "unit-check.h"

static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Read part k of n (n 0: the whole trace); the events read, -1 on an error. */
static long read_part(const char *path, unsigned k, unsigned n, bool in_order)
{
	tio_trace *t = unit_open_one(path);
	tio_mux *m = NULL;
	long nev = 0;
	if (!t || tio_mux_new(&t, 1, &m)) {
		tio_trace_free(t);
		return -1;
	}
	int r = 0;
	if (n)
		r = in_order ? tio_mux_set_part_in_order(m, k, n) : tio_mux_set_part(m, k, n);
	const tio_msg *msg;
	if (!r)
		while ((r = tio_mux_next(m, &msg)) > 0)
			nev += tio_msg_kind(msg) == TIO_MSG_KIND_EVENT;
	tio_mux_free(m);
	tio_trace_free(t);
	return r < 0 ? -1 : nev;
}

int main(void)
{
	const char *top = getenv("TIO_TOP");
	char p[4096];
	snprintf(p, sizeof(p), "%s/tests/data/ctf/lttng-ust-discard", top ? top : ".");
	long whole_n = -1;
	for (int in_order = 0; in_order < 2; in_order++) {
		long sum = 0;
		for (unsigned k = 0; k < 2; k++) {
			long n = read_part(p, k, 2, in_order);
			CHECK(n >= 0, "part %u of 2 (%s): %s", k, in_order ? "in order" : "any order",
			      tio_error_message());
			sum += n;
		}
		CHECK(sum > 0, "no events in the parts");
		CHECK(threads() == 1, "%d threads after reading the parts %s", threads(),
		      in_order ? "in order" : "in any order");
	}
	whole_n = read_part(p, 0, 0, false);
	CHECK(whole_n > 0, "whole read: %s", tio_error_message());
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2 && !getenv("TIO_READAHEAD"))
		CHECK(threads() == 2, "%d threads after a whole read (the helper not seen)", threads());
	printf("%s\n", failures ? "FAIL" : "ok");
	return failures != 0;
}
