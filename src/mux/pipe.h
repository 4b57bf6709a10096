/*
 * Decoding on worker threads for the mux (src/mux/pipe.c): the streams
 * whose reader allows it (tio_stream_ops.mt_cut) are read ahead by workers
 * into bounded batches of copied messages.
 */
#ifndef TIO_MUX_PIPE_H
#define TIO_MUX_PIPE_H

#include "ir/ir.h"

typedef struct tio_pipe tio_pipe;

/*
 * Replace each stream with mt_cut of streams[0..n) by a proxy whose next()
 * reads what workers decoded (the same messages in the same order), and
 * start the workers: `threads` of them at most (0: TIO_THREADS from the
 * environment, else the CPUs online), no more than the streams.  *out is
 * NULL (and nothing replaced) with one thread or no such stream.
 */
int mt_pipe_new(tio_stream **streams, size_t n, unsigned threads, tio_pipe **out);
/* Stop the workers and free the proxies (the real streams stay). */
void mt_pipe_free(tio_pipe *p);

#endif
