/*
 * Output directories of the writers (CTF, Parquet, the LTT layouts): made
 * under a temporary name, then put in place in one rename, so that a
 * reader never sees half a trace and a failed conversion leaves nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"

int tio_mkdtemp(char *tmpl)
{
	size_t n = strlen(tmpl);
	if (n < 6 || strcmp(tmpl + n - 6, "XXXXXX")) {
		errno = EINVAL;
		return -1;
	}
	static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	uint64_t x = 0;
	for (int tries = 0; tries < 1000; tries++) {
		if (getrandom(&x, sizeof(x), 0) != (ssize_t)sizeof(x))
			x = x * 6364136223846793005ull + (uint64_t)getpid() + (uint64_t)tries; /* no entropy: still varies */
		for (int k = 0; k < 6; k++, x /= 62)
			tmpl[n - 6 + k] = abc[x % 62];
		if (!mkdir(tmpl, 0777))
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

/* nftw callback of tio_rm_tree: a file, or a directory once emptied; goes on after a failure. */
static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	TIO_UNUSED(st);
	TIO_UNUSED(f);
	if (flag == FTW_DP)
		rmdir(p);
	else
		unlink(p);
	return 0;
}

void tio_rm_tree(const char *path)
{
	if (path)
		nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The file name tio_dir_replace looks for in a directory it may replace (nftw has no argument). */
static __thread const char *marker_name;

/* nftw callback: stop (1) at a regular file named marker_name. */
static int has_marker(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	TIO_UNUSED(st);
	return flag == FTW_F && !strcmp(p + f->base, marker_name);
}

int tio_dir_replace(const char *src, const char *out, bool force, const char *marker, const char *what)
{
	int r = 0;
	char *old = NULL;
	struct stat st;
	if (lstat(out, &st) == 0) {
		if (!force) {
			r = tio_err_set(TIO_ERR_USAGE, "%s: already exists (--force replaces it)", out);
		} else if (S_ISDIR(st.st_mode)) {
			/* only what this writer writes (or nothing) is replaced */
			bool empty = rmdir(out) == 0;
			marker_name = marker;
			if (!empty && nftw(out, has_marker, 16, FTW_PHYS) != 1)
				r = tio_err_set(TIO_ERR_USAGE, "%s: a directory without %s: not replacing it", out, what);
			else if (!empty) {
				old = tio_asprintf("%s.old-XXXXXX", out);
				if (!old || !mkdtemp(old) || rmdir(old) || rename(out, old))
					r = tio_err_set(TIO_ERR_IO, "%s: cannot move it aside: %s", out, strerror(errno));
			}
		} else if (unlink(out)) {
			r = tio_err_set(TIO_ERR_IO, "%s: cannot replace: %s", out, strerror(errno));
		}
	}
	if (!r && rename(src, out))
		r = tio_err_set(TIO_ERR_IO, "%s: cannot rename %s to it: %s", out, src, strerror(errno));
	if (!r && old)
		tio_rm_tree(old);
	free(old);
	return r;
}
