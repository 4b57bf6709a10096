/* Helpers of the fuzz targets: temp directories, draining a trace (fuzz.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

char *fz_dir_new(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	char *p = NULL;
	if (asprintf(&p, "%s/tio-fuzz-XXXXXX", base ? base : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(p)) {
		free(p);
		return NULL;
	}
	return p;
}

int fz_write(const char *dir, const char *name, const void *data, size_t size)
{
	char *p = NULL;
	const char *slash = strchr(name, '/');
	if (slash) { /* "sub/file": one level of directories */
		if (asprintf(&p, "%s/%.*s", dir, (int)(slash - name), name) < 0)
			return -1;
		mkdir(p, 0700);
		free(p);
		p = NULL;
	}
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return -1;
	FILE *f = fopen(p, "wb");
	free(p);
	if (!f)
		return -1;
	size_t w = size ? fwrite(data, 1, size, f) : 0;
	int r = fclose(f);
	return w == size && r == 0 ? 0 : -1;
}

static void rm_tree(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char *p = NULL;
			if (asprintf(&p, "%s/%s", dir, de->d_name) >= 0) {
				if (unlink(p) && depth < 2)
					rm_tree(p, depth + 1);
				free(p);
			}
		}
		closedir(d);
	}
	rmdir(dir);
}

void fz_dir_free(char *dir)
{
	if (!dir)
		return;
	rm_tree(dir, 0);
	free(dir);
}

int fz_drain(const char *path, const char *format, const char *sink_name, unsigned threads)
{
	return fz_drain_set(path, format, sink_name, threads, NULL, NULL);
}

int fz_drain_set(const char *path, const char *format, const char *sink_name, unsigned threads, const char *key,
		 const char *value)
{
	static FILE *null;
	if (!null && !(null = fopen("/dev/null", "w")))
		return -1;
	tio_trace *t = NULL;
	bool verbose = getenv("TIO_FUZZ_VERBOSE") != NULL;
	if (tio_trace_open(path, format, &t)) {
		if (verbose)
			fprintf(stderr, "open: %s\n", tio_error_message());
		tio_error_clear();
		return -1;
	}
	if (key && tio_trace_set(t, key, value)) {
		tio_error_clear();
		tio_trace_free(t);
		return -1;
	}
	unsigned long nmsg = 0;
	tio_mux *m = NULL;
	tio_sink *s = NULL;
	int errors = 0;
	if (tio_mux_new(&t, 1, &m) || tio_sink_new(sink_name, null, null, &s)) {
		errors = -1;
		goto out;
	}
	if (threads)
		tio_mux_set_threads(m, threads);
	/* bounded: a reader that never ends or never advances is a finding */
	for (unsigned long n = 0;; n++) {
		const tio_msg *msg;
		int r = tio_mux_next(m, &msg);
		if (r == 0)
			break;
		if (n > 50000000UL || errors > 1000000) {
			fprintf(stderr, "fuzz: %s: reader does not end\n", path);
			abort();
		}
		if (r < 0) {
			if (verbose)
				fprintf(stderr, "error: %s\n", tio_error_message());
			errors++;
			if (r == TIO_ERR_NOMEM)
				break;
			continue;
		}
		nmsg++;
		if (tio_sink_consume(s, msg)) {
			errors++;
			break;
		}
	}
	/* the packet index, then seeks on the same mux (back to the start, the
	   range's ends and middle), each followed by a bounded read */
	tio_index_info x;
	if (!tio_trace_index(t, &x)) {
		int64_t at[5] = {INT64_MIN, x.begin_ns, x.begin_ns / 2 + x.end_ns / 2, x.end_ns, INT64_MAX};
		for (int i = 0; i < 5; i++) {
			if (tio_mux_seek(m, at[i]))
				continue;
			for (int k = 0; k < 2000; k++) {
				const tio_msg *msg;
				int r = tio_mux_next(m, &msg);
				if (r == 0 || r == TIO_ERR_NOMEM)
					break;
			}
		}
	}
	tio_error_clear();
	tio_sink_finish(s);
	if (verbose)
		fprintf(stderr, "%lu messages, %d errors\n", nmsg, errors);
out:
	tio_sink_free(s);
	tio_mux_free(m);
	tio_trace_free(t);
	tio_error_clear();
	return errors;
}

int fz_split(const uint8_t *data, size_t size, fz_file_fn fn, void *ctx)
{
	size_t at = 0;
	int n = 0;
	while (at < size) {
		const uint8_t *nul = memchr(data + at, 0, size - at);
		if (!nul || nul == data + at || (size_t)(nul - data - at) > 64)
			break;
		size_t name_end = (size_t)(nul - data) + 1;
		if (size - name_end < 4)
			break;
		uint32_t len = (uint32_t)data[name_end] | (uint32_t)data[name_end + 1] << 8 |
			       (uint32_t)data[name_end + 2] << 16 | (uint32_t)data[name_end + 3] << 24;
		size_t body = name_end + 4;
		if (len > size - body)
			len = (uint32_t)(size - body); /* a cut record keeps what it has */
		char name[65];
		memcpy(name, data + at, name_end - at);
		/* plain file names, or "dir/file" one level down: nothing that climbs */
		const char *sl = strchr(name, '/');
		bool ok = !strstr(name, "..") && name[0] != '/' && (!sl || (!strchr(sl + 1, '/') && sl[1]));
		if (ok)
			fn(ctx, name, data + body, len);
		at = body + len;
		n++;
	}
	return n;
}
