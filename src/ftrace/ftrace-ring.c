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

#define COMMIT_MASK ((1u << 27) - 1)
#define MISSING_EVENTS (1u << 31)
#define MISSING_STORED (1u << 30)

typedef struct td_stream {
	tio_stream base;
	td_file *f;
	td_buffer *b;
	const td_cpu *c;
	/* the pages: a view into the map, or the current decompressed chunk */
	const uint8_t *data;
	uint64_t dsize;
	uint64_t data_file_off; /* file offset of data[0] (chunk: of the chunk header) */
	bool compressed;
	const uint8_t *next_chunk;
	uint32_t chunks_left;
	uint8_t *cbuf;
	size_t ccap;
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
	uint32_t type_off, type_size;
	bool done;
	uint64_t missing; /* bytes of this CPU's data past the end of the file */
	uint64_t released; /* pages before this offset in data were given back to the kernel */
	tio_event_class *ec_cache[256]; /* by id % 256: most records hit */
} td_stream;

/*
 * Resident memory stays flat on big files: the pages of the mapping this
 * stream has read are dropped every few MiB (they are file-backed, so a
 * later access would just read them again).
 */
static void release_read_pages(td_stream *s)
{
	const uint64_t step = 4u << 20;
	if (s->compressed || s->pos < s->released + step + s->b->page_size)
		return;
	uintptr_t sys = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)(s->data + s->released), e = (uintptr_t)(s->data + s->pos - 2 * s->b->page_size);
	a = (a + sys - 1) & ~(sys - 1);
	e &= ~(sys - 1);
	if (e > a)
		madvise((void *)a, e - a, MADV_DONTNEED);
	s->released = s->pos - 2 * s->b->page_size;
}

static int page_error(td_stream *s, uint64_t at, const char *what)
{
	return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: section flyrecord%s%s cpu %u: %s",
			   s->f->path, (unsigned long long)at, s->b->name[0] ? " of instance " : "",
			   s->b->name, s->c->cpu, what);
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
	if (usize > s->ccap) {
		uint8_t *nb = realloc(s->cbuf, usize);
		if (!nb)
			return tio_err_oom();
		s->cbuf = nb;
		s->ccap = usize;
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
		if (s->pos + ps > s->dsize) {
			if (!s->compressed)
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

/* Decode the fields of `p` from rec[0..len) into vals from index `at`; returns the next index. */
static uint32_t decode(td_stream *s, const td_plan *p, const tio_fc *st, const uint8_t *rec,
		       uint32_t len, uint32_t at)
{
	const td_file *f = s->f;
	tio_val *v0 = &s->vals[at];
	v0->fc = st;
	v0->n = p->n;
	uint32_t idx = at + 1;
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

/* Fill s->msg with the record rec[0..len); 0 ok, 1 skip (unknown event), < 0 error. */
static int make_event(td_stream *s, const uint8_t *rec, uint32_t len, uint64_t rec_file_off)
{
	const td_file *f = s->f;
	if (len < s->type_off + s->type_size)
		return page_error(s, rec_file_off, "record shorter than its common fields");
	uint64_t id = td_num(f, rec + s->type_off, s->type_size);
	tio_event_class *ec = find_ec(s, id);
	if (!ec)
		return tio_err_set(TIO_ERR_FORMAT,
				   "%s@0x%llx: section flyrecord cpu %u: record of unknown event id %llu",
				   f->path, (unsigned long long)rec_file_off, s->c->cpu,
				   (unsigned long long)id);
	const td_plan *p = ec->user;
	size_t need = (size_t)f->common.nvals + p->nvals;
	if (grow_vals(s, need))
		return TIO_ERR_NOMEM;
	uint32_t at = 0;
	tio_msg *m = &s->msg;
	memset(m->scope, 0, sizeof(m->scope));
	if (s->base.sc->ev_common_ctx) {
		at = decode(s, &f->common, s->base.sc->ev_common_ctx, rec, len, 0);
		m->scope[TIO_SCOPE_EV_COMMON_CTX] = &s->vals[0];
	}
	uint32_t pay = at;
	at = decode(s, p, ec->payload, rec, len, at);
	m->scope[TIO_SCOPE_PAYLOAD] = &s->vals[pay];
	m->type = TIO_MSG_EVENT;
	m->stream = &s->base;
	m->ec = ec;
	m->has_ts = true;
	m->cycles = s->ts + (uint64_t)f->ts_offset;
	m->ns = (int64_t)m->cycles;
	m->vals = s->vals;
	m->nvals = at;
	m->offset = rec_file_off;
	m->raw = rec;
	m->raw_len = len;
	/* what follows in the same buffer (later pages of the chunk or of the CPU's data) */
	m->raw_cap = (uint64_t)(s->data + s->dsize - rec);
	return 0;
}

static int td_next(tio_stream *st, const tio_msg **out)
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
				if (s->missing)
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
			s->off = ptr + length;
			if (s->off < ptr) /* overflow */
				s->in_page = false;
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

static void td_stream_free(tio_stream *st)
{
	td_stream *s = (td_stream *)st;
	free(s->vals);
	free(s->cbuf);
	free(s);
}

static const tio_stream_ops td_stream_ops = {
	.next = td_next,
	.free = td_stream_free,
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
			s->chunks_left = td_u32(f, f->map.p + off);
			s->next_chunk = f->map.p + off + 4;
		}
		s->dsize = 0;
		s->pos = 0;
	} else {
		/* an offset past the end has no data: not even a pointer past the map */
		s->data = f->map.p + (off > f->map.size ? f->map.size : off);
		s->dsize = size;
	}
	*out = &s->base;
	return 0;
}
