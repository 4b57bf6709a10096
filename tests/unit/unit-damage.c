/*
 * Damaged copies of real traces of every format: each trace is cut at many
 * offsets and has bytes flipped at many others (a fixed pseudo-random
 * sequence, so a failure is reproducible), then read to the end.  Checked:
 * the reader never crashes or loops (this program runs under ASan+UBSan in
 * the asan build), and every event of a packet/page/block that was not
 * damaged is still delivered (same file, offset, name and time as in the
 * undamaged trace).  Damage lands in the data files (CTF streams, LTTng 0.x
 * tracefiles, trace.dat ring-buffer pages); metadata damage is covered by
 * the fuzz targets.
 *
 * The damaged unit of an offset is offset / U, U being the file's packet
 * size (CTF, all packets of a file the same size, checked), page size
 * (trace.dat) or sub-buffer size (LTTng 0.x, the 2008 layout, new LTT).
 * TIO_DAMAGE_N sets the number of damages per trace (default 60; 25 in the
 * ASan build).
 *
 * The new LTT format and seed 000's 2008 layout have no real traces: the
 * real LTTng 0.x trace is written in them by `traceio convert` ($TIO, set
 * by tests/run.sh; 4 KiB blocks, so that there are many), and those copies
 * are damaged.  Their control/ files (facility loads) describe the cpu/
 * files' events: like LTTng 0.x's metadata channel, they are metadata and
 * not damaged here (the fuzz targets cover them).
 *
 * CTF without packet magic: the same CTF 1.8 traces with the header's
 * `magic` field renamed in the metadata (`magix`: same bytes, no magic
 * role), so that the reader cannot look for it; with LTTng's index/ copied
 * (packets recovered from the index) and without (recovered from the size
 * of the good packets; a damaged first packet of a stream, whose size
 * nothing gives, loses the rest of its file: not checked there).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/ir.h"
#include "traceio/traceio.h"

typedef struct ev {
	uint32_t file;
	uint64_t off;
	int64_t ns;
	uint64_t name;
} ev;

typedef struct evs {
	ev *v;
	size_t n, cap;
	int errors;
} evs;

#define MAXF 64
typedef struct tcase {
	const char *label;
	char *src;	  /* trace dir or file */
	const char *format;
	char *tmp;	  /* copy */
	char *open_path;  /* what is opened (dir, or the file in tmp) */
	char *files[MAXF]; /* paths of the copy's files */
	uint8_t *orig[MAXF];
	size_t size[MAXF];
	uint64_t unit[MAXF];	/* 0: unknown (no subset check) */
	uint64_t data_from[MAXF]; /* damage only at or after this offset */
	bool data[MAXF];	/* has events */
	int nfiles;
	bool nomagic;		/* CTF: rename the packet header's magic field */
	bool index;		/* CTF: copy index/ too */
	char *subdirs[MAXF];	/* subdirectories made in tmp */
	int nsubdirs;
	uint64_t block;		/* ltt, lttng0-2008: the block size the copy was written with */
	char *gen;		/* the trace `traceio convert` wrote, removed at the end */
} tcase;

static int failures;

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return h;
}

/* A file's path below the copy ("cpu/0"), or its base name. */
static const char *rel_name(const tcase *c, const char *path)
{
	size_t n = c->tmp ? strlen(c->tmp) : 0;
	if (n && !strncmp(path, c->tmp, n) && path[n] == '/')
		return path + n + 1;
	const char *base = strrchr(path, '/');
	return base ? base + 1 : path;
}

static int file_index(const tcase *c, const char *path)
{
	if (!path)
		return -1;
	const char *rel = rel_name(c, path);
	for (int i = 0; i < c->nfiles; i++)
		if (!strcmp(rel_name(c, c->files[i]), rel))
			return i;
	return -1;
}

static uint64_t pkt_size_of(const tio_msg *m)
{
	const tio_val *ctx = m->scope[TIO_SCOPE_PKT_CTX];
	if (!ctx)
		return 0;
	for (uint32_t i = 0; ctx + i < m->vals + ctx->end; i++)
		if (ctx[i].fc && ctx[i].fc->role == TIO_ROLE_PACKET_SIZE)
			return ctx[i].v.u / 8;
	return 0;
}

/* Read the trace to the end; events into *out.  learn: fill c->unit for CTF files. */
static int drain(tcase *c, evs *out, bool learn)
{
	out->n = 0;
	out->errors = 0;
	tio_trace *t = NULL;
	if (tio_trace_open(c->open_path, c->format, &t)) {
		tio_error_clear();
		return -1;
	}
	tio_mux *m = NULL;
	if (tio_mux_new(&t, 1, &m)) {
		tio_trace_free(t);
		return -1;
	}
	for (unsigned long k = 0;; k++) {
		const tio_msg *msg;
		int r = tio_mux_next(m, &msg);
		if (r == 0)
			break;
		if (k > 10000000UL) {
			printf("FAIL %s: reading does not end\n", c->label);
			failures++;
			break;
		}
		if (r < 0) {
			out->errors++;
			tio_error_clear();
			if (r == TIO_ERR_NOMEM)
				break;
			continue;
		}
		if (msg->type != TIO_MSG_EVENT)
			continue;
		int fi = file_index(c, tio_msg_stream_path(msg));
		if (fi < 0)
			continue;
		if (learn && !strcmp(c->format, "ctf")) {
			uint64_t ps = pkt_size_of(msg);
			if (!c->data[fi])
				c->unit[fi] = ps;
			else if (c->unit[fi] != ps)
				c->unit[fi] = 0; /* packets of several sizes: no unit */
		}
		if (learn && (!c->data[fi] || msg->offset < c->data_from[fi]))
			c->data_from[fi] = msg->offset;
		c->data[fi] = true;
		if (tio_grow(&out->v, &out->cap, out->n + 1, sizeof(ev)))
			break;
		out->v[out->n++] = (ev){(uint32_t)fi, msg->offset, msg->has_ts ? msg->ns : 0,
					hash(msg->ec ? msg->ec->name : "")};
	}
	tio_mux_free(m);
	tio_trace_free(t);
	return 0;
}

static int ev_cmp(const void *a, const void *b)
{
	const ev *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int write_file(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = n ? fwrite(p, 1, n, f) : 0;
	return (fclose(f) || w != n) ? -1 : 0;
}

static bool copy_in(tcase *c)
{
	char tmpl[] = "/tmp/tio-damage-XXXXXX";
	if (!mkdtemp(tmpl))
		return false;
	c->tmp = strdup(tmpl);
	struct stat st;
	if (stat(c->src, &st))
		return false;
	char *names[MAXF], *rels[MAXF];
	int n = 0;
	if (S_ISDIR(st.st_mode)) {
		/* the files of the directory and of its subdirectories (not index/,
		   copied on request below) */
		const char *subs[MAXF + 1] = {""};
		int nsub = 1;
		for (int s = 0; s < nsub; s++) {
			char *dir = *subs[s] ? tio_path_join(c->src, subs[s]) : strdup(c->src);
			DIR *d = opendir(dir);
			struct dirent *de;
			while (d && (de = readdir(d)) && n < MAXF) {
				if (de->d_name[0] == '.')
					continue;
				char *p = tio_path_join(dir, de->d_name);
				char *rel = *subs[s] ? tio_path_join(subs[s], de->d_name) : strdup(de->d_name);
				if (tio_is_file(p)) {
					names[n] = p;
					rels[n++] = rel;
					continue;
				}
				if (!*subs[s] && strcmp(de->d_name, "index") && nsub < MAXF && tio_is_dir(p)) {
					char *sd = tio_path_join(c->tmp, rel);
					if (mkdir(sd, 0700) || !(c->subdirs[c->nsubdirs++] = sd))
						return false;
					subs[nsub++] = c->subdirs[c->nsubdirs - 1] + strlen(c->tmp) + 1;
				}
				free(p);
				free(rel);
			}
			if (d)
				closedir(d);
			free(dir);
		}
		c->open_path = strdup(c->tmp);
	} else {
		names[n] = strdup(c->src);
		const char *b = strrchr(c->src, '/');
		rels[n++] = strdup(b ? b + 1 : c->src);
	}
	for (int i = 0; i < n; i++) {
		char *data;
		size_t len;
		if (tio_read_file(names[i], &data, &len))
			return false;
		c->files[i] = tio_path_join(c->tmp, rels[i]);
		free(rels[i]);
		c->orig[i] = (uint8_t *)data;
		c->size[i] = len;
		if (write_file(c->files[i], c->orig[i], len))
			return false;
		if (!S_ISDIR(st.st_mode))
			c->open_path = strdup(c->files[i]);
		free(names[i]);
	}
	c->nfiles = n;
	if (c->index) {
		/* LTTng's index/FILE.idx, read by the CTF reader to recover */
		char *sd = tio_path_join(c->src, "index"), *dd = tio_path_join(c->tmp, "index");
		DIR *d = opendir(sd);
		struct dirent *de;
		bool ok = d && !mkdir(dd, 0700);
		while (ok && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char *sp = tio_path_join(sd, de->d_name), *dp = tio_path_join(dd, de->d_name), *data;
			size_t len;
			ok = !tio_read_file(sp, &data, &len) && !write_file(dp, (uint8_t *)data, len);
			if (ok)
				free(data);
			free(sp);
			free(dp);
		}
		if (d)
			closedir(d);
		free(sd);
		free(dd);
		if (!ok)
			return false;
	}
	if (c->nomagic) {
		int mi = -1;
		for (int i = 0; i < n; i++)
			if (!strcmp(strrchr(c->files[i], '/') + 1, "metadata"))
				mi = i;
		uint8_t *m = mi >= 0 ? memmem(c->orig[mi], c->size[mi], "uint32_t magic;", 15) : NULL;
		if (!m)
			return false;
		m[13] = 'x'; /* magix: same size (packetized metadata keeps its layout) */
		if (write_file(c->files[mi], c->orig[mi], c->size[mi]))
			return false;
	}
	return true;
}

static void cleanup(tcase *c)
{
	if (c->index) {
		char *dd = tio_path_join(c->tmp, "index");
		DIR *d = opendir(dd);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			char *p = tio_path_join(dd, de->d_name);
			if (de->d_name[0] != '.')
				unlink(p);
			free(p);
		}
		if (d)
			closedir(d);
		rmdir(dd);
		free(dd);
	}
	for (int i = 0; i < c->nfiles; i++) {
		unlink(c->files[i]);
		free(c->files[i]);
		free(c->orig[i]);
	}
	for (int i = c->nsubdirs - 1; i >= 0; i--) {
		rmdir(c->subdirs[i]);
		free(c->subdirs[i]);
	}
	if (c->tmp)
		rmdir(c->tmp);
	if (c->gen) {
		char *cmd = tio_asprintf("rm -rf '%s'", c->gen);
		if (cmd && system(cmd))
			printf("note: could not remove %s\n", c->gen);
		free(cmd);
		free(c->gen);
	}
	free(c->tmp);
	free(c->open_path);
	free(c->src);
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void run_case(tcase *c, int ndamage)
{
	if (!copy_in(c)) {
		printf("FAIL %s: cannot copy %s\n", c->label, c->src);
		failures++;
		return;
	}
	evs orig = {0}, got = {0}, anyf = {0};
	if (drain(c, &orig, true) || orig.errors || !orig.n) {
		printf("FAIL %s: the undamaged trace does not read cleanly (%zu events, %d errors)\n", c->label,
		       orig.n, orig.errors);
		failures++;
		goto out;
	}
	for (int i = 0; i < c->nfiles; i++) {
		/* trace.dat: pages (4096 bytes in these traces); compressed data is lost by
		   whole chunks, whose bounds only the reader knows: no subset check there */
		if (!strcmp(c->format, "tracedat") && !strstr(c->label, "zstd"))
			c->unit[i] = 4096;
		if (!strcmp(c->format, "lttng0") && c->size[i] >= 60)
			c->unit[i] = tio_le32(c->orig[i] + 56);
		if (c->block)
			c->unit[i] = c->block;
		if (c->unit[i])
			c->data_from[i] -= c->data_from[i] % c->unit[i];
	}
	qsort(orig.v, orig.n, sizeof(ev), ev_cmp);
	int data_files[MAXF], nd = 0;
	for (int i = 0; i < c->nfiles; i++) {
		const char *b = strrchr(c->files[i], '/') + 1;
		/* LTTng 0.x's metadata channel and the LTT layouts' control/ files
		   describe the others' events: they are metadata */
		if (c->data[i] && strncmp(b, "metadata", 8) && strncmp(rel_name(c, c->files[i]), "control/", 8))
			data_files[nd++] = i;
	}
	size_t checked = 0, lost_ok = 0;
	int opened = 0;
	for (int k = 0; k < ndamage; k++) {
		int fi = data_files[next_rand() % (uint64_t)nd];
		uint64_t from = c->data_from[fi], size = c->size[fi];
		if (size <= from + 1)
			continue;
		uint64_t x = from + next_rand() % (size - from);
		bool cut = k % 3 == 0;
		/* one damage in three hits the first bytes of a unit: its header (packet
		   header and context, page header, block header), where sizes are */
		uint64_t U0 = c->unit[fi];
		if (k % 3 == 1 && U0 && size - from > U0)
			x = from + (next_rand() % ((size - from) / U0)) * U0 + next_rand() % 64;
		uint8_t *buf = malloc(size);
		memcpy(buf, c->orig[fi], size);
		if (!cut)
			buf[x] ^= k % 2 ? (uint8_t)(1u << (next_rand() % 8)) : 0xff;
		write_file(c->files[fi], buf, cut ? x : size);
		free(buf);
		int r = drain(c, &got, false);
		write_file(c->files[fi], c->orig[fi], size);
		if (r)
			continue; /* did not open: fine, as long as it did not crash */
		opened++;
		qsort(got.v, got.n, sizeof(ev), ev_cmp);
		/*
		 * A stream's messages name its first file: a damaged stream instance
		 * id that puts a file in another file's stream moves that file's
		 * events under another name.  They are still delivered: an event is
		 * also found by (offset, time, name) among every file's.
		 */
		if (tio_grow(&anyf.v, &anyf.cap, got.n ? got.n : 1, sizeof(ev)))
			break;
		anyf.n = got.n;
		for (size_t e = 0; e < got.n; e++) {
			anyf.v[e] = got.v[e];
			anyf.v[e].file = 0;
		}
		qsort(anyf.v, anyf.n, sizeof(ev), ev_cmp);
		uint64_t U = c->unit[fi];
		size_t missing = 0;
		const ev *first_missing = NULL;
		for (size_t e = 0; e < orig.n; e++) {
			const ev *o = &orig.v[e];
			bool required = o->file != (uint32_t)fi ||
					(U && (cut ? o->off / U < x / U : o->off / U != x / U));
			/* no magic, no index: nothing gives where packets are when the
			   first one is damaged (documented in docs/formats/hardening.md) */
			if (c->nomagic && !c->index && o->file == (uint32_t)fi && U && x / U == 0)
				required = false;
			if (!required) {
				lost_ok++;
				continue;
			}
			checked++;
			ev o0 = *o;
			o0.file = 0;
			if (!bsearch(o, got.v, got.n, sizeof(ev), ev_cmp) &&
			    !bsearch(&o0, anyf.v, anyf.n, sizeof(ev), ev_cmp) && !missing++)
				first_missing = o;
		}
		if (missing) {
			printf("FAIL %s: %s %s at 0x%llx (unit %llu): %zu events of undamaged units missing, first: %s@0x%llx\n",
			       c->label, cut ? "cut" : "flip", rel_name(c, c->files[fi]), (unsigned long long)x,
			       (unsigned long long)U, missing, rel_name(c, c->files[first_missing->file]),
			       (unsigned long long)first_missing->off);
			failures++;
		}
	}
	printf("%s: %zu events, %d damaged copies (%d opened), %zu event checks\n", c->label, orig.n, ndamage,
	       opened, checked);
out:
	free(orig.v);
	free(got.v);
	free(anyf.v);
	cleanup(c);
}

/* Replace c->src by its copy in format `to`, written by the traceio CLI with 4 KiB blocks. */
static bool convert_to(tcase *c, const char *to)
{
	const char *tio = getenv("TIO");
	char tmpl[] = "/tmp/tio-damage-gen-XXXXXX";
	if (!tio || !mkdtemp(tmpl)) {
		printf("FAIL %s: no traceio CLI ($TIO) to write the trace with\n", c->label);
		failures++;
		return false;
	}
	c->gen = strdup(tmpl);
	char *out = tio_path_join(c->gen, "t");
	char *cmd = tio_asprintf("'%s' convert -q --to %s --block-size 4096 -o '%s' '%s'", tio, to, out, c->src);
	int r = cmd ? system(cmd) : -1;
	free(cmd);
	if (r) {
		printf("FAIL %s: traceio convert --to %s failed (%d)\n", c->label, to, r);
		failures++;
		free(out);
		return false;
	}
	free(c->src);
	c->src = out;
	c->block = 4096;
	return true;
}

int main(void)
{
	const char *top = getenv("TIO_TOP"), *shared = getenv("TIO_SHARED");
	if (!top || !shared) {
		printf("skip: run through tests/run.sh (TIO_TOP, TIO_SHARED)\n");
		return 0;
	}
	const char *env_n = getenv("TIO_DAMAGE_N");
	const char *b = getenv("TIO_BUILD");
	int n = env_n ? atoi(env_n) : (b && strstr(b, "asan") ? 25 : 60);
	struct {
		const char *label, *base, *rel, *format;
		bool nomagic, index;
		const char *to; /* write the trace in this format first (traceio convert --to) */
	} cases[] = {
		{"ctf1-trace-with-index", "peer", "ctf/babeltrace-2.1/ctf-traces/1/succeed/trace-with-index", "ctf"},
		{"ctf2-trace-with-index", "peer", "ctf/babeltrace-2.1/ctf-traces/2/succeed/trace-with-index", "ctf"},
		{"ctf1-lttng-tracefile-rotation", "peer",
		 "ctf/babeltrace-2.1/ctf-traces/1/succeed/lttng-tracefile-rotation/kernel", "ctf"},
		{"tracedat-v6", "peer", "tracedat/samples/igt-tests-trace-x86_64-i915-v6.dat", "tracedat"},
		{"tracedat-v7-zstd", "peer", "tracedat/converted-by-trace-cmd-3.1.6/igt-tests-trace-x86_64-i915-v7-zstd.dat", "tracedat"},
		{"lttng0-2.5", "peer", "ltt0x/traces/trace-15316events_nolost_newformat", "lttng0"},
		{"ctf1-nomagic-trace-with-index", "peer", "ctf/babeltrace-2.1/ctf-traces/1/succeed/trace-with-index", "ctf",
		 true, false},
		{"ctf1-nomagic-trace-with-index+index", "peer", "ctf/babeltrace-2.1/ctf-traces/1/succeed/trace-with-index",
		 "ctf", true, true},
		/* written by traceio convert from the real LTTng 0.x trace */
		{"ltt-from-lttng0-2.5", "peer", "ltt0x/traces/trace-15316events_nolost_newformat", "ltt", .to = "ltt"},
		{"lttng0-2008-from-lttng0-2.5", "peer", "ltt0x/traces/trace-15316events_nolost_newformat",
		 "lttng0-2008", .to = "lttng0"},
	};
	for (size_t i = 0; i < TIO_ARRAY_LEN(cases); i++) {
		tcase c = {0};
		c.label = cases[i].label;
		c.format = cases[i].format;
		c.nomagic = cases[i].nomagic;
		c.index = cases[i].index;
		c.src = strcmp(cases[i].base, "top")
				? tio_asprintf("%s/peer-data/%s", shared, cases[i].rel)
				: tio_asprintf("%s/%s", top, cases[i].rel);
		if (cases[i].to && !convert_to(&c, cases[i].to)) {
			cleanup(&c);
			continue;
		}
		run_case(&c, n);
	}
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
