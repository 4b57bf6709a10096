/*
 * traceio._traceio: the CPython extension behind `import traceio`.
 *
 * Built over the public C API only (the headers of include/traceio/): nothing from src/.
 * See python/README.md for the Python API; python/traceio/__init__.py adds
 * the pure-Python parts (to_pandas, dataframes, Enum, Discarded).
 *
 * Objects:
 *   _Trace    what traceio.open() returns: paths and options, and one set of
 *             opened traces kept for class information.  Every pass over the
 *             events (iteration, messages(), columns()) opens its own set, so
 *             passes are independent.
 *   _Pass     one pass: its traces, its mux, per-class and per-field-class
 *             caches; it is the iterator.
 *   Event     an event.  Its values are read from the C message while it is
 *             current; when the pass moves on, an Event still referenced by
 *             more than the loop variable (kept in a list, another name...)
 *             is copied to Python objects first (materialized).  One held by
 *             a single reference (a loop variable about to move on, or
 *             list(trace)) keeps its name, times, CPU and stream; if its
 *             values are asked for later, the trace is read again up to it
 *             (heal), else StaleEventError.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceio/traceio.h>
#include <traceio/field.h>
#include <traceio/class.h>

/* ------------------------------------------------------------ module globals */

static PyObject *Error, *NoMemoryError, *IOErrorT, *FormatError, *UnsupportedError, *UsageError, *LimitError,
	*SkippedError, *StaleEventError;
static PyObject *TraceWarning, *DamagedDataWarning;
static PyObject *EnumClass;	 /* traceio.Enum (int subclass with .labels), set by __init__.py */
static PyObject *DiscardedClass; /* traceio.Discarded, set by __init__.py */
static PyObject *str_labels, *str_events, *str_packets, *str_unknown_comm;
static PyObject *scope_keys[TIO_SCOPE_COUNT];

static PyObject *exc_for(int status)
{
	switch (status) {
	case TIO_ERR_NOMEM: return NoMemoryError;
	case TIO_ERR_IO: return IOErrorT;
	case TIO_ERR_FORMAT: return FormatError;
	case TIO_ERR_UNSUPPORTED: return UnsupportedError;
	case TIO_ERR_USAGE: return UsageError;
	case TIO_ERR_LIMIT: return LimitError;
	case TIO_ERR_SKIPPED: return SkippedError;
	}
	return Error;
}

/* Raise the exception for a C status, with the library's message. */
static PyObject *raise_tio(int status, const char *what)
{
	const char *msg = tio_error_message();
	PyObject *cls = exc_for(status);
	PyObject *args;
	if (what && *what)
		args = Py_BuildValue("(si)", msg && *msg ? msg : what, status);
	else
		args = Py_BuildValue("(si)", msg && *msg ? msg : "error", status);
	tio_error_clear();
	if (!args)
		return NULL;
	PyErr_SetObject(cls, args);
	Py_DECREF(args);
	return NULL;
}

/* ------------------------------------------------------------ pointer maps */

/* An open-addressing map from a non-NULL key (pointer or integer) to a pointer. */
typedef struct {
	uintptr_t *keys;
	void **vals;
	size_t cap, n;
} pmap;

static inline size_t phash(uintptr_t k, size_t cap)
{
	uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 17) & (cap - 1);
}

static inline void *pmap_get(const pmap *m, uintptr_t k, bool *found)
{
	*found = false;
	if (!m->cap)
		return NULL;
	for (size_t i = phash(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == k) {
			*found = true;
			return m->vals[i];
		}
		if (!m->keys[i])
			return NULL;
	}
}

static int pmap_put(pmap *m, uintptr_t k, void *v)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		uintptr_t *nk = calloc(ncap, sizeof *nk);
		void **nv = calloc(ncap, sizeof *nv);
		if (!nk || !nv) {
			free(nk);
			free(nv);
			PyErr_NoMemory();
			return -1;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i]) {
				size_t j = phash(m->keys[i], ncap);
				while (nk[j])
					j = (j + 1) & (ncap - 1);
				nk[j] = m->keys[i];
				nv[j] = m->vals[i];
			}
		free(m->keys);
		free(m->vals);
		m->keys = nk;
		m->vals = nv;
		m->cap = ncap;
	}
	size_t i = phash(k, m->cap);
	while (m->keys[i] && m->keys[i] != k)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = k;
	m->vals[i] = v;
	return 0;
}

static void pmap_free(pmap *m, void (*fn)(void *))
{
	if (fn)
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i] && m->vals[i])
				fn(m->vals[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ field class info */

/* What converting a value of one field class needs, found once per class and pass. */
typedef struct fcinfo_s {
	const tio_field_class *fc;
	int kind;
	bool sgn, wide, text, be;
	int enc;
	uint32_t nlabels;
	uint32_t nmem;
	PyObject **names; /* STRUCT members, VARIANT options (None when unnamed) */
	PyObject *enum_cache; /* value -> Enum instance */
	struct fcinfo_s **kids; /* members' / options' / the element's info, filled on first use */
	uint32_t nkids;
} fcinfo;

static void fcinfo_free(void *p)
{
	fcinfo *fi = p;
	for (uint32_t i = 0; i < fi->nmem; i++)
		Py_XDECREF(fi->names[i]);
	free(fi->names);
	free(fi->kids);
	Py_XDECREF(fi->enum_cache);
	free(fi);
}

/* A member name as Python shows it: CTF 1.8's escaped "_name" becomes "name", as babeltrace2 does. */
static PyObject *member_name(const char *n)
{
	if (!n)
		Py_RETURN_NONE;
	PyObject *s = PyUnicode_FromString(n);
	if (s)
		PyUnicode_InternInPlace(&s);
	return s;
}

static fcinfo *fcinfo_new(const tio_field_class *fc)
{
	fcinfo *fi = calloc(1, sizeof *fi);
	if (!fi) {
		PyErr_NoMemory();
		return NULL;
	}
	fi->fc = fc;
	fi->kind = tio_field_class_kind(fc);
	fi->sgn = tio_field_class_int_signed(fc);
	fi->wide = (fi->kind == TIO_FIELD_INT || fi->kind == TIO_FIELD_ENUM) && tio_field_class_int_size(fc) > 64;
	fi->text = tio_field_class_is_text(fc);
	fi->enc = tio_field_class_string_encoding(fc);
	fi->be = tio_field_class_byte_order(fc) == TIO_FIELD_BE;
	fi->nlabels = tio_field_class_label_count(fc);
	uint32_t nk = fi->kind == TIO_FIELD_STRUCT || fi->kind == TIO_FIELD_VARIANT ? tio_field_class_member_count(fc)
		      : fi->kind == TIO_FIELD_ARRAY || fi->kind == TIO_FIELD_SEQUENCE || fi->kind == TIO_FIELD_OPTIONAL ? 1
															      : 0;
	if (nk) {
		fi->kids = calloc(nk, sizeof *fi->kids);
		if (!fi->kids) {
			free(fi);
			PyErr_NoMemory();
			return NULL;
		}
		fi->nkids = nk;
	}
	if (fi->kind == TIO_FIELD_STRUCT || fi->kind == TIO_FIELD_VARIANT) {
		uint32_t n = tio_field_class_member_count(fc);
		fi->names = calloc(n ? n : 1, sizeof *fi->names);
		if (!fi->names) {
			free(fi);
			PyErr_NoMemory();
			return NULL;
		}
		for (uint32_t i = 0; i < n; i++) {
			fi->names[i] = member_name(tio_field_class_member_name(fc, i));
			fi->nmem = i + 1;
			if (!fi->names[i]) {
				fcinfo_free(fi);
				return NULL;
			}
		}
	}
	return fi;
}

/* ------------------------------------------------------------ per event class info */

typedef struct {
	const tio_event_class *ec;
	PyObject *name;	  /* str */
	PyObject *refidx; /* path -> index in refs (or None: no such field) */
	tio_field_ref *refs;
	size_t nrefs, caprefs;
	PyObject *keys; /* payload member names (tuple), made on first use */
} classinfo;

static void classinfo_free(void *p)
{
	classinfo *ci = p;
	Py_XDECREF(ci->name);
	Py_XDECREF(ci->refidx);
	Py_XDECREF(ci->keys);
	free(ci->refs);
	free(ci);
}

/* ------------------------------------------------------------ objects */

typedef struct {
	PyObject_HEAD
	PyObject *paths;  /* tuple of str */
	PyObject *format; /* str or None */
	PyObject *options; /* tuple of (key, value) str pairs: reader options (tio_trace_set) */
	bool has_begin, has_end, strict;
	int64_t begin, end;
	tio_trace **tv; /* the set kept for class information */
	size_t tn;
} TraceObj;

struct EventObj;

typedef struct {
	PyObject_HEAD
	tio_trace **tv;
	size_t tn;
	tio_mux *mux;
	bool messages; /* also yield Discarded */
	bool strict;
	bool done;
	const tio_msg *msg; /* current message */
	uint64_t gen;	    /* counts tio_mux_next calls */
	struct EventObj *cur; /* borrowed: the Event of the current message, if alive */
	pmap fcs;	      /* field class -> fcinfo */
	pmap classes;	      /* event class -> classinfo */
	const tio_event_class *last_ec;
	classinfo *last_ci;
	TraceObj *owner;	  /* to read the trace again (heal) */
	struct EventObj **stale; /* Events retired unread while one name held them, in message order */
	size_t nstale, capstale;
} PassObj;

typedef struct EventObj {
	PyObject_HEAD
	PassObj *pass; /* NULL once materialized */
	uint64_t gen;
	classinfo *ci; /* valid while pass is set */
	PyObject *name;
	int64_t time_ns;
	uint64_t cycles;
	int64_t cpu; /* -1: unknown */
	uint64_t stream;
	bool has_time, has_cycles;
	PyObject *scopes; /* materialized: tuple of TIO_SCOPE_COUNT (dict or None) */
	Py_ssize_t stale_idx; /* its place in pass->stale, -1 */
} EventObj;

static PyTypeObject TraceType, PassType, EventType;

/* ------------------------------------------------------------ value conversion */

static inline fcinfo *fcinfo_of(PassObj *p, const tio_field_class *fc)
{
	bool found;
	fcinfo *fi = pmap_get(&p->fcs, (uintptr_t)fc, &found);
	if (found)
		return fi;
	fi = fcinfo_new(fc);
	if (!fi)
		return NULL;
	if (pmap_put(&p->fcs, (uintptr_t)fc, fi)) {
		fcinfo_free(fi);
		return NULL;
	}
	return fi;
}

static PyObject *decode_wide(const char *s, size_t len, int enc, bool be)
{
	unsigned unit = enc == TIO_FIELD_UTF16 ? 2 : 4;
	size_t n = 0;
	const uint8_t *q = (const uint8_t *)s;
	/* up to the first zero code unit */
	while (n + unit <= len) {
		bool zero = true;
		for (unsigned k = 0; k < unit; k++)
			zero = zero && q[n + k] == 0;
		if (zero)
			break;
		n += unit;
	}
	int order = be ? 1 : -1;
	if (unit == 2)
		return PyUnicode_DecodeUTF16(s, (Py_ssize_t)n, "replace", &order);
	return PyUnicode_DecodeUTF32(s, (Py_ssize_t)n, "replace", &order);
}

static PyObject *conv(PassObj *p, const tio_field *f, int depth);
static PyObject *conv_fi(PassObj *p, fcinfo *fi, const tio_field *f, int depth);

/* The info of child value c, k-th member/option (0 for elements) of a value of fi's class. */
static inline fcinfo *kid_fi(PassObj *p, fcinfo *fi, uint32_t k, const tio_field *c)
{
	const tio_field_class *cfc = tio_field_get_class(c);
	if (k < fi->nkids && fi->kids[k] && fi->kids[k]->fc == cfc)
		return fi->kids[k];
	fcinfo *r = fcinfo_of(p, cfc);
	if (r && k < fi->nkids)
		fi->kids[k] = r;
	return r;
}

/* A child value (NULL: None). */
static inline PyObject *conv_kid(PassObj *p, fcinfo *fi, uint32_t k, const tio_field *c, int depth)
{
	if (!c)
		Py_RETURN_NONE;
	fcinfo *cfi = kid_fi(p, fi, k, c);
	return cfi ? conv_fi(p, cfi, c, depth) : NULL;
}

/*
 * Member/element i of a structure or array, `prev` being member i - 1: with
 * tio_field_next_child (TIO_HAVE_NEXT_CHILD, set by setup.py when the header
 * has it) in linear time over all of them; else tio_field_member/element(i),
 * which walk i siblings each.
 */
static inline int next_child(const tio_field *f, const tio_field *prev, uint64_t i, const tio_field **out)
{
#ifdef TIO_HAVE_NEXT_CHILD
	if (prev)
		return tio_field_next_child(f, prev, out) || !*out ? -1 : 0;
#endif
	if (tio_field_kind(f) == TIO_FIELD_STRUCT)
		return tio_field_member(f, i, out);
	return tio_field_element(f, i, out);
}

static PyObject *conv_int_labels(PassObj *p, fcinfo *fi, const tio_field *f, PyObject *num)
{
	if (!fi->enum_cache && !(fi->enum_cache = PyDict_New())) {
		Py_DECREF(num);
		return NULL;
	}
	PyObject *e = PyDict_GetItemWithError(fi->enum_cache, num);
	if (e) {
		Py_DECREF(num);
		Py_INCREF(e);
		return e;
	}
	if (PyErr_Occurred() || !EnumClass) {
		Py_DECREF(num);
		return PyErr_Occurred() ? NULL : num;
	}
	PyObject *labels = PyList_New(0);
	if (!labels) {
		Py_DECREF(num);
		return NULL;
	}
	const char *l;
	for (size_t i = 0; (l = tio_field_label(f, i)); i++) {
		PyObject *s = PyUnicode_FromString(l);
		if (!s || PyList_Append(labels, s)) {
			Py_XDECREF(s);
			Py_DECREF(labels);
			Py_DECREF(num);
			return NULL;
		}
		Py_DECREF(s);
	}
	PyObject *t = PyList_AsTuple(labels);
	Py_DECREF(labels);
	if (!t) {
		Py_DECREF(num);
		return NULL;
	}
	e = PyObject_CallFunctionObjArgs(EnumClass, num, t, NULL);
	Py_DECREF(t);
	if (e && PyDict_SetItem(fi->enum_cache, num, e)) {
		Py_CLEAR(e);
	}
	Py_DECREF(num);
	return e;
}

static PyObject *conv_fail(const char *what)
{
	return raise_tio(TIO_ERR_USAGE, what);
}

static PyObject *conv(PassObj *p, const tio_field *f, int depth)
{
	if (!f)
		Py_RETURN_NONE;
	if (depth > 64) {
		PyErr_SetString(LimitError, "value nested too deeply");
		return NULL;
	}
	fcinfo *fi = fcinfo_of(p, tio_field_get_class(f));
	if (!fi)
		return NULL;
	return conv_fi(p, fi, f, depth);
}

static PyObject *conv_fi(PassObj *p, fcinfo *fi, const tio_field *f, int depth)
{
	if (depth > 64) {
		PyErr_SetString(LimitError, "value nested too deeply");
		return NULL;
	}
	switch (fi->kind) {
	case TIO_FIELD_INT:
	case TIO_FIELD_ENUM:
	case TIO_FIELD_BITMAP:
	case TIO_FIELD_VARINT: {
		PyObject *num;
		if (fi->wide) {
			const uint8_t *b;
			size_t len;
			if (tio_field_bytes(f, &b, &len))
				return conv_fail("wide integer");
			num = _PyLong_FromByteArray(b, len, fi->be ? 0 : 1, fi->sgn);
		} else if (fi->sgn) {
			int64_t v;
			if (tio_field_int(f, &v))
				return conv_fail("integer");
			num = PyLong_FromLongLong(v);
		} else {
			uint64_t v;
			if (tio_field_uint(f, &v))
				return conv_fail("integer");
			num = PyLong_FromUnsignedLongLong(v);
		}
		if (!num || !fi->nlabels || fi->wide)
			return num;
		return conv_int_labels(p, fi, f, num);
	}
	case TIO_FIELD_BOOL: {
		bool b;
		if (tio_field_bool(f, &b))
			return conv_fail("boolean");
		return PyBool_FromLong(b);
	}
	case TIO_FIELD_FLOAT: {
		double d;
		if (tio_field_double(f, &d))
			return conv_fail("float");
		return PyFloat_FromDouble(d);
	}
	case TIO_FIELD_STRING:
	case TIO_FIELD_STATIC_STRING:
	case TIO_FIELD_DYNAMIC_STRING: {
		const char *s;
		size_t len;
		if (tio_field_string(f, &s, &len))
			return conv_fail("string");
		if (fi->enc == TIO_FIELD_UTF16 || fi->enc == TIO_FIELD_UTF32)
			return decode_wide(s, len, fi->enc, fi->be);
		return PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "replace");
	}
	case TIO_FIELD_STATIC_BLOB:
	case TIO_FIELD_DYNAMIC_BLOB: {
		const uint8_t *b;
		size_t len;
		if (tio_field_bytes(f, &b, &len))
			return conv_fail("BLOB");
		return PyBytes_FromStringAndSize((const char *)b, (Py_ssize_t)len);
	}
	case TIO_FIELD_STRUCT: {
		uint64_t n;
		if (tio_field_length(f, &n))
			return conv_fail("structure");
		PyObject *d = PyDict_New();
		if (!d)
			return NULL;
		const tio_field *c = NULL;
		for (uint64_t i = 0; i < n && i < fi->nmem; i++) {
			if (next_child(f, c, i, &c)) {
				Py_DECREF(d);
				return conv_fail("structure member");
			}
			PyObject *v = conv_kid(p, fi, (uint32_t)i, c, depth + 1);
			if (!v || PyDict_SetItem(d, fi->names[i], v)) {
				Py_XDECREF(v);
				Py_DECREF(d);
				return NULL;
			}
			Py_DECREF(v);
		}
		return d;
	}
	case TIO_FIELD_ARRAY:
	case TIO_FIELD_SEQUENCE: {
		if (fi->text) {
			const char *s;
			size_t len;
			if (!tio_field_string(f, &s, &len))
				return PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "replace");
			tio_error_clear();
		}
		uint64_t n;
		if (tio_field_length(f, &n))
			return conv_fail("array");
		PyObject *l = PyList_New((Py_ssize_t)n);
		if (!l)
			return NULL;
		const tio_field *c = NULL;
		for (uint64_t i = 0; i < n; i++) {
			if (next_child(f, c, i, &c)) {
				Py_DECREF(l);
				return conv_fail("array element");
			}
			PyObject *v = conv_kid(p, fi, 0, c, depth + 1);
			if (!v) {
				Py_DECREF(l);
				return NULL;
			}
			PyList_SET_ITEM(l, (Py_ssize_t)i, v);
		}
		return l;
	}
	case TIO_FIELD_VARIANT: {
		const tio_field *c;
		uint32_t opt = 0;
		if (tio_field_variant(f, &opt, NULL, &c))
			return conv_fail("variant");
		return conv_kid(p, fi, opt, c, depth + 1);
	}
	case TIO_FIELD_OPTIONAL: {
		const tio_field *c;
		if (tio_field_optional(f, &c))
			return conv_fail("optional");
		return conv_kid(p, fi, 0, c, depth + 1);
	}
	}
	PyErr_Format(UnsupportedError, "field kind %d", fi->kind);
	return NULL;
}

/* ------------------------------------------------------------ opening */

static void free_set(tio_trace **tv, size_t tn)
{
	for (size_t i = 0; i < tn; i++)
		tio_trace_free(tv[i]);
	free(tv);
}

/* Open every path of the Trace object: *tv, *tn; warnings of opening as Python warnings. */
static int open_set(TraceObj *t, tio_trace ***tvp, size_t *tnp, bool warn)
{
	const char *format = NULL;
	if (t->format != Py_None && !(format = PyUnicode_AsUTF8(t->format)))
		return -1;
	tio_trace **tv = NULL;
	size_t tn = 0;
	Py_ssize_t np = PyTuple_GET_SIZE(t->paths);
	for (Py_ssize_t i = 0; i < np; i++) {
		PyObject *b = NULL;
		if (!PyUnicode_FSConverter(PyTuple_GET_ITEM(t->paths, i), &b))
			goto fail;
		tio_trace **v = NULL;
		size_t n = 0;
		int r;
		Py_BEGIN_ALLOW_THREADS
		r = tio_trace_open_all(PyBytes_AS_STRING(b), format, &v, &n);
		Py_END_ALLOW_THREADS
		Py_DECREF(b);
		if (r) {
			raise_tio(r, "open");
			goto fail;
		}
		tio_trace **nv = realloc(tv, (tn + n + 1) * sizeof *nv);
		if (!nv) {
			free_set(v, n);
			PyErr_NoMemory();
			goto fail;
		}
		tv = nv;
		memcpy(tv + tn, v, n * sizeof *v);
		tn += n;
		free(v);
	}
	if (!tn) {
		PyErr_SetString(UsageError, "no trace found");
		goto fail;
	}
	int r = tio_traces_merge(tv, &tn);
	if (r) {
		raise_tio(r, "merge");
		goto fail;
	}
	/* each reader option to the traces whose reader takes it, at least one */
	for (Py_ssize_t k = 0; t->options && k < PyTuple_GET_SIZE(t->options); k++) {
		PyObject *kv = PyTuple_GET_ITEM(t->options, k);
		const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kv, 0)), *val = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kv, 1));
		if (!key || !val)
			goto fail;
		size_t took = 0;
		for (size_t i = 0; i < tn; i++) {
			r = tio_trace_set(tv[i], key, val);
			if (r == TIO_ERR_UNSUPPORTED) {
				tio_error_clear();
				continue;
			}
			if (r) {
				raise_tio(r, "options");
				goto fail;
			}
			took++;
		}
		if (!took) {
			PyErr_Format(UsageError, "options: no trace's reader takes '%s' (clock-exact: every "
						 "format; ltt-tsc: lttng0; ts2secs, raw-ts: tracedat)", key);
			goto fail;
		}
	}
	if (warn)
		for (size_t i = 0; i < tn; i++) {
			const char *w;
			for (size_t k = 0; (w = tio_trace_warning(tv[i], k)); k++)
				if (PyErr_WarnFormat(TraceWarning, 1, "%s: %s", tio_trace_path(tv[i]), w))
					goto fail;
		}
	*tvp = tv;
	*tnp = tn;
	return 0;
fail:
	free_set(tv, tn);
	return -1;
}

static int parse_time(PyObject *o, bool *has, int64_t *v, const char *what)
{
	*has = false;
	if (!o || o == Py_None)
		return 0;
	if (PyFloat_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s: an int of ns from the clock origin", what);
		return -1;
	}
	long long x = PyLong_AsLongLong(o);
	if (x == -1 && PyErr_Occurred())
		return -1;
	*has = true;
	*v = x;
	return 0;
}

static int Trace_init(TraceObj *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = {"paths", "format", "begin", "end", "strict", "options", NULL};
	PyObject *paths, *format = Py_None, *begin = Py_None, *end = Py_None, *options = Py_None;
	int strict = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOpO", kwl, &paths, &format, &begin, &end, &strict,
					 &options))
		return -1;
	/* options: {key: str, int or bool} -> ((key, str), ...) */
	PyObject *opts = NULL;
	if (options != Py_None) {
		if (!PyDict_Check(options)) {
			PyErr_SetString(PyExc_TypeError, "options: a dict of reader options ({'ts2secs': 2800000000})");
			return -1;
		}
		if (!(opts = PyTuple_New(PyDict_Size(options))))
			return -1;
		PyObject *k, *v;
		Py_ssize_t pos = 0, i = 0;
		while (PyDict_Next(options, &pos, &k, &v)) {
			PyObject *sv;
			if (!PyUnicode_Check(k)) {
				Py_DECREF(opts);
				PyErr_SetString(PyExc_TypeError, "options: the keys are str");
				return -1;
			}
			if (PyBool_Check(v))
				sv = PyUnicode_FromString(v == Py_True ? "1" : "0");
			else if (PyLong_Check(v) || PyUnicode_Check(v))
				sv = PyObject_Str(v);
			else {
				Py_DECREF(opts);
				PyErr_Format(PyExc_TypeError, "options: %U: a str, int or bool", k);
				return -1;
			}
			PyObject *pair = sv ? PyTuple_Pack(2, k, sv) : NULL;
			Py_XDECREF(sv);
			if (!pair) {
				Py_DECREF(opts);
				return -1;
			}
			PyTuple_SET_ITEM(opts, i++, pair);
		}
	}
	Py_XSETREF(self->options, opts);
	PyObject *tp;
	if (PyUnicode_Check(paths) || PyBytes_Check(paths) || PyObject_HasAttrString(paths, "__fspath__"))
		tp = PyTuple_Pack(1, paths);
	else
		tp = PySequence_Tuple(paths);
	if (!tp)
		return -1;
	for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tp); i++) {
		PyObject *s = PyOS_FSPath(PyTuple_GET_ITEM(tp, i));
		if (!s) {
			Py_DECREF(tp);
			return -1;
		}
		if (PyBytes_Check(s)) {
			PyObject *u = PyUnicode_DecodeFSDefault(PyBytes_AS_STRING(s));
			Py_DECREF(s);
			s = u;
			if (!s) {
				Py_DECREF(tp);
				return -1;
			}
		}
		PyTuple_SetItem(tp, i, s);
	}
	if (format != Py_None && !PyUnicode_Check(format)) {
		Py_DECREF(tp);
		PyErr_SetString(PyExc_TypeError, "format: a reader name (str) or None");
		return -1;
	}
	Py_XSETREF(self->paths, tp);
	Py_INCREF(format);
	Py_XSETREF(self->format, format);
	if (parse_time(begin, &self->has_begin, &self->begin, "begin") || parse_time(end, &self->has_end, &self->end, "end"))
		return -1;
	self->strict = strict;
	if (self->tv) {
		free_set(self->tv, self->tn);
		self->tv = NULL;
		self->tn = 0;
	}
	return open_set(self, &self->tv, &self->tn, true);
}

static void Trace_dealloc(TraceObj *self)
{
	if (self->tv)
		free_set(self->tv, self->tn);
	Py_XDECREF(self->paths);
	Py_XDECREF(self->format);
	Py_XDECREF(self->options);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Trace_close(TraceObj *self, PyObject *unused)
{
	if (self->tv)
		free_set(self->tv, self->tn);
	self->tv = NULL;
	self->tn = 0;
	Py_RETURN_NONE;
}

static int need_open(TraceObj *self)
{
	if (!self->tv) {
		PyErr_SetString(UsageError, "the trace is closed");
		return -1;
	}
	return 0;
}

/* A new pass over the events: its own traces and mux. */
static PassObj *pass_new(TraceObj *t, bool messages)
{
	PassObj *p = PyObject_New(PassObj, &PassType);
	if (!p)
		return NULL;
	p->tv = NULL;
	p->tn = 0;
	p->mux = NULL;
	p->messages = messages;
	p->strict = t->strict;
	p->done = false;
	p->msg = NULL;
	p->gen = 0;
	p->cur = NULL;
	memset(&p->fcs, 0, sizeof p->fcs);
	memset(&p->classes, 0, sizeof p->classes);
	p->last_ec = NULL;
	p->last_ci = NULL;
	Py_INCREF(t);
	p->owner = t;
	p->stale = NULL;
	p->nstale = p->capstale = 0;
	if (open_set(t, &p->tv, &p->tn, false)) {
		Py_DECREF(p);
		return NULL;
	}
	int r = tio_mux_new(p->tv, p->tn, &p->mux);
	if (r) {
		Py_DECREF(p);
		return (PassObj *)raise_tio(r, "mux");
	}
	if (t->has_begin)
		tio_mux_set_begin(p->mux, t->begin);
	if (t->has_end)
		tio_mux_set_end(p->mux, t->end);
	return p;
}

static void Pass_dealloc(PassObj *p)
{
	/* an Event holds a strong reference to its pass: none is alive here */
	if (p->mux)
		tio_mux_free(p->mux);
	pmap_free(&p->classes, classinfo_free);
	pmap_free(&p->fcs, fcinfo_free);
	if (p->tv)
		free_set(p->tv, p->tn);
	free(p->stale);
	Py_XDECREF(p->owner);
	PyObject_Free(p);
}

static classinfo *class_of(PassObj *p, const tio_event_class *ec)
{
	if (ec == p->last_ec && p->last_ci)
		return p->last_ci;
	bool found;
	classinfo *ci = pmap_get(&p->classes, (uintptr_t)ec, &found);
	if (!found) {
		ci = calloc(1, sizeof *ci);
		if (!ci) {
			PyErr_NoMemory();
			return NULL;
		}
		ci->ec = ec;
		const char *n = tio_event_class_name(ec);
		ci->name = PyUnicode_FromString(n ? n : "");
		ci->refidx = PyDict_New();
		if (!ci->name || !ci->refidx || pmap_put(&p->classes, (uintptr_t)ec, ci)) {
			classinfo_free(ci);
			return NULL;
		}
		PyUnicode_InternInPlace(&ci->name);
	}
	p->last_ec = ec;
	p->last_ci = ci;
	return ci;
}

/* The scopes of the current message as Python values: a tuple of TIO_SCOPE_COUNT. */
static PyObject *scopes_now(PassObj *p)
{
	PyObject *t = PyTuple_New(TIO_SCOPE_COUNT);
	if (!t)
		return NULL;
	for (int s = 0; s < TIO_SCOPE_COUNT; s++) {
		PyObject *v = conv(p, tio_msg_scope(p->msg, s), 0);
		if (!v) {
			Py_DECREF(t);
			return NULL;
		}
		PyTuple_SET_ITEM(t, s, v);
	}
	return t;
}

static int ev_live(EventObj *ev);

static int materialize(EventObj *ev)
{
	if (!ev->pass)
		return 0;
	PassObj *p = ev->pass;
	if (ev->gen != p->gen)
		return ev_live(ev); /* read again (heal), or StaleEventError */
	PyObject *s = scopes_now(p);
	if (!s)
		return -1;
	ev->scopes = s;
	if (p->cur == ev)
		p->cur = NULL;
	ev->pass = NULL;
	ev->ci = NULL;
	Py_DECREF(p);
	return 0;
}

/* The previous message's Event, before the mux moves on. */
static int retire_current(PassObj *p)
{
	EventObj *ev = p->cur;
	if (!ev)
		return 0;
	p->cur = NULL;
	if (ev->pass != p || ev->gen != p->gen)
		return 0;
	/* more than the loop variable holds it: keep its values */
	if (Py_REFCNT(ev) > 1)
		return materialize(ev);
	/*
	 * One name holds it: a loop variable about to move on (the usual case:
	 * nothing to do, Event_dealloc takes it off the list at once), or a
	 * list(trace) and the like: if its values are asked for later, the
	 * trace is read again up to it (heal).
	 */
	if (p->nstale == p->capstale) {
		size_t nc = p->capstale ? p->capstale * 2 : 16;
		EventObj **ns = realloc(p->stale, nc * sizeof *ns);
		if (!ns) {
			PyErr_NoMemory();
			return -1;
		}
		p->stale = ns;
		p->capstale = nc;
	}
	ev->stale_idx = (Py_ssize_t)p->nstale;
	p->stale[p->nstale++] = ev;
	return 0;
}

static void unstale(EventObj *ev)
{
	PassObj *p = ev->pass;
	if (!p || ev->stale_idx < 0)
		return;
	p->stale[ev->stale_idx] = NULL;
	ev->stale_idx = -1;
	while (p->nstale && !p->stale[p->nstale - 1])
		p->nstale--;
}

/*
 * Read the trace again (a new pass, same options) and copy the values of
 * every Event on p->stale when its message comes (messages are numbered
 * alike: the mux gives the same order).  An Event whose message turns out
 * to be another event (the trace changed) stays stale.
 */
static int heal(PassObj *p)
{
	Py_INCREF(p); /* the last Event healed may hold the last reference */
	PassObj *q = pass_new(p->owner, false);
	if (!q) {
		Py_DECREF(p);
		return -1;
	}
	uint64_t gen = 0;
	int status = 0;
	for (size_t i = 0; i < p->nstale && status == 0; i++) {
		EventObj *ev = p->stale[i];
		if (!ev)
			continue;
		while (gen < ev->gen) {
			const tio_msg *m;
			int r = tio_mux_next(q->mux, &m);
			if (r == 0) {
				status = 1;
				break;
			}
			if (r < 0) {
				tio_error_clear();
				if (r == TIO_ERR_NOMEM) {
					status = 1;
					break;
				}
				continue;
			}
			gen++;
			q->msg = m;
		}
		if (status || gen != ev->gen)
			break;
		const tio_event_class *ec = tio_msg_event_class(q->msg);
		const char *n = ec ? tio_event_class_name(ec) : NULL;
		const char *want = PyUnicode_AsUTF8(ev->name);
		if (!want) {
			status = -1;
			break;
		}
		if (!ec || strcmp(n ? n : "", want))
			continue;
		PyObject *sc = scopes_now(q);
		if (!sc) {
			status = -1;
			break;
		}
		p->stale[i] = NULL;
		ev->stale_idx = -1;
		ev->scopes = sc;
		ev->pass = NULL;
		ev->ci = NULL;
		Py_DECREF(p);
	}
	while (p->nstale && !p->stale[p->nstale - 1])
		p->nstale--;
	Py_DECREF(q);
	Py_DECREF(p);
	return status < 0 ? -1 : 0;
}

static PyObject *make_event(PassObj *p, const tio_msg *m)
{
	classinfo *ci = class_of(p, tio_msg_event_class(m));
	if (!ci)
		return NULL;
	EventObj *ev = PyObject_New(EventObj, &EventType);
	if (!ev)
		return NULL;
	Py_INCREF(p);
	ev->pass = p;
	ev->gen = p->gen;
	ev->ci = ci;
	Py_INCREF(ci->name);
	ev->name = ci->name;
	ev->has_time = tio_msg_time_ns(m, &ev->time_ns);
	ev->has_cycles = tio_msg_cycles(m, &ev->cycles);
	uint64_t cpu;
	ev->cpu = tio_msg_cpu(m, &cpu) ? (int64_t)cpu : -1;
	const tio_stream *s = tio_msg_stream(m);
	ev->stream = s ? tio_stream_id(s) : 0;
	ev->scopes = NULL;
	ev->stale_idx = -1;
	p->cur = ev;
	return (PyObject *)ev;
}

static PyObject *make_discarded(PassObj *p, const tio_msg *m, int kind)
{
	uint64_t count = 0;
	bool has_range = false;
	int64_t b = 0, e = 0, t = 0;
	tio_msg_discarded(m, &count, &has_range, &b, &e);
	const tio_stream *s = tio_msg_stream(m);
	bool has_t = tio_msg_time_ns(m, &t);
	if (!DiscardedClass) {
		PyErr_SetString(Error, "traceio.Discarded is not set up");
		return NULL;
	}
	PyObject *cnt = count ? PyLong_FromUnsignedLongLong(count) : (Py_INCREF(Py_None), Py_None);
	PyObject *bo = has_range ? PyLong_FromLongLong(b) : (Py_INCREF(Py_None), Py_None);
	PyObject *eo = has_range ? PyLong_FromLongLong(e) : (Py_INCREF(Py_None), Py_None);
	PyObject *to = has_t ? PyLong_FromLongLong(t) : (Py_INCREF(Py_None), Py_None);
	PyObject *so = PyLong_FromUnsignedLongLong(s ? tio_stream_id(s) : 0);
	PyObject *r = NULL;
	if (cnt && bo && eo && to && so)
		r = PyObject_CallFunctionObjArgs(DiscardedClass, kind == TIO_MSG_KIND_DISCARDED_EVENTS ? str_events : str_packets,
						 cnt, bo, eo, to, so, NULL);
	Py_XDECREF(cnt);
	Py_XDECREF(bo);
	Py_XDECREF(eo);
	Py_XDECREF(to);
	Py_XDECREF(so);
	return r;
}

/* An error from tio_mux_next: a warning and go on, or (strict) an exception. */
static int mux_error(PassObj *p, int r)
{
	if (p->strict || r == TIO_ERR_NOMEM) {
		raise_tio(r, "read");
		return -1;
	}
	const char *msg = tio_error_message();
	int w = PyErr_WarnEx(DamagedDataWarning, msg && *msg ? msg : "damaged data skipped", 1);
	tio_error_clear();
	return w;
}

static int pass_advance(PassObj *p, const tio_msg **m)
{
	if (retire_current(p))
		return -1;
	p->gen++;
	p->msg = NULL;
	for (;;) {
		int r = tio_mux_next(p->mux, m);
		if (r > 0) {
			p->msg = *m;
			return 1;
		}
		if (r == 0) {
			p->done = true;
			return 0;
		}
		if (mux_error(p, r))
			return -1;
	}
}

static PyObject *Pass_next(PassObj *p)
{
	if (p->done)
		return NULL;
	for (;;) {
		const tio_msg *m;
		int r = pass_advance(p, &m);
		if (r <= 0)
			return NULL;
		int kind = tio_msg_kind(m);
		if (kind == TIO_MSG_KIND_EVENT)
			return make_event(p, m);
		if (p->messages && (kind == TIO_MSG_KIND_DISCARDED_EVENTS || kind == TIO_MSG_KIND_DISCARDED_PACKETS))
			return make_discarded(p, m, kind);
	}
}

static PyObject *Pass_iter(PyObject *self)
{
	Py_INCREF(self);
	return self;
}

static PyObject *Trace_iter(TraceObj *self)
{
	return (PyObject *)pass_new(self, false);
}

static PyObject *Trace_messages(TraceObj *self, PyObject *unused)
{
	return (PyObject *)pass_new(self, true);
}

/* ------------------------------------------------------------ Event */

static int ev_live(EventObj *ev)
{
	if (ev->pass && ev->gen != ev->pass->gen) {
		if (ev->stale_idx >= 0 && heal(ev->pass))
			return -1;
		if (ev->pass && ev->gen != ev->pass->gen) {
			PyErr_SetString(StaleEventError,
					"this Event's values are gone: the iteration moved on and reading the trace again "
					"did not find them (keep events in a list, or call ev.detach(), before the next one)");
			return -1;
		}
	}
	return 0;
}

static void Event_dealloc(EventObj *ev)
{
	if (ev->pass) {
		unstale(ev);
		if (ev->pass->cur == ev)
			ev->pass->cur = NULL;
		Py_DECREF(ev->pass);
	}
	Py_XDECREF(ev->name);
	Py_XDECREF(ev->scopes);
	PyObject_Free(ev);
}

static PyObject *ev_scope(EventObj *ev, int s)
{
	if (ev_live(ev))
		return NULL;
	if (!ev->pass) {
		PyObject *v = PyTuple_GET_ITEM(ev->scopes, s);
		Py_INCREF(v);
		return v;
	}
	return conv(ev->pass, tio_msg_scope(ev->pass->msg, s), 0);
}

static PyObject *Event_payload(EventObj *ev, void *c) { return ev_scope(ev, TIO_SCOPE_EVENT_PAYLOAD); }
static PyObject *Event_context(EventObj *ev, void *c) { return ev_scope(ev, TIO_SCOPE_SPECIFIC_CONTEXT); }
static PyObject *Event_common_context(EventObj *ev, void *c) { return ev_scope(ev, TIO_SCOPE_COMMON_CONTEXT); }
static PyObject *Event_header(EventObj *ev, void *c) { return ev_scope(ev, TIO_SCOPE_EVENT_HEADER); }
static PyObject *Event_packet(EventObj *ev, void *c) { return ev_scope(ev, TIO_SCOPE_PACKET_CONTEXT); }
static PyObject *Event_packet_header(EventObj *ev, void *c) { return ev_scope(ev, TIO_SCOPE_PACKET_HEADER); }

static PyObject *Event_name(EventObj *ev, void *c)
{
	Py_INCREF(ev->name);
	return ev->name;
}

static PyObject *Event_time_ns(EventObj *ev, void *c)
{
	if (!ev->has_time)
		Py_RETURN_NONE;
	return PyLong_FromLongLong(ev->time_ns);
}

static PyObject *Event_cycles(EventObj *ev, void *c)
{
	if (!ev->has_cycles)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLongLong(ev->cycles);
}

static PyObject *Event_cpu(EventObj *ev, void *c)
{
	if (ev->cpu < 0)
		Py_RETURN_NONE;
	return PyLong_FromLongLong(ev->cpu);
}

static PyObject *Event_stream(EventObj *ev, void *c)
{
	return PyLong_FromUnsignedLongLong(ev->stream);
}

static PyObject *Event_is_current(EventObj *ev, void *c)
{
	return PyBool_FromLong(ev->pass && ev->gen == ev->pass->gen);
}

/* Path lookup in a materialized event: scope prefix or the babeltrace search order, then names and [N]. */
static const struct {
	const char *name;
	int scope;
} scope_prefixes[] = {
	{"packet.header", TIO_SCOPE_PACKET_HEADER}, {"packet.context", TIO_SCOPE_PACKET_CONTEXT},
	{"event.header", TIO_SCOPE_EVENT_HEADER}, {"event.common_context", TIO_SCOPE_COMMON_CONTEXT},
	{"event.context", TIO_SCOPE_SPECIFIC_CONTEXT}, {"event.fields", TIO_SCOPE_EVENT_PAYLOAD},
	{"event.payload", TIO_SCOPE_EVENT_PAYLOAD}, {"header", TIO_SCOPE_EVENT_HEADER},
	{"common_context", TIO_SCOPE_COMMON_CONTEXT}, {"context", TIO_SCOPE_SPECIFIC_CONTEXT},
	{"specific_context", TIO_SCOPE_SPECIFIC_CONTEXT}, {"payload", TIO_SCOPE_EVENT_PAYLOAD},
	{"fields", TIO_SCOPE_EVENT_PAYLOAD}, {"packet_context", TIO_SCOPE_PACKET_CONTEXT},
	{"packet_header", TIO_SCOPE_PACKET_HEADER}, {"event_header", TIO_SCOPE_EVENT_HEADER},
};
static const int search_order[] = {TIO_SCOPE_EVENT_PAYLOAD, TIO_SCOPE_SPECIFIC_CONTEXT, TIO_SCOPE_COMMON_CONTEXT,
				   TIO_SCOPE_EVENT_HEADER, TIO_SCOPE_PACKET_CONTEXT, TIO_SCOPE_PACKET_HEADER};

static int walk_py(PyObject *v, const char *p, PyObject **out)
{
	Py_INCREF(v);
	while (*p) {
		if (*p == '[') {
			char *e;
			long long k = strtoll(p + 1, &e, 10);
			if (e == p + 1 || *e != ']' || !PyList_Check(v) || k < 0 || k >= PyList_GET_SIZE(v)) {
				Py_DECREF(v);
				return -1;
			}
			PyObject *n = PyList_GET_ITEM(v, k);
			Py_INCREF(n);
			Py_SETREF(v, n);
			p = e + 1;
			if (*p == '.')
				p++;
			continue;
		}
		size_t len = strcspn(p, ".[");
		if (!len || !PyDict_Check(v)) {
			Py_DECREF(v);
			return -1;
		}
		PyObject *key = PyUnicode_FromStringAndSize(p, (Py_ssize_t)len);
		if (!key) {
			Py_DECREF(v);
			return -2;
		}
		PyObject *n = PyDict_GetItemWithError(v, key);
		Py_DECREF(key);
		if (!n) {
			Py_DECREF(v);
			return PyErr_Occurred() ? -2 : -1;
		}
		Py_INCREF(n);
		Py_SETREF(v, n);
		p += len;
		if (*p == '.')
			p++;
	}
	*out = v;
	return 0;
}

static PyObject *lookup_materialized(EventObj *ev, PyObject *key, const char *path)
{
	int scope = -1;
	const char *rest = path;
	for (size_t i = 0; i < sizeof scope_prefixes / sizeof *scope_prefixes; i++) {
		size_t l = strlen(scope_prefixes[i].name);
		if (!strncmp(path, scope_prefixes[i].name, l) && (path[l] == '.' || path[l] == '[' || !path[l])) {
			scope = scope_prefixes[i].scope;
			rest = path + l + (path[l] == '.');
			break;
		}
	}
	for (size_t i = 0; i < 6; i++) {
		int s = scope >= 0 ? scope : search_order[i];
		PyObject *root = PyTuple_GET_ITEM(ev->scopes, s), *out;
		if (root != Py_None) {
			int r = walk_py(root, rest, &out);
			if (!r)
				return out;
			if (r == -2)
				return NULL;
		}
		if (scope >= 0)
			break;
	}
	PyErr_SetObject(PyExc_KeyError, key);
	return NULL;
}

static PyObject *Event_getitem(EventObj *ev, PyObject *key)
{
	if (!PyUnicode_Check(key)) {
		PyErr_SetString(PyExc_TypeError, "a field name or path (str)");
		return NULL;
	}
	if (ev_live(ev))
		return NULL;
	const char *path = PyUnicode_AsUTF8(key);
	if (!path)
		return NULL;
	if (!ev->pass)
		return lookup_materialized(ev, key, path);
	classinfo *ci = ev->ci;
	PyObject *idx = PyDict_GetItemWithError(ci->refidx, key);
	if (!idx) {
		if (PyErr_Occurred())
			return NULL;
		tio_field_ref ref;
		if (tio_field_ref_resolve(ci->ec, path, &ref)) {
			tio_error_clear();
			if (PyDict_SetItem(ci->refidx, key, Py_None))
				return NULL;
			PyErr_SetObject(PyExc_KeyError, key);
			return NULL;
		}
		if (ci->nrefs == ci->caprefs) {
			size_t nc = ci->caprefs ? ci->caprefs * 2 : 8;
			tio_field_ref *nr = realloc(ci->refs, nc * sizeof *nr);
			if (!nr)
				return PyErr_NoMemory();
			ci->refs = nr;
			ci->caprefs = nc;
		}
		ci->refs[ci->nrefs] = ref;
		idx = PyLong_FromSize_t(ci->nrefs++);
		if (!idx || PyDict_SetItem(ci->refidx, key, idx)) {
			Py_XDECREF(idx);
			return NULL;
		}
		Py_DECREF(idx);
	}
	if (idx == Py_None) {
		PyErr_SetObject(PyExc_KeyError, key);
		return NULL;
	}
	size_t i = PyLong_AsSize_t(idx);
	return conv(ev->pass, tio_msg_field(ev->pass->msg, &ci->refs[i]), 0);
}

static PyObject *Event_get(EventObj *ev, PyObject *args)
{
	PyObject *key, *dflt = Py_None;
	if (!PyArg_ParseTuple(args, "O|O", &key, &dflt))
		return NULL;
	PyObject *v = Event_getitem(ev, key);
	if (!v && PyErr_ExceptionMatches(PyExc_KeyError)) {
		PyErr_Clear();
		Py_INCREF(dflt);
		return dflt;
	}
	return v;
}

static int Event_contains(EventObj *ev, PyObject *key)
{
	PyObject *v = Event_getitem(ev, key);
	if (v) {
		Py_DECREF(v);
		return 1;
	}
	if (PyErr_ExceptionMatches(PyExc_KeyError)) {
		PyErr_Clear();
		return 0;
	}
	return -1;
}

/* Payload member names. */
static PyObject *Event_keys(EventObj *ev, PyObject *unused)
{
	if (ev_live(ev))
		return NULL;
	if (!ev->pass) {
		PyObject *pl = PyTuple_GET_ITEM(ev->scopes, TIO_SCOPE_EVENT_PAYLOAD);
		if (pl == Py_None)
			return PyTuple_New(0);
		PyObject *l = PyDict_Keys(pl);
		if (!l)
			return NULL;
		PyObject *t = PyList_AsTuple(l);
		Py_DECREF(l);
		return t;
	}
	classinfo *ci = ev->ci;
	if (!ci->keys) {
		const tio_field_class *fc = tio_event_class_scope(ci->ec, TIO_SCOPE_EVENT_PAYLOAD);
		uint32_t n = fc && tio_field_class_kind(fc) == TIO_FIELD_STRUCT ? tio_field_class_member_count(fc) : 0;
		PyObject *t = PyTuple_New(n);
		if (!t)
			return NULL;
		for (uint32_t i = 0; i < n; i++) {
			PyObject *s = member_name(tio_field_class_member_name(fc, i));
			if (!s) {
				Py_DECREF(t);
				return NULL;
			}
			PyTuple_SET_ITEM(t, i, s);
		}
		ci->keys = t;
	}
	Py_INCREF(ci->keys);
	return ci->keys;
}

static PyObject *Event_detach(EventObj *ev, PyObject *unused)
{
	if (materialize(ev))
		return NULL;
	Py_INCREF(ev);
	return (PyObject *)ev;
}

static PyObject *Event_to_dict(EventObj *ev, PyObject *unused)
{
	if (ev_live(ev))
		return NULL;
	PyObject *s = ev->pass ? scopes_now(ev->pass) : (Py_INCREF(ev->scopes), ev->scopes);
	if (!s)
		return NULL;
	PyObject *d = Py_BuildValue("{s:O,s:N,s:N,s:N,s:N}", "name", ev->name, "time_ns", Event_time_ns(ev, NULL),
				    "cycles", Event_cycles(ev, NULL), "cpu", Event_cpu(ev, NULL), "stream",
				    Event_stream(ev, NULL));
	if (d)
		for (int i = 0; i < TIO_SCOPE_COUNT; i++)
			if (PyDict_SetItem(d, scope_keys[i], PyTuple_GET_ITEM(s, i))) {
				Py_CLEAR(d);
				break;
			}
	Py_DECREF(s);
	return d;
}

static PyObject *Event_repr(EventObj *ev)
{
	if (ev->has_time)
		return PyUnicode_FromFormat("<traceio.Event %U at %lld ns>", ev->name, (long long)ev->time_ns);
	return PyUnicode_FromFormat("<traceio.Event %U>", ev->name);
}

static PyGetSetDef Event_getset[] = {
	{"name", (getter)Event_name, NULL, "event class name", NULL},
	{"time_ns", (getter)Event_time_ns, NULL, "ns from the clock origin (None: no clock)", NULL},
	{"cycles", (getter)Event_cycles, NULL, "default clock value in cycles (None: no clock)", NULL},
	{"cpu", (getter)Event_cpu, NULL, "CPU the event was recorded on (None: unknown)", NULL},
	{"stream", (getter)Event_stream, NULL, "stream id (CTF stream instance id; trace.dat: the CPU)", NULL},
	{"payload", (getter)Event_payload, NULL, "payload fields (dict)", NULL},
	{"context", (getter)Event_context, NULL, "specific context (dict or None)", NULL},
	{"common_context", (getter)Event_common_context, NULL, "common context (dict or None)", NULL},
	{"header", (getter)Event_header, NULL, "event header (dict or None)", NULL},
	{"packet", (getter)Event_packet, NULL, "packet context (dict or None)", NULL},
	{"packet_header", (getter)Event_packet_header, NULL, "packet header (dict or None)", NULL},
	{"is_current", (getter)Event_is_current, NULL, "True while its values are read from the trace", NULL},
	{NULL},
};

static PyMethodDef Event_methods[] = {
	{"get", (PyCFunction)Event_get, METH_VARARGS, "ev.get(path, default=None)"},
	{"keys", (PyCFunction)Event_keys, METH_NOARGS, "payload field names"},
	{"detach", (PyCFunction)Event_detach, METH_NOARGS, "copy the values now so that they outlive the iteration"},
	{"to_dict", (PyCFunction)Event_to_dict, METH_NOARGS, "everything as a dict"},
	{NULL},
};

static PyMappingMethods Event_mapping = {.mp_subscript = (binaryfunc)Event_getitem};
static PySequenceMethods Event_sequence = {.sq_contains = (objobjproc)Event_contains};

/* ------------------------------------------------------------ columns */

enum coltype { CT_I8, CT_U8, CT_I16, CT_U16, CT_I32, CT_U32, CT_I64, CT_U64, CT_F32, CT_F64, CT_BOOL, CT_OBJ };
static const int ct_npy[] = {NPY_INT8,  NPY_UINT8,  NPY_INT16,	NPY_UINT16,  NPY_INT32, NPY_UINT32,
			     NPY_INT64, NPY_UINT64, NPY_FLOAT32, NPY_FLOAT64, NPY_BOOL,  NPY_OBJECT};
static const size_t ct_size[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 1, sizeof(PyObject *)};
static bool ct_int(int t) { return t <= CT_U64; }
static bool ct_signed(int t) { return t <= CT_U64 && !(t & 1); }
static int ct_bits(int t) { return t <= CT_U64 ? 8 << (t / 2) : 0; }
static int ct_make_int(int bits, bool sgn)
{
	int k = bits <= 8 ? 0 : bits <= 16 ? 1 : bits <= 32 ? 2 : 3;
	return k * 2 + (sgn ? 0 : 1);
}

/* The column type of a field class (CT_OBJ for anything but numbers and booleans). */
static int ct_of(const tio_field_class *fc)
{
	switch (tio_field_class_kind(fc)) {
	case TIO_FIELD_INT:
	case TIO_FIELD_ENUM:
	case TIO_FIELD_BITMAP: {
		uint32_t bits = tio_field_class_int_size(fc);
		if (bits > 64)
			return CT_OBJ;
		return ct_make_int((int)bits, tio_field_class_int_signed(fc));
	}
	case TIO_FIELD_VARINT: return tio_field_class_int_signed(fc) ? CT_I64 : CT_U64;
	case TIO_FIELD_BOOL: return CT_BOOL;
	case TIO_FIELD_FLOAT:
		return tio_field_class_float_mant_digits(fc) <= 24 && tio_field_class_float_exp_digits(fc) <= 8 ? CT_F32 : CT_F64;
	default: return CT_OBJ;
	}
}

/* A type that holds both. */
static int ct_join(int a, int b)
{
	if (a == b)
		return a;
	if (a == CT_OBJ || b == CT_OBJ)
		return CT_OBJ;
	if (ct_int(a) && ct_int(b)) {
		bool sa = ct_signed(a), sb = ct_signed(b);
		int ba = ct_bits(a), bb = ct_bits(b);
		if (sa == sb)
			return ct_make_int(ba > bb ? ba : bb, sa);
		int bu = sa ? bb : ba, bs = sa ? ba : bb; /* unsigned needs one more bit when signed */
		int need = bu * 2 > bs ? bu * 2 : bs;
		return need > 64 ? CT_OBJ : ct_make_int(need, true);
	}
	if ((a == CT_F32 || a == CT_F64) && (b == CT_F32 || b == CT_F64))
		return CT_F64;
	if ((a == CT_F32 || a == CT_F64 || ct_int(a) || a == CT_BOOL) && (b == CT_F32 || b == CT_F64 || ct_int(b) || b == CT_BOOL))
		return CT_F64;
	return CT_OBJ;
}

typedef struct {
	PyObject *name; /* column name */
	PyObject *path; /* path to resolve (str) */
	int type;
	char *buf;
} column;

#define COL_TIME 0
#define COL_CPU 1
#define COL_FIRST 2

typedef struct group {
	PyObject *name; /* event class name */
	column *cols;
	size_t ncols, capcols;
	size_t rows, cap;
	int comm_col; /* -1 or the __comm column (lisa) */
	bool explicit_fields;
} group;

/* How one event class fills its group's columns. */
enum getter { G_NONE, G_INT, G_UINT, G_DOUBLE, G_BOOL, G_OBJ, G_STR };
typedef struct {
	group *g;
	tio_field_ref *refs; /* per column from COL_FIRST */
	uint8_t *get;	     /* enum getter per column from COL_FIRST */
	int pid_ref;	     /* index in refs of common_pid for __comm, -1 */
	tio_field_ref pid;
} plan;

typedef struct {
	PassObj *p;
	group **groups;
	size_t ngroups;
	pmap plans;  /* event class -> plan (NULL: not wanted) */
	PyObject *want; /* event class name (str) or NULL: every class */
	PyObject *fields; /* list of str or NULL */
	bool lisa;
	pmap comms;  /* (pid+1) -> str, for one trace */
	const tio_trace *comm_trace;
	struct strslot *strs; /* short strings already made (comm names...): one str object each */
} collector;

/* A direct-mapped cache of short UTF-8 strings: repeated values share one str. */
#define STRCACHE_SLOTS 4096
#define STRCACHE_MAX 47
struct strslot {
	PyObject *o;
	uint8_t len;
	char b[STRCACHE_MAX];
};

static PyObject *cached_str(collector *c, const char *s, size_t len)
{
	if (len > STRCACHE_MAX || !c->strs)
		return PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "replace");
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	struct strslot *e = &c->strs[h & (STRCACHE_SLOTS - 1)];
	if (e->o && e->len == len && !memcmp(e->b, s, len)) {
		Py_INCREF(e->o);
		return e->o;
	}
	PyObject *o = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "replace");
	if (!o)
		return NULL;
	Py_XSETREF(e->o, o);
	Py_INCREF(o);
	e->len = (uint8_t)len;
	memcpy(e->b, s, len);
	return o;
}

static void col_free_buf(column *c, size_t rows)
{
	if (c->type == CT_OBJ && c->buf)
		for (size_t i = 0; i < rows; i++)
			Py_XDECREF(((PyObject **)c->buf)[i]);
	free(c->buf);
	c->buf = NULL;
}

static void group_free(group *g)
{
	for (size_t i = 0; i < g->ncols; i++) {
		col_free_buf(&g->cols[i], g->rows);
		Py_XDECREF(g->cols[i].name);
		Py_XDECREF(g->cols[i].path);
	}
	free(g->cols);
	Py_XDECREF(g->name);
	free(g);
}

static void plan_free(void *v)
{
	plan *pl = v;
	free(pl->refs);
	free(pl->get);
	free(pl);
}

static int group_add_col(group *g, PyObject *name, PyObject *path, int type)
{
	if (g->ncols == g->capcols) {
		size_t nc = g->capcols ? g->capcols * 2 : 16;
		column *n = realloc(g->cols, nc * sizeof *n);
		if (!n) {
			PyErr_NoMemory();
			return -1;
		}
		g->cols = n;
		g->capcols = nc;
	}
	column *c = &g->cols[g->ncols];
	memset(c, 0, sizeof *c);
	c->type = type;
	c->buf = g->cap ? calloc(g->cap, ct_size[type]) : NULL;
	if (g->cap && !c->buf) {
		PyErr_NoMemory();
		return -1;
	}
	if (type == CT_OBJ) /* rows before this column existed: None */
		for (size_t i = 0; i < g->rows; i++) {
			Py_INCREF(Py_None);
			((PyObject **)c->buf)[i] = Py_None;
		}
	Py_INCREF(name);
	c->name = name;
	Py_XINCREF(path);
	c->path = path;
	g->ncols++;
	return 0;
}

static int group_has_col(group *g, PyObject *name)
{
	for (size_t i = 0; i < g->ncols; i++) {
		int r = PyUnicode_Compare(g->cols[i].name, name);
		if (r == 0)
			return 1;
		if (r == -1 && PyErr_Occurred())
			return -1;
	}
	return 0;
}

/* Scalar leaves of a scope's structure (structures walked into), as columns. */
static int add_leaves(group *g, const tio_field_class *fc, const char *scope_path, const char *prefix, int depth)
{
	if (!fc || tio_field_class_kind(fc) != TIO_FIELD_STRUCT || depth > 16)
		return 0;
	uint32_t n = tio_field_class_member_count(fc);
	for (uint32_t i = 0; i < n; i++) {
		const char *mn = tio_field_class_member_name(fc, i);
		const tio_field_class *mc = tio_field_class_member_class(fc, i);
		if (!mn || !mc)
			continue;
		char name[512];
		snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", mn);
		int k = tio_field_class_kind(mc);
		if (k == TIO_FIELD_STRUCT) {
			if (add_leaves(g, mc, scope_path, name, depth + 1))
				return -1;
			continue;
		}
		if (k == TIO_FIELD_ARRAY || k == TIO_FIELD_SEQUENCE) {
			if (!tio_field_class_is_text(mc))
				continue;
		} else if (k == TIO_FIELD_VARIANT || k == TIO_FIELD_OPTIONAL || k == TIO_FIELD_STATIC_BLOB ||
			   k == TIO_FIELD_DYNAMIC_BLOB) {
			continue;
		}
		PyObject *cn = PyUnicode_FromString(name);
		if (!cn)
			return -1;
		int has = group_has_col(g, cn);
		if (has) { /* a context member named as a payload one: qualified */
			Py_DECREF(cn);
			if (has < 0)
				return -1;
			char q[600];
			snprintf(q, sizeof q, "%s.%s", scope_path, name);
			cn = PyUnicode_FromString(q);
			if (!cn)
				return -1;
			if ((has = group_has_col(g, cn))) {
				Py_DECREF(cn);
				if (has < 0)
					return -1;
				continue;
			}
		}
		PyObject *path = PyUnicode_FromFormat("%s.%s", scope_path, name);
		int r = path ? group_add_col(g, cn, path, ct_of(mc)) : -1;
		Py_DECREF(cn);
		Py_XDECREF(path);
		if (r)
			return -1;
	}
	return 0;
}

/*
 * The class a path designates in an event class (as tio_field_ref_resolve
 * finds it) and whether it may be absent from an event (under an array,
 * variant or optional).  NULL when there is no such field.
 */
static const tio_field_class *path_class(const tio_event_class *ec, const char *path, bool *maybe_absent)
{
	int scope = -1;
	const char *rest = path;
	for (size_t i = 0; i < sizeof scope_prefixes / sizeof *scope_prefixes; i++) {
		size_t l = strlen(scope_prefixes[i].name);
		if (!strncmp(path, scope_prefixes[i].name, l) && (path[l] == '.' || path[l] == '[' || !path[l])) {
			scope = scope_prefixes[i].scope;
			rest = path + l + (path[l] == '.');
			break;
		}
	}
	const tio_stream_class *sc = tio_event_class_stream_class(ec);
	for (size_t i = 0; i < 6; i++) {
		int s = scope >= 0 ? scope : search_order[i];
		const tio_field_class *fc = s == TIO_SCOPE_EVENT_PAYLOAD || s == TIO_SCOPE_SPECIFIC_CONTEXT
						    ? tio_event_class_scope(ec, s)
						    : (sc ? tio_stream_class_scope(sc, s) : NULL);
		const char *p = rest;
		bool absent = false;
		while (fc && *p) {
			int k = tio_field_class_kind(fc);
			while (k == TIO_FIELD_OPTIONAL) {
				absent = true;
				fc = tio_field_class_element(fc);
				k = fc ? tio_field_class_kind(fc) : -1;
			}
			if (!fc)
				break;
			if (*p == '[') {
				char *e;
				strtoull(p + 1, &e, 10);
				if (e == p + 1 || *e != ']' || (k != TIO_FIELD_ARRAY && k != TIO_FIELD_SEQUENCE)) {
					fc = NULL;
					break;
				}
				absent = true;
				fc = tio_field_class_element(fc);
				p = e + 1;
				if (*p == '.')
					p++;
				continue;
			}
			size_t len = strcspn(p, ".[");
			if (k != TIO_FIELD_STRUCT && k != TIO_FIELD_VARIANT) {
				fc = NULL;
				break;
			}
			if (k == TIO_FIELD_VARIANT)
				absent = true;
			const tio_field_class *found = NULL;
			uint32_t n = tio_field_class_member_count(fc);
			for (int pass = 0; pass < 2 && !found; pass++)
				for (uint32_t m = 0; m < n && !found; m++) {
					const char *mn = tio_field_class_member_name(fc, m);
					if (!mn)
						continue;
					if (pass == 1 && mn[0] == '_')
						mn++;
					if (strlen(mn) == len && !memcmp(mn, p, len))
						found = tio_field_class_member_class(fc, m);
				}
			fc = found;
			p += len;
			if (*p == '.')
				p++;
		}
		if (fc) {
			*maybe_absent = absent;
			return fc;
		}
		if (scope >= 0)
			break;
	}
	return NULL;
}

static group *group_new(collector *c, const tio_event_class *ec, PyObject *name)
{
	group *g = calloc(1, sizeof *g);
	if (!g) {
		PyErr_NoMemory();
		return NULL;
	}
	Py_INCREF(name);
	g->name = name;
	g->comm_col = -1;
	group **ng = realloc(c->groups, (c->ngroups + 1) * sizeof *ng);
	if (!ng) {
		group_free(g);
		PyErr_NoMemory();
		return NULL;
	}
	c->groups = ng;
	c->groups[c->ngroups++] = g;
	PyObject *tn = PyUnicode_FromString("time_ns"), *cn = PyUnicode_FromString("cpu");
	int r = tn && cn ? group_add_col(g, tn, NULL, CT_I64) || group_add_col(g, cn, NULL, CT_I32) : -1;
	Py_XDECREF(tn);
	Py_XDECREF(cn);
	if (r)
		return NULL;
	if (c->fields) {
		g->explicit_fields = true;
		for (Py_ssize_t i = 0; i < PyList_GET_SIZE(c->fields); i++) {
			PyObject *f = PyList_GET_ITEM(c->fields, i);
			const char *path = PyUnicode_AsUTF8(f);
			if (!path)
				return NULL;
			bool absent = false;
			const tio_field_class *fc = path_class(ec, path, &absent);
			if (!fc) {
				tio_field_ref ref;
				if (tio_field_ref_resolve(ec, path, &ref)) {
					if (c->want) { /* columns(event, fields): the event must have them */
						raise_tio(TIO_ERR_USAGE, "no such field");
						return NULL;
					}
					tio_error_clear(); /* dataframes(fields): a class without it gets None */
				}
			}
			if (group_add_col(g, f, f, fc && !absent ? ct_of(fc) : CT_OBJ))
				return NULL;
		}
	} else {
		const tio_stream_class *sc = tio_event_class_stream_class(ec);
		if (add_leaves(g, tio_event_class_scope(ec, TIO_SCOPE_EVENT_PAYLOAD), "payload", "", 0) ||
		    add_leaves(g, tio_event_class_scope(ec, TIO_SCOPE_SPECIFIC_CONTEXT), "context", "", 0) ||
		    add_leaves(g, sc ? tio_stream_class_scope(sc, TIO_SCOPE_COMMON_CONTEXT) : NULL, "common_context", "", 0))
			return NULL;
	}
	if (c->lisa) {
		PyObject *n = PyUnicode_FromString("__comm");
		r = n ? group_add_col(g, n, NULL, CT_OBJ) : -1;
		Py_XDECREF(n);
		if (r)
			return NULL;
		g->comm_col = (int)g->ncols - 1;
	}
	return g;
}

/* Convert a column's buffer to another type (several classes of one name that differ). */
static int col_retype(column *col, size_t rows, size_t cap, int nt)
{
	if (col->type == nt)
		return 0;
	char *nb = cap ? calloc(cap, ct_size[nt]) : NULL;
	if (cap && !nb) {
		PyErr_NoMemory();
		return -1;
	}
	for (size_t i = 0; i < rows; i++) {
		int64_t iv = 0;
		uint64_t uv = 0;
		double dv = 0;
		int src = col->type; /* 0 int, 1 uint, 2 double */
		int cls;
		const char *b = col->buf;
		switch (src) {
		case CT_I8: iv = ((int8_t *)b)[i]; cls = 0; break;
		case CT_U8: uv = ((uint8_t *)b)[i]; cls = 1; break;
		case CT_I16: iv = ((int16_t *)b)[i]; cls = 0; break;
		case CT_U16: uv = ((uint16_t *)b)[i]; cls = 1; break;
		case CT_I32: iv = ((int32_t *)b)[i]; cls = 0; break;
		case CT_U32: uv = ((uint32_t *)b)[i]; cls = 1; break;
		case CT_I64: iv = ((int64_t *)b)[i]; cls = 0; break;
		case CT_U64: uv = ((uint64_t *)b)[i]; cls = 1; break;
		case CT_F32: dv = ((float *)b)[i]; cls = 2; break;
		case CT_F64: dv = ((double *)b)[i]; cls = 2; break;
		case CT_BOOL: uv = ((uint8_t *)b)[i]; cls = 1; break;
		default: cls = 3; break;
		}
		if (cls == 0) {
			uv = (uint64_t)iv;
			dv = (double)iv;
		} else if (cls == 1) {
			iv = (int64_t)uv;
			dv = (double)uv;
		}
		switch (nt) {
		case CT_I8: ((int8_t *)nb)[i] = (int8_t)iv; break;
		case CT_U8: ((uint8_t *)nb)[i] = (uint8_t)uv; break;
		case CT_I16: ((int16_t *)nb)[i] = (int16_t)iv; break;
		case CT_U16: ((uint16_t *)nb)[i] = (uint16_t)uv; break;
		case CT_I32: ((int32_t *)nb)[i] = (int32_t)iv; break;
		case CT_U32: ((uint32_t *)nb)[i] = (uint32_t)uv; break;
		case CT_I64: ((int64_t *)nb)[i] = iv; break;
		case CT_U64: ((uint64_t *)nb)[i] = uv; break;
		case CT_F32: ((float *)nb)[i] = (float)dv; break;
		case CT_F64: ((double *)nb)[i] = dv; break;
		case CT_BOOL: ((uint8_t *)nb)[i] = uv != 0; break;
		case CT_OBJ: {
			PyObject *o = cls == 0   ? PyLong_FromLongLong(iv)
				      : cls == 1 ? (src == CT_BOOL ? PyBool_FromLong((long)uv) : PyLong_FromUnsignedLongLong(uv))
						 : PyFloat_FromDouble(dv);
			if (!o) {
				for (size_t k = 0; k < i; k++)
					Py_DECREF(((PyObject **)nb)[k]);
				free(nb);
				return -1;
			}
			((PyObject **)nb)[i] = o;
			break;
		}
		}
	}
	free(col->buf);
	col->buf = nb;
	col->type = nt;
	return 0;
}

static plan *plan_new(collector *c, const tio_event_class *ec)
{
	const char *n = tio_event_class_name(ec);
	PyObject *name = PyUnicode_FromString(n ? n : "");
	if (!name)
		return NULL;
	if (c->want) {
		int eq = PyUnicode_Compare(name, c->want);
		if (eq) {
			Py_DECREF(name);
			return eq == -1 && PyErr_Occurred() ? NULL : (plan *)Py_None; /* Py_None: not wanted */
		}
	}
	group *g = NULL;
	for (size_t i = 0; i < c->ngroups; i++)
		if (!PyUnicode_Compare(c->groups[i]->name, name)) {
			g = c->groups[i];
			break;
		}
	if (!g && !(g = group_new(c, ec, name))) {
		Py_DECREF(name);
		return NULL;
	}
	Py_DECREF(name);
	plan *pl = calloc(1, sizeof *pl);
	if (!pl) {
		PyErr_NoMemory();
		return NULL;
	}
	pl->g = g;
	pl->pid_ref = -1;
	size_t nf = g->ncols;
	pl->refs = calloc(nf ? nf : 1, sizeof *pl->refs);
	pl->get = calloc(nf ? nf : 1, 1);
	if (!pl->refs || !pl->get) {
		plan_free(pl);
		PyErr_NoMemory();
		return NULL;
	}
	for (size_t i = COL_FIRST; i < nf; i++) {
		column *col = &g->cols[i];
		if (!col->path) { /* __comm */
			pl->get[i] = G_NONE;
			continue;
		}
		const char *path = PyUnicode_AsUTF8(col->path);
		if (!path) {
			plan_free(pl);
			return NULL;
		}
		bool absent = false;
		const tio_field_class *fc = path_class(ec, path, &absent);
		int want;
		if (tio_field_ref_resolve(ec, path, &pl->refs[i])) {
			tio_error_clear();
			pl->get[i] = G_NONE; /* this class lacks it: None */
			want = CT_OBJ;
		} else {
			want = fc && !absent ? ct_of(fc) : CT_OBJ;
			if (want == CT_OBJ)
				pl->get[i] = G_OBJ;
			else if (want == CT_F32 || want == CT_F64)
				pl->get[i] = G_DOUBLE;
			else if (want == CT_BOOL)
				pl->get[i] = G_BOOL;
			else
				pl->get[i] = tio_field_class_kind(fc) == TIO_FIELD_BOOL ? G_UINT
					     : tio_field_class_int_signed(fc) ? G_INT
									       : G_UINT;
		}
		int nt = ct_join(col->type, want);
		if (nt != col->type && col_retype(col, g->rows, g->cap, nt)) {
			plan_free(pl);
			return NULL;
		}
		if (nt == CT_OBJ && pl->get[i] != G_NONE) {
			int k = fc && !absent ? tio_field_class_kind(fc) : -1;
			bool utf8 = tio_field_class_string_encoding(fc) == TIO_FIELD_UTF8 ||
				    tio_field_class_string_encoding(fc) == TIO_FIELD_ENC_NONE;
			pl->get[i] = utf8 && (k == TIO_FIELD_STRING || k == TIO_FIELD_STATIC_STRING ||
					      k == TIO_FIELD_DYNAMIC_STRING || tio_field_class_is_text(fc))
					     ? G_STR
					     : G_OBJ;
		}
	}
	if (c->lisa && !tio_field_ref_resolve(ec, "common_pid", &pl->pid))
		pl->pid_ref = 1;
	tio_error_clear();
	return pl;
}

static int group_grow(group *g)
{
	size_t nc = g->cap ? g->cap * 2 : 4096;
	for (size_t i = 0; i < g->ncols; i++) {
		column *col = &g->cols[i];
		char *nb = realloc(col->buf, nc * ct_size[col->type]);
		if (!nb) {
			PyErr_NoMemory();
			return -1;
		}
		col->buf = nb;
	}
	g->cap = nc;
	return 0;
}

static PyObject *comm_of(collector *c, const tio_msg *m, int64_t pid)
{
	const tio_stream *s = tio_msg_stream(m);
	const tio_trace *t = s ? tio_stream_trace(s) : NULL;
	if (t != c->comm_trace) {
		pmap_free(&c->comms, (void (*)(void *))Py_DecRef);
		c->comm_trace = t;
	}
	bool found;
	PyObject *o = pmap_get(&c->comms, (uintptr_t)pid + 1, &found);
	if (!found) {
		const char *n = t ? tio_trace_comm(t, pid) : NULL;
		o = n ? PyUnicode_FromString(n) : (Py_INCREF(str_unknown_comm), str_unknown_comm);
		if (!o)
			return NULL;
		if (pmap_put(&c->comms, (uintptr_t)pid + 1, o)) {
			Py_DECREF(o);
			return NULL;
		}
	}
	Py_INCREF(o);
	return o;
}

/* One event into its group's columns. */
static int collect_row(collector *c, plan *pl, const tio_msg *m)
{
	group *g = pl->g;
	if (g->rows == g->cap && group_grow(g))
		return -1;
	size_t r = g->rows;
	int64_t t = 0;
	uint64_t cpu;
	tio_msg_time_ns(m, &t);
	((int64_t *)g->cols[COL_TIME].buf)[r] = t;
	((int32_t *)g->cols[COL_CPU].buf)[r] = tio_msg_cpu(m, &cpu) ? (int32_t)cpu : -1;
	for (size_t i = COL_FIRST; i < g->ncols; i++) {
		column *col = &g->cols[i];
		char *b = col->buf;
		int get = pl->get[i];
		if (get == G_NONE) {
			if (col->type == CT_OBJ) {
				PyObject *o = Py_None;
				if ((int)i == g->comm_col && pl->pid_ref >= 0) {
					int64_t pid;
					const tio_field *f = tio_msg_field(m, &pl->pid);
					if (f && !tio_field_int(f, &pid)) {
						if (!(o = comm_of(c, m, pid)))
							return -1;
					} else {
						Py_INCREF(o);
					}
				} else {
					Py_INCREF(o);
				}
				((PyObject **)b)[r] = o;
			} else {
				memset(b + r * ct_size[col->type], 0, ct_size[col->type]);
			}
			continue;
		}
		const tio_field *f = tio_msg_field(m, &pl->refs[i]);
		/* the common cases: a getter straight into the column's type */
		switch (get << 4 | col->type) {
#define FAST(G, CT, T, V, FN)                                  \
	case G << 4 | CT: {                                    \
		V v = 0;                                       \
		if (!f || FN(f, &v))                           \
			v = 0;                                 \
		((T *)b)[r] = (T)v;                            \
		continue;                                      \
	}
			FAST(G_INT, CT_I8, int8_t, int64_t, tio_field_int)
			FAST(G_INT, CT_I16, int16_t, int64_t, tio_field_int)
			FAST(G_INT, CT_I32, int32_t, int64_t, tio_field_int)
			FAST(G_INT, CT_I64, int64_t, int64_t, tio_field_int)
			FAST(G_UINT, CT_U8, uint8_t, uint64_t, tio_field_uint)
			FAST(G_UINT, CT_U16, uint16_t, uint64_t, tio_field_uint)
			FAST(G_UINT, CT_U32, uint32_t, uint64_t, tio_field_uint)
			FAST(G_UINT, CT_U64, uint64_t, uint64_t, tio_field_uint)
			FAST(G_DOUBLE, CT_F64, double, double, tio_field_double)
			FAST(G_DOUBLE, CT_F32, float, double, tio_field_double)
#undef FAST
		}
		if (get == G_STR) {
			const char *sp;
			size_t sl;
			PyObject *o = f && !tio_field_string(f, &sp, &sl) ? cached_str(c, sp, sl) : conv(c->p, f, 0);
			if (!o)
				return -1;
			((PyObject **)b)[r] = o;
			continue;
		}
		if (get == G_OBJ) {
			PyObject *o = conv(c->p, f, 0);
			if (!o)
				return -1;
			((PyObject **)b)[r] = o;
			continue;
		}
		int64_t iv = 0;
		uint64_t uv = 0;
		double dv = 0;
		bool bv = false;
		switch (get) {
		case G_INT:
			if (f && tio_field_int(f, &iv))
				iv = 0;
			uv = (uint64_t)iv;
			dv = (double)iv;
			break;
		case G_UINT:
			if (f && tio_field_uint(f, &uv))
				uv = 0;
			iv = (int64_t)uv;
			dv = (double)uv;
			break;
		case G_DOUBLE:
			if (f && tio_field_double(f, &dv))
				dv = 0;
			break;
		case G_BOOL:
			if (f && tio_field_bool(f, &bv))
				bv = false;
			uv = bv;
			iv = bv;
			dv = bv;
			break;
		}
		switch (col->type) {
		case CT_I8: ((int8_t *)b)[r] = (int8_t)iv; break;
		case CT_U8: ((uint8_t *)b)[r] = (uint8_t)uv; break;
		case CT_I16: ((int16_t *)b)[r] = (int16_t)iv; break;
		case CT_U16: ((uint16_t *)b)[r] = (uint16_t)uv; break;
		case CT_I32: ((int32_t *)b)[r] = (int32_t)iv; break;
		case CT_U32: ((uint32_t *)b)[r] = (uint32_t)uv; break;
		case CT_I64: ((int64_t *)b)[r] = iv; break;
		case CT_U64: ((uint64_t *)b)[r] = uv; break;
		case CT_F32: ((float *)b)[r] = (float)dv; break;
		case CT_F64: ((double *)b)[r] = dv; break;
		case CT_BOOL: ((uint8_t *)b)[r] = uv != 0; break;
		}
	}
	g->rows++;
	return 0;
}

/* numpy arrays over our buffers: a capsule owns each buffer (and, for objects, its references). */
typedef struct {
	char *buf;
	size_t n;
	bool obj;
} owned;

static void owned_free(PyObject *cap)
{
	owned *o = PyCapsule_GetPointer(cap, "traceio.column");
	if (!o)
		return;
	if (o->obj)
		for (size_t i = 0; i < o->n; i++)
			Py_XDECREF(((PyObject **)o->buf)[i]);
	free(o->buf);
	free(o);
}

static PyObject *col_array(column *col, size_t rows)
{
	size_t bytes = rows * ct_size[col->type];
	char *buf = col->buf;
	if (rows) {
		char *nb = realloc(buf, bytes); /* give back the room not used */
		if (nb)
			buf = nb;
	} else {
		free(buf);
		buf = malloc(ct_size[col->type]);
		if (!buf)
			return PyErr_NoMemory();
	}
	col->buf = NULL;
	owned *o = malloc(sizeof *o);
	if (!o) {
		free(buf);
		return PyErr_NoMemory();
	}
	o->buf = buf;
	o->n = rows;
	o->obj = col->type == CT_OBJ;
	PyObject *cap = PyCapsule_New(o, "traceio.column", owned_free);
	if (!cap) {
		free(buf);
		free(o);
		return NULL;
	}
	npy_intp dim = (npy_intp)rows;
	PyObject *a = PyArray_SimpleNewFromData(1, &dim, ct_npy[col->type], buf);
	if (!a) {
		Py_DECREF(cap);
		return NULL;
	}
	if (PyArray_SetBaseObject((PyArrayObject *)a, cap)) {
		Py_DECREF(a);
		return NULL;
	}
	return a;
}

static PyObject *group_dict(group *g)
{
	PyObject *d = PyDict_New();
	if (!d)
		return NULL;
	for (size_t i = 0; i < g->ncols; i++) {
		column *col = &g->cols[i];
		PyObject *a = col_array(col, g->rows);
		if (!a || PyDict_SetItem(d, col->name, a)) {
			Py_XDECREF(a);
			Py_DECREF(d);
			return NULL;
		}
		Py_DECREF(a);
	}
	g->rows = 0; /* the buffers now belong to the arrays */
	return d;
}

static int collect_plan(collector *c, const tio_event_class *ec, plan **out)
{
	bool found;
	plan *pl = pmap_get(&c->plans, (uintptr_t)ec, &found);
	if (!found) {
		pl = plan_new(c, ec);
		if (!pl)
			return -1;
		if ((PyObject *)pl == Py_None)
			pl = NULL;
		if (pmap_put(&c->plans, (uintptr_t)ec, pl)) {
			if (pl)
				plan_free(pl);
			return -1;
		}
	}
	*out = pl;
	return 0;
}

/*
 * _columns(event=None, fields=None, lisa=False): one pass; event given: its
 * columns (dict name -> array), else every class with events: dict class
 * name -> dict of columns.
 */
/* tio_mux_set_event_classes: only the requested class's events (trace.dat skips the others undecoded). */
static int cols_wants(void *arg, const tio_event_class *ec)
{
	const char *want = arg, *n = tio_event_class_name(ec);
	return n && !strcmp(n, want) ? TIO_SKIP_WANT : TIO_SKIP_NONE;
}

static PyObject *Trace_columns(TraceObj *self, PyObject *args, PyObject *kw)
{
	static char *kwl[] = {"event", "fields", "lisa", NULL};
	PyObject *event = Py_None, *fields = Py_None;
	int lisa = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOp", kwl, &event, &fields, &lisa))
		return NULL;
	if (event != Py_None && !PyUnicode_Check(event)) {
		PyErr_SetString(PyExc_TypeError, "event: an event class name (str)");
		return NULL;
	}
	collector c;
	memset(&c, 0, sizeof c);
	c.lisa = lisa;
	c.want = event == Py_None ? NULL : event;
	PyObject *result = NULL;
	if (fields != Py_None) {
		if (PyUnicode_Check(fields)) {
			PyErr_SetString(PyExc_TypeError, "fields: a list of field names or paths");
			return NULL;
		}
		c.fields = PySequence_List(fields);
		if (!c.fields)
			return NULL;
		for (Py_ssize_t i = 0; i < PyList_GET_SIZE(c.fields); i++)
			if (!PyUnicode_Check(PyList_GET_ITEM(c.fields, i))) {
				PyErr_SetString(PyExc_TypeError, "fields: names or paths (str)");
				Py_DECREF(c.fields);
				return NULL;
			}
	}
	c.strs = calloc(STRCACHE_SLOTS, sizeof *c.strs);
	if (!c.strs) {
		PyErr_NoMemory();
		goto out;
	}
	c.p = pass_new(self, false);
	if (!c.p)
		goto out;
	PassObj *p = c.p;
	/* the requested class must exist; its columns exist even with no event */
	if (c.want) {
		const char *w = PyUnicode_AsUTF8(c.want);
		if (!w)
			goto out;
		bool any = false;
		for (size_t i = 0; i < p->tn; i++)
			for (uint32_t s = 0; s < tio_trace_stream_class_count(p->tv[i]); s++) {
				const tio_stream_class *sc = tio_trace_stream_class(p->tv[i], s);
				for (uint32_t e = 0; e < tio_stream_class_event_class_count(sc); e++) {
					const tio_event_class *ec = tio_stream_class_event_class(sc, e);
					const char *n = tio_event_class_name(ec);
					if (n && !strcmp(n, w)) {
						plan *pl;
						if (collect_plan(&c, ec, &pl))
							goto out;
						any = true;
					}
				}
			}
		if (!any) {
			PyErr_Format(PyExc_KeyError, "%U: no event class of that name", c.want);
			goto out;
		}
		tio_mux_set_event_classes(p->mux, cols_wants, (void *)w);
	}
	const tio_event_class *last_ec = NULL;
	plan *last = NULL;
	for (;;) {
		const tio_msg *m;
		int r = tio_mux_next(p->mux, &m);
		if (r == 0)
			break;
		if (r < 0) {
			if (mux_error(p, r))
				goto out;
			continue;
		}
		const tio_event_class *ec = tio_msg_event_class(m);
		if (!ec)
			continue;
		if (ec != last_ec) {
			if (collect_plan(&c, ec, &last))
				goto out;
			last_ec = ec;
		}
		if (last && collect_row(&c, last, m))
			goto out;
	}
	if (c.want) {
		result = c.ngroups ? group_dict(c.groups[0]) : PyDict_New();
	} else {
		result = PyDict_New();
		for (size_t i = 0; result && i < c.ngroups; i++) {
			if (!c.groups[i]->rows)
				continue;
			PyObject *d = group_dict(c.groups[i]);
			if (!d || PyDict_SetItem(result, c.groups[i]->name, d))
				Py_CLEAR(result);
			Py_XDECREF(d);
		}
	}
out:
	pmap_free(&c.plans, plan_free); /* NULL values (classes not wanted) are skipped */
	for (size_t i = 0; i < c.ngroups; i++)
		group_free(c.groups[i]);
	free(c.groups);
	pmap_free(&c.comms, (void (*)(void *))Py_DecRef);
	if (c.strs)
		for (size_t i = 0; i < STRCACHE_SLOTS; i++)
			Py_XDECREF(c.strs[i].o);
	free(c.strs);
	Py_XDECREF(c.fields);
	Py_XDECREF(c.p);
	return result;
}

/* ------------------------------------------------------------ trace information */

static PyObject *clock_dict(const tio_clock *ck)
{
	int64_t s, cy;
	tio_clock_offset(ck, &s, &cy);
	const char *d = tio_clock_description(ck);
	return Py_BuildValue("{s:s,s:z,s:K,s:L,s:L,s:K,s:O}", "name", tio_clock_name(ck), "description", d, "frequency",
			     (unsigned long long)tio_clock_frequency(ck), "offset_seconds", (long long)s, "offset_cycles",
			     (long long)cy, "precision", (unsigned long long)tio_clock_precision(ck), "origin_is_unix_epoch",
			     tio_clock_origin_is_unix_epoch(ck) ? Py_True : Py_False);
}

/* info(): a list with one dict per opened trace. */
static PyObject *Trace_info(TraceObj *self, PyObject *unused)
{
	if (need_open(self))
		return NULL;
	PyObject *l = PyList_New(0);
	if (!l)
		return NULL;
	for (size_t i = 0; i < self->tn; i++) {
		tio_trace *t = self->tv[i];
		PyObject *env = PyDict_New(), *clocks = PyList_New(0), *classes = PyList_New(0), *warns = PyList_New(0);
		PyObject *d = NULL;
		if (!env || !clocks || !classes || !warns)
			goto fail;
		for (uint32_t k = 0; k < tio_trace_env_count(t); k++) {
			int64_t iv;
			const char *sv = NULL;
			PyObject *v = tio_trace_env_value(t, k, &iv, &sv) ? PyLong_FromLongLong(iv) : PyUnicode_FromString(sv ? sv : "");
			if (!v || PyDict_SetItemString(env, tio_trace_env_key(t, k), v)) {
				Py_XDECREF(v);
				goto fail;
			}
			Py_DECREF(v);
		}
		for (uint32_t k = 0; k < tio_trace_clock_count(t); k++) {
			PyObject *v = clock_dict(tio_trace_clock(t, k));
			if (!v || PyList_Append(clocks, v)) {
				Py_XDECREF(v);
				goto fail;
			}
			Py_DECREF(v);
		}
		for (uint32_t s = 0; s < tio_trace_stream_class_count(t); s++) {
			const tio_stream_class *sc = tio_trace_stream_class(t, s);
			for (uint32_t e = 0; e < tio_stream_class_event_class_count(sc); e++) {
				const tio_event_class *ec = tio_stream_class_event_class(sc, e);
				const char *n = tio_event_class_name(ec);
				int64_t ll;
				bool has_ll = tio_event_class_log_level(ec, &ll);
				PyObject *v = Py_BuildValue("{s:s,s:K,s:K,s:N,s:z}", "name", n ? n : "", "id",
							    (unsigned long long)tio_event_class_id(ec), "stream_class_id",
							    (unsigned long long)tio_stream_class_id(sc), "log_level",
							    has_ll ? PyLong_FromLongLong(ll) : (Py_INCREF(Py_None), Py_None),
							    "emf_uri", tio_event_class_emf_uri(ec));
				if (!v || PyList_Append(classes, v)) {
					Py_XDECREF(v);
					goto fail;
				}
				Py_DECREF(v);
			}
		}
		const char *w;
		for (size_t k = 0; (w = tio_trace_warning(t, k)); k++) {
			PyObject *v = PyUnicode_FromString(w);
			if (!v || PyList_Append(warns, v)) {
				Py_XDECREF(v);
				goto fail;
			}
			Py_DECREF(v);
		}
		d = Py_BuildValue("{s:s,s:s,s:O,s:O,s:O,s:O,s:I}", "path", tio_trace_path(t), "format", tio_trace_format(t),
				  "env", env, "clocks", clocks, "event_classes", classes, "warnings", warns, "streams",
				  (unsigned)tio_trace_stream_count(t));
		if (!d || PyList_Append(l, d))
			goto fail;
		Py_DECREF(d);
		Py_DECREF(env);
		Py_DECREF(clocks);
		Py_DECREF(classes);
		Py_DECREF(warns);
		continue;
	fail:
		Py_XDECREF(d);
		Py_XDECREF(env);
		Py_XDECREF(clocks);
		Py_XDECREF(classes);
		Py_XDECREF(warns);
		Py_DECREF(l);
		return NULL;
	}
	return l;
}

/* comm(pid): the command name trace-cmd shows for pid (trace.dat), None when unknown. */
static PyObject *Trace_comm(TraceObj *self, PyObject *arg)
{
	if (need_open(self))
		return NULL;
	long long pid = PyLong_AsLongLong(arg);
	if (pid == -1 && PyErr_Occurred())
		return NULL;
	for (size_t i = 0; i < self->tn; i++) {
		const char *n = tio_trace_comm(self->tv[i], pid);
		if (n)
			return PyUnicode_FromString(n);
	}
	Py_RETURN_NONE;
}

static PyObject *Trace_enter(PyObject *self, PyObject *unused)
{
	Py_INCREF(self);
	return self;
}

static PyObject *Trace_exit(TraceObj *self, PyObject *args)
{
	return Trace_close(self, NULL);
}

static PyObject *Trace_paths(TraceObj *self, void *c)
{
	Py_INCREF(self->paths);
	return self->paths;
}

static PyMethodDef Trace_methods[] = {
	{"messages", (PyCFunction)Trace_messages, METH_NOARGS, "iterate over events and Discarded records"},
	{"_columns", (PyCFunction)(void (*)(void))Trace_columns, METH_VARARGS | METH_KEYWORDS,
	 "_columns(event=None, fields=None, lisa=False)"},
	{"info", (PyCFunction)Trace_info, METH_NOARGS, "one dict per opened trace: path, format, env, clocks, event classes"},
	{"comm", (PyCFunction)Trace_comm, METH_O, "trace.dat: the command name of a pid (saved cmdlines)"},
	{"close", (PyCFunction)Trace_close, METH_NOARGS, "free the traces kept for class information"},
	{"__enter__", (PyCFunction)Trace_enter, METH_NOARGS, NULL},
	{"__exit__", (PyCFunction)Trace_exit, METH_VARARGS, NULL},
	{NULL},
};

static PyGetSetDef Trace_getset[] = {
	{"paths", (getter)Trace_paths, NULL, "the paths given to open()", NULL},
	{NULL},
};

static PyTypeObject TraceType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "traceio._traceio._Trace",
	.tp_basicsize = sizeof(TraceObj),
	.tp_dealloc = (destructor)Trace_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "_Trace(paths, format=None, begin=None, end=None, strict=False, options=None)",
	.tp_iter = (getiterfunc)Trace_iter,
	.tp_methods = Trace_methods,
	.tp_getset = Trace_getset,
	.tp_init = (initproc)Trace_init,
	.tp_new = PyType_GenericNew,
};

static PyTypeObject PassType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "traceio._traceio.Iterator",
	.tp_basicsize = sizeof(PassObj),
	.tp_dealloc = (destructor)Pass_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "an iteration over a trace's events",
	.tp_iter = Pass_iter,
	.tp_iternext = (iternextfunc)Pass_next,
};

static PyTypeObject EventType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "traceio.Event",
	.tp_basicsize = sizeof(EventObj),
	.tp_dealloc = (destructor)Event_dealloc,
	.tp_repr = (reprfunc)Event_repr,
	.tp_as_mapping = &Event_mapping,
	.tp_as_sequence = &Event_sequence,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "an event: ev.name, ev.time_ns, ev.cpu, ev['field'], ev.payload...",
	.tp_methods = Event_methods,
	.tp_getset = Event_getset,
};

/* ------------------------------------------------------------ module */

static PyObject *mod_setup(PyObject *m, PyObject *args)
{
	PyObject *e, *d;
	if (!PyArg_ParseTuple(args, "OO", &e, &d))
		return NULL;
	Py_INCREF(e);
	Py_XSETREF(EnumClass, e);
	Py_INCREF(d);
	Py_XSETREF(DiscardedClass, d);
	Py_RETURN_NONE;
}

static PyObject *mod_formats(PyObject *m, PyObject *unused)
{
	PyObject *l = PyList_New(0);
	const char *const *f = tio_formats();
	for (; l && f && *f; f++) {
		PyObject *s = PyUnicode_FromString(*f);
		if (!s || PyList_Append(l, s)) {
			Py_XDECREF(s);
			Py_CLEAR(l);
		}
		Py_XDECREF(s);
	}
	return l;
}

static PyMethodDef mod_methods[] = {
	{"_setup", mod_setup, METH_VARARGS, "_setup(Enum, Discarded)"},
	{"formats", mod_formats, METH_NOARGS, "names of the readers built in"},
	{NULL},
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_traceio", "traceio's C extension", -1, mod_methods};

static PyObject *new_exc(PyObject *m, const char *name, PyObject *bases, const char *doc)
{
	char full[64];
	snprintf(full, sizeof full, "traceio.%s", name);
	PyObject *e = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
	if (!e)
		return NULL;
	Py_INCREF(e);
	if (PyModule_AddObject(m, name, e)) {
		Py_DECREF(e);
		Py_DECREF(e);
		return NULL;
	}
	return e;
}

static PyObject *exc_with(PyObject *m, const char *name, PyObject *extra, const char *doc)
{
	PyObject *b = extra ? PyTuple_Pack(2, Error, extra) : PyTuple_Pack(1, Error);
	if (!b)
		return NULL;
	PyObject *e = new_exc(m, name, b, doc);
	Py_DECREF(b);
	return e;
}

PyMODINIT_FUNC PyInit__traceio(void)
{
	import_array();
	PyObject *m = PyModule_Create(&moddef);
	if (!m)
		return NULL;
	if (PyType_Ready(&TraceType) || PyType_Ready(&PassType) || PyType_Ready(&EventType))
		goto fail;
	Py_INCREF(&TraceType);
	PyModule_AddObject(m, "_Trace", (PyObject *)&TraceType);
	Py_INCREF(&EventType);
	PyModule_AddObject(m, "Event", (PyObject *)&EventType);
	Py_INCREF(&PassType);
	PyModule_AddObject(m, "Iterator", (PyObject *)&PassType);
	if (!(Error = new_exc(m, "Error", NULL, "a traceio error: args = (message, status)")))
		goto fail;
	if (!(NoMemoryError = exc_with(m, "NoMemoryError", PyExc_MemoryError, "out of memory")) ||
	    !(IOErrorT = exc_with(m, "IOError", PyExc_OSError, "a system call failed")) ||
	    !(FormatError = exc_with(m, "FormatError", NULL, "the input is not what its format says")) ||
	    !(UnsupportedError = exc_with(m, "UnsupportedError", NULL, "valid input that traceio does not read")) ||
	    !(UsageError = exc_with(m, "UsageError", PyExc_ValueError, "bad argument")) ||
	    !(LimitError = exc_with(m, "LimitError", NULL, "input beyond the safety limits")) ||
	    !(SkippedError = exc_with(m, "SkippedError", NULL, "data skipped after an error")))
		goto fail;
	{
		PyObject *b = PyTuple_Pack(1, UsageError);
		if (!b || !(StaleEventError = new_exc(m, "StaleEventError", b, "an Event read after the iteration moved on")))
			goto fail;
		Py_DECREF(b);
	}
	if (!(TraceWarning = new_exc(m, "TraceWarning", PyExc_UserWarning, "a problem traceio reads past")))
		goto fail;
	{
		PyObject *b = PyTuple_Pack(1, TraceWarning);
		if (!b || !(DamagedDataWarning = new_exc(m, "DamagedDataWarning", b,
							 "a damaged packet/page/block was skipped; reading goes on")))
			goto fail;
		Py_DECREF(b);
	}
	str_labels = PyUnicode_InternFromString("labels");
	str_events = PyUnicode_InternFromString("events");
	str_packets = PyUnicode_InternFromString("packets");
	str_unknown_comm = PyUnicode_InternFromString("<...>");
	static const char *const sk[TIO_SCOPE_COUNT] = {"packet_header", "packet", "header",
							"common_context", "context", "payload"};
	for (int i = 0; i < TIO_SCOPE_COUNT; i++)
		if (!(scope_keys[i] = PyUnicode_InternFromString(sk[i])))
			goto fail;
	PyModule_AddStringConstant(m, "LIBRARY_VERSION", TRACEIO_VERSION);
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
