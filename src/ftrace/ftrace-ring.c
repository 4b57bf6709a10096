/*
 * Ftrace ring-buffer pages (the flyrecord data of trace.dat, one stream per
 * CPU per buffer instance), as libtraceevent's kbuffer reads them:
 *
 *   page: u64 timestamp; local_t commit (long size, SIGN-EXTENDED on 64-bit);
 *         data[commit & (2^27 - 1)]
 *         commit bit 31: events were lost before this page; bit 30: their
 *         count is stored as a long right after the data.
 *   event header (u32): type_len (5 bits) + time_delta (27 bits); type_len
 *         0: length in the next u32; 1..28: data of type_len * 4 bytes;
 *         29: padding; 30: time extend; 31: absolute time stamp.
 *
 * Records are decoded into a per-stream value array that only grows: no
 * allocation per event.  Lost events become TIO_MSG_DISCARDED_EVENTS just
 * before the first record of the page that reported them.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ftrace/tracedat.h"
#include "traceio/msg.h" /* TIO_SKIP_* */

#define COMMIT_MASK ((1u << 27) - 1)
#define MISSING_EVENTS (1u << 31)
#define MISSING_STORED (1u << 30)

typedef struct td_stream {
	tio_stream base;
	td_file *f;
	td_buffer *b;
	const td_cpu *c;
	const td_tsync *y; /* the CPU's TIME_SHIFT samples (td_time), or NULL */
	/* the pages: a view into the map, or the current decompressed chunk */
	const uint8_t *data;
	uint64_t dsize;
	uint64_t data_file_off; /* file offset of data[0] (chunk: of the chunk header) */
	bool compressed;
	const uint8_t *next_chunk;
	uint32_t chunks_left;
	uint8_t *cbuf;
	size_t ccap;
	/*
	 * Compressed, with td_mt_cut: the chunk buffers the batches in flight
	 * may point into stay as they are.  cb[i] is free when no bit of
	 * cb_used[i] is set (bit k: batch slot k points into it); cbuf is
	 * cb[cb_cur].  Without td_mt_cut, the current one is reused.
	 */
	uint8_t **cb;
	size_t *cb_cap;
	uint8_t *cb_used;
	uint32_t ncb, cb_cur;
	bool cb_touched; /* an event of the current chunk was made since it was loaded */
	uint64_t pos; /* next page in data */
	/* current page */
	const uint8_t *pdata;
	uint32_t psize, off;
	uint64_t page_file_off;
	uint64_t ts;
	bool in_page;
	bool first_in_page;
	int64_t missed; /* 0 none, -1 unknown count, > 0 count */
	bool held;	/* ev message decoded, discarded message returned first */
	tio_msg msg, dmsg;
	tio_val *vals;
	size_t vcap;
	/* decoding on a worker thread (td_mt_cut): values go one message after
	   the other from app_pos in array arr[slot] (vals is that array) */
	bool app, has_arr;
	uint32_t app_pos;
	unsigned slot;
	tio_val *arr[TIO_MT_SLOTS];
	size_t arrcap[TIO_MT_SLOTS];
	uint64_t cut_pos[TIO_MT_SLOTS]; /* pos when each slot's batch began */
	uint64_t rel_limit;	/* pages are dropped only before this pos (the oldest batch in flight) */
	uint32_t type_off, type_size;
	bool done;
	uint64_t missing; /* bytes of this CPU's data past the end of the file */
	bool has_stop;	  /* a part of the data (td_part_keep): no page from stop_pos on */
	uint64_t stop_pos;
	uint64_t released; /* pages before this offset in data were given back to the kernel */
	tio_event_class *ec_cache[256]; /* by id % 256: most records hit */
	/* compressed: the first chunk and their number (td_seek), and where each begins (built on first use) */
	const uint8_t *first_chunk;
	uint32_t nchunks;
	const uint8_t **chunk;
	uint32_t nchunk_ok; /* chunks whose headers fit the file */
	bool chunks_listed;
	/* before the mux's begin bound, records of unwanted classes are passed over (td_skip_filter) */
	bool filtering;
	uint64_t want_until; /* raw timestamp */
	int (*want_fn)(void *arg, const tio_event_class *ec);
	void *want_arg;
	uint8_t *want; /* by event id: 0 not asked yet, else 1 + the class's TIO_SKIP_* answer */
	tio_event_class **want_ec; /* by event id, for TIO_SKIP_ASK */
	const uint64_t *epoch;	   /* the skip hook's calls (NULL: ask for each record) */
	uint64_t *no_at;	   /* by event id: 1 + the epoch of a TIO_SKIP_ASK "no" (0: none) */
	/* page keys the binary searches of uncompressed data read (keys 1 + page, 0: none):
	   a cut's search asks the same pages many times, and each read maps pages */
	struct {
		uint64_t page1, key, at;
	} kmemo[128];
	unsigned probes;	/* keys read since the search's pages were last given back */
	bool sparse;		/* the data is marked for sparse reads (tio_map_sparse) */
} td_stream;

/*
 * Resident memory stays flat on big files: the pages of the mapping this
 * stream has read are dropped every few MiB (they are file-backed, so a
 * later access would just read them again).
 */
static void release_read_pages(td_stream *s)
{
	const uint64_t step = 4u << 20;
	/* with td_mt_cut: not past the oldest batch that may still be read */
	uint64_t pos = s->app ? s->rel_limit : s->pos;
	if (s->compressed || pos < s->released + step + s->b->page_size)
		return;
	uintptr_t sys = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)(s->data + s->released), e = (uintptr_t)(s->data + pos - 2 * s->b->page_size);
	a = (a + sys - 1) & ~(sys - 1);
	e &= ~(sys - 1);
	if (e > a)
		madvise((void *)a, e - a, MADV_DONTNEED);
	s->released = pos - 2 * s->b->page_size;
}

static int page_error(td_stream *s, uint64_t at, const char *what)
{
	return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: section flyrecord%s%s cpu %u: %s",
			   s->f->path, (unsigned long long)at, s->b->name[0] ? " of instance " : "",
			   s->b->name, s->c->cpu, what);
}

/*
 * With td_mt_cut: cbuf becomes a chunk buffer no batch in flight points
 * into (a new one if need be), marked as used by the current batch slot.
 */
static int chunk_buffer(td_stream *s)
{
	if (!s->ncb) { /* the buffer so far is the pool's first */
		if (!(s->cb = calloc(1, sizeof(*s->cb))) || !(s->cb_cap = calloc(1, sizeof(*s->cb_cap))) ||
		    !(s->cb_used = calloc(1, 1)))
			return TIO_ERR_NOMEM;
		s->cb[0] = s->cbuf;
		s->cb_cap[0] = s->ccap;
		s->ncb = 1;
		s->cb_cur = 0;
	}
	if (!s->cb_touched) /* nothing points into the current one (a seek's search, no events) */
		s->cb_used[s->cb_cur] &= (uint8_t)~(1u << s->slot);
	s->cb_touched = false;
	uint32_t i = 0;
	while (i < s->ncb && s->cb_used[i])
		i++;
	if (i == s->ncb) {
		uint8_t **cb = realloc(s->cb, (s->ncb + 1) * sizeof(*cb));
		if (!cb)
			return TIO_ERR_NOMEM;
		s->cb = cb;
		size_t *cap = realloc(s->cb_cap, (s->ncb + 1) * sizeof(*cap));
		if (!cap)
			return TIO_ERR_NOMEM;
		s->cb_cap = cap;
		uint8_t *used = realloc(s->cb_used, s->ncb + 1);
		if (!used)
			return TIO_ERR_NOMEM;
		s->cb_used = used;
		s->cb[i] = NULL;
		s->cb_cap[i] = 0;
		s->cb_used[i] = 0;
		s->ncb++;
	}
	s->cb_cur = i;
	s->cbuf = s->cb[i];
	s->ccap = s->cb_cap[i];
	s->cb_used[i] |= (uint8_t)(1u << s->slot);
	return 0;
}

/* Load the next compressed chunk into cbuf; 0 = none left, 1 = loaded, < 0 error. */
static int next_chunk(td_stream *s)
{
	const uint8_t *end = s->f->map.p + s->f->map.size;
	if (!s->chunks_left)
		return 0;
	uint64_t at = (uint64_t)(s->next_chunk - s->f->map.p);
	if (end - s->next_chunk < 8) {
		s->chunks_left = 0;
		return page_error(s, at, "truncated compressed chunk header");
	}
	uint32_t csize = td_u32(s->f, s->next_chunk), usize = td_u32(s->f, s->next_chunk + 4);
	if ((uint64_t)(end - s->next_chunk - 8) < csize) {
		s->chunks_left = 0;
		return page_error(s, at, "compressed chunk goes past the end of the file");
	}
	if (usize > (1u << 30)) {
		s->chunks_left = 0;
		return page_error(s, at, "compressed chunk too large");
	}
	if (td_usize_check(s->f, s->next_chunk + 8, csize, usize)) {
		s->next_chunk += 8 + csize; /* the next chunk may be fine */
		s->chunks_left--;
		char *why = tio_strdup(tio_error_message());
		int r = page_error(s, at, why ? why : "bad chunk sizes");
		free(why);
		return r;
	}
	if (s->app && chunk_buffer(s))
		return tio_err_oom();
	if (usize > s->ccap) {
		uint8_t *nb = realloc(s->cbuf, usize);
		if (!nb)
			return tio_err_oom();
		s->cbuf = nb;
		s->ccap = usize;
		if (s->ncb)
			s->cb[s->cb_cur] = nb, s->cb_cap[s->cb_cur] = usize;
	}
	const uint8_t *src = s->next_chunk + 8;
	s->next_chunk = src + csize;
	s->chunks_left--;
	s->data_file_off = at;
	int r = td_decompress(s->f, src, csize, s->cbuf, usize);
	if (r) {
		s->data = NULL;
		s->dsize = 0;
		return tio_err_push(r, "%s@0x%llx: section flyrecord cpu %u: chunk", s->f->path,
				    (unsigned long long)at, s->c->cpu);
	}
	s->data = s->cbuf;
	s->dsize = usize;
	s->pos = 0;
	return 1;
}

/* Start the next page; 0 = no more pages, 1 = a page, < 0 = a damaged page (skipped). */
static int next_page(td_stream *s)
{
	const td_file *f = s->f;
	uint32_t ps = s->b->page_size;
	for (;;) {
		if (s->pos + ps > s->dsize || TIO_UNLIKELY(s->has_stop && s->pos >= s->stop_pos)) {
			if (!s->compressed || s->has_stop)
				return 0;
			int r = next_chunk(s);
			if (r <= 0)
				return r;
			continue;
		}
		release_read_pages(s);
		const uint8_t *page = s->data + s->pos;
		s->page_file_off = s->compressed ? s->data_file_off : s->data_file_off + s->pos;
		s->pos += ps;
		uint64_t commit = td_num(f, page + f->hp_commit_off, f->hp_commit_size);
		uint32_t flags = (uint32_t)commit;
		uint32_t size = flags & COMMIT_MASK;
		if (size == 0)
			continue;
		if (size > ps - f->hp_data_off)
			return page_error(s, s->page_file_off, "page commit size larger than the page");
		s->pdata = page + f->hp_data_off;
		s->psize = size;
		s->off = 0;
		s->ts = td_u64(f, page + f->hp_ts_off);
		s->in_page = true;
		s->first_in_page = true;
		s->missed = 0;
		if (flags & MISSING_EVENTS) {
			s->missed = -1;
			if ((flags & MISSING_STORED) && size + f->long_size <= ps - f->hp_data_off) {
				int64_t n = (int64_t)td_num(f, s->pdata + size, f->long_size);
				if (n > 0)
					s->missed = n;
			}
		}
		return 1;
	}
}

static int grow_vals(td_stream *s, size_t need)
{
	if (need <= s->vcap)
		return 0;
	return tio_grow(&s->vals, &s->vcap, need, sizeof(tio_val));
}

/*
 * Decode the fields of `p` from rec[0..len) into vals from index `at`
 * (`cap` bytes readable at rec, len or more); returns the next index.
 */
static uint32_t decode(td_stream *s, const td_plan *p, const tio_fc *st, const uint8_t *rec,
		       uint32_t len, uint64_t cap, uint32_t at)
{
	const td_file *f = s->f;
	tio_val *v0 = &s->vals[at];
	v0->fc = st;
	v0->n = p->n;
	uint32_t idx = at + 1;
	if (p->all_int && !f->be && len >= p->min_size && cap >= p->load_end) {
		/* integers only, all inside the record, 8 bytes readable at each:
		   one little-endian load and two shifts a field, no choice by size */
		for (uint32_t i = 0; i < p->n; i++) {
			const td_field *fl = &p->f[i];
			tio_val *v = &s->vals[idx++];
			unsigned sh = 64 - 8 * fl->size;
			uint64_t w = tio_le64(rec + fl->offset) << sh;
			v->fc = fl->fc;
			v->n = 0;
			v->v.u = fl->is_signed ? (uint64_t)((int64_t)w >> sh) : w >> sh;
			v->end = idx;
		}
		v0->end = idx;
		return idx;
	}
	for (uint32_t i = 0; i < p->n; i++) {
		const td_field *fl = &p->f[i];
		tio_val *v = &s->vals[idx++];
		v->fc = fl->fc;
		v->n = 0;
		bool in = fl->offset <= len && fl->size <= len - fl->offset;
		switch (fl->kind) {
		case TD_INT:
			v->v.u = in ? td_num(f, rec + fl->offset, fl->size) : 0;
			if (fl->is_signed)
				v->v.i = tio_sext(v->v.u, fl->size * 8);
			break;
		case TD_FLOAT: {
			uint64_t bits = in ? td_num(f, rec + fl->offset, fl->size) : 0;
			if (fl->size == 4) {
				uint32_t b32 = (uint32_t)bits;
				float fv;
				memcpy(&fv, &b32, 4);
				v->v.d = fv;
			} else {
				memcpy(&v->v.d, &bits, 8);
			}
			break;
		}
		case TD_SSTR: {
			uint32_t max = in ? fl->size : (fl->offset < len ? len - fl->offset : 0);
			v->v.s.p = (const char *)rec + (fl->offset < len ? fl->offset : len);
			v->v.s.len = strnlen(v->v.s.p, max);
			break;
		}
		case TD_ARRAY:
			/* the array's own value also points at its bytes (see ir.h) */
			v->v.s.p = (const char *)rec + (in ? fl->offset : 0);
			v->v.s.len = in ? fl->size : 0;
			v->n = fl->count;
			for (uint32_t j = 0; j < fl->count; j++) {
				tio_val *e = &s->vals[idx++];
				e->fc = fl->fc->a.elem;
				e->n = 0;
				e->end = idx;
				e->v.u = in ? td_num(f, rec + fl->offset + j * fl->elem, fl->elem) : 0;
				if (fl->is_signed)
					e->v.i = tio_sext(e->v.u, fl->elem * 8);
			}
			break;
		case TD_DLSTR:
		case TD_DLBLOB: {
			uint32_t o = 0, l = 0;
			if (in) {
				uint64_t raw = td_num(f, rec + fl->offset, fl->size);
				o = (uint32_t)(raw & 0xffff);
				l = fl->size == 2 ? (o < len ? len - o : 0) : (uint32_t)((raw >> 16) & 0xffff);
				if (fl->rel)
					o += fl->offset + fl->size;
				if (o > len)
					o = len, l = 0;
				if (l > len - o)
					l = len - o;
			}
			v->v.s.p = (const char *)rec + o;
			v->v.s.len = fl->kind == TD_DLSTR ? strnlen(v->v.s.p, l) : l;
			break;
		}
		case TD_RESTSTR:
		case TD_RESTBLOB: {
			uint32_t o = fl->offset < len ? fl->offset : len;
			v->v.s.p = (const char *)rec + o;
			v->v.s.len = fl->kind == TD_RESTSTR ? strnlen(v->v.s.p, len - o) : len - o;
			break;
		}
		case TD_BLOB:
			v->v.s.p = (const char *)rec + (in ? fl->offset : 0);
			v->v.s.len = in ? fl->size : 0;
			break;
		}
		v->end = idx;
	}
	v0->end = idx;
	return idx;
}

static tio_event_class *find_ec(td_stream *s, uint64_t id)
{
	tio_event_class **slot = &s->ec_cache[id & 255];
	if (TIO_LIKELY(*slot && (*slot)->id == id))
		return *slot;
	tio_event_class *ec = tio_stream_class_find_ec(s->base.sc, id);
	if (ec)
		*slot = ec;
	return ec;
}

/* Fill s->msg with the record rec[0..len); 0 ok, < 0 error (an unknown event id is one). */
static int make_event(td_stream *s, const uint8_t *rec, uint32_t len, uint64_t rec_file_off)
{
	const td_file *f = s->f;
	/* both from the format text: their sum may not fit in 32 bits */
	if (len < (uint64_t)s->type_off + s->type_size)
		return page_error(s, rec_file_off, "record shorter than its common fields");
	uint64_t id = td_num(f, rec + s->type_off, s->type_size);
	tio_event_class *ec = find_ec(s, id);
	if (!ec)
		return tio_err_set(TIO_ERR_FORMAT,
				   "%s@0x%llx: section flyrecord cpu %u: record of unknown event id %llu",
				   f->path, (unsigned long long)rec_file_off, s->c->cpu,
				   (unsigned long long)id);
	const td_plan *p = ec->user;
	uint32_t at = s->app ? s->app_pos : 0; /* after the values of the messages returned (td_mt_cut) */
	size_t need = at + (size_t)f->common.nvals + p->nvals;
	if (grow_vals(s, need))
		return TIO_ERR_NOMEM;
	tio_msg *m = &s->msg;
	memset(m->scope, 0, sizeof(m->scope));
	/* what follows in the same buffer (later pages of the chunk or of the CPU's data) */
	uint64_t cap = (uint64_t)(s->data + s->dsize - rec);
	if (s->base.sc->ev_common_ctx) {
		uint32_t cc = at;
		at = decode(s, &f->common, s->base.sc->ev_common_ctx, rec, len, cap, at);
		m->scope[TIO_SCOPE_EV_COMMON_CTX] = &s->vals[cc];
	}
	uint32_t pay = at;
	at = decode(s, p, ec->payload, rec, len, cap, at);
	m->scope[TIO_SCOPE_PAYLOAD] = &s->vals[pay];
	m->type = TIO_MSG_EVENT;
	m->stream = &s->base;
	m->ec = ec;
	m->has_ts = true;
	m->cycles = td_time(f, s->y, s->ts);
	m->ns = (int64_t)m->cycles;
	m->vals = s->vals;
	m->nvals = at;
	s->app_pos = at;
	m->offset = rec_file_off;
	m->raw = rec;
	m->raw_len = len;
	s->cb_touched = true;
	m->raw_cap = cap;
	return 0;
}

/*
 * While filtering (before the begin bound): whether the record's class is
 * wanted by the mux's skip hook, asked once per event id.  Records whose
 * id cannot be read or has no class are "wanted": make_event reports them.
 */
static bool want_record(td_stream *s, const uint8_t *rec, uint32_t len)
{
	if (s->ts >= s->want_until && s->want_until != UINT64_MAX) {
		s->filtering = false;
		return true;
	}
	if (len < (uint64_t)s->type_off + s->type_size)
		return true;
	uint64_t id = td_num(s->f, rec + s->type_off, s->type_size);
	if (id > UINT16_MAX)
		return true;
	uint8_t *w = &s->want[id];
	if (TIO_UNLIKELY(!*w)) {
		tio_event_class *ec = find_ec(s, id);
		int a = ec ? s->want_fn(s->want_arg, ec) : TIO_SKIP_WANT;
		*w = (uint8_t)(1 + (a == TIO_SKIP_WANT || a == TIO_SKIP_ASK ? a : TIO_SKIP_NONE));
		s->want_ec[id] = ec;
	}
	if (*w == 1 + TIO_SKIP_ASK) {
		/* a "no" stands until the skip hook is called again (trace-cmd's
		   style: the classes without state, until a function graph entry) */
		if (s->epoch && s->no_at[id] == *s->epoch + 1)
			return false;
		if (s->want_fn(s->want_arg, s->want_ec[id]) == TIO_SKIP_WANT)
			return true;
		if (s->epoch)
			s->no_at[id] = *s->epoch + 1;
		return false;
	}
	return *w == 1 + TIO_SKIP_WANT;
}

static int td_next_(tio_stream *st, const tio_msg **out)
{
	td_stream *s = (td_stream *)st;
	const td_file *f = s->f;
	if (s->held) {
		s->held = false;
		*out = &s->msg;
		return 1;
	}
	if (s->done)
		return 0;
	for (;;) {
		if (!s->in_page) {
			int r = next_page(s);
			if (r == 0) {
				s->done = true;
				if (s->missing && !s->has_stop)
					return page_error(s, s->f->map.size,
							  "file truncated: the CPU's data misses its last bytes");
				return 0;
			}
			if (r < 0)
				return r;
		}
		if (s->off + 4 > s->psize) {
			s->in_page = false;
			continue;
		}
		const uint8_t *h = s->pdata + s->off;
		uint32_t w = td_u32(f, h);
		uint32_t type_len = f->be ? w >> 27 : w & 31;
		uint64_t delta = f->be ? w & COMMIT_MASK : w >> 5;
		uint32_t ptr = s->off + 4, length;
		uint64_t at = s->compressed ? s->page_file_off : s->page_file_off + f->hp_data_off + s->off;
		switch (type_len) {
		case 29: /* padding */
			if (ptr + 4 > s->psize) {
				s->in_page = false;
				continue;
			}
			length = td_u32(f, s->pdata + ptr);
			/* past the commit size, it ends the page (compared so: an
			   offset of 2^32 - 4 or more would wrap the next check) */
			if (length > s->psize - ptr)
				s->in_page = false;
			else
				s->off = ptr + length;
			continue;
		case 30: /* time extend */
		case 31: /* absolute time stamp */
			if (ptr + 4 > s->psize) {
				s->in_page = false;
				return page_error(s, at, "truncated time extend");
			}
			delta += (uint64_t)td_u32(f, s->pdata + ptr) << 27;
			if (type_len == 31)
				s->ts = delta;
			else
				s->ts += delta;
			s->off = ptr + 4;
			continue;
		case 0:
			if (ptr + 4 > s->psize) {
				s->in_page = false;
				return page_error(s, at, "truncated event length");
			}
			length = td_u32(f, s->pdata + ptr);
			length = length < 4 ? 0 : ((length - 4 + 3) & ~3u);
			ptr += 4;
			break;
		default:
			length = type_len * 4;
			break;
		}
		if (length > s->psize - ptr) {
			s->in_page = false;
			return page_error(s, at, "event goes past the page's commit size");
		}
		s->ts += delta;
		s->off = ptr + length;
		if (TIO_UNLIKELY(s->filtering) && !want_record(s, s->pdata + ptr, length)) {
			/* before begin, the page's lost-events count goes with it; for
			   good (a class choice), it comes with the next event returned */
			if (s->want_until != UINT64_MAX)
				s->first_in_page = false;
			continue;
		}
		bool first = s->first_in_page;
		s->first_in_page = false;
		uint64_t rec_off = s->compressed ? s->page_file_off : s->page_file_off + f->hp_data_off + ptr;
		int r = make_event(s, s->pdata + ptr, length, rec_off);
		if (r)
			return r;
		if (first && s->missed) {
			tio_msg *d = &s->dmsg;
			memset(d, 0, sizeof(*d));
			d->type = TIO_MSG_DISCARDED_EVENTS;
			d->stream = &s->base;
			d->has_ts = true;
			d->cycles = s->msg.cycles;
			d->ns = s->msg.ns;
			d->count = s->missed > 0 ? (uint64_t)s->missed : 0;
			d->offset = s->page_file_off;
			s->missed = 0;
			s->held = true;
			*out = d;
			return 1;
		}
		*out = &s->msg;
		return 1;
	}
}

static int td_next(tio_stream *st, const tio_msg **out)
{
	int r = td_next_(st, out);
	st->mt_vals = ((td_stream *)st)->vals; /* it may have grown (td_mt_cut) */
	return r;
}

/*
 * tio_stream_ops.mt_cut: the values of the next messages go into array
 * `slot`, from its beginning; an event held back behind its page's
 * lost-events message moves there first.
 */
static void td_mt_cut(tio_stream *st, unsigned slot)
{
	td_stream *s = (td_stream *)st;
	if (slot >= TIO_MT_SLOTS) { /* back to one message at a time */
		s->app = false;
		return;
	}
	if (!s->has_arr) { /* the array so far becomes this slot's */
		s->has_arr = true;
		s->slot = slot;
	}
	s->app = true;
	s->arr[s->slot] = s->vals;
	s->arrcap[s->slot] = s->vcap;
	const tio_val *old = s->vals;
	tio_val *dst = s->arr[slot];
	uint32_t from = 0, k = 0;
	if (s->held && s->msg.vals == old) {
		from = UINT32_MAX;
		for (int sc = 0; sc < TIO_NSCOPES; sc++)
			if (s->msg.scope[sc] && (uint32_t)(s->msg.scope[sc] - old) < from)
				from = (uint32_t)(s->msg.scope[sc] - old);
		if (from > s->msg.nvals)
			from = s->msg.nvals;
		k = s->msg.nvals - from;
		if (k > s->arrcap[slot] && tio_grow(&s->arr[slot], &s->arrcap[slot], k, sizeof(tio_val)))
			k = 0; /* out of memory: the event comes without values */
		dst = s->arr[slot];
		if (k)
			memmove(dst, old + from, (size_t)k * sizeof(tio_val));
		for (uint32_t i = 0; i < k; i++)
			dst[i].end -= from;
		for (int sc = 0; sc < TIO_NSCOPES; sc++)
			if (s->msg.scope[sc])
				s->msg.scope[sc] = k ? dst + (s->msg.scope[sc] - old - from) : NULL;
		s->msg.vals = dst;
		s->msg.nvals = k;
	}
	s->slot = slot;
	s->vals = dst;
	s->vcap = s->arrcap[slot];
	s->app_pos = k;
	st->mt_vals = s->vals;
	/* the batch begun after the one that had this slot is the oldest that may
	   still be read: its strings and raw bytes are where pages stay mapped */
	s->cut_pos[slot] = s->pos >= s->b->page_size ? s->pos - s->b->page_size : 0;
	unsigned oldest = (slot + 1) % TIO_MT_SLOTS;
	s->rel_limit = s->cut_pos[oldest] < s->cut_pos[slot] ? s->cut_pos[oldest] : s->cut_pos[slot];
	/* the batch that had this slot is done: its chunk buffers are free
	   unless another batch points there; the new one starts in the current */
	for (uint32_t i = 0; i < s->ncb; i++)
		s->cb_used[i] &= (uint8_t)~(1u << slot);
	if (s->ncb && s->data == s->cbuf)
		s->cb_used[s->cb_cur] |= (uint8_t)(1u << slot);
	else if (!s->ncb && s->compressed && s->cbuf && chunk_buffer(s) == 0)
		s->cb_used[s->cb_cur] |= (uint8_t)(1u << slot);
}

static void td_stream_free(tio_stream *st)
{
	td_stream *s = (td_stream *)st;
	if (s->has_arr)
		s->arr[s->slot] = s->vals; /* it may have moved since td_mt_cut */
	for (int i = 0; i < TIO_MT_SLOTS; i++)
		if (s->arr[i] != s->vals)
			free(s->arr[i]);
	free(s->vals);
	for (uint32_t i = 0; i < s->ncb; i++)
		if (s->cb[i] != s->cbuf)
			free(s->cb[i]);
	free(s->cb);
	free(s->cb_cap);
	free(s->cb_used);
	free(s->cbuf);
	free(s->chunk);
	free(s->want);
	free(s->want_ec);
	free(s->no_at);
	free(s);
}

/* tio_stream_ops.skip_filter: see want_record. */
static void td_skip_filter(tio_stream *st, int64_t until_ns, int (*want)(void *arg, const tio_event_class *ec),
			   void *arg, const uint64_t *epoch)
{
	td_stream *s = (td_stream *)st;
	int64_t off = s->f->ts_offset;
	if (until_ns != INT64_MAX &&
	    ((off > 0 && until_ns < INT64_MIN + off) || (off < 0 && until_ns > INT64_MAX + off) || until_ns - off <= 0))
		return;
	if (!s->want)
		s->want = tio_calloc(UINT16_MAX + 1, 1);
	if (!s->want_ec)
		s->want_ec = tio_calloc(UINT16_MAX + 1, sizeof(*s->want_ec));
	if (!s->want || !s->want_ec)
		return; /* no filtering: every record is decoded, as without it */
	s->want_until = until_ns == INT64_MAX ? UINT64_MAX : td_raw_at(s->f, s->y, (uint64_t)(until_ns - off));
	s->want_fn = want;
	s->want_arg = arg;
	s->epoch = NULL;
	if (epoch && (s->no_at || (s->no_at = tio_calloc(UINT16_MAX + 1, sizeof(*s->no_at)))))
		s->epoch = epoch; /* pages of it touched only for the ids asked */
	s->filtering = true;
}

/* ---------------------------------------------------------------- seek and index */

/*
 * The timestamp of the first page holding records at or after page i of
 * data[0, dsize) (*at: its index), or UINT64_MAX when none does.  Pages of
 * a CPU are in time order; empty pages (commit 0) carry no time.
 */
static uint64_t page_key(const td_stream *s, const uint8_t *data, uint64_t dsize, uint64_t i, uint64_t *at)
{
	const td_file *f = s->f;
	uint32_t ps = s->b->page_size;
	for (; (i + 1) * ps <= dsize; i++) {
		const uint8_t *page = data + i * ps;
		if ((uint32_t)td_num(f, page + f->hp_commit_off, f->hp_commit_size) & COMMIT_MASK) {
			*at = i;
			return td_u64(f, page + f->hp_ts_off);
		}
	}
	return UINT64_MAX;
}

/*
 * page_key for a binary search.  Uncompressed data is the file's mapping:
 * a key read is remembered (a cut's search asks about the same pages many
 * times), the data is marked for sparse reads while the search runs (a
 * cold page is read alone, not with its read-ahead window), and the pages
 * the reads mapped are given back every 8 keys and when the search is
 * done (search_done): with huge folios each read maps 2 MiB, and a cut's
 * search reads some 200 keys a stream.
 */
static uint64_t search_key(td_stream *s, const uint8_t *data, uint64_t dsize, uint64_t i, uint64_t *at)
{
	if (s->compressed)
		return page_key(s, data, dsize, i, at);
	unsigned h = (unsigned)((i * 0x9E3779B97F4A7C15ull) >> 57);
	if (s->kmemo[h].page1 == i + 1) {
		*at = s->kmemo[h].at;
		return s->kmemo[h].key;
	}
	if (!s->sparse) {
		tio_map_sparse(&s->f->map, s->data_file_off, s->dsize, true);
		s->sparse = true;
	}
	if (s->probes >= 8) {
		tio_map_drop(&s->f->map, s->data_file_off, s->dsize);
		s->probes = 0;
	}
	uint64_t key = page_key(s, data, dsize, i, at);
	s->probes++;
	s->kmemo[h].page1 = i + 1;
	s->kmemo[h].key = key;
	s->kmemo[h].at = key == UINT64_MAX ? 0 : *at;
	return key;
}

/* A search is done: the data back to sequential reads, the pages its keys mapped given back. */
static void search_done(td_stream *s)
{
	if (s->sparse) {
		tio_map_sparse(&s->f->map, s->data_file_off, s->dsize, false);
		s->sparse = false;
	}
	if (s->probes) {
		tio_map_drop(&s->f->map, s->data_file_off, s->dsize);
		s->probes = 0;
	}
}

/* The number of leading pages of data[0, dsize) whose page_key is before `ts` (binary search). */
static uint64_t pages_before(td_stream *s, const uint8_t *data, uint64_t dsize, uint64_t ts)
{
	uint64_t lo = 0, hi = dsize / s->b->page_size, at;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (search_key(s, data, dsize, mid, &at) < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The last page of data[0, dsize) with records whose page timestamp is
 * earlier than `ts` (records at or after `ts` cannot be in an earlier
 * page), or 0: binary search on page headers, O(log pages).
 */
static uint64_t page_before(td_stream *s, const uint8_t *data, uint64_t dsize, uint64_t ts)
{
	uint64_t lo = pages_before(s, data, dsize, ts), at = 0;
	if (lo == 0 || search_key(s, data, dsize, lo - 1, &at) == UINT64_MAX)
		return 0;
	return at;
}

/*
 * The compressed chunks' offsets, from their headers (once); stops at the
 * first that does not fit.  The count is the file's: no more than the
 * rest of the file has 8-byte headers for are looked for (2^32 - 1 asked
 * for 32 GiB).
 */
static void list_chunks(td_stream *s)
{
	s->chunks_listed = true;
	const uint8_t *p = s->first_chunk, *end = s->f->map.p + s->f->map.size;
	uint64_t fit = p ? (uint64_t)(end - p) / 8 : 0;
	uint32_t n = s->nchunks < fit ? s->nchunks : (uint32_t)fit;
	if (!n || !(s->chunk = tio_calloc(n, sizeof(*s->chunk))))
		return;
	for (uint32_t i = 0; i < n; i++) {
		if (end - p < 8 || (uint64_t)(end - p - 8) < td_u32(s->f, p))
			break;
		s->chunk[s->nchunk_ok++] = p;
		p += 8 + td_u32(s->f, p);
	}
}

/* Load compressed chunk c as the current data (as next_chunk does); 1 when loaded. */
static int load_chunk(td_stream *s, uint32_t c)
{
	s->next_chunk = s->chunk[c];
	s->chunks_left = s->nchunks - c;
	int r = next_chunk(s);
	tio_err_clear();
	return r;
}

/* Back to the first page (and chunk) of the CPU's data. */
static void td_rewind(td_stream *s)
{
	if (s->want_until != UINT64_MAX) /* a class choice stays */
		s->filtering = false;
	s->in_page = false;
	s->held = false;
	s->done = false;
	s->missed = 0;
	s->pos = 0;
	s->released = 0;
	if (s->compressed) {
		s->next_chunk = s->first_chunk;
		s->chunks_left = s->nchunks;
		s->data = NULL;
		s->dsize = 0;
	}
}

/*
 * tio_stream_ops.seek: to the last page (of the last chunk, compressed)
 * whose first time is before `ns`.  Nothing carries over from page to page
 * but the timestamp, which every page restates.
 */
static int td_seek(tio_stream *st, int64_t ns)
{
	td_stream *s = (td_stream *)st;
	td_rewind(s);
	int64_t off = s->f->ts_offset;
	if (ns == INT64_MIN || (off > 0 && ns < INT64_MIN + off) || (off < 0 && ns > INT64_MAX + off))
		return 0;
	int64_t rel = ns - off;
	if (rel <= 0)
		return 0;
	uint64_t ts = td_raw_at(s->f, s->y, (uint64_t)rel);
	if (!s->compressed) {
		s->pos = page_before(s, s->data, s->dsize, ts) * s->b->page_size;
		s->released = s->pos;
		search_done(s);
		return 0;
	}
	if (!s->chunks_listed)
		list_chunks(s);
	/* the last chunk whose first page with records is before ts */
	uint32_t lo = 0, hi = s->nchunk_ok;
	uint64_t at;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (load_chunk(s, mid) > 0 && page_key(s, s->data, s->dsize, 0, &at) < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	td_rewind(s);
	if (lo == 0 || load_chunk(s, lo - 1) <= 0) {
		td_rewind(s);
		return 0;
	}
	s->pos = page_before(s, s->data, s->dsize, ts) * s->b->page_size;
	return 0;
}

/* The pages of the CPU's data that begin before `ns` (tio_stream_ops.part_bytes): a count. */
static uint64_t td_cut(td_stream *s, int64_t ns)
{
	uint32_t ps = s->b->page_size;
	if (ns == INT64_MAX)
		return (s->dsize + ps - 1) / ps;
	int64_t off = s->f->ts_offset;
	if (ns == INT64_MIN || (off > 0 && ns < INT64_MIN + off) || (off < 0 && ns > INT64_MAX + off) ||
	    ns - off <= 0)
		return 0;
	return pages_before(s, s->data, s->dsize, td_raw_at(s->f, s->y, (uint64_t)(ns - off)));
}

/* tio_stream_ops.part_bytes: not for compressed data (its chunks would need inflating to be cut). */
static uint64_t td_part_bytes(tio_stream *st, int64_t ns)
{
	td_stream *s = (td_stream *)st;
	if (s->compressed)
		return UINT64_MAX;
	uint64_t b = td_cut(s, ns) * s->b->page_size;
	return b < s->dsize ? b : s->dsize;
}

/* tio_stream_ops.part_keep: pages [td_cut(lo), td_cut(hi)) only. */
static int td_part_keep(tio_stream *st, int64_t lo, int64_t hi)
{
	td_stream *s = (td_stream *)st;
	if (s->compressed)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: compressed data cannot be cut in parts",
				   s->base.name ? s->base.name : "stream");
	uint64_t a = td_cut(s, lo), b = td_cut(s, hi);
	search_done(s); /* the searches of the cut times (td_part_bytes) are over */
	td_rewind(s);
	s->pos = a * s->b->page_size;
	s->released = s->pos;
	s->has_stop = hi != INT64_MAX;
	s->stop_pos = (b > a ? b : a) * s->b->page_size;
	return 0;
}

/*
 * A copy of the stream reading the same data from page `pos` of `data`
 * (compressed: from chunk `c`), for td_index; it shares no buffer with the
 * stream.  td_scan frees what it allocated.
 */
static void td_scan_init(const td_stream *s, td_stream *c)
{
	*c = *s;
	c->vals = NULL;
	c->vcap = 0;
	c->app = c->has_arr = false; /* one message at a time, in arrays of its own */
	memset(c->arr, 0, sizeof(c->arr));
	c->cb = NULL;
	c->cb_cap = NULL;
	c->cb_used = NULL;
	c->ncb = 0;
	c->cbuf = NULL;
	c->ccap = 0;
	c->chunk = NULL;
	c->nchunk_ok = 0;
	c->chunks_listed = false;
	td_rewind(c);
	c->first_chunk = s->first_chunk;
	c->released = UINT64_MAX / 2; /* drops nothing */
	c->has_stop = false;
}

/* Read c's events until `max` were read or its data ends: count, first and last times, bytes of their pages. */
static uint64_t td_scan(td_stream *c, uint64_t max, int64_t *first, int64_t *last, uint64_t *bytes)
{
	uint64_t n = 0;
	const uint8_t *page = NULL;
	*bytes = 0;
	for (;;) {
		const tio_msg *m;
		int r = td_next(&c->base, &m);
		if (r == 0)
			break;
		if (r < 0) {
			tio_err_clear();
			if (c->done)
				break;
			continue;
		}
		if (m->type != TIO_MSG_EVENT)
			continue;
		if (c->pdata != page) {
			if (n >= max)
				break;
			page = c->pdata;
			*bytes += c->psize;
		}
		if (!n++)
			*first = m->ns;
		*last = m->ns;
	}
	free(c->vals);
	free(c->cbuf);
	return n;
}

/*
 * tio_stream_ops.index: pages and bytes from the CPU's data size (and the
 * chunk headers), the time range from its first and last pages with
 * records; the events counted in 64 pages spread over the data (all of
 * them when there are no more; compressed: in 8 chunks), scaled to all.
 */
static int td_index(tio_stream *st, tio_stream_index *out)
{
	td_stream *s = (td_stream *)st;
	memset(out, 0, sizeof(*out));
	out->seekable = true;
	uint32_t ps = s->b->page_size;
	td_stream c;
	int64_t first = 0, last = 0, f2, l2;
	uint64_t sbytes, n;
	td_scan_init(s, &c);
	n = td_scan(&c, 1, &first, &last, &sbytes);
	if (!n)
		return 0;
	uint64_t total = s->dsize;
	if (s->compressed) {
		if (!s->chunks_listed)
			list_chunks(s);
		total = 0;
		for (uint32_t i = 0; i < s->nchunk_ok; i++)
			total += td_u32(s->f, s->chunk[i] + 4);
	}
	uint64_t pages = total / ps, counted = 0, sampled = 0;
	if (!s->compressed) {
		uint64_t k = pages < 64 ? pages : 64;
		tio_map_sparse(&s->f->map, s->data_file_off, s->dsize, true);
		for (uint64_t j = 0; j < k; j++) {
			uint64_t i = j * pages / k;
			td_scan_init(s, &c);
			c.pos = i * ps;
			c.dsize = (i + 1) * ps; /* this page alone */
			counted += td_scan(&c, UINT64_MAX, &f2, &l2, &sbytes);
			sampled++;
			/* given back (with large folios, a page read maps much more),
			   unless the stream reads there */
			if (!s->in_page || s->pos != (i + 1) * ps)
				tio_map_drop(&s->f->map, s->data_file_off + i * ps, ps);
		}
		tio_map_sparse(&s->f->map, s->data_file_off, s->dsize, false);
	} else {
		uint32_t k = s->nchunk_ok < 8 ? s->nchunk_ok : 8;
		for (uint32_t j = 0; j < k; j++) {
			uint32_t i = (uint32_t)((uint64_t)j * s->nchunk_ok / k);
			td_scan_init(s, &c);
			c.next_chunk = s->chunk[i];
			c.chunks_left = 1;
			counted += td_scan(&c, UINT64_MAX, &f2, &l2, &sbytes);
			sampled += td_u32(s->f, s->chunk[i] + 4) / ps;
		}
	}
	out->packets = pages;
	out->bytes = total;
	out->events = sampled ? (uint64_t)((double)counted * (double)pages / (double)sampled + 0.5) : n;
	out->events_exact = sampled == pages;
	/* the last event: from the last page with records (compressed: the last chunk) */
	td_scan_init(s, &c);
	if (s->compressed) {
		if (s->nchunk_ok) {
			c.next_chunk = s->chunk[s->nchunk_ok - 1];
			c.chunks_left = 1;
		}
	} else {
		uint64_t i = s->dsize / ps, at;
		while (i > 0 && page_key(s, s->data, s->dsize, i - 1, &at) == UINT64_MAX)
			i--;
		c.pos = i ? (i - 1) * ps : 0;
	}
	if (td_scan(&c, UINT64_MAX, &f2, &l2, &sbytes))
		last = l2;
	out->has_range = true;
	out->begin_ns = first;
	out->end_ns = last;
	return 0;
}

/*
 * tio_stream_ops.bytes_left: the current page and those after it;
 * compressed, those of the current chunk and the decompressed sizes of the
 * next ones (their headers, until `cap`).
 */
static uint64_t td_bytes_left(tio_stream *st, uint64_t cap)
{
	const td_stream *s = (const td_stream *)st;
	uint64_t n = (s->dsize > s->pos ? s->dsize - s->pos : 0) + (s->in_page ? s->psize : 0);
	if (!s->compressed)
		return n;
	const uint8_t *p = s->next_chunk, *end = s->f->map.p + s->f->map.size;
	for (uint32_t k = s->chunks_left; k && n < cap && p && end - p >= 8; k--) {
		uint32_t csize = td_u32(s->f, p);
		n += td_u32(s->f, p + 4);
		if ((uint64_t)(end - p - 8) < csize)
			break;
		p += 8 + csize;
	}
	return n;
}

static const tio_stream_ops td_stream_ops = {
	.next = td_next,
	.free = td_stream_free,
	.seek = td_seek,
	.index = td_index,
	.part_bytes = td_part_bytes,
	.part_keep = td_part_keep,
	.skip_filter = td_skip_filter,
	.mt_cut = td_mt_cut,
	.bytes_left = td_bytes_left,
};

int td_stream_new(td_file *f, td_buffer *b, uint32_t i, tio_stream **out)
{
	td_stream *s = tio_calloc(1, sizeof(*s));
	if (!s)
		return TIO_ERR_NOMEM;
	s->base.ops = &td_stream_ops;
	s->base.sc = b->sc;
	s->base.id = b->cpus[i].cpu;
	s->base.id_is_cpu = true;
	s->base.user = NULL;
	s->f = f;
	s->b = b;
	s->c = &b->cpus[i];
	s->y = td_tsync_of(f, b, b->cpus[i].cpu);
	s->type_off = 0;
	s->type_size = 2;
	int ti = tio_fc_member_index(f->common_fc, "common_type");
	if (ti >= 0) {
		s->type_off = f->common.f[ti].offset;
		s->type_size = f->common.f[ti].size;
	}
	s->base.name = b->name[0] ? tio_asprintf("%s/cpu%u", b->name, s->c->cpu)
				  : tio_asprintf("cpu%u", s->c->cpu);
	s->base.path = tio_strdup(f->path);
	if (!s->base.name || !s->base.path) {
		free(s->base.name);
		free(s->base.path);
		free(s);
		return TIO_ERR_NOMEM;
	}
	uint64_t off = s->c->offset, size = s->c->size;
	if (off > f->map.size || size > f->map.size - off) {
		/* keep what is there: a truncated file still shows its good pages, then
		   the stream reports the truncation */
		uint64_t have = off > f->map.size ? 0 : f->map.size - off;
		s->missing = size - have;
		size = have;
	}
	s->data_file_off = off;
	if (b->compressed) {
		s->compressed = true;
		if (size >= 4) {
			s->chunks_left = s->nchunks = td_u32(f, f->map.p + off);
			s->next_chunk = s->first_chunk = f->map.p + off + 4;
		}
		s->dsize = 0;
		s->pos = 0;
	} else {
		/* an offset past the end has no data: not even a pointer past the map */
		s->data = f->map.p + (off > f->map.size ? f->map.size : off);
		s->dsize = size;
	}
	/* values and raw bytes point into the mapped file, or into chunk
	   buffers kept while a batch may point there (td_mt_cut) */
	*out = &s->base;
	return 0;
}
