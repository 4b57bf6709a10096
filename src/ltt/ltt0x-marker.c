/*
 * LTTng 0.x marker format strings: "pid %d start %lu", "ip #p%lu", ...
 * The kernel describes every event with a printf-like format (core
 * marker_format event of the metadata channel); the sizes of int, long,
 * pointer and size_t come with the event id (core marker_id event).  The
 * rules are LTTV's (ltt/marker.c, 2007-2010), which every reader of these
 * traces followed; docs/formats/ltt0x.md lists them.
 */
#include <stdlib.h>

#include "ltt/ltt0x.h"

void ltt0x_marker_clear_fields(ltt0x_marker *mk)
{
	for (uint32_t i = 0; i < mk->nfields; i++) {
		free(mk->fields[i].name);
		free(mk->fields[i].fmt);
	}
	free(mk->fields);
	mk->fields = NULL;
	mk->nfields = 0;
	free(mk->bad);
	mk->bad = NULL;
}

static bool is_qualifier(char c, bool trace_type)
{
	switch (c) {
	case 'h': case 'l': case 'L': case 'Z': case 'z': case 't': case 'S':
		return true;
	case '1': case '2': case '4': case '8':
		return trace_type;
	}
	return false;
}

static uint8_t qualifier_size(const ltt0x_marker *mk, int q)
{
	switch (q) {
	case 'L': return 8;
	case 'l': return mk->long_size;
	case 'Z': case 'z': return mk->size_t_size;
	case 't': return mk->pointer_size;
	case 'h': return 2;
	case '1': return 1;
	case '2': return 2;
	case '4': return 4;
	case '8': return 8;
	}
	return mk->int_size;
}

/*
 * One type after '#' (trace type) or '%' (C type).  Returns the position
 * of the last character consumed, like LTTV's parse_trace_type/parse_c_type:
 * the caller's loop steps over it.  `fmt` gets what LTTV keeps to print
 * the value (flags, "ll" and the conversion) for C types.
 */
static const char *parse_type(const ltt0x_marker *mk, const char *p, bool trace_type, uint8_t *size,
			      uint8_t *type, bool *net, tio_buf *fmt, bool *oom)
{
	if (trace_type) {
		while (*p == 'n') {
			*net = true;
			p++;
		}
	} else {
		while (*p == '-' || *p == '+' || *p == ' ' || *p == '#' || *p == '0') {
			*oom |= tio_buf_addc(fmt, *p) != 0;
			p++;
		}
	}
	int q = -1;
	if (is_qualifier(*p, trace_type)) {
		q = *p++;
		if (q == 'l' && *p == 'l') {
			q = 'L';
			p++;
		}
	}
	switch (*p) {
	case 'c':
		*type = LTT0X_UNSIGNED;
		*size = 1;
		if (!trace_type)
			*oom |= tio_buf_addc(fmt, 'c') != 0;
		return p;
	case 's':
		*type = LTT0X_STRING;
		return p;
	case 'p':
		*type = LTT0X_POINTER;
		*size = mk->pointer_size;
		return p;
	case 'd':
	case 'i':
		*type = LTT0X_SIGNED;
		break;
	case 'o':
	case 'u':
	case 'x':
	case 'X':
		*type = LTT0X_UNSIGNED;
		break;
	default:
		return *p ? p : p - 1;
	}
	if (!trace_type) {
		*oom |= tio_buf_adds(fmt, "ll") != 0;
		*oom |= tio_buf_addc(fmt, *p) != 0;
	}
	*size = qualifier_size(mk, q);
	return p;
}

static int add_field(ltt0x_marker *mk, const char *name, size_t name_len, unsigned count,
		     uint8_t size, uint8_t type, bool net, tio_buf *fmt)
{
	ltt0x_field *nf = tio_realloc(mk->fields, (mk->nfields + 1) * sizeof(*nf));
	if (!nf)
		return TIO_ERR_NOMEM;
	mk->fields = nf;
	ltt0x_field *f = &mk->fields[mk->nfields];
	memset(f, 0, sizeof(*f));
	f->name = name ? tio_strndup(name, name_len) : tio_asprintf("field %u", count);
	if (!f->name)
		return TIO_ERR_NOMEM;
	mk->nfields++;
	f->type = type;
	f->size = size;
	f->net_order = net;
	if (type == LTT0X_NONE) {
		mk->bad = tio_asprintf("field '%s' has no type LTTV knows", f->name);
		return mk->bad ? 0 : TIO_ERR_NOMEM;
	}
	if (type == LTT0X_STRING)
		return 0;
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		mk->bad = tio_asprintf("field '%s' has size %u (1, 2, 4 or 8 expected)", f->name, size);
		return mk->bad ? 0 : TIO_ERR_NOMEM;
	}
	if (size > mk->largest_align)
		mk->largest_align = size;
	f->fmt = type == LTT0X_POINTER ? tio_strdup("0x%llx") : tio_strdup(tio_buf_cstr(fmt));
	return f->fmt ? 0 : TIO_ERR_NOMEM;
}

int ltt0x_marker_parse(ltt0x_marker *mk)
{
	ltt0x_marker_clear_fields(mk);
	mk->largest_align = 1;
	if (!mk->format)
		return 0;
	uint8_t trace_size = 0, c_size = 0, trace_type = LTT0X_NONE, c_type = LTT0X_NONE;
	bool net = false, oom = false;
	const char *name_begin = mk->format, *name_end = NULL, *name = NULL;
	size_t name_len = 0;
	unsigned count = 1;
	tio_buf fmt = {0};
	int r = 0;
	for (const char *p = mk->format; *p && !r; p++) {
		switch (*p) {
		case '#':
			p++;
			if (*p == '#') {
				oom |= tio_buf_adds(&fmt, "##") != 0;
				break;
			}
			net = false;
			p = parse_type(mk, p, true, &trace_size, &trace_type, &net, &fmt, &oom);
			break;
		case '%':
			oom |= tio_buf_addc(&fmt, '%') != 0;
			p++;
			if (*p == '%') {
				oom |= tio_buf_addc(&fmt, '%') != 0;
				break;
			}
			/* LTTV never resets the C type between fields: a conversion it does
			 * not know reuses the previous one's type. */
			p = parse_type(mk, p, false, &c_size, &c_type, &net, &fmt, &oom);
			if (!trace_size)
				trace_size = c_size;
			if (trace_type == LTT0X_NONE)
				trace_type = c_type;
			if (c_type == LTT0X_STRING)
				trace_type = LTT0X_STRING;
			r = add_field(mk, name, name_len, count++, trace_size, trace_type, net, &fmt);
			trace_size = c_size = 0;
			trace_type = LTT0X_NONE;
			tio_buf_reset(&fmt);
			net = false;
			name_begin = NULL;
			name = NULL;
			break;
		case ' ':
			tio_buf_reset(&fmt);
			if (!name_end && name_begin) {
				name_end = p;
				name = name_begin;
				name_len = (size_t)(name_end - name_begin);
			}
			break;
		default:
			oom |= tio_buf_addc(&fmt, *p) != 0;
			if (!name_begin) {
				name_begin = p;
				name_end = NULL;
			}
		}
		if (mk->bad)
			break;
	}
	tio_buf_free(&fmt);
	if (oom && !r)
		r = tio_err_oom();
	return r;
}

/*
 * The payload structure: integers keep their size, signedness, byte order
 * and display base; `attrs` holds the printf text LTTV prints them with.
 */
int ltt0x_marker_payload(const ltt0x_marker *mk, bool reverse, tio_fc **out)
{
	*out = NULL;
	if (!mk->nfields || mk->bad)
		return 0;
	tio_fc *st = tio_fc_new(TIO_FC_STRUCT);
	if (!st)
		return TIO_ERR_NOMEM;
	st->st.members = tio_calloc(mk->nfields, sizeof(tio_member));
	if (!st->st.members)
		goto oom;
	for (uint32_t i = 0; i < mk->nfields; i++) {
		const ltt0x_field *f = &mk->fields[i];
		tio_fc *fc;
		if (f->type == LTT0X_STRING) {
			fc = tio_fc_new(TIO_FC_STRING);
			if (fc) {
				fc->s.encoding = TIO_ENC_UTF8;
				fc->align = 8;
			}
		} else {
			fc = tio_fc_new(TIO_FC_INT);
			if (fc) {
				fc->i.size = 8u * f->size;
				fc->i.is_signed = f->type == LTT0X_SIGNED;
				fc->i.byte_order = f->net_order ? TIO_BE : (reverse ? TIO_BE : TIO_LE);
				size_t l = strlen(f->fmt);
				char conv = l ? f->fmt[l - 1] : 'd';
				fc->i.base = conv == 'x' || conv == 'X' ? 16 : conv == 'o' ? 8 : 10;
				fc->i.encoding = conv == 'c' ? TIO_ENC_UTF8 : TIO_ENC_NONE;
				fc->align = 8u * (mk->alignment ? (f->size < mk->alignment ? f->size : mk->alignment) : 1);
				fc->attrs = tio_strdup(f->fmt);
				if (!fc->attrs) {
					tio_fc_free(fc);
					fc = NULL;
				}
			}
		}
		if (!fc)
			goto oom;
		st->st.members[i].fc = fc;
		st->st.members[i].name = tio_strdup(f->name);
		st->st.nmembers = i + 1;
		if (!st->st.members[i].name)
			goto oom;
	}
	*out = st;
	return 0;
oom:
	tio_fc_free(st);
	return TIO_ERR_NOMEM;
}

/* ---------------------------------------------------------------- the metadata's index (ltt0x.h) */

uint64_t ltt0x_ix_hash(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return h;
}

/* The first slot of hash `h` holding 0 or a value that `same` accepts. */
static uint32_t ix_slot(const ltt0x_ix *ix, uint64_t h, bool (*same)(const void *, uint32_t, const void *),
			const void *owner, const void *key)
{
	uint32_t m = ix->cap - 1, i = (uint32_t)(h ^ h >> 32) & m;
	while (ix->v[i] && !(ix->h[i] == h && same(owner, ix->v[i] - 1, key)))
		i = (i + 1) & m;
	return i;
}

uint32_t ltt0x_ix_find(const ltt0x_ix *ix, uint64_t h, bool (*same)(const void *, uint32_t, const void *),
			const void *owner, const void *key)
{
	if (!ix->cap)
		return UINT32_MAX;
	uint32_t i = ix_slot(ix, h, same, owner, key);
	return ix->v[i] ? ix->v[i] - 1 : UINT32_MAX;
}

/* The table stays at most half full. */
int ltt0x_ix_add(ltt0x_ix *ix, uint64_t h, uint32_t v)
{
	if (2 * (ix->n + 1) > ix->cap) {
		uint32_t nc = ix->cap ? 2 * ix->cap : 16;
		ltt0x_ix n = {tio_calloc(nc, sizeof(uint64_t)), tio_calloc(nc, sizeof(uint32_t)), nc, ix->n};
		if (!n.h || !n.v) {
			free(n.h);
			free(n.v);
			return TIO_ERR_NOMEM;
		}
		for (uint32_t k = 0; k < ix->cap; k++) {
			if (!ix->v[k])
				continue;
			uint32_t i = (uint32_t)(ix->h[k] ^ ix->h[k] >> 32) & (nc - 1);
			while (n.v[i])
				i = (i + 1) & (nc - 1);
			n.h[i] = ix->h[k];
			n.v[i] = ix->v[k];
		}
		free(ix->h);
		free(ix->v);
		*ix = n;
	}
	uint32_t i = (uint32_t)(h ^ h >> 32) & (ix->cap - 1);
	while (ix->v[i])
		i = (i + 1) & (ix->cap - 1);
	ix->h[i] = h;
	ix->v[i] = v + 1;
	ix->n++;
	return 0;
}

void ltt0x_ix_free(ltt0x_ix *ix)
{
	free(ix->h);
	free(ix->v);
}
