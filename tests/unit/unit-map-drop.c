/*
 * tio_map_drop gives back everything the faults of the bytes it names
 * mapped, not only their pages: a fault maps a whole huge page when the
 * page cache holds the file in huge folios (a file read from disk, on
 * kernels with large folios), else a fault-around window (64 KiB).  An
 * index that reads one packet header every few MiB and dropped only the
 * header's pages kept 123 MB of a 258 MB trace mapped.
 *
 * Here: one byte read every 2 MiB of a 16 MiB file, each dropped right
 * after; the mapping's resident size (/proc/self/smaps) must then be
 * (nearly) nothing, in both page cache states, and the bytes read again
 * are the file's.  (A huge page loses its whole mapping to a drop of any
 * part of it; the fault-around window does not: that state fails without
 * the widening.)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/common.h"
#include "traceio/error.h"

#include "unit-check.h"

#define FILE_SIZE (16u << 20)
#define STEP (2u << 20)

static uint8_t byte_at(uint64_t k) { return (uint8_t)(k * 2654435761u >> 13); }

/* Resident kB of the mapping that begins at p, or -1. */
static long rss_kb(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	if (!f)
		return -1;
	char line[256];
	bool in = false;
	long kb = -1;
	char want[32];
	snprintf(want, sizeof want, "%lx-", (unsigned long)(uintptr_t)p);
	while (fgets(line, sizeof line, f)) {
		if ((line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f'))
			in = !strncmp(line, want, strlen(want)); /* a mapping's first line: its addresses */
		else if (in && !strncmp(line, "Rss:", 4)) {
			kb = strtol(line + 4, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}

/* Read one byte every STEP through a new map, dropping each; the resident kB left. */
static long sparse_reads(const char *path, uint64_t *bad)
{
	tio_map m;
	CHECK(!tio_map_open(&m, path), "open: %s", tio_error_message());
	for (uint64_t off = STEP / 2 + 123; off < m.size; off += STEP) {
		*bad += m.p[off] != byte_at(off);
		tio_map_drop(&m, off, 1);
	}
	long kb = rss_kb(m.p);
	/* dropped pages are read from the file again */
	for (uint64_t k = 0; k < m.size; k += 4093)
		*bad += m.p[k] != byte_at(k);
	tio_map_close(&m);
	return kb;
}

int main(void)
{
	char path[] = "/tmp/unit-map-drop-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	uint8_t *buf = malloc(FILE_SIZE);
	for (uint64_t k = 0; k < FILE_SIZE; k++)
		buf[k] = byte_at(k);
	/* in 4 KiB writes, as a tracer's consumer writes (small folios: a fault
	   maps its fault-around window) */
	for (uint64_t k = 0; k < FILE_SIZE; k += 4096)
		if (write(fd, buf + k, 4096) != 4096) {
			perror("write");
			return 1;
		}
	if (fsync(fd)) {
		perror("fsync");
		return 1;
	}
	free(buf);

	/* as written, then as read back from disk (read(2): the page cache
	   then holds it in large folios, up to huge pages) */
	for (int state = 0; state < 2; state++) {
		if (state == 1) {
			(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			uint8_t *b = malloc(1u << 20);
			uint64_t bad = 0, k = 0;
			ssize_t got;
			while (b && (got = pread(fd, b, 1u << 20, (off_t)k)) > 0)
				for (ssize_t j = 0; j < got; j++, k++)
					bad += b[j] != byte_at(k);
			free(b);
			CHECK(bad == 0 && k == FILE_SIZE, "read back: %llu bytes differ from the file, %llu read",
			      (unsigned long long)bad, (unsigned long long)k);
		}
		uint64_t bad = 0;
		long kb = sparse_reads(path, &bad);
		CHECK(bad == 0, "state %d: %llu bytes differ from the file", state, (unsigned long long)bad);
		CHECK(kb >= 0, "state %d: no Rss for the mapping in /proc/self/smaps", state);
		/* 8 reads: without the widening, 8 fault-around windows (480 kB) or 8 huge pages (16 MB) */
		CHECK(kb < 64, "state %d: %ld kB still mapped after dropping every byte read", state, kb);
	}
	close(fd);
	unlink(path);
	if (!failures)
		printf("unit-map-drop: ok\n");
	return failures != 0;
}
