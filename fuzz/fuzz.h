/*
 * Shared helpers of the fuzz targets (fuzz/NAME_fuzzer.c).  Each target
 * defines LLVMFuzzerTestOneInput(); it is linked either with libFuzzer
 * (-DTIO_FUZZ=ON, `make fuzz`) or with fuzz/replay.c, a plain main() that
 * runs every file of a corpus once (tests/fuzz/test-replay.sh), so that a
 * crash found once stays fixed.
 *
 * Readers that take a path get their input written to a fresh directory
 * under /dev/shm (TMPDIR when /dev/shm is missing), removed after each run.
 */
#ifndef TIO_FUZZ_H
#define TIO_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "traceio/traceio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A fresh empty directory (malloc'd path), NULL on failure. */
char *fz_dir_new(void);
/* Write `size` bytes to DIR/NAME. */
int fz_write(const char *dir, const char *name, const void *data, size_t size);
/* Remove DIR and every file in it (one level). */
void fz_dir_free(char *dir);

/*
 * Open `path` with reader `format` and send every message through the sink
 * `sink` (output to /dev/null), going on after errors as `traceio print`
 * does.  `threads`: tio_mux_set_threads (0: left to the mux, which reads
 * inputs this small on one thread; the targets pass 2 for inputs of odd
 * size, so that the readers' worker-thread paths (mt_cut) are fuzzed too).
 * Returns the number of errors (-1 when the trace did not open).
 */
int fz_drain(const char *path, const char *format, const char *sink, unsigned threads);
/* fz_drain with a reader option (tio_trace_set) given after the open, when key is not NULL. */
int fz_drain_set(const char *path, const char *format, const char *sink, unsigned threads, const char *key,
		 const char *value);

/*
 * A simple container for multi-file inputs: records "NAME\0" + u32 LE size +
 * bytes (NAME: "file" or "dir/file", at most 64 bytes).  Calls fn for each well-formed record; stops at the first bad one.
 * Returns the number of records.
 */
typedef void (*fz_file_fn)(void *ctx, const char *name, const uint8_t *p, size_t n);
int fz_split(const uint8_t *data, size_t size, fz_file_fn fn, void *ctx);

#endif
