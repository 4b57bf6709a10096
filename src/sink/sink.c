/* Sink registry and the generic part of every sink. */
#include "sink/sink.h"

#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

extern const tio_sink_ops tio_sink_pretty_ops;
extern const tio_sink_ops tio_sink_dummy_ops;
extern const tio_sink_ops tio_sink_info_ops;
extern const tio_sink_ops tio_sink_lttv_ops;
extern const tio_sink_ops tio_sink_tcreport_ops;
extern const tio_sink_ops tio_sink_ctf_ops;
extern const tio_sink_ops tio_sink_tracedat_ops;
extern const tio_sink_ops tio_sink_json_ops;
extern const tio_sink_ops tio_sink_ltt_ops;
extern const tio_sink_ops tio_sink_lttng0_ops;
extern const tio_sink_ops tio_sink_perfetto_ops;
extern const tio_sink_ops tio_sink_parquet_ops;

static const tio_sink_ops *const sinks[] = {
	&tio_sink_pretty_ops,
	&tio_sink_dummy_ops,
	&tio_sink_info_ops,
	&tio_sink_lttv_ops,
	&tio_sink_tcreport_ops,
	&tio_sink_ctf_ops, /* writer: src/ctf/ctf-writer.c */
	&tio_sink_tracedat_ops, /* writer: src/ftrace/tracedat-write.c */
	&tio_sink_json_ops,
	&tio_sink_ltt_ops, /* writer: src/ltt/lttnew-write.c */
	&tio_sink_lttng0_ops, /* writer: src/ltt/ltt08-write.c */
	&tio_sink_perfetto_ops, /* writer: src/perfetto/perfetto-write.c */
	&tio_sink_parquet_ops, /* writer: src/parquet/parquet-sink.c */
};

const char *const *tio_sinks(void)
{
	static const char *names[TIO_ARRAY_LEN(sinks) + 1];
	for (size_t i = 0; i < TIO_ARRAY_LEN(sinks); i++)
		names[i] = sinks[i]->name;
	return names;
}

int tio_sink_new(const char *name, FILE *out, FILE *err, tio_sink **sink)
{
	for (size_t i = 0; i < TIO_ARRAY_LEN(sinks); i++) {
		if (strcmp(sinks[i]->name, name))
			continue;
		tio_sink *s = tio_calloc(1, sinks[i]->size);
		if (!s)
			return TIO_ERR_NOMEM;
		s->ops = sinks[i];
		s->out = out;
		s->err = err;
		int r = s->ops->init ? s->ops->init(s) : 0;
		if (r) {
			free(s);
			return r;
		}
		*sink = s;
		return 0;
	}
	return tio_err_set(TIO_ERR_USAGE, "unknown sink '%s'", name);
}

int tio_sink_set(tio_sink *s, const char *key, const char *value)
{
	if (!s->ops->set)
		return tio_err_set(TIO_ERR_USAGE, "sink %s takes no option '%s'", s->ops->name, key);
	return s->ops->set(s, key, value);
}

int tio_sink_add_trace(tio_sink *s, const tio_trace *t)
{
	return s->ops->add_trace ? s->ops->add_trace(s, t) : 0;
}

int tio_sink_consume(tio_sink *s, const tio_msg *m) { return s->ops->consume(s, m); }

int tio_sink_skip(tio_sink *s, const tio_msg *m) { return s->ops->skip ? s->ops->skip(s, m) : 0; }

int tio_sink_skip_wants(tio_sink *s, const tio_event_class *ec)
{
	if (!s->ops->skip)
		return TIO_SKIP_NONE;
	return s->ops->skip_wants ? s->ops->skip_wants(s, ec) : TIO_SKIP_WANT;
}

/* A filtered-out event: see tio_sink_filtered. */
int tio_sink_filtered(tio_sink *s, const tio_msg *m)
{
	return s->ops->filtered ? s->ops->filtered(s, m) : 0;
}

int tio_sink_merge(tio_sink *into, tio_sink *from)
{
	if (into->ops != from->ops || !into->ops->merge)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "sink '%s': parts cannot be merged", into->ops->name);
	return into->ops->merge(into, from);
}

int tio_sink_merge_begin(tio_sink *into, tio_sink *from)
{
	if (into->ops != from->ops)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "sink '%s': parts cannot be merged", into->ops->name);
	return into->ops->merge_begin ? into->ops->merge_begin(into, from) : 0;
}

int tio_sink_flush(tio_sink *s) { return s->ops->flush ? s->ops->flush(s) : 0; }

int tio_sink_end_trace(tio_sink *s, const tio_trace *t)
{
	return s->ops->end_trace ? s->ops->end_trace(s, t) : 0;
}

int tio_sink_finish(tio_sink *s) { return s->ops->finish ? s->ops->finish(s) : 0; }

void tio_sink_free(tio_sink *s)
{
	if (!s)
		return;
	if (s->ops->fini)
		s->ops->fini(s);
	free(s);
}

int tio_sink_flush_buf(tio_sink *s, tio_buf *b)
{
	FILE *f = s->out;
	const char *q = b->p;
	size_t n = b->len;
	b->len = 0;
	if (!n)
		return 0;
	if (fflush(f))
		return tio_err_set(TIO_ERR_IO, "write error on output");
	int fd = fileno(f);
	if (fd < 0)
		return fwrite(q, 1, n, f) == n ? 0 : tio_err_set(TIO_ERR_IO, "write error on output");
	while (n) {
		ssize_t w = write(fd, q, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return tio_err_set(TIO_ERR_IO, "write error on output: %s", strerror(errno));
		q += w;
		n -= (size_t)w;
	}
	return 0;
}

int tio_sink_bool(const char *key, const char *value, bool *out)
{
	if (!value || !strcasecmp(value, "1") || !strcasecmp(value, "yes") ||
	    !strcasecmp(value, "true") || !strcasecmp(value, "on")) {
		*out = true;
		return 0;
	}
	if (!strcasecmp(value, "0") || !strcasecmp(value, "no") || !strcasecmp(value, "false") ||
	    !strcasecmp(value, "off")) {
		*out = false;
		return 0;
	}
	return tio_err_set(TIO_ERR_USAGE, "option %s: '%s' is not a boolean", key, value);
}

int tio_sink_input_add(tio_sink_inputs *in, const char *path)
{
	if (!path || !*path)
		return tio_err_set(TIO_ERR_USAGE, "option input: empty path");
	char *v = tio_strdup(path);
	if (!v || tio_grow(&in->v, &in->cap, in->n + 1, sizeof(char *))) {
		free(v);
		return TIO_ERR_NOMEM;
	}
	in->v[in->n++] = v;
	free(in->base);
	in->base = NULL;
	in->known = false;
	return 0;
}

void tio_sink_inputs_free(tio_sink_inputs *in)
{
	for (size_t k = 0; k < in->n; k++)
		free(in->v[k]);
	free(in->v);
	free(in->base);
	*in = (tio_sink_inputs){0};
}

/* Where trace `t` was found: its path less the trailing name below its input; absolute. */
static char *trace_root(const tio_trace *t)
{
	char *a = t->path ? tio_path_abs(t->path) : NULL;
	size_t la = a ? strlen(a) : 0, ln = t->name ? strlen(t->name) : 0;
	if (a && ln && la > ln + 1 && a[la - ln - 1] == '/' && !strcmp(a + la - ln, t->name))
		a[la - ln - 1] = 0;
	return a;
}

/*
 * The deepest directory holding every input (tio_sink_trace_path) in
 * in->base, NULL when no input has a path; in->known set.  0 or
 * TIO_ERR_NOMEM.
 */
static int inputs_base(tio_sink_inputs *in, const tio_trace *(*at)(const void *ctx, size_t j), const void *ctx,
		       size_t ntraces)
{
	char *base = NULL;
	size_t n = in->n ? in->n : ntraces;
	for (size_t k = 0; k < n; k++) {
		if (!in->n && !at(ctx, k)->path)
			continue;
		char *a = in->n ? tio_path_abs(in->v[k]) : trace_root(at(ctx, k));
		if (!a) {
			free(base);
			return TIO_ERR_NOMEM;
		}
		if (!tio_is_dir(a)) {
			char *sl = strrchr(a, '/');
			sl[sl == a ? 1 : 0] = 0;
		}
		if (!base) {
			base = a;
			continue;
		}
		/* base cut to the components both paths begin with */
		size_t i = 0;
		while (base[i] && base[i] == a[i])
			i++;
		if (!(!base[i] && (!a[i] || a[i] == '/')) && !(!a[i] && base[i] == '/')) {
			while (i > 0 && base[i - 1] != '/')
				i--;
			if (i > 1)
				i--; /* the '/' before the component that differs */
		}
		base[i ? i : 1] = 0;
		free(a);
	}
	in->base = base;
	in->known = true;
	return 0;
}

const char *tio_sink_trace_path(tio_sink_inputs *in, const tio_trace *(*at)(const void *ctx, size_t j),
				const void *ctx, size_t n, size_t k, char **abs, int *err)
{
	*abs = NULL;
	*err = 0;
	if (!in->known && (*err = inputs_base(in, at, ctx, n)))
		return NULL;
	const tio_trace *t = at(ctx, k);
	if (!in->base || !t->path)
		return NULL;
	if (!(*abs = tio_path_abs(t->path))) {
		*err = TIO_ERR_NOMEM;
		return NULL;
	}
	size_t bl = strlen(in->base);
	const char *r = NULL;
	if (!strcmp(in->base, "/"))
		r = *abs + 1;
	else if (!strncmp(*abs, in->base, bl) && (*abs)[bl] == '/')
		r = *abs + bl + 1;
	if (!r || !*r) {
		free(*abs);
		*abs = NULL;
		return NULL;
	}
	return r;
}

/* ---------------------------------------------------------------- dummy: decode only */

static int dummy_consume(tio_sink *s, const tio_msg *m) { return 0; }

static int dummy_merge(tio_sink *into, tio_sink *from) { return 0; }

const tio_sink_ops tio_sink_dummy_ops = {
	.name = "dummy",
	.size = sizeof(tio_sink),
	.consume = dummy_consume,
	.merge = dummy_merge,
};

/* ---------------------------------------------------------------- public message accessors */

int tio_msg_kind(const tio_msg *m) { return (int)m->type; }

const char *tio_msg_event_name(const tio_msg *m)
{
	return m->type == TIO_MSG_EVENT && m->ec ? m->ec->name : NULL;
}

bool tio_msg_time_ns(const tio_msg *m, int64_t *ns)
{
	if (!m->has_ts)
		return false;
	*ns = m->ns;
	return true;
}
