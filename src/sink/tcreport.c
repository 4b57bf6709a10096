/*
 * The "trace-cmd" sink: text identical to `trace-cmd report` (trace-cmd
 * 3.1.6 with libtraceevent 1.7 and its plugins), for traces that carry
 * ftrace event formats (ec->attrs "format" + "system"), raw records
 * (tio_msg.raw) and the side tables kallsyms / printk_formats /
 * saved_cmdlines (tio_trace_class.tables), i.e. what the trace.dat reader
 * produces.  Events without a format are printed as "name: field=value...".
 *
 *   cpus=N
 *   [instance: ]COMM-PID [CPU] SECONDS.USECS: NAME:<pad to 20> INFO
 *
 * Options: raw (report -R), ns (report -t: nanosecond timestamps),
 * cpu=N[,M...] (report --cpu).
 *
 * Several inputs (`report -i a.dat -i b.dat`, learnt through add_trace):
 * every `cpus=` line first, each prefixed by its file's base name
 * right-aligned to the longest base name or instance name of the files
 * before it (trace-cmd widens the prefix as it opens each file's
 * instances); then the events merged by time, top-buffer events prefixed
 * by their file's base name and instance events by their instance name,
 * right-aligned to the longest of all.
 */
#include <stdlib.h>

#include "sink/printfmt.h"
#include "sink/sink.h"

typedef struct tc_trace {
	const tio_trace *t;
	pf_ctx *ctx;
	pf_event **byid; /* parsed formats by event id (shared by every instance, like one tep) */
	size_t nbyid;
	int64_t *missed; /* per stream index: 0 none, -1 unknown count, > 0 */
	uint32_t nstreams;
	int prefix_width; /* longest instance name, 0 without instances */
	bool header_done;
	bool added; /* learnt through add_trace */
	/*
	 * The file's clock is not one trace-cmd 3.1.6 counts in ns (counter,
	 * x86-tsc, boot...): its time stamps print as "%12llu", with or without
	 * -t, right after the CPU.
	 */
	bool raw_ts;
	bool clock_known; /* the file names its trace clock (--ts-diff then counts in us) */
	bool ts2secs;	  /* the reader's ts2secs option (--ts-diff then counts in ns) */
	const char *base; /* file name without its directories (several inputs' prefix) */
	/*
	 * A funcgraph_entry waits for the next record of its file, as
	 * trace-cmd peeks at it: its return makes it a leaf line (and is not
	 * printed), anything else a nested call.  Its text goes in at `at` of
	 * the output, which is not written out meanwhile; `discard`: the entry
	 * came before --begin (only whether its return is swallowed matters).
	 */
	struct {
		bool on, discard;
		pf_event *e;
		size_t at;
		const tio_stream *stream; /* the entry's CPU */
		unsigned long long pid, func;
		tio_buf rec; /* the entry's bytes (the reader's buffer moves on) */
	} pend;
	/*
	 * After a return was swallowed, trace-cmd 3.1.6 prints the next record
	 * of that return's CPU first, even when other CPUs have earlier ones;
	 * for a return on another CPU than the entry's, even before the lines
	 * of other inputs that have the entry's time (seen on every such case;
	 * not with --cpu): its line goes in at `at`.
	 */
	struct {
		bool on;
		const tio_stream *stream;
		size_t at;
	} jump;
} tc_trace;

typedef struct tc_sink {
	tio_sink base;
	bool raw, ns;
	bool lat; /* -l: the latency format */
	bool tsdiff; /* --ts-diff: the time since the line before, after the time stamp */
	uint64_t last_diff_ts; /* that line's time stamp in --ts-diff's unit (0: none yet) */
	bool *cpus; /* filter, NULL = all */
	size_t ncpus;
	tc_trace *traces;
	size_t ntraces, cap;
	tc_trace *last; /* the trace of the previous message */
	size_t nadded;	/* traces learnt through add_trace (> 1: file-name prefixes) */
	int width; /* several inputs: longest base name or instance name */
	bool headers_done;
	tio_buf line; /* output, written out in blocks of OUT_BLOCK bytes */
	tio_buf scratch; /* the info of events before --begin, thrown away */
	/* tc_skip_wants: a function-graph entry was skipped (every record counts from then on),
	   and whether a class keeps plugin state, by class (direct-mapped cache) */
	bool fgraph_seen;
	const tio_event_class *stateful_key[64];
	bool stateful_val[64];
	/* per-second timestamp cache: the padded seconds text of `sec` */
	uint64_t sec;
	char sec_txt[24];
	size_t sec_len;
	bool sec_ok;
	pf_fstack *fstack; /* the function plugin's stacks, shared by every input as in trace-cmd */
	/* function graph look-ahead (tc_trace.pend, .jump): how many traces wait, scratch */
	size_t nwait;
	tio_buf gtext;
} tc_sink;

#define OUT_BLOCK (256 * 1024)

static int tc_set(tio_sink *s, const char *key, const char *value)
{
	tc_sink *k = (tc_sink *)s;
	if (!strcmp(key, "raw"))
		return tio_sink_bool(key, value, &k->raw);
	if (!strcmp(key, "ns"))
		return tio_sink_bool(key, value, &k->ns);
	if (!strcmp(key, "latency"))
		return tio_sink_bool(key, value, &k->lat);
	if (!strcmp(key, "ts-diff"))
		return tio_sink_bool(key, value, &k->tsdiff);
	if (!strcmp(key, "cpu")) {
		const char *p = value ? value : "";
		while (*p) {
			char *e;
			long a = strtol(p, &e, 10), b = a;
			if (e == p || a < 0 || a > 65535)
				return tio_err_set(TIO_ERR_USAGE, "option cpu: bad CPU list '%s'", value);
			if (*e == '-') {
				const char *q = e + 1;
				b = strtol(q, &e, 10);
				if (e == q || b < a || b > 65535)
					return tio_err_set(TIO_ERR_USAGE, "option cpu: bad CPU list '%s'", value);
			}
			if ((size_t)b >= k->ncpus) {
				bool *n = tio_realloc(k->cpus, (size_t)b + 1);
				if (!n)
					return TIO_ERR_NOMEM;
				memset(n + k->ncpus, 0, (size_t)b + 1 - k->ncpus);
				k->cpus = n;
				k->ncpus = (size_t)b + 1;
			}
			for (long i = a; i <= b; i++)
				k->cpus[i] = true;
			p = *e == ',' ? e + 1 : e;
			if (*e && *e != ',')
				return tio_err_set(TIO_ERR_USAGE, "option cpu: bad CPU list '%s'", value);
		}
		return 0;
	}
	return tio_err_set(TIO_ERR_USAGE, "sink trace-cmd takes no option '%s' (raw, ns, cpu)", key);
}

static const char *ec_attr(const tio_event_class *ec, const char *key)
{
	for (uint32_t i = 0; i < ec->nattrs; i++)
		if (!strcmp(ec->attrs[i].key, key))
			return ec->attrs[i].sval;
	return NULL;
}

static int64_t env_int(const tio_trace_class *tc, const char *key, int64_t dflt)
{
	const tio_kv *kv = tio_trace_class_env(tc, key);
	return kv && kv->is_int ? kv->ival : dflt;
}

static tc_trace *get_trace(tc_sink *k, const tio_trace *t)
{
	if (TIO_LIKELY(k->last && k->last->t == t))
		return k->last;
	for (size_t i = 0; i < k->ntraces; i++)
		if (k->traces[i].t == t)
			return &k->traces[i];
	if (tio_grow(&k->traces, &k->cap, k->ntraces + 1, sizeof(tc_trace)))
		return NULL;
	tc_trace *x = &k->traces[k->ntraces];
	memset(x, 0, sizeof(*x));
	const tio_trace_class *tc = t->tc;
	x->t = t;
	x->ctx = pf_ctx_new((int)env_int(tc, "long_size", 8), tc->byte_order == TIO_BE);
	x->nstreams = t->nstreams;
	x->missed = tio_calloc(t->nstreams ? t->nstreams : 1, sizeof(int64_t));
	if (!k->fstack)
		k->fstack = pf_fstack_new();
	if (!x->ctx || !x->missed || !k->fstack) {
		pf_ctx_free(x->ctx);
		free(x->missed);
		return NULL;
	}
	pf_ctx_set_fstack(x->ctx, k->fstack);
	const tio_kv *kv;
	if ((kv = tio_trace_class_table(tc, "saved_cmdlines")))
		pf_ctx_load_cmdlines(x->ctx, kv->sval);
	if ((kv = tio_trace_class_table(tc, "kallsyms")))
		pf_ctx_set_kallsyms(x->ctx, kv->sval);
	if ((kv = tio_trace_class_table(tc, "printk_formats")))
		pf_ctx_set_printk(x->ctx, kv->sval);
	for (uint32_t i = 0; i < tc->nscs; i++) {
		const char *n = tc->scs[i]->name;
		if (n && n[0] && (int)strlen(n) > x->prefix_width)
			x->prefix_width = (int)strlen(n);
	}
	x->clock_known = tio_trace_class_env(tc, "trace_clocks") != NULL;
	x->ts2secs = tio_trace_class_env(tc, "ts2secs") != NULL;
	/* the clocks trace-cmd 3.1.6 shows as seconds (a file without one: local) */
	if ((kv = tio_trace_class_env(tc, "trace_clock")) && !kv->is_int && kv->sval && kv->sval[0]) {
		static const char *const in_ns[] = {"local", "global", "uptime", "perf", "tai", "tsc2nsec"};
		bool ns = !strncmp(kv->sval, "mono", 4);
		for (size_t i = 0; i < sizeof(in_ns) / sizeof(in_ns[0]) && !ns; i++)
			ns = !strcmp(kv->sval, in_ns[i]);
		x->raw_ts = !ns;
	}
	/* with --ts2secs, trace-cmd does not read a v6 file's clock list: as a ns clock */
	bool unread = tio_trace_class_env(tc, "ts2secs_clock_unread") != NULL;
	if (unread)
		x->raw_ts = false;
	/* the reader's raw-ts option (trace-cmd report --raw-ts): integers whatever the
	   clock, when the file names one (trace-cmd decides it as it reads the name) */
	if (x->clock_known && !unread && (kv = tio_trace_class_env(tc, "raw_ts")) && kv->is_int && kv->ival)
		x->raw_ts = true;
	k->ntraces++;
	return x;
}

/* An input, before any message: with several, lines get file-name prefixes. */
static int tc_add_trace(tio_sink *s, const tio_trace *t)
{
	tc_sink *k = (tc_sink *)s;
	tc_trace *x = get_trace(k, t);
	if (!x)
		return TIO_ERR_NOMEM;
	if (x->added)
		return 0;
	x->added = true;
	k->nadded++;
	const char *p = t->path ? t->path : "", *sl = strrchr(p, '/');
	x->base = sl ? sl + 1 : p;
	if ((int)strlen(x->base) > k->width)
		k->width = (int)strlen(x->base);
	return 0;
}

/* The `cpus=` lines of every input learnt up front, in input order. */
static void all_headers(tc_sink *k)
{
	k->headers_done = true;
	for (size_t i = 0; i < k->ntraces; i++) {
		tc_trace *x = &k->traces[i];
		if (!x->added || x->header_done)
			continue;
		x->header_done = true;
		if (k->nadded > 1)
			tio_buf_addf(&k->line, "%*s: ", k->width, x->base);
		tio_buf_addf(&k->line, "cpus=%lld\n", (long long)env_int(x->t->tc, "cpus", x->t->nstreams));
		if (x->prefix_width > k->width)
			k->width = x->prefix_width;
	}
}

static pf_event *get_event(tc_trace *x, const tio_event_class *ec)
{
	uint64_t id = ec->id;
	if (id > (1u << 20))
		return NULL;
	if (id >= x->nbyid) {
		size_t n = (size_t)id + 1;
		pf_event **nb = tio_realloc(x->byid, n * sizeof(pf_event *));
		if (!nb)
			return NULL;
		memset(nb + x->nbyid, 0, (n - x->nbyid) * sizeof(pf_event *));
		x->byid = nb;
		x->nbyid = n;
	}
	if (!x->byid[id]) {
		const char *fmt = ec_attr(ec, "format");
		if (!fmt)
			return NULL;
		x->byid[id] = pf_event_parse(x->ctx, ec_attr(ec, "system"), fmt, strlen(fmt));
	}
	return x->byid[id];
}

/* Fallback for events without an ftrace format: " name=value" for each payload field. */
static void generic_fields(tio_buf *s, const tio_msg *m)
{
	const tio_val *st = m->scope[TIO_SCOPE_PAYLOAD];
	if (!st || !st->fc || st->fc->kind != TIO_FC_STRUCT)
		return;
	uint32_t i = (uint32_t)(st - m->vals) + 1;
	for (uint32_t k = 0; k < st->n && k < st->fc->st.nmembers && i < m->nvals; k++) {
		const tio_val *v = &m->vals[i];
		tio_buf_addf(s, " %s=", st->fc->st.members[k].name ? st->fc->st.members[k].name : "");
		switch (v->fc->kind) {
		case TIO_FC_INT:
		case TIO_FC_ENUM:
			if (v->fc->i.is_signed)
				tio_buf_addf(s, "%lld", (long long)v->v.i);
			else
				tio_buf_addf(s, v->fc->i.base == 16 ? "0x%llx" : "%llu", (unsigned long long)v->v.u);
			break;
		case TIO_FC_STRING:
		case TIO_FC_SSTRING:
		case TIO_FC_DSTRING:
			tio_buf_add(s, v->v.s.p, v->v.s.len);
			break;
		default:
			tio_buf_adds(s, "?");
			break;
		}
		i = v->end;
	}
}

/* Decimal digits of v into p, at least `min` of them (zero-padded); returns the length. */
static size_t put_dec(char *p, uint64_t v, int min)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				    "8081828384858687888990919293949596979899";
	char t[24];
	int n = 24;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		t[--n] = pairs[d + 1];
		t[--n] = pairs[d];
	}
	if (v >= 10) {
		t[--n] = pairs[v * 2 + 1];
		t[--n] = pairs[v * 2];
	} else {
		t[--n] = (char)('0' + v);
	}
	int len = 24 - n;
	int z = min > len ? min - len : 0;
	memset(p, '0', (size_t)z);
	memcpy(p + z, t + n, (size_t)len);
	return (size_t)(z + len);
}

/* Write the accumulated lines (one fwrite per block, not per line). */
static int flush_out(tc_sink *k)
{
	tio_buf *b = &k->line;
	if (b->len && fwrite(b->p, 1, b->len, k->base.out) != b->len)
		return tio_err_set(TIO_ERR_IO, "write error");
	tio_buf_reset(b);
	return 0;
}

/* The output from `at` on moved by n bytes: the marks of the traces that wait follow. */
static void marks_shift(tc_sink *k, size_t at, size_t n)
{
	for (size_t i = 0; i < k->ntraces; i++) {
		tc_trace *y = &k->traces[i];
		if (y->pend.on && y->pend.at >= at)
			y->pend.at += n;
		if (y->jump.on && y->jump.at >= at)
			y->jump.at += n;
	}
}

static void wait_set(tc_sink *k, bool *flag, bool on)
{
	if (*flag != on)
		k->nwait += on ? 1 : (size_t)-1;
	*flag = on;
}

/*
 * Settle the waiting funcgraph_entry of x with `m`, the next event of its
 * file (NULL: there is none).  Returns 1 when m is its return, swallowed.
 */
static int settle_pending(tc_sink *k, tc_trace *x, const tio_msg *m, size_t *line_end)
{
	pf_event *re = NULL;
	if (m && m->raw) {
		/* a return on another CPU counts too (trace-cmd 3.1.6 does not look at the CPU) */
		pf_event *e2 = get_event(x, m->ec);
		unsigned long long pid, func;
		int size = (int)m->raw_len;
		if (e2 && pf_is_fgraph_exit(e2) && !pf_field_val(e2, "common_pid", m->raw, size, &pid) &&
		    pid == x->pend.pid && !pf_field_val(e2, "func", m->raw, size, &func) &&
		    func == x->pend.func)
			re = e2;
	}
	wait_set(k, &x->pend.on, false);
	if (!x->pend.discard) {
		tio_buf *t = &k->gtext, *b = &k->line;
		tio_buf_reset(t);
		pf_fgraph_entry(x->pend.e, t, (const uint8_t *)x->pend.rec.p, (int)x->pend.rec.len, re,
				re ? m->raw : NULL, re ? (int)m->raw_len : 0);
		if (tio_buf_reserve(b, t->len))
			return TIO_ERR_NOMEM;
		size_t at = x->pend.at;
		memmove(b->p + at + t->len, b->p + at, b->len - at);
		memcpy(b->p + at, t->p, t->len);
		b->len += t->len;
		marks_shift(k, at, t->len);
		if (line_end) {
			const char *nl = memchr(b->p + at + t->len, '\n', b->len - at - t->len);
			*line_end = nl ? (size_t)(nl - b->p) + 1 : b->len;
		}
	} else if (line_end) {
		*line_end = k->line.len;
	}
	return re ? 1 : 0;
}

/* The line of `m` (from `start` of the output to its end) goes first when it is the one
   trace-cmd prints right after a swallowed return (see tc_trace.jump). */
static int jump_line(tc_sink *k, tc_trace *x, const tio_msg *m, size_t start)
{
	tio_buf *b = &k->line;
	if (!x->jump.on || m->stream != x->jump.stream)
		return 0;
	wait_set(k, &x->jump.on, false);
	size_t j = x->jump.at, n = b->len - start;
	tio_buf *t = &k->gtext;
	tio_buf_reset(t);
	if (tio_buf_add(t, b->p + start, n))
		return TIO_ERR_NOMEM;
	memmove(b->p + j + n, b->p + j, start - j);
	memcpy(b->p + j, t->p, n);
	/* marks inside the moved line move with it, those after j by n */
	for (size_t i = 0; i < k->ntraces; i++) {
		tc_trace *y = &k->traces[i];
		if (y->pend.on)
			y->pend.at = y->pend.at > start ? y->pend.at - start + j : y->pend.at >= j ? y->pend.at + n : y->pend.at;
		if (y->jump.on && y->jump.at >= j)
			y->jump.at = y->jump.at > start ? y->jump.at - start + j : y->jump.at + n;
	}
	return 0;
}

/*
 * A line's time stamp after its CPU (or latency columns): " %5llu.%06llu"
 * (ns with -t), the seconds part formatted once per second; "%12llu" for a
 * clock trace-cmd does not count in ns.  Room for 32 bytes is reserved.
 */
static void put_time(tc_sink *k, const tc_trace *x, tio_buf *b, uint64_t ts)
{
	uint64_t whole, frac;
	int fd;
	if (TIO_UNLIKELY(x->raw_ts)) {
		char tmp[24];
		size_t tl = put_dec(tmp, ts, 0);
		for (size_t i = tl; i < 12; i++)
			b->p[b->len++] = ' ';
		memcpy(b->p + b->len, tmp, tl);
		b->len += tl;
		return;
	}
	b->p[b->len++] = ' ';
	if (k->ns) {
		whole = ts / 1000000000;
		frac = ts % 1000000000;
		fd = 9;
	} else {
		uint64_t us = (ts + 500) / 1000;
		whole = us / 1000000;
		frac = us % 1000000;
		fd = 6;
	}
	if (!k->sec_ok || whole != k->sec) {
		char tmp[24];
		size_t wl = put_dec(tmp, whole, 0), n = 0;
		for (size_t i = wl; i < 5; i++)
			k->sec_txt[n++] = ' ';
		memcpy(k->sec_txt + n, tmp, wl);
		k->sec_txt[n + wl] = '.';
		k->sec_len = n + wl + 1;
		k->sec = whole;
		k->sec_ok = true;
	}
	memcpy(b->p + b->len, k->sec_txt, k->sec_len);
	b->len += k->sec_len;
	b->len += put_dec(b->p + b->len, frac, fd);
}

/* Make the funcgraph_entry of `m` (in trace x) wait for the next record: 1, or 0 when
   it cannot (printed as it is). */
static int hold_entry(tc_sink *k, tc_trace *x, pf_event *e, const tio_msg *m, bool discard)
{
	int size = (int)m->raw_len;
	if (pf_field_val(e, "common_pid", m->raw, size, &x->pend.pid) ||
	    pf_field_val(e, "func", m->raw, size, &x->pend.func))
		return 0;
	tio_buf_reset(&x->pend.rec);
	if (tio_buf_add(&x->pend.rec, m->raw, m->raw_len))
		return TIO_ERR_NOMEM;
	wait_set(k, &x->pend.on, true);
	x->pend.discard = discard;
	x->pend.e = e;
	x->pend.stream = m->stream;
	x->pend.at = k->line.len;
	return 1;
}

static int tc_consume(tio_sink *s, const tio_msg *m)
{
	tc_sink *k = (tc_sink *)s;
	if (!m->stream || !m->stream->trace)
		return 0;
	tc_trace *x = get_trace(k, m->stream->trace);
	if (!x)
		return TIO_ERR_NOMEM;
	k->last = x;
	tio_buf *b = &k->line;
	if (TIO_UNLIKELY(x->pend.on) && m->type == TIO_MSG_EVENT && m->ec) {
		/* the next record of the file of a waiting funcgraph_entry, whatever its CPU
		   (trace-cmd peeks before its --cpu filter) */
		size_t end;
		int r = settle_pending(k, x, m, &end);
		if (r < 0)
			return r;
		if (r) {
			/* a return on another CPU: that CPU's next record comes as if it
			   had the entry's time (right after the entry's line, before other
			   inputs' lines of that time); on the entry's CPU: next in this file */
			if (!k->cpus) {
				wait_set(k, &x->jump.on, true);
				x->jump.stream = m->stream;
				x->jump.at = m->stream != x->pend.stream ? end : b->len;
			}
			return 0;
		}
	}
	size_t start = b->len;
	if (TIO_UNLIKELY(!k->headers_done) && k->nadded)
		all_headers(k);
	if (!x->header_done) {
		x->header_done = true;
		tio_buf_addf(b, "cpus=%lld\n", (long long)env_int(x->t->tc, "cpus", x->t->nstreams));
	}
	uint32_t si = m->stream->index;
	int cpu = (int)m->stream->id;
	if (k->cpus && ((size_t)cpu >= k->ncpus || !k->cpus[cpu]))
		return 0;
	if (m->type == TIO_MSG_DISCARDED_EVENTS) {
		if (si < x->nstreams)
			x->missed[si] = m->count ? (int64_t)m->count : -1;
		return 0;
	}
	if (m->type != TIO_MSG_EVENT || !m->ec)
		return 0;
	size_t line_start = b->len;
	const char *inst = m->stream->sc && m->stream->sc->name ? m->stream->sc->name : "";
	if (k->nadded > 1) {
		tio_buf_addf(b, "%*s: ", k->width, inst[0] ? inst : x->base);
	} else if (x->prefix_width) {
		if (inst[0])
			tio_buf_addf(b, "%*s: ", x->prefix_width, inst);
		else
			tio_buf_addf(b, "%*s  ", x->prefix_width, "");
	}
	if (si < x->nstreams && x->missed[si]) {
		if (x->missed[si] > 0)
			tio_buf_addf(b, "CPU:%d [%lld EVENTS DROPPED]\n", cpu, (long long)x->missed[si]);
		else
			tio_buf_addf(b, "CPU:%d [EVENTS DROPPED]\n", cpu);
		x->missed[si] = 0;
	}
	pf_event *e = m->raw ? get_event(x, m->ec) : NULL;
	int size = (int)m->raw_len;
	int pid = e ? pf_record_pid(e, m->raw, size) : 0;
	if (pid < 0)
		pid = 0;
	/* "%16s-%-5d [%03d] %5llu.%06llu: %s: " without printf (the hot path) */
	size_t cl;
	const char *comm = pf_comm_len(x->ctx, pid, &cl);
	if (tio_buf_reserve(b, cl + 96 + PF_LAT_MAX))
		return TIO_ERR_NOMEM;
	if (TIO_UNLIKELY(k->lat)) {
		/* -l: "%8.8s-%-5d %3d" then the latency columns, then the time as usual */
		size_t w = cl < 8 ? cl : 8;
		memset(b->p + b->len, ' ', 8 - w);
		memcpy(b->p + b->len + 8 - w, comm, w);
		b->len += 8;
		b->p[b->len++] = '-';
		size_t at = b->len;
		b->len += put_dec(b->p + b->len, (uint64_t)pid, 0);
		while (b->len - at < 5)
			b->p[b->len++] = ' ';
		tio_buf_addf(b, " %3d", cpu);
		if (e)
			b->len += pf_record_latency(e, m->raw, size, k->raw, b->p + b->len);
	} else {
		if (cl < 16) {
			memset(b->p + b->len, ' ', 16 - cl);
			b->len += 16 - cl;
		}
		memcpy(b->p + b->len, comm, cl);
		b->len += cl;
		b->p[b->len++] = '-';
		size_t at = b->len;
		b->len += put_dec(b->p + b->len, (uint64_t)pid, 0);
		while (b->len - at < 5)
			b->p[b->len++] = ' ';
		memcpy(b->p + b->len, " [", 2);
		b->len += 2;
		b->len += put_dec(b->p + b->len, (uint64_t)cpu, 3);
		b->p[b->len++] = ']';
	}
	put_time(k, x, b, m->cycles);
	b->p[b->len++] = ':';
	const char *name = e ? pf_event_name(e) : m->ec->name;
	size_t nl = strlen(name);
	if (tio_buf_reserve(b, nl + 64))
		return TIO_ERR_NOMEM;
	if (TIO_UNLIKELY(k->tsdiff)) {
		/* " %-8s": "(+N)", N the time since the line before, as trace-cmd 3.1.6 counts
		   it: in us (each rounded) when the file names its clock, else, with -t or
		   --ts2secs in the stamps' own unit; nothing after a stamp of 0 in that unit
		   (the first line; every line of a counter clock in us) */
		uint64_t t = x->clock_known && !k->ns && !x->ts2secs ? (m->cycles + 500) / 1000 : m->cycles;
		char d[32] = "";
		if (k->last_diff_ts)
			snprintf(d, sizeof(d), "(+%lld)", (long long)(t - k->last_diff_ts));
		tio_buf_addf(b, " %-8s", d);
		k->last_diff_ts = t;
	}
	b->p[b->len++] = ' ';
	memcpy(b->p + b->len, name, nl);
	b->len += nl;
	b->p[b->len++] = ':';
	b->p[b->len++] = ' ';
	if (nl < 20) {
		memset(b->p + b->len, ' ', 20 - nl);
		b->len += 20 - nl;
	}
	if (e && !k->raw && pf_is_fgraph_entry(e)) {
		int r = hold_entry(k, x, e, m, false);
		if (r < 0)
			return r;
		if (r) {
			tio_buf_addc(b, '\n');
			return jump_line(k, x, m, start); /* written out once settled */
		}
	}
	if (e) {
		pf_ctx_set_record(x->ctx, cpu, m->cycles, k->ns);
		pf_print_info(e, b, m->raw, size, (int)(m->raw_cap > m->raw_len ? m->raw_cap : m->raw_len), k->raw);
	} else {
		generic_fields(b, m);
	}
	if (b->len > line_start && b->p[b->len - 1] == '\n')
		b->len--;
	tio_buf_addc(b, '\n');
	if (TIO_UNLIKELY(x->jump.on) && jump_line(k, x, m, start))
		return TIO_ERR_NOMEM;
	if (b->len < OUT_BLOCK)
		return 0;
	if (TIO_UNLIKELY(k->nwait)) {
		if (b->len < 16 * OUT_BLOCK)
			return 0;
		/* memory stays bounded: an input that has nothing more for 4 MB of the
		   others' lines gets no return (its entry is a nested call), and its
		   next line stays in time order */
		for (size_t i = 0; i < k->ntraces; i++) {
			tc_trace *y = &k->traces[i];
			if (y->pend.on && settle_pending(k, y, NULL, NULL) < 0)
				return TIO_ERR_NOMEM;
			wait_set(k, &y->jump.on, false);
		}
	}
	return flush_out(k);
}

/*
 * An event before --begin: what printing it would have changed.  trace-cmd
 * looks up the record's comm (the first lookup sorts the registrations),
 * then the sched plugins register the comms they print.
 */
static int tc_skip(tio_sink *s, const tio_msg *m)
{
	tc_sink *k = (tc_sink *)s;
	/* a page's lost events skipped with its first record: no line for them */
	if (m->type != TIO_MSG_EVENT || !m->ec || !m->raw || !m->stream || !m->stream->trace)
		return 0;
	tc_trace *x = get_trace(k, m->stream->trace);
	if (!x)
		return TIO_ERR_NOMEM;
	if (x->pend.on) { /* whatever its CPU, as in tc_consume */
		int r = settle_pending(k, x, m, NULL);
		if (r)
			return r < 0 ? r : 0;
	}
	int cpu = (int)m->stream->id;
	if (k->cpus && ((size_t)cpu >= k->ncpus || !k->cpus[cpu]))
		return 0;
	pf_event *e = get_event(x, m->ec);
	if (!e)
		return 0;
	if (!k->raw && pf_is_fgraph_entry(e)) {
		k->fgraph_seen = true;
		int r = hold_entry(k, x, e, m, true);
		if (r)
			return r < 0 ? r : 0;
	}
	int size = (int)m->raw_len;
	int pid = pf_record_pid(e, m->raw, size);
	size_t cl;
	pf_comm_len(x->ctx, pid < 0 ? 0 : pid, &cl);
	if (!k->raw) {
		tio_buf_reset(&k->scratch);
		pf_ctx_set_record(x->ctx, cpu, m->cycles, k->ns);
		pf_print_info(e, &k->scratch, m->raw, size,
			      (int)(m->raw_cap > m->raw_len ? m->raw_cap : m->raw_len), false);
	}
	return 0;
}

/*
 * The classes tc_skip needs before --begin (tio_sink_skip_wants): those
 * whose plugin keeps state (sched_switch and sched_wakeup* register comm
 * names, the function tracer's events move its per-CPU stacks, function
 * graph events) always; any other only once a function-graph entry was
 * skipped (a waiting entry is settled by whatever record of the file comes
 * next, so from then on every record counts).  Matched by name: a superset
 * is harmless.
 */
static int tc_skip_wants(tio_sink *s, const tio_event_class *ec)
{
	tc_sink *k = (tc_sink *)s;
	static const char *const stateful[] = {"sched_switch", "sched_wakeup", "sched_wakeup_new", "function",
					       "func_repeats", "funcgraph_entry", "funcgraph_exit"};
	if (k->fgraph_seen || !ec->name)
		return TIO_SKIP_WANT;
	size_t h = ((uintptr_t)ec >> 4) % TIO_ARRAY_LEN(k->stateful_key);
	if (k->stateful_key[h] != ec) {
		bool st = false;
		for (size_t i = 0; i < TIO_ARRAY_LEN(stateful) && !st; i++)
			st = !strcmp(ec->name, stateful[i]);
		k->stateful_key[h] = ec;
		k->stateful_val[h] = st;
	}
	return k->stateful_val[h] ? TIO_SKIP_WANT : TIO_SKIP_ASK;
}

/*
 * An event a filter drops.  trace-cmd filters the records it reads, after
 * the function graph plugin peeked at them: a waiting entry still sees this
 * one (and may take it as its leaf's return).  The record's lost-events
 * note is lost with it; no comm is learnt.
 */
static int tc_filtered(tio_sink *s, const tio_msg *m)
{
	tc_sink *k = (tc_sink *)s;
	if (m->type != TIO_MSG_EVENT || !m->ec || !m->stream || !m->stream->trace)
		return 0;
	tc_trace *x = get_trace(k, m->stream->trace);
	if (!x)
		return TIO_ERR_NOMEM;
	if (x->pend.on) { /* as in tc_consume: the return it may take moves that CPU's next record */
		size_t end;
		int r = settle_pending(k, x, m, &end);
		if (r < 0)
			return r;
		if (r) {
			if (!k->cpus) {
				wait_set(k, &x->jump.on, true);
				x->jump.stream = m->stream;
				x->jump.at = m->stream != x->pend.stream ? end : k->line.len;
			}
			return 0;
		}
	}
	if (x->jump.on && m->stream == x->jump.stream) /* the record that was to move */
		wait_set(k, &x->jump.on, false);
	int cpu = (int)m->stream->id;
	if (k->cpus && ((size_t)cpu >= k->ncpus || !k->cpus[cpu]))
		return 0;
	uint32_t si = m->stream->index;
	if (si < x->nstreams)
		x->missed[si] = 0;
	return 0; /* written with the next line: another trace's entry may still wait */
}

static int tc_finish(tio_sink *s)
{
	tc_sink *k = (tc_sink *)s;
	if (!k->headers_done && k->nadded) /* no event at all: trace-cmd still says cpus=N */
		all_headers(k);
	for (size_t i = 0; i < k->ntraces; i++)
		if (k->traces[i].pend.on && settle_pending(k, &k->traces[i], NULL, NULL) < 0)
			return TIO_ERR_NOMEM;
	int r = flush_out(k);
	if (r)
		return r;
	return fflush(s->out) ? tio_err_set(TIO_ERR_IO, "write error") : 0;
}

static void tc_fini(tio_sink *s)
{
	tc_sink *k = (tc_sink *)s;
	for (size_t i = 0; i < k->ntraces; i++) {
		tc_trace *x = &k->traces[i];
		for (size_t j = 0; j < x->nbyid; j++)
			pf_event_free(x->byid[j]);
		free(x->byid);
		free(x->missed);
		pf_ctx_free(x->ctx);
		tio_buf_free(&x->pend.rec);
	}
	free(k->traces);
	pf_fstack_free(k->fstack);
	free(k->cpus);
	tio_buf_free(&k->line);
	tio_buf_free(&k->scratch);
	tio_buf_free(&k->gtext);
}

const tio_sink_ops tio_sink_tcreport_ops = {
	.name = "trace-cmd",
	.size = sizeof(tc_sink),
	.set = tc_set,
	.add_trace = tc_add_trace,
	.consume = tc_consume,
	.skip = tc_skip,
	.skip_wants = tc_skip_wants,
	.filtered = tc_filtered,
	.finish = tc_finish,
	.fini = tc_fini,
};
