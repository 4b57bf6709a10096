/*
 * Run a fuzz target without libFuzzer: every file given (directories are
 * read one level deep) goes through LLVMFuzzerTestOneInput() once.  Built
 * for every fuzz/NAME_fuzzer.c as <target>-replay; tests/fuzz/test-replay.sh
 * runs the corpora with it under ASan+UBSan.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				fclose(f);
				free(buf);
				return 1;
			}
			buf = nb;
		}
		size_t k = fread(buf + len, 1, cap - len, f);
		len += k;
		if (k == 0)
			break;
	}
	fclose(f);
	/* an exact-size copy, so ASan sees reads past the input's end */
	uint8_t *exact = malloc(len ? len : 1);
	if (exact)
		memcpy(exact, buf, len);
	free(buf);
	if (!exact)
		return 1;
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

int main(int argc, char **argv)
{
	int bad = 0, n = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st)) {
			perror(argv[i]);
			bad++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad += run_file(argv[i]);
			n++;
			continue;
		}
		struct dirent **names;
		int k = scandir(argv[i], &names, NULL, alphasort);
		for (int j = 0; j < k; j++) {
			if (names[j]->d_name[0] != '.') {
				size_t l = strlen(argv[i]) + strlen(names[j]->d_name) + 2;
				char *p = malloc(l);
				if (p) {
					snprintf(p, l, "%s/%s", argv[i], names[j]->d_name);
					bad += run_file(p);
					n++;
					free(p);
				}
			}
			free(names[j]);
		}
		free(names);
	}
	printf("%d inputs run, %d unreadable\n", n, bad);
	return bad ? 1 : 0;
}
