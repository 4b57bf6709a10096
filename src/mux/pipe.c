/*
 * Decoding on several cores: worker threads run the stream readers ahead
 * of the merge, each stream into a small ring of batches of messages,
 * and the mux (tio_mux_next, on the caller's thread) takes the
 * messages from the batches in the same per-stream order a direct read
 * gives.  The output is therefore the same, byte for byte, whatever the
 * number of threads.
 *
 * The mux does not know: each stream whose reader allows it
 * (tio_stream_ops.mt_cut) is replaced in the mux by a proxy stream with the
 * same identity (trace, class, id, index: the merge's tie-break) whose
 * next() reads the batches.  Seek, index and skip_filter go to the real
 * stream after its worker has stopped (mt_pause), and reading resumes
 * from there.
 *
 * No value is copied: the reader puts the values of the messages of a
 * batch one after the other in one of its arrays (tio_stream_ops.mt_cut
 * names it when a batch begins), and the batch holds the messages
 * themselves, pointing there.  An array is named again only once the
 * merge is done with its batch.  Strings, BLOBs and raw record bytes stay
 * where the reader put them: a reader has mt_cut only when those stay valid
 * as long as the trace or the batches that hold such messages (CTF and
 * trace.dat point into the mapped files; compressed trace.dat into chunk
 * buffers kept until the batches pointing there are done).
 *
 * Memory stays flat: PIPE_NB batches (and value arrays) per stream of a
 * bounded size (a message bigger than that gets an array of its size),
 * reused.  The caller's thread fills a stream's next batch itself when no
 * worker has started on it (so it never waits for a worker busy elsewhere).  Errors travel in the
 * batch in their place, with their message, and are set again on the
 * caller's thread when reached.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "ir/ir.h"
#include "mux/pipe.h"

enum { PIPE_NB = TIO_MT_SLOTS };		/* batches per stream: one value array each */
enum { E_MSG = 1, E_ERR, E_END };		/* entry kinds */
enum { P_IDLE, P_QUEUED, P_RUNNING };		/* who works on a stream */

/* Each entry of a batch starts with this; `size` bytes from it is the next one. */
typedef struct entry {
	uint32_t size;
	int32_t kind;
	int32_t status; /* E_ERR */
	uint32_t pad;
} entry;

typedef struct batch {
	uint8_t *p;
	size_t cap, len;
} batch;

typedef struct proxy proxy;

struct tio_pipe {
	pthread_mutex_t mu;
	pthread_cond_t work; /* a stream was queued, or shutdown */
	pthread_cond_t done; /* a batch was published, or a worker left a stream */
	pthread_t *threads;
	unsigned nthreads;
	bool shutdown;
	proxy **queue; /* streams waiting for a worker, FIFO ring of nproxies */
	size_t qhead, qlen; /* qlen also read without the lock (spin): changed atomically */
	proxy **proxies;
	size_t nproxies;
	size_t target; /* bytes of messages a worker puts in a batch before it publishes it */
	size_t target_vals; /* values in the reader's array, the same */
};

struct proxy {
	tio_stream base; /* what the mux sees */
	tio_stream *real;
	tio_pipe *pipe;
	batch b[PIPE_NB];
	unsigned rd, nfilled;	 /* filled batches: rd, rd + 1, ... (mod PIPE_NB); nfilled also
				    read without the lock (spin), so changed atomically */
	unsigned wslot;		 /* the batch being filled (set with state P_RUNNING) */
	int state;		 /* P_* */
	bool eof;		 /* the reader's end is in a batch */
	bool paused;		 /* mt_pause: no worker may take it */
	bool kicked;		 /* queued once since the last (re)start */
	int stop;		 /* a worker must stop filling soon (atomic) */
	/* the caller's side: the batch it reads */
	/* the caller's side, on a cache line of its own (read at every message
	   while a worker writes the batch it fills) */
	_Alignas(64) bool reading;
	const uint8_t *rp, *rend; /* the next entry, the end of the batch (NULL: none) */
	bool ended;
	_Alignas(64) char end_[1];
};

/* ---------------------------------------------------------------- filling a batch */

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

/* Room for `n` more bytes in b (the batch is the worker's alone; nothing points into it). */
static int room(batch *b, size_t n)
{
	if (TIO_LIKELY(b->len + n <= b->cap))
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	uint8_t *p = tio_realloc(b->p, cap);
	if (!p)
		return TIO_ERR_NOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

/* What a worker knows of the batch it fills (on its own stack: nothing the merge reads). */
typedef struct filling {
	batch b;		/* a copy, written back when published */
	const tio_val *vbase;	/* where the batch's messages point: the reader's array */
	size_t vlen;		/* how far into it */
} filling;

/*
 * The reader's array moved (it grew): the messages of the batch that point
 * into its old place point into the new one.
 */
static void moved(filling *f, const tio_val *now)
{
	batch *b = &f->b;
	uintptr_t old = (uintptr_t)f->vbase, oend = old + f->vlen * sizeof(tio_val);
	for (size_t at = 0; at < b->len; at += ((entry *)(b->p + at))->size) {
		entry *e = (entry *)(b->p + at);
		if (e->kind != E_MSG)
			continue;
		tio_msg *c = (tio_msg *)(e + 1);
		if ((uintptr_t)c->vals != old)
			continue;
		c->vals = now;
		for (int sc = 0; sc < TIO_NSCOPES; sc++)
			if ((uintptr_t)c->scope[sc] >= old && (uintptr_t)c->scope[sc] < oend)
				c->scope[sc] = now + ((uintptr_t)c->scope[sc] - old) / sizeof(tio_val);
	}
	f->vbase = now;
}

/* Append one message to the batch (its values stay in the reader's array). */
static inline int put_msg(filling *f, const tio_msg *m)
{
	batch *b = &f->b;
	size_t sz = sizeof(entry) + ALIGN8(sizeof(tio_msg));
	int r = room(b, sz);
	if (TIO_UNLIKELY(r))
		return r;
	entry *e = (entry *)(b->p + b->len);
	*e = (entry){.size = (uint32_t)sz, .kind = E_MSG};
	memcpy(e + 1, m, sizeof(tio_msg));
	b->len += sz;
	if (m->vals == f->vbase && m->nvals > f->vlen)
		f->vlen = m->nvals;
	return 0;
}

/* An error in its place in the stream: status and message. */
static int put_err(batch *b, int status)
{
	const char *msg = tio_error_message();
	size_t len = strlen(msg);
	size_t sz = ALIGN8(sizeof(entry) + len + 1);
	int r = room(b, sz);
	if (r)
		return r;
	entry *e = (entry *)(b->p + b->len);
	*e = (entry){.size = (uint32_t)sz, .kind = E_ERR, .status = status};
	memcpy(e + 1, msg, len + 1);
	b->len += sz;
	return 0;
}

static int put_end(batch *b)
{
	int r = room(b, sizeof(entry));
	if (r)
		return r;
	*(entry *)(b->p + b->len) = (entry){.size = sizeof(entry), .kind = E_END};
	b->len += sizeof(entry);
	return 0;
}

/*
 * Fill the stream's next free batch from its reader, on whichever thread
 * runs it (a worker, or the caller's when it would wait): up to the batch
 * targets, the reader's end, an error, or a stop request.  True at the
 * end (the caller sets x->eof, under the lock).  A message that cannot be
 * queued (out of memory) becomes an error in its place.
 */
static bool fill(proxy *x)
{
	unsigned slot = x->wslot;
	tio_stream *s = x->real;
	size_t target = x->pipe->target, target_vals = x->pipe->target_vals;
	filling f = {.b = x->b[slot]};
	f.b.len = 0;
	s->ops->mt_cut(s, slot); /* no message of a batch still read is in this array */
	f.vbase = s->mt_vals;
	bool end = false;
	if (room(&f.b, target + 4096)) { /* the batch moves as rarely as possible */
		end = true;		     /* out of memory: the stream ends here */
		goto done;
	}
	while (f.b.len < target && f.vlen < target_vals && !__atomic_load_n(&x->stop, __ATOMIC_RELAXED)) {
		const tio_msg *m = NULL;
		int r = s->ops->next(s, &m);
		if (TIO_UNLIKELY(s->mt_vals != f.vbase))
			moved(&f, s->mt_vals);
		if (TIO_LIKELY(r > 0) && TIO_LIKELY(!(r = put_msg(&f, m))))
			continue;
		if (r == 0) {
			put_end(&f.b); /* without room for it, eof alone says it */
			end = true;
			break;
		}
		/* the reader resumes after the damage on its next call */
		put_err(&f.b, r);
		break;
	}
done:
	x->b[slot] = f.b;
	return end;
}

/* ---------------------------------------------------------------- scheduling */

/*
 * Called with mu held: give the stream to a worker when it is not busy and
 * fewer than `below` of its batches are filled.  A worker goes on while
 * there is room (PIPE_NB); the merge gives a stream back once half its
 * batches are free (LOW), so that a worker woken has work for a while.
 */
#define LOW (PIPE_NB / 2 + 1)
static void offer(tio_pipe *p, proxy *x, unsigned below)
{
	if (x->state != P_IDLE || x->eof || x->paused || !p->nthreads || x->nfilled >= below)
		return;
	x->state = P_QUEUED;
	p->queue[(p->qhead + p->qlen) % p->nproxies] = x;
	__atomic_store_n(&p->qlen, p->qlen + 1, __ATOMIC_RELEASE);
	pthread_cond_signal(&p->work);
}

/* Called with mu held: take a queued stream out of the queue. */
static void unqueue(tio_pipe *p, proxy *x)
{
	size_t k = 0;
	for (size_t i = 0; i < p->qlen; i++) {
		proxy *y = p->queue[(p->qhead + i) % p->nproxies];
		if (y != x)
			p->queue[(p->qhead + k++) % p->nproxies] = y;
	}
	__atomic_store_n(&p->qlen, k, __ATOMIC_RELAXED);
	x->state = P_IDLE;
}

/* Called with mu held: the stream's next free batch is being filled (by the caller of this). */
static void run(proxy *x)
{
	x->state = P_RUNNING;
	x->wslot = (x->rd + x->nfilled) % PIPE_NB;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static void *worker(void *arg)
{
	tio_pipe *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->shutdown && !p->qlen)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->shutdown)
			break;
		proxy *x = p->queue[p->qhead];
		p->qhead = (p->qhead + 1) % p->nproxies;
		__atomic_store_n(&p->qlen, p->qlen - 1, __ATOMIC_RELAXED);
		run(x);
		pthread_mutex_unlock(&p->mu);
		bool end = fill(x);
		pthread_mutex_lock(&p->mu);
		x->eof |= end;
		__atomic_add_fetch(&x->nfilled, 1, __ATOMIC_RELEASE);
		x->state = P_IDLE;
		if (!__atomic_load_n(&x->stop, __ATOMIC_RELAXED))
			offer(p, x, PIPE_NB); /* to the back of the queue: every stream gets its turn */
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* ---------------------------------------------------------------- the proxy stream */

/* Everything but the next message of the batch being read (proxy_next). */
static __attribute__((noinline)) int proxy_next_slow(proxy *x, const tio_msg **out)
{
	for (;;) {
		if (x->reading && x->rp < x->rend) {
			const entry *e = (const entry *)x->rp;
			x->rp += e->size;
			if (e->kind == E_MSG) {
				*out = (const tio_msg *)(e + 1);
				return 1;
			}
			if (e->kind == E_ERR)
				return tio_err_set(e->status, "%s", (const char *)(e + 1));
			if (e->kind == E_END) {
				x->ended = true;
				return 0;
			}
			continue;
		}
		if (x->ended)
			return 0;
		tio_pipe *p = x->pipe;
		pthread_mutex_lock(&p->mu);
		if (x->reading) { /* done with that batch (its last message too) */
			x->reading = false;
			x->rp = x->rend = NULL;
			x->rd = (x->rd + 1) % PIPE_NB;
			__atomic_sub_fetch(&x->nfilled, 1, __ATOMIC_RELAXED);
		}
		if (!x->kicked) {
			/* the first read since the start or a seek: every stream to the workers */
			for (size_t i = 0; i < p->nproxies; i++)
				if (!p->proxies[i]->kicked && !p->proxies[i]->paused) {
					p->proxies[i]->kicked = true;
					offer(p, p->proxies[i], PIPE_NB);
				}
		}
		if (x->eof && !x->nfilled) { /* ended without an end entry (out of memory) */
			x->ended = true;
			pthread_mutex_unlock(&p->mu);
			return 0;
		}
		offer(p, x, LOW);
		while (!x->nfilled) {
			proxy *y = x;
			if (x->state == P_RUNNING) {
				/* a worker fills it: meanwhile fill a batch of the stream
				   that has the fewest ready (work that waits anyway), else
				   wait for it: a short spin first (a batch takes about 0.1 ms
				   to decode; sleeping and waking cost more than that spin) */
				y = NULL;
				for (size_t i = 0; i < p->nproxies; i++) {
					proxy *z = p->proxies[i];
					if (z->state != P_RUNNING && !z->eof && !z->paused && z->kicked &&
					    z->nfilled < PIPE_NB && (!y || z->nfilled < y->nfilled))
						y = z;
				}
				if (!y) {
					pthread_mutex_unlock(&p->mu);
					for (int i = 0; i < 2000 && !__atomic_load_n(&x->nfilled, __ATOMIC_ACQUIRE); i++)
						cpu_relax();
					pthread_mutex_lock(&p->mu);
					if (!x->nfilled && x->state == P_RUNNING)
						pthread_cond_wait(&p->done, &p->mu);
					continue;
				}
			}
			/* no worker on it: read it here rather than wait for one */
			if (y->state == P_QUEUED)
				unqueue(p, y);
			run(y);
			pthread_mutex_unlock(&p->mu);
			bool end = fill(y);
			pthread_mutex_lock(&p->mu);
			y->eof |= end;
			__atomic_add_fetch(&y->nfilled, 1, __ATOMIC_RELEASE);
			y->state = P_IDLE;
			if (y != x)
				offer(p, y, PIPE_NB);
		}
		offer(p, x, LOW);
		x->reading = true;
		x->rp = x->b[x->rd].p;
		x->rend = x->rp + x->b[x->rd].len;
		pthread_mutex_unlock(&p->mu);
	}
}

static int proxy_next(tio_stream *st, const tio_msg **out)
{
	proxy *x = (proxy *)st;
	if (TIO_LIKELY(x->rp < x->rend)) {
		const entry *e = (const entry *)x->rp;
		if (TIO_LIKELY(e->kind == E_MSG)) {
			x->rp += e->size;
			*out = (const tio_msg *)(e + 1);
			return 1;
		}
	}
	return proxy_next_slow(x, out);
}

/* Called with mu held: no worker on the stream once this returns, and none takes it. */
static void stop_locked(proxy *x)
{
	tio_pipe *p = x->pipe;
	x->paused = true;
	__atomic_store_n(&x->stop, 1, __ATOMIC_RELAXED);
	if (x->state == P_QUEUED)
		unqueue(p, x);
	while (x->state == P_RUNNING)
		pthread_cond_wait(&p->done, &p->mu);
	__atomic_store_n(&x->stop, 0, __ATOMIC_RELAXED);
}

void mt_pause(tio_stream *real)
{
	proxy *x = real->mt;
	if (!x)
		return;
	pthread_mutex_lock(&x->pipe->mu);
	stop_locked(x);
	pthread_mutex_unlock(&x->pipe->mu);
}

void mt_resume(tio_stream *real)
{
	proxy *x = real->mt;
	if (!x)
		return;
	pthread_mutex_lock(&x->pipe->mu);
	x->paused = false;
	if (x->kicked)
		offer(x->pipe, x, PIPE_NB);
	pthread_mutex_unlock(&x->pipe->mu);
}

/* The reader goes elsewhere: what the batches hold is dropped. */
static int proxy_seek(tio_stream *st, int64_t ns)
{
	proxy *x = (proxy *)st;
	tio_pipe *p = x->pipe;
	pthread_mutex_lock(&p->mu);
	stop_locked(x);
	x->rd = 0;
	__atomic_store_n(&x->nfilled, 0, __ATOMIC_RELAXED);
	x->reading = false;
	x->rp = x->rend = NULL;
	x->ended = false;
	x->eof = false;
	x->kicked = false;
	pthread_mutex_unlock(&p->mu);
	int r = x->real->ops->seek ? x->real->ops->seek(x->real, ns)
				   : tio_err_set(TIO_ERR_UNSUPPORTED, "%s: this reader cannot seek",
						 x->real->name ? x->real->name : "stream");
	pthread_mutex_lock(&p->mu);
	x->paused = false;
	pthread_mutex_unlock(&p->mu);
	return r;
}

static int proxy_index(tio_stream *st, tio_stream_index *out)
{
	proxy *x = (proxy *)st;
	mt_pause(x->real);
	int r = x->real->ops->index(x->real, out);
	mt_resume(x->real);
	return r;
}

static void proxy_skip_filter(tio_stream *st, int64_t until_ns, int (*want)(void *arg, const tio_event_class *ec),
			      void *arg, const uint64_t *epoch)
{
	proxy *x = (proxy *)st;
	mt_pause(x->real);
	x->real->ops->skip_filter(x->real, until_ns, want, arg, epoch);
	mt_resume(x->real);
}

static const tio_stream_ops proxy_ops = {.next = proxy_next, .seek = proxy_seek, .index = proxy_index};
static const tio_stream_ops proxy_ops_skip = {.next = proxy_next, .seek = proxy_seek, .index = proxy_index,
					      .skip_filter = proxy_skip_filter};
static const tio_stream_ops proxy_ops_noidx = {.next = proxy_next, .seek = proxy_seek};
static const tio_stream_ops proxy_ops_noidx_skip = {.next = proxy_next, .seek = proxy_seek,
						    .skip_filter = proxy_skip_filter};

/* ---------------------------------------------------------------- set-up */

/* How many threads: `asked` (tio_mux_set_threads), else TIO_THREADS, else the CPUs online. */
static unsigned want_threads(unsigned asked)
{
	if (asked)
		return asked;
	const char *e = getenv("TIO_THREADS");
	if (e && *e) {
		char *end;
		unsigned long v = strtoul(e, &end, 10);
		if (!*end && v >= 1)
			return v > 256 ? 256 : (unsigned)v;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

int mt_pipe_new(tio_stream **streams, size_t n, unsigned threads, tio_pipe **out)
{
	*out = NULL;
	unsigned want = want_threads(threads);
	size_t nmt = 0;
	for (size_t i = 0; i < n; i++)
		nmt += streams[i]->ops->mt_cut && !streams[i]->mt;
	if (want < 2 || !nmt)
		return 0;
	tio_pipe *p = tio_calloc(1, sizeof(*p));
	if (!p)
		return TIO_ERR_NOMEM;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->proxies = tio_calloc(nmt, sizeof(*p->proxies));
	p->queue = tio_calloc(nmt, sizeof(*p->queue));
	p->threads = tio_calloc(want, sizeof(*p->threads));
	if (!p->proxies || !p->queue || !p->threads) {
		mt_pipe_free(p);
		return TIO_ERR_NOMEM;
	}
	/* batches: 256 KiB of messages and 1 MiB of values (a thousand events
	   or more: one hand-over between threads each), less when many streams
	   (about 8 MiB in all), at least 32 KiB */
	size_t each = ((size_t)8 << 20) / (PIPE_NB * nmt);
	each = each > (1280u << 10) ? (1280u << 10) : each < (32u << 10) ? (32u << 10) : each;
	p->target = each / 5;
	p->target_vals = each / 5 * 4 / sizeof(tio_val);
	/* tests: TIO_MT_BATCH=N messages at most in a batch, so that the hand-overs
	   (value arrays named again, packets cut in two) happen in small traces too */
	const char *tb = getenv("TIO_MT_BATCH");
	if (tb && *tb && atoi(tb) > 0) {
		p->target = (size_t)atoi(tb) * (sizeof(entry) + ALIGN8(sizeof(tio_msg)));
		p->target_vals = SIZE_MAX;
	}
	for (size_t i = 0; i < n; i++) {
		tio_stream *s = streams[i];
		if (!s->ops->mt_cut || s->mt)
			continue;
		proxy *x = tio_calloc(1, sizeof(*x));
		if (!x) {
			mt_pipe_free(p);
			return TIO_ERR_NOMEM;
		}
		x->base = *s; /* the identity the merge orders by */
		x->base.ops = s->ops->index ? (s->ops->skip_filter ? &proxy_ops_skip : &proxy_ops)
					    : (s->ops->skip_filter ? &proxy_ops_noidx_skip : &proxy_ops_noidx);
		x->real = s;
		x->pipe = p;
		s->mt = x;
		streams[i] = &x->base;
		p->proxies[p->nproxies++] = x;
	}
	/* workers: the caller's thread reads too, so one fewer than asked, and
	   no more than the streams */
	unsigned nt = want - 1 < p->nproxies ? want - 1 : (unsigned)p->nproxies;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* signals stay with the caller's threads */
	for (unsigned i = 0; i < nt; i++) {
		if (pthread_create(&p->threads[i], NULL, worker, p))
			break; /* fewer workers: the caller's thread reads what they do not */
		p->nthreads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	*out = p;
	return 0;
}

void mt_pipe_free(tio_pipe *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	__atomic_store_n(&p->shutdown, true, __ATOMIC_RELAXED);
	for (size_t i = 0; i < p->nproxies; i++)
		__atomic_store_n(&p->proxies[i]->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	for (size_t i = 0; i < p->nproxies; i++) {
		proxy *x = p->proxies[i];
		x->real->mt = NULL;
		x->real->ops->mt_cut(x->real, TIO_MT_SLOTS); /* read directly again */
		for (int k = 0; k < PIPE_NB; k++)
			free(x->b[k].p);
		free(x);
	}
	free(p->proxies);
	free(p->queue);
	free(p->threads);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
