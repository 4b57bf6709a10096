/*
 * The read-ahead helper (tio_map_prefetch, tio_map_release, tio_map_close
 * in src/common/common.c): what is read through a map while the helper
 * populates ahead and drops behind is the file's bytes, and once
 * tio_map_close returns no queued request touches memory mapped at the
 * same addresses afterwards (a stale MADV_DONTNEED would zero anonymous
 * memory: the check below would see it).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/common.h"
#include "traceio/error.h"

#include "unit-check.h"

#define FILE_SIZE (8u << 20)
#define CHUNK (256u << 10)

static uint8_t byte_at(uint64_t k) { return (uint8_t)(k * 2654435761u >> 13); }

int main(void)
{
	char path[] = "/tmp/unit-readahead-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	uint8_t *buf = malloc(FILE_SIZE);
	for (uint64_t k = 0; k < FILE_SIZE; k++)
		buf[k] = byte_at(k);
	if (write(fd, buf, FILE_SIZE) != (ssize_t)FILE_SIZE) {
		perror("write");
		return 1;
	}
	close(fd);
	free(buf);

	/* reading through the map as a reader does: the next chunk handed to
	   the helper, the chunk behind dropped, every byte compared */
	for (int round = 0; round < 20; round++) {
		tio_map m;
		CHECK(!tio_map_open(&m, path), "open: %s", tio_error_message());
		uint64_t bad = 0;
		for (uint64_t off = 0; off < m.size; off += CHUNK) {
			tio_map_prefetch(&m, off + CHUNK, 2 * CHUNK);
			for (uint64_t k = off; k < off + CHUNK && k < m.size; k++)
				bad += m.p[k] != byte_at(k);
			tio_map_release(&m, off);
		}
		/* and again from the start: dropped pages are read from the file */
		for (uint64_t k = 0; k < m.size; k += 4093)
			bad += m.p[k] != byte_at(k);
		CHECK(bad == 0, "round %d: %llu bytes differ from the file", round, (unsigned long long)bad);
		CHECK(m.released > 0, "round %d: nothing released", round);
		tio_map_close(&m);
	}

	/* close with work still queued, then anonymous memory where the map
	   was: it must keep what is written to it */
	uint64_t zeroed = 0;
	for (int round = 0; round < 200; round++) {
		tio_map m;
		if (tio_map_open(&m, path))
			break;
		const uint8_t *at = m.p;
		for (uint64_t off = 0; off < m.size; off += CHUNK)
			tio_map_prefetch(&m, off, CHUNK);
		tio_map_release(&m, m.size);
		tio_map_close(&m);
		uint8_t *a = mmap((void *)at, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a == MAP_FAILED)
			break;
		for (uint64_t k = 0; k < FILE_SIZE; k += 4096)
			a[k] = 0xAB;
		usleep(200);
		for (uint64_t k = 0; k < FILE_SIZE; k += 4096)
			zeroed += a[k] != 0xAB;
		munmap(a, FILE_SIZE);
	}
	CHECK(zeroed == 0, "%llu pages of memory mapped after a close were dropped", (unsigned long long)zeroed);
	unlink(path);
	if (failures)
		printf("%d failures\n", failures);
	return failures != 0;
}
