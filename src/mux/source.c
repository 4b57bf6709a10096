/*
 * Format registry and opening: each reader in src/<format>/ exports a
 * tio_format_ops; this file is the only place that lists them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "traceio/trace.h"

extern const tio_format_ops tio_format_ctf;
extern const tio_format_ops tio_format_lttng0;
extern const tio_format_ops tio_format_lttng0_2008;
extern const tio_format_ops tio_format_ltt;
extern const tio_format_ops tio_format_tracedat;

static const tio_format_ops *const formats[] = {
	&tio_format_ctf,
	&tio_format_lttng0,
	&tio_format_lttng0_2008, /* src/ltt/ltt08-read.c: seed 000's own 2008 layout */
	&tio_format_ltt,
	&tio_format_tracedat,
};

const char *const *tio_formats(void)
{
	static const char *names[TIO_ARRAY_LEN(formats) + 1];
	for (size_t i = 0; i < TIO_ARRAY_LEN(formats); i++)
		names[i] = formats[i]->name;
	return names;
}

static const tio_format_ops *find_format(const char *path, const char *name)
{
	const tio_format_ops *best = NULL;
	int best_score = 0;
	for (size_t i = 0; i < TIO_ARRAY_LEN(formats); i++) {
		if (name && strcmp(name, formats[i]->name))
			continue;
		int sc = formats[i]->probe(path);
		if (sc > best_score) {
			best = formats[i];
			best_score = sc;
		}
	}
	return best;
}

static int open_with(const tio_format_ops *f, const char *path, tio_trace **out)
{
	tio_trace *t = tio_calloc(1, sizeof(*t));
	if (!t)
		return TIO_ERR_NOMEM;
	t->fmt = f;
	t->path = tio_strdup(path);
	if (!t->path) {
		free(t);
		return TIO_ERR_NOMEM;
	}
	int r = f->open(t, path);
	if (r) {
		tio_trace_free(t);
		return r;
	}
	for (uint32_t i = 0; i < t->nstreams; i++) {
		t->streams[i]->index = i;
		t->streams[i]->trace = t;
	}
	/* read past, said once (tio_trace_warning): babeltrace2 refuses such a trace */
	for (uint32_t i = 0; t->tc && i < t->tc->nclocks; i++) {
		const tio_clock *c = t->tc->clocks[i];
		if (tio_clock_offset_wraps(c) &&
		    (r = tio_trace_class_warn(t->tc, "%s: clock %s: offset %lld s + %lld cycles does not fit in 64-bit ns from origin: times computed modulo 2^64 as babeltrace 1 does",
					      path, c->name ? c->name : "?", (long long)c->offset_s, (long long)c->offset))) {
			tio_trace_free(t);
			return r;
		}
	}
	*out = t;
	return 0;
}

const char *tio_trace_warning(const tio_trace *t, size_t i)
{
	return t && t->tc && i < t->tc->nwarnings ? t->tc->warnings[i] : NULL;
}

int tio_trace_open(const char *path, const char *format, tio_trace **out)
{
	if (format) {
		bool known = false;
		for (size_t i = 0; i < TIO_ARRAY_LEN(formats); i++)
			known |= !strcmp(formats[i]->name, format);
		if (!known)
			return tio_err_set(TIO_ERR_USAGE, "unknown format '%s'", format);
	}
	if (!tio_is_dir(path) && !tio_is_file(path))
		return tio_err_set(TIO_ERR_IO, "%s: no such file or directory", path);
	const tio_format_ops *f = find_format(path, format);
	if (!f)
		return tio_err_set(TIO_ERR_FORMAT, "%s: not a trace of any known format%s%s", path,
				   format ? " (tried " : "", format ? format : "");
	return open_with(f, path, out);
}

typedef struct found {
	tio_trace **v;
	size_t n, cap;
} found;

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Depth-first, entries sorted by name so the order is the same everywhere. */
static int walk(const char *root, const char *path, const char *format, found *fd, int depth)
{
	const tio_format_ops *f = find_format(path, format);
	if (f) {
		tio_trace *t;
		int r = open_with(f, path, &t);
		if (r)
			return r;
		/* the trace's path below the input, as babeltrace2 names traces */
		size_t lr = strlen(root);
		const char *rel = path + lr;
		while (*rel == '/')
			rel++;
		if (!t->name && !(t->name = tio_strdup(rel))) {
			tio_trace_free(t);
			return TIO_ERR_NOMEM;
		}
		if (tio_grow(&fd->v, &fd->cap, fd->n + 1, sizeof(*fd->v))) {
			tio_trace_free(t);
			return TIO_ERR_NOMEM;
		}
		fd->v[fd->n++] = t;
		return 0;
	}
	if (!tio_is_dir(path) || depth > 32)
		return 0;
	DIR *d = opendir(path);
	if (!d)
		return 0;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int r = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *p = tio_path_join(path, de->d_name);
		if (!p || tio_grow(&names, &cap, n + 1, sizeof(*names))) {
			free(p);
			r = TIO_ERR_NOMEM;
			break;
		}
		names[n++] = p;
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		if (!r && tio_is_dir(names[i]))
			r = walk(root, names[i], format, fd, depth + 1);
		free(names[i]);
	}
	free(names);
	return r;
}

int tio_traces_merge(tio_trace **v, size_t *n)
{
	for (size_t i = 0; i < *n; i++) {
		for (size_t j = i + 1; j < *n;) {
			tio_trace *a = v[i], *b = v[j];
			int r = a->fmt == b->fmt && a->fmt->merge ? a->fmt->merge(a, b) : 0;
			if (r < 0)
				return r;
			if (!r) {
				j++;
				continue;
			}
			tio_trace **m = tio_realloc(a->merged, (a->nmerged + 1) * sizeof(*m));
			if (!m)
				return TIO_ERR_NOMEM;
			a->merged = m;
			a->merged[a->nmerged++] = b;
			memmove(v + j, v + j + 1, (*n - j - 1) * sizeof(*v));
			(*n)--;
		}
		for (uint32_t k = 0; k < v[i]->nstreams; k++) {
			v[i]->streams[k]->index = k;
			v[i]->streams[k]->trace = v[i];
		}
	}
	return 0;
}

int tio_trace_open_all(const char *path, const char *format, tio_trace ***out, size_t *n)
{
	if (!tio_is_dir(path) && !tio_is_file(path))
		return tio_err_set(TIO_ERR_IO, "%s: no such file or directory", path);
	found fd = {0};
	int r = walk(path, path, format, &fd, 0);
	if (!r && fd.n == 0)
		r = tio_err_set(TIO_ERR_FORMAT, "%s: no trace found", path);
	if (!r)
		r = tio_traces_merge(fd.v, &fd.n);
	/* out of memory deep in a reader ("out of memory" alone): which input it was */
	if (r == TIO_ERR_NOMEM && strncmp(tio_error_message(), path, strlen(path)))
		tio_err_push(r, "%s", path);
	if (r) {
		for (size_t i = 0; i < fd.n; i++)
			tio_trace_free(fd.v[i]);
		free(fd.v);
		return r;
	}
	*out = fd.v;
	*n = fd.n;
	return 0;
}

void tio_trace_free(tio_trace *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nmerged; i++)
		tio_trace_free(t->merged[i]);
	free(t->merged);
	for (uint32_t i = 0; i < t->nstreams; i++) {
		tio_stream *s = t->streams[i];
		if (!s)
			continue;
		free(s->name);
		free(s->path);
		if (s->ops && s->ops->free)
			s->ops->free(s); /* frees s itself */
		else
			free(s);
	}
	free(t->streams);
	if (t->fmt && t->fmt->free)
		t->fmt->free(t);
	tio_trace_class_free(t->tc);
	tio_comms_free(t->comms);
	free(t->path);
	free(t->name);
	free(t);
}

const char *tio_trace_format(const tio_trace *t) { return t->fmt->name; }

const char *tio_trace_path(const tio_trace *t) { return t->path; }

/*
 * Reader options.  Two readers take one today (LTTng 0.x ltt-tsc, trace.dat
 * ts2secs), so this dispatches by format here rather than through a
 * tio_format_ops hook; a third reader with options makes it a hook.
 */
int tio_ltt0x_set(tio_trace *t, const char *key, const char *value);
int tio_tracedat_set(tio_trace *t, const char *key, const char *value);

int tio_trace_set(tio_trace *t, const char *key, const char *value)
{
	if (!t || !key || !value)
		return tio_err_set(TIO_ERR_USAGE, "tio_trace_set: no trace, key or value");
	if (!strcmp(key, "clock-exact")) {
		if (strcmp(value, "0") && strcmp(value, "1"))
			return tio_err_set(TIO_ERR_USAGE, "%s: clock-exact: '%s' is not 0 or 1", t->path, value);
		for (uint32_t i = 0; i < t->tc->nclocks; i++)
			t->tc->clocks[i]->exact = value[0] == '1';
		for (uint32_t i = 0; i < t->nmerged; i++)
			if (tio_trace_set(t->merged[i], key, value))
				return TIO_ERR_USAGE;
		return 0;
	}
	if (t->fmt == &tio_format_lttng0)
		return tio_ltt0x_set(t, key, value);
	if (t->fmt == &tio_format_tracedat)
		return tio_tracedat_set(t, key, value);
	return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: format %s has no option '%s'", t->path, t->fmt->name, key);
}
