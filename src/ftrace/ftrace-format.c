/*
 * Event `format` files (tracefs events/<sys>/<event>/format, as stored in
 * trace.dat) mapped onto the common model.
 *
 *   name: sched_switch
 *   ID: 316
 *   format:
 *   	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *   	...                                   (common fields, then a blank line)
 *   	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
 *   print fmt: "prev_comm=%s ...", REC->prev_comm, ...
 *
 * Mapping (docs/formats/tracedat.md):
 *   - the common fields form the stream class's event common context
 *     (TIO_SCOPE_EV_COMMON_CTX), the others the event payload struct;
 *   - integers of 1/2/4/8 bytes -> TIO_FC_INT (size, `signed:`, the file's
 *     byte order; pointers and `long`s display in hex); `float` of 4 bytes and
 *     `double` of 8 -> TIO_FC_FLOAT (binary32 / binary64);
 *   - char[N] -> TIO_FC_SSTRING of N bytes; other T[N] (u8 and unsigned
 *     char included: bytes, not text) -> TIO_FC_ARRAY of INT; `T[]` of a
 *     fixed size (probe events) -> size / sizeof(T) elements;
 *   - __data_loc/__rel_loc char[] -> TIO_FC_STRING; other __data_loc T[] ->
 *     TIO_FC_DBLOB (the bytes); zero-size trailing arrays -> the rest of
 *     the record (STRING for char, DBLOB otherwise);
 *   - fc->attrs keeps the declared C type ("unsigned long", "char[16]",
 *     "__data_loc char[]"); the event class keeps "system" and the whole
 *     "format" text in ec->attrs, so a trace.dat writer or a trace-cmd-style
 *     printer has everything the file had.
 */
#include <ctype.h>
#include <stdlib.h>

#include "ftrace/tracedat.h"

typedef struct line_field {
	char *type; /* declared type, with [] */
	char *name;
	uint32_t offset, size;
	int is_signed; /* -1 when the line has no signed: */
	int arraylen;  /* -1 not an array, 0 [] or unknown, N */
} line_field;

static void lf_free(line_field *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].type);
		free(v[i].name);
	}
	free(v);
}

static bool is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* strtoull() of the number at [p, end), which is not NUL-terminated. */
static unsigned long long num_at(const char *p, const char *end)
{
	char tmp[32];
	size_t n = end > p ? (size_t)(end - p) : 0;
	if (n > sizeof(tmp) - 1)
		n = sizeof(tmp) - 1;
	memcpy(tmp, p, n);
	tmp[n] = 0;
	return strtoull(tmp, NULL, 0);
}

/* The line [s, e) begins with lit (the text is not NUL-terminated: bytes
 * after e belong to the next part of the file). */
static bool starts(const char *s, const char *e, const char *lit)
{
	size_t n = strlen(lit);
	return (size_t)(e - s) >= n && !memcmp(s, lit, n);
}

/*
 * "field:<decl>;\toffset:N;\tsize:N;\tsigned:N;" -> line_field.
 * <decl> is "<type> <name>", "<type> <name>[N]" or "<type>[] <name>".
 */
static int parse_field_line(const char *l, const char *end, line_field *lf)
{
	memset(lf, 0, sizeof(*lf));
	lf->is_signed = -1;
	lf->arraylen = -1;
	if (end - l < 6)
		return -1;
	const char *p = l + 6; /* "field:" */
	const char *semi = memchr(p, ';', (size_t)(end - p));
	if (!semi)
		return -1;
	const char *d = p, *de = semi;
	while (d < de && isspace((unsigned char)*d))
		d++;
	while (de > d && isspace((unsigned char)de[-1]))
		de--;
	const char *ne = de, *ns;
	char arr[32] = "";
	if (ne > d && ne[-1] == ']') {
		const char *lb = ne - 1;
		while (lb > d && *lb != '[')
			lb--;
		if (*lb != '[')
			return -1;
		size_t al = (size_t)(ne - lb);
		if (al >= sizeof(arr))
			al = sizeof(arr) - 1;
		memcpy(arr, lb, al);
		arr[al] = 0;
		ne = lb;
		while (ne > d && isspace((unsigned char)ne[-1]))
			ne--;
	}
	ns = ne;
	while (ns > d && is_ident(ns[-1]))
		ns--;
	if (ns == ne)
		return -1;
	lf->name = tio_strndup(ns, (size_t)(ne - ns));
	const char *te = ns;
	while (te > d && isspace((unsigned char)te[-1]))
		te--;
	/* type text: "<type>" + "[N]" (libtraceevent keeps the brackets in the type) */
	tio_buf tb = {0};
	tio_buf_add(&tb, d, (size_t)(te - d));
	if (arr[0])
		tio_buf_adds(&tb, arr);
	lf->type = tio_strdup(tio_buf_cstr(&tb));
	tio_buf_free(&tb);
	if (!lf->name || !lf->type)
		return TIO_ERR_NOMEM;
	if (arr[0]) {
		lf->arraylen = (int)strtoul(arr + 1, NULL, 0);
	} else if (strstr(lf->type, "[]")) {
		lf->arraylen = 0;
	}
	/* the numbers */
	const char *q = semi + 1;
	while (q < end) {
		while (q < end && isspace((unsigned char)*q))
			q++;
		const char *k = q;
		while (q < end && *q != ':' && *q != ';')
			q++;
		if (q >= end || *q != ':')
			break;
		size_t kl = (size_t)(q - k);
		unsigned long v = (unsigned long)num_at(q + 1, end);
		if (kl == 6 && !memcmp(k, "offset", 6))
			lf->offset = (uint32_t)v;
		else if (kl == 4 && !memcmp(k, "size", 4))
			lf->size = (uint32_t)v;
		else if (kl == 6 && !memcmp(k, "signed", 6))
			lf->is_signed = v != 0;
		while (q < end && *q != ';')
			q++;
		if (q < end)
			q++;
	}
	return 0;
}

/*
 * Text or bytes?  An array of C `char` (`char comm[16]`, `__data_loc
 * char[]`, `const char[]`) holds text; one of `u8`, `__u8`, `unsigned
 * char`, `uint8_t`... holds bytes (addresses, fsids, UUIDs, instruction
 * bytes) that a NUL does not end.  (libtraceevent prints both kinds as
 * text when they are printable; its printing is printfmt.c's, not this.)
 */
static bool type_is_char(const char *t)
{
	if (!strncmp(t, "__data_loc ", 11))
		t += 11;
	else if (!strncmp(t, "__rel_loc ", 10))
		t += 10;
	while (*t == ' ')
		t++;
	if (!strncmp(t, "const ", 6))
		t += 6;
	size_t n = strcspn(t, "[");
	while (n && t[n - 1] == ' ')
		n--;
	return n == 4 && !memcmp(t, "char", 4);
}

/*
 * The size of one element of `T[]` from T's name (the array's type text
 * without its brackets), 0 when unknown: probe events (uprobe, kprobe,
 * eprobe) declare their fixed arrays so, `u16 words[]` with `size:8`.
 */
static uint32_t elem_size_of(const td_file *f, const char *type)
{
	static const struct { const char *name; uint32_t size; } known[] = {
		{"u8", 1}, {"s8", 1}, {"char", 1}, {"unsigned char", 1}, {"signed char", 1},
		{"u16", 2}, {"s16", 2}, {"short", 2}, {"unsigned short", 2},
		{"u32", 4}, {"s32", 4}, {"int", 4}, {"unsigned int", 4}, {"unsigned", 4},
		{"u64", 8}, {"s64", 8}, {"long long", 8}, {"unsigned long long", 8},
	};
	size_t n = strcspn(type, "[");
	while (n && isspace((unsigned char)type[n - 1]))
		n--;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strlen(known[i].name) == n && !memcmp(known[i].name, type, n))
			return known[i].size;
	if ((n == 4 && !memcmp(type, "long", 4)) || (n == 13 && !memcmp(type, "unsigned long", 13)))
		return f->long_size == 4 ? 4 : 8;
	return 0;
}

/* Field class and decode kind for one field line. */
static tio_fc *field_fc(const td_file *f, const line_field *lf, td_field *tf)
{
	tio_fc *fc = NULL;
	bool dyn = !strncmp(lf->type, "__data_loc", 10) || !strncmp(lf->type, "__rel_loc", 9);
	tf->offset = lf->offset;
	tf->size = lf->size;
	tf->rel = !strncmp(lf->type, "__rel_loc", 9);
	tf->is_signed = lf->is_signed > 0;
	if (dyn) {
		bool ch = type_is_char(lf->type);
		fc = tio_fc_new(ch ? TIO_FC_STRING : TIO_FC_DBLOB);
		tf->kind = ch ? TD_DLSTR : TD_DLBLOB;
		if (fc && ch)
			fc->s.encoding = TIO_ENC_UTF8;
	} else if (lf->arraylen >= 0) {
		bool ch = type_is_char(lf->type);
		uint32_t n = (uint32_t)lf->arraylen;
		uint32_t elem = n ? lf->size / n : 0;
		if (n == 0 && lf->size) { /* `T[]` of a fixed size: size / sizeof(T) elements */
			uint32_t es = elem_size_of(f, lf->type);
			if (es && lf->size % es == 0 && lf->size / es <= INT32_MAX) {
				elem = es;
				n = lf->size / es;
			}
		}
		if (lf->size == 0 || n == 0) {
			fc = tio_fc_new(ch ? TIO_FC_STRING : TIO_FC_DBLOB);
			tf->kind = ch ? TD_RESTSTR : TD_RESTBLOB;
		} else if (ch) {
			/* text of `size:` bytes, also when the declared length disagrees (`char comm[32];
			   size:16` in some arm32 kernels' formats), as libtraceevent reads it */
			fc = tio_fc_new(TIO_FC_SSTRING);
			if (fc) {
				fc->s.length = lf->size;
				fc->s.encoding = TIO_ENC_UTF8;
			}
			tf->kind = TD_SSTR;
		} else if (elem == 1 || elem == 2 || elem == 4 || elem == 8) {
			fc = tio_fc_new(TIO_FC_ARRAY);
			tio_fc *e = tio_fc_new(TIO_FC_INT);
			if (!fc || !e) {
				tio_fc_free(fc);
				tio_fc_free(e);
				return NULL;
			}
			e->i.size = elem * 8;
			e->i.is_signed = lf->is_signed > 0;
			e->i.byte_order = f->be ? TIO_BE : TIO_LE;
			e->align = 8;
			if (strstr(lf->type, "long") || strchr(lf->type, '*'))
				e->i.base = 16;
			fc->a.elem = e;
			fc->a.length = n;
			tf->kind = TD_ARRAY;
			tf->elem = elem;
			tf->count = n;
		} else {
			fc = tio_fc_new(TIO_FC_SBLOB);
			if (fc)
				fc->s.length = lf->size;
			tf->kind = TD_BLOB;
		}
	} else if ((lf->size == 4 && !strcmp(lf->type, "float")) || (lf->size == 8 && !strcmp(lf->type, "double"))) {
		/* no kernel event has one; traceio's writer declares floats so */
		fc = tio_fc_new(TIO_FC_FLOAT);
		if (fc) {
			fc->f.exp_dig = lf->size == 4 ? 8 : 11;
			fc->f.mant_dig = lf->size == 4 ? 24 : 53;
			fc->f.byte_order = f->be ? TIO_BE : TIO_LE;
		}
		tf->kind = TD_FLOAT;
	} else if (lf->size == 1 || lf->size == 2 || lf->size == 4 || lf->size == 8) {
		fc = tio_fc_new(TIO_FC_INT);
		if (fc) {
			fc->i.size = lf->size * 8;
			fc->i.is_signed = lf->is_signed > 0;
			fc->i.byte_order = f->be ? TIO_BE : TIO_LE;
			if (strchr(lf->type, '*'))
				fc->i.base = 16;
		}
		tf->kind = TD_INT;
	} else {
		fc = tio_fc_new(TIO_FC_SBLOB);
		if (fc)
			fc->s.length = lf->size;
		tf->kind = TD_BLOB;
	}
	if (!fc)
		return NULL;
	fc->align = 8;
	fc->attrs = tio_strdup(lf->type);
	if (!fc->attrs) {
		tio_fc_free(fc);
		return NULL;
	}
	return fc;
}

/* Count the values one record of this plan produces (static arrays add elements). */
static void plan_finish(td_plan *p)
{
	p->nvals = 1;
	p->min_size = 0;
	p->all_int = true;
	p->load_end = 0;
	for (uint32_t i = 0; i < p->n; i++) {
		const td_field *fl = &p->f[i];
		p->nvals += 1 + (fl->kind == TD_ARRAY ? fl->count : 0);
		uint32_t end = fl->offset + fl->size;
		if (end > p->min_size)
			p->min_size = end;
		p->all_int &= fl->kind == TD_INT &&
			      (fl->size == 1 || fl->size == 2 || fl->size == 4 || fl->size == 8) &&
			      fl->offset <= UINT32_MAX - 8;
		if (fl->offset + 8 > p->load_end)
			p->load_end = fl->offset + 8;
	}
}

/*
 * Parse the field lines of a format text: the common ones (before the first
 * blank line after "format:") or the others.
 */
static int read_fields(const char *text, size_t len, bool common, line_field **out, size_t *n)
{
	const char *p = text, *end = text + len;
	const char *fmt = NULL;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		if (starts(p, e, "format:")) {
			fmt = e < end ? e + 1 : end;
			break;
		}
		p = e < end ? e + 1 : end;
	}
	*out = NULL;
	*n = 0;
	if (!fmt)
		return -1;
	size_t cap = 0;
	int section = 0; /* 0 common, 1 others */
	bool seen = false;
	for (p = fmt; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		const char *s = p;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		if (s == e) {
			if (seen)
				section++;
			seen = false;
			if (section > 1)
				break;
		} else if (starts(s, e, "field:") || starts(s, e, "field special:")) {
			if (starts(s, e, "field special:"))
				s += 8;
			seen = true;
			if ((section == 0) == common) {
				if (tio_grow(out, &cap, *n + 1, sizeof(line_field)))
					return TIO_ERR_NOMEM;
				int r = parse_field_line(s, e, &(*out)[*n]);
				if (r) {
					free((*out)[*n].type);
					free((*out)[*n].name);
					return r;
				}
				(*n)++;
			}
		} else if (starts(s, e, "print fmt:")) {
			break;
		}
		p = e < end ? e + 1 : end;
	}
	return 0;
}

/* Build the struct field class and the decode plan of a set of field lines. */
static int build(td_file *f, const char *text, size_t len, bool common, tio_fc **st_out,
		 td_plan *plan)
{
	line_field *lf;
	size_t n;
	int r = read_fields(text, len, common, &lf, &n);
	if (r) {
		lf_free(lf, n);
		return r == TIO_ERR_NOMEM ? r : TIO_ERR_FORMAT;
	}
	tio_fc *st = tio_fc_new(TIO_FC_STRUCT);
	td_field *tf = tio_calloc(n ? n : 1, sizeof(td_field));
	tio_member *m = tio_calloc(n ? n : 1, sizeof(tio_member));
	if (!st || !tf || !m)
		goto oom;
	st->align = 8;
	st->st.members = m;
	for (size_t i = 0; i < n; i++) {
		tio_fc *fc = field_fc(f, &lf[i], &tf[i]);
		if (!fc)
			goto oom;
		m[i].fc = fc;
		m[i].name = lf[i].name;
		lf[i].name = NULL;
		tf[i].fc = fc;
		st->st.nmembers++;
	}
	lf_free(lf, n);
	plan->f = tf;
	plan->n = (uint32_t)n;
	plan_finish(plan);
	*st_out = st;
	return 0;
oom:
	lf_free(lf, n);
	if (st && !st->st.members)
		free(m);
	tio_fc_free(st);
	free(tf);
	return TIO_ERR_NOMEM;
}

/*
 * A static array gives a value per element in every record of its event
 * (zeros when the record is too short for it), and its [N] and size come
 * from the text: arrays of more elements than the largest page has bytes
 * cannot be in any record, and are refused rather than allocated and
 * looped over for each event (their count, 2^31 twice, would also wrap
 * the plan's 32-bit value count).
 */
static int check_arrays(const td_file *f, const td_plan *p, const tio_fc *st, const char *sys,
			const char *name, size_t nl)
{
	uint32_t page = f->page_size;
	for (uint32_t i = 0; i < f->nbufs; i++)
		if (f->bufs[i].page_size > page)
			page = f->bufs[i].page_size;
	uint64_t n = 0;
	for (uint32_t i = 0; i < p->n; i++) {
		if (p->f[i].kind != TD_ARRAY)
			continue;
		n += p->f[i].count;
		if (n > page)
			return tio_err_set(TIO_ERR_FORMAT,
					   "event format %s:%.*s: field %s: %llu array elements up to it, more than a %u-byte page holds",
					   sys, (int)nl, name, st->st.members[i].name, (unsigned long long)n, page);
	}
	return 0;
}

static const char *find_line_value(const char *text, size_t len, const char *key, size_t *vl)
{
	size_t kl = strlen(key);
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		if ((size_t)(e - p) >= kl && !memcmp(p, key, kl)) {
			const char *v = p + kl;
			while (v < e && isspace((unsigned char)*v))
				v++;
			*vl = (size_t)(e - v);
			return v;
		}
		p = e < end ? e + 1 : end;
	}
	return NULL;
}

static int add_attr(tio_event_class *ec, const char *key, const char *val, size_t vl)
{
	tio_kv *kv = tio_realloc(ec->attrs, (ec->nattrs + 1) * sizeof(tio_kv));
	if (!kv)
		return TIO_ERR_NOMEM;
	ec->attrs = kv;
	tio_kv *a = &kv[ec->nattrs];
	memset(a, 0, sizeof(*a));
	a->key = tio_strdup(key);
	a->sval = tio_strndup(val, vl);
	if (!a->key || !a->sval) {
		free(a->key);
		free(a->sval);
		return TIO_ERR_NOMEM;
	}
	ec->nattrs++;
	return 0;
}

void td_plan_free(td_plan *p)
{
	if (!p)
		return;
	free(p->f);
	p->f = NULL;
	p->n = 0;
}

void td_ec_free_user(tio_event_class *ec)
{
	if (ec && ec->user) {
		td_plan_free(ec->user);
		free(ec->user);
		ec->user = NULL;
	}
}

/*
 * Parse one format file.  *common receives the common-fields struct when
 * it is non-NULL (the first event provides it for the whole trace).
 */
int td_parse_format(td_file *f, const char *sys, const char *text, size_t len,
		    tio_event_class **out, tio_fc **common)
{
	size_t nl, il;
	const char *name = find_line_value(text, len, "name:", &nl);
	const char *id = find_line_value(text, len, "ID:", &il);
	if (!name || !id || !nl)
		return tio_err_set(TIO_ERR_FORMAT, "event format of system '%s' has no name or ID", sys);
	tio_event_class *ec = tio_calloc(1, sizeof(*ec));
	td_plan *plan = tio_calloc(1, sizeof(*plan));
	if (!ec || !plan) {
		free(ec);
		free(plan);
		return TIO_ERR_NOMEM;
	}
	ec->loglevel = INT64_MIN;
	ec->id = num_at(id, id + il);
	ec->name = tio_strndup(name, nl);
	ec->user = plan;
	int r = ec->name ? 0 : TIO_ERR_NOMEM;
	if (!r)
		r = build(f, text, len, false, &ec->payload, plan);
	if (r == TIO_ERR_FORMAT)
		r = tio_err_set(TIO_ERR_FORMAT, "event format %s:%.*s: no 'format:' field list", sys,
				(int)nl, name);
	if (!r)
		r = check_arrays(f, plan, ec->payload, sys, name, nl);
	if (!r)
		r = add_attr(ec, "system", sys, strlen(sys));
	if (!r)
		r = add_attr(ec, "format", text, len);
	size_t pl;
	const char *pf = find_line_value(text, len, "print fmt:", &pl);
	if (!r && pf)
		r = add_attr(ec, "print_fmt", pf, pl);
	if (!r && common && !*common) {
		td_plan cp = {0};
		r = build(f, text, len, true, common, &cp);
		if (r == TIO_ERR_FORMAT) {
			r = 0; /* no common fields: fine, the next event may have them */
		} else if (!r && (r = check_arrays(f, &cp, *common, sys, name, nl))) {
			td_plan_free(&cp);
			tio_fc_free(*common);
			*common = NULL;
		} else if (!r) {
			td_plan_free(&f->common);
			f->common = cp;
		}
	}
	if (r) {
		td_ec_free_user(ec);
		tio_event_class_free(ec);
		return r;
	}
	*out = ec;
	return 0;
}

/* Copy of an event class for another buffer instance (the plan points at the copy's fcs). */
tio_event_class *td_ec_copy(const tio_event_class *src)
{
	tio_event_class *ec = tio_calloc(1, sizeof(*ec));
	td_plan *plan = tio_calloc(1, sizeof(*plan));
	const td_plan *sp = src->user;
	if (!ec || !plan)
		goto fail;
	ec->id = src->id;
	ec->loglevel = src->loglevel;
	ec->user = plan;
	ec->name = tio_strdup(src->name);
	ec->payload = tio_fc_copy(src->payload);
	ec->attrs = tio_calloc(src->nattrs ? src->nattrs : 1, sizeof(tio_kv));
	if (!ec->name || !ec->payload || !ec->attrs)
		goto fail;
	for (uint32_t i = 0; i < src->nattrs; i++) {
		ec->attrs[i].key = tio_strdup(src->attrs[i].key);
		ec->attrs[i].sval = src->attrs[i].sval ? tio_strdup(src->attrs[i].sval) : NULL;
		ec->nattrs++;
		if (!ec->attrs[i].key)
			goto fail;
	}
	plan->f = tio_calloc(sp->n ? sp->n : 1, sizeof(td_field));
	if (!plan->f)
		goto fail;
	memcpy(plan->f, sp->f, sp->n * sizeof(td_field));
	plan->n = sp->n;
	plan->nvals = sp->nvals;
	plan->min_size = sp->min_size;
	plan->all_int = sp->all_int;
	plan->load_end = sp->load_end;
	for (uint32_t i = 0; i < sp->n; i++)
		plan->f[i].fc = ec->payload->st.members[i].fc;
	return ec;
fail:
	if (ec) {
		td_ec_free_user(ec);
		tio_event_class_free(ec);
	} else {
		free(plan);
	}
	return NULL;
}
