/*
 * Output files of the unit tests: a file's bytes, two directories' .parquet
 * files compared byte for byte, a tree removed.  Include after unit-check.h.
 */
#ifndef TIO_UNIT_FILES_H
#define TIO_UNIT_FILES_H

#include <dirent.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>

/* The bytes of `path` (malloc'd; NULL and *len 0 when unreadable). */
static inline char *unit_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	*len = 0;
	if (f && !fseek(f, 0, SEEK_END)) {
		long n = ftell(f);
		rewind(f);
		if (n >= 0 && (b = malloc((size_t)n + 1)) && fread(b, 1, (size_t)n, f) == (size_t)n)
			*len = (size_t)n;
	}
	if (f)
		fclose(f);
	return b;
}

/* Every .parquet file of `ref` equal in `dir` (a failed check each one not); the files compared. */
static inline int unit_same_parquet(const char *ref, const char *dir)
{
	DIR *d = opendir(ref);
	int n = 0;
	CHECK(d, "%s: no output", ref);
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (l < 8 || strcmp(e->d_name + l - 8, ".parquet"))
			continue;
		char a[8400], b[8400];
		snprintf(a, sizeof(a), "%s/%s", ref, e->d_name);
		snprintf(b, sizeof(b), "%s/%s", dir, e->d_name);
		size_t la, lb;
		char *pa = unit_slurp(a, &la), *pb = unit_slurp(b, &lb);
		CHECK(pa && pb && la == lb && !memcmp(pa, pb, la), "%s differs from %s (%zu and %zu bytes)", b, a, la,
		      lb);
		free(pa);
		free(pb);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

static inline int unit_rm_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(p);
}

/* Remove the tree at `dir`. */
static inline void unit_rm_tree(const char *dir) { nftw(dir, unit_rm_one, 16, FTW_DEPTH | FTW_PHYS); }

#endif
