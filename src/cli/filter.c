/*
 * The selection options of print and convert: -F/--filter, -v, --cpu,
 * --pid and --comm, turned into a tio_filter (include/traceio/filter.h)
 * and a CPU set, applied to every message of the loop (cli_run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Does a -F/--filter come after argv[i]? (then -v is trace-cmd's, not --verbose) */
static bool filter_follows(int argc, char **argv, int i)
{
	for (int k = i + 1; k < argc; k++) {
		const char *a = argv[k];
		if (!strcmp(a, "--"))
			return false;
		if (!strcmp(a, "-F") || !strncmp(a, "-F", 2) || !strcmp(a, "--filter") ||
		    !strncmp(a, "--filter=", 9))
			return true;
	}
	return false;
}

int cli_filter_opt(int argc, char **argv, int *i, cli_filter_opts *o)
{
	const char *a = argv[*i], *v = NULL;
	const char **dst = NULL;
	if (!strcmp(a, "-v")) {
		if (!filter_follows(argc, argv, *i))
			return 0;
		if (o->invert) {
			fprintf(
			    stderr,
			    "traceio: only one -v can be used (it inverts every -F after it)\n");
			return -1;
		}
		o->invert = true;
		return 1;
	}
	bool is_filter = false;
	if (!strcmp(a, "-F") || !strcmp(a, "--filter")) {
		is_filter = true;
	} else if (!strncmp(a, "--filter=", 9)) {
		is_filter = true;
		v = a + 9;
	} else if (!strncmp(a, "-F", 2) && a[2]) {
		is_filter = true;
		v = a + 2;
	} else if (!strcmp(a, "--cpu")) {
		dst = &o->cpus;
	} else if (!strncmp(a, "--cpu=", 6)) {
		dst = &o->cpus;
		v = a + 6;
	} else if (!strcmp(a, "--pid")) {
		dst = &o->pids;
	} else if (!strncmp(a, "--pid=", 6)) {
		dst = &o->pids;
		v = a + 6;
	} else if (!strcmp(a, "--comm")) {
		dst = &o->comms;
	} else if (!strncmp(a, "--comm=", 7)) {
		dst = &o->comms;
		v = a + 7;
	} else {
		return 0;
	}
	if (!v) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "traceio: %s needs a value\n", a);
			return -1;
		}
		v = argv[++*i];
	}
	if (is_filter) {
		if (o->n == CLI_MAX_FILTERS) {
			fprintf(stderr, "traceio: more than %d -F\n", CLI_MAX_FILTERS);
			return -1;
		}
		o->exprs[o->n] = v;
		o->inverted[o->n++] = o->invert;
		return 1;
	}
	if (*dst) { /* several --pid/--comm add up, as in trace-cmd; --cpu lists too */
		fprintf(stderr, "traceio: give %s once, with a comma-separated list\n", a);
		return -1;
	}
	*dst = v;
	return 1;
}

/* Parse "N[,M-K...]" into a CPU set.  0 or -1 (message printed). */
static int parse_cpus(const char *s, bool **set, size_t *n)
{
	const char *p = s;
	while (*p) {
		char *e;
		long a = strtol(p, &e, 10), b = a;
		if (e == p || a < 0 || a > 4095)
			goto bad;
		p = e;
		if (*p == '-') {
			b = strtol(p + 1, &e, 10);
			if (e == p + 1 || b < a || b > 4095)
				goto bad;
			p = e;
		}
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
		if ((size_t)b >= *n) {
			bool *ns = realloc(*set, (size_t)b + 1);
			if (!ns) {
				fprintf(stderr, "traceio: out of memory\n");
				return -1;
			}
			memset(ns + *n, 0, (size_t)b + 1 - *n);
			*set = ns;
			*n = (size_t)b + 1;
		}
		for (long c = a; c <= b; c++)
			(*set)[c] = true;
	}
	return 0;
bad:
	fprintf(stderr, "traceio: --cpu '%s': expected N[,M-K...]\n", s);
	return -1;
}

/* Append to a growing string; false when out of memory. */
static bool cat(char **s, size_t *len, const char *add)
{
	size_t l = strlen(add);
	char *n = realloc(*s, *len + l + 1);
	if (!n)
		return false;
	memcpy(n + *len, add, l + 1);
	*s = n;
	*len += l;
	return true;
}

/*
 * The --pid/--comm filter, as trace-cmd report makes it for trace.dat:
 * ".*:(common_pid==P)||(pid==P)||(next_pid==P)" for each pid, --comm names
 * becoming the pids their saved command line has.  Other formats match
 * LTTng's thread and process ids (pid, tid, vpid, vtid: contexts or payload
 * fields, and sched_switch's next_tid) and, for --comm, the procname
 * context and the comm/next_comm payload fields.  *out NULL: no filter.
 */
static int pid_filter(const cli_filter_opts *o, tio_trace **traces, size_t n, char **out)
{
	bool other = false;
	for (size_t i = 0; i < n; i++)
		other |= strcmp(tio_trace_format(traces[i]), "tracedat") != 0;
	char *s = NULL, *list = NULL;
	size_t len = 0;
	int r = -1;
	char term[256];
	bool any = false;
	/* every pid: the --pid ones, then those of the --comm names (trace.dat) */
	size_t plen = 0;
	char *pids = NULL;
	if (o->pids && !cat(&pids, &plen, o->pids))
		goto oom;
	if (o->comms) {
		if (!(list = strdup(o->comms)))
			goto oom;
		for (char *save = NULL, *c = strtok_r(list, ",", &save); c;
		     c = strtok_r(NULL, ",", &save)) {
			bool found = false;
			for (size_t i = 0; i < n; i++) {
				int64_t v[256];
				size_t k = tio_trace_comm_pids(traces[i], c, v, 256);
				for (size_t j = 0; j < k && j < 256; j++) {
					snprintf(term, sizeof(term), "%s%lld", plen ? "," : "",
						 (long long)v[j]);
					if (!cat(&pids, &plen, term))
						goto oom;
				}
				found |= k > 0;
			}
			if (!found && !other)
				fprintf(stderr,
					"traceio: warning: --comm: '%s' is not in the saved "
					"command lines\n",
					c);
			if (other) {
				if (strchr(c, '"')) {
					fprintf(stderr, "traceio: --comm: a name with '\"'\n");
					goto out;
				}
				snprintf(
				    term, sizeof(term),
				    "%s(procname==\"%s\")||(comm==\"%s\")||(next_comm==\"%s\")",
				    any ? "||" : ".*:", c, c, c);
				if (!cat(&s, &len, term))
					goto oom;
				any = true;
			}
		}
	}
	for (char *p = pids; p && *p;) {
		char *e;
		long long v = strtoll(p, &e, 10);
		if (e == p || (*e && *e != ',')) {
			fprintf(stderr, "traceio: --pid '%s': expected PID[,PID...]\n",
				o->pids ? o->pids : "");
			goto out;
		}
		snprintf(term, sizeof(term), "%s(common_pid==%lld)||(pid==%lld)||(next_pid==%lld)",
			 any ? "||" : ".*:", v, v, v);
		if (!cat(&s, &len, term))
			goto oom;
		if (other) {
			snprintf(term, sizeof(term),
				 "||(tid==%lld)||(vpid==%lld)||(vtid==%lld)||(next_tid==%lld)", v,
				 v, v, v);
			if (!cat(&s, &len, term))
				goto oom;
		}
		any = true;
		p = *e ? e + 1 : e;
	}
	*out = s;
	s = NULL;
	r = 0;
	goto out;
oom:
	fprintf(stderr, "traceio: out of memory\n");
out:
	free(s);
	free(list);
	free(pids);
	return r;
}

int cli_filter_build(const cli_filter_opts *o, tio_trace **traces, size_t n, bool cpu_in_sink,
		     cli_filter *cf)
{
	memset(cf, 0, sizeof(*cf));
	if (o->cpus && !cpu_in_sink && parse_cpus(o->cpus, &cf->cpus, &cf->ncpus))
		return 2;
	char *pf = NULL;
	if ((o->pids || o->comms) && pid_filter(o, traces, n, &pf))
		return 2;
	if (!o->n && !pf)
		return 0;
	if (tio_filter_new(&cf->f)) {
		cli_error(NULL);
		free(pf);
		return 1;
	}
	for (size_t i = 0; i < o->n; i++) {
		if (tio_filter_add(cf->f, o->exprs[i], o->inverted[i])) {
			cli_error(NULL);
			free(pf);
			return 2;
		}
	}
	if (pf && tio_filter_add(cf->f, pf, false)) {
		cli_error("--pid/--comm");
		free(pf);
		return 2;
	}
	free(pf);
	if (tio_filter_check(cf->f, traces, n)) {
		cli_error(NULL);
		return 2;
	}
	return 0;
}

/* tio_mux_set_event_classes callback: the classes the filter can keep. */
static int wants(void *arg, const tio_event_class *ec)
{
	return tio_filter_wants(arg, ec);
}

void cli_filter_classes(cli_filter *cf, tio_mux *mux)
{
	if (cf->f)
		tio_mux_set_event_classes(mux, wants, cf->f);
}

/* cli_filter_keep when there is something to apply. */
int cli_filter_match(cli_filter *cf, const tio_msg *m)
{
	if (cf->cpus && tio_msg_kind(m) == TIO_MSG_KIND_EVENT) {
		uint64_t cpu;
		if (!tio_msg_cpu(m, &cpu) || cpu >= cf->ncpus || !cf->cpus[cpu])
			return 0;
	}
	return cf->f ? tio_filter_match(cf->f, m) : 1;
}

void cli_filter_free(cli_filter *cf)
{
	tio_filter_free(cf->f);
	free(cf->cpus);
	memset(cf, 0, sizeof(*cf));
}
