/*
 * A lenient reader for the XML subset of the new LTT format (seed 001):
 * the seed writes attribute values without quotes (<event name=foo>),
 * leaves typerefs unclosed and closes <field> with </event>.  libxml2's
 * recovery mode guesses differently on each of these, so the rules are
 * ours and written down (docs/formats/ltt.md, "XML").
 */
#include <ctype.h>
#include <stdlib.h>

#include "ltt/lttnew.h"

#define LX_MAX_DEPTH 256

void lx_free(lx_node *n)
{
	if (!n)
		return;
	free(n->name);
	for (uint32_t i = 0; i < n->nattrs; i++) {
		free(n->attrs[i].name);
		free(n->attrs[i].value);
	}
	free(n->attrs);
	for (uint32_t i = 0; i < n->nkids; i++)
		lx_free(n->kids[i]);
	free(n->kids);
	free(n->text);
	free(n);
}

const char *lx_attr_get(const lx_node *n, const char *name)
{
	for (uint32_t i = 0; i < n->nattrs; i++)
		if (!strcmp(n->attrs[i].name, name))
			return n->attrs[i].value;
	return NULL;
}

typedef struct lx {
	const char *p, *end, *path;
	uint32_t line;
} lx;

static int lx_err(lx *x, const char *what)
{
	return tio_err_set(TIO_ERR_FORMAT, "%s:%u: %s", x->path, x->line, what);
}

static void adv(lx *x, size_t n)
{
	for (size_t i = 0; i < n && x->p < x->end; i++, x->p++)
		if (*x->p == '\n')
			x->line++;
}

static void skip_ws(lx *x)
{
	while (x->p < x->end && isspace((unsigned char)*x->p))
		adv(x, 1);
}

static bool starts(const lx *x, const char *s)
{
	size_t l = strlen(s);
	return (size_t)(x->end - x->p) >= l && !memcmp(x->p, s, l);
}

/* Append text with entities decoded. */
static int add_decoded(tio_buf *b, const char *s, size_t n)
{
	static const struct {
		const char *e;
		char c;
	} ents[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '&') {
			bool done = false;
			for (size_t k = 0; k < TIO_ARRAY_LEN(ents) && !done; k++) {
				size_t l = strlen(ents[k].e);
				if (n - i >= l && !memcmp(s + i, ents[k].e, l)) {
					if (tio_buf_addc(b, ents[k].c))
						return TIO_ERR_NOMEM;
					i += l - 1;
					done = true;
				}
			}
			if (done)
				continue;
		}
		if (tio_buf_addc(b, s[i]))
			return TIO_ERR_NOMEM;
	}
	return 0;
}

static bool is_name(char c) { return isalnum((unsigned char)c) || c == '_' || c == '-' || c == ':' || c == '.'; }

static bool is_void(const char *name)
{
	return !strcmp(name, "int") || !strcmp(name, "uint") || !strcmp(name, "float") ||
	       !strcmp(name, "string") || !strcmp(name, "typeref");
}

static int add_kid(lx_node *parent, lx_node *kid)
{
	if (tio_grow(&parent->kids, &parent->kids_cap, parent->nkids + 1, sizeof(*parent->kids)))
		return TIO_ERR_NOMEM;
	parent->kids[parent->nkids++] = kid;
	return 0;
}

static int add_text(lx_node *n, const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (!len)
		return 0;
	/* the run is appended (a copy of all the text per run made runs split
	 * by comments or <?> quadratic: 4.6 s for 1 MB) */
	tio_buf b = {0};
	if (add_decoded(&b, s, len)) {
		tio_buf_free(&b);
		return TIO_ERR_NOMEM;
	}
	size_t sep = n->text ? 1 : 0;
	if (tio_grow(&n->text, &n->text_cap, n->text_len + sep + b.len + 1, 1)) {
		tio_buf_free(&b);
		return TIO_ERR_NOMEM;
	}
	if (sep)
		n->text[n->text_len++] = ' ';
	memcpy(n->text + n->text_len, tio_buf_cstr(&b), b.len);
	n->text_len += b.len;
	n->text[n->text_len] = 0;
	tio_buf_free(&b);
	return 0;
}

/* A start tag after '<': name, attributes, '>' or '/>'. */
static int start_tag(lx *x, lx_node **out, bool *empty)
{
	const char *s = x->p;
	while (x->p < x->end && is_name(*x->p))
		adv(x, 1);
	if (x->p == s)
		return lx_err(x, "element name expected after '<'");
	lx_node *n = tio_calloc(1, sizeof(*n));
	if (!n)
		return TIO_ERR_NOMEM;
	n->line = x->line;
	n->name = tio_strndup(s, (size_t)(x->p - s));
	if (!n->name) {
		lx_free(n);
		return TIO_ERR_NOMEM;
	}
	for (;;) {
		skip_ws(x);
		if (x->p >= x->end) {
			lx_free(n);
			return lx_err(x, "unterminated start tag");
		}
		if (*x->p == '>') {
			adv(x, 1);
			*empty = false;
			break;
		}
		if (*x->p == '/' && x->p + 1 < x->end && x->p[1] == '>') {
			adv(x, 2);
			*empty = true;
			break;
		}
		const char *an = x->p;
		while (x->p < x->end && is_name(*x->p))
			adv(x, 1);
		if (x->p == an) {
			lx_free(n);
			return lx_err(x, "attribute name expected");
		}
		size_t anl = (size_t)(x->p - an);
		skip_ws(x);
		const char *v = NULL;
		size_t vl = 0;
		if (x->p < x->end && *x->p == '=') {
			adv(x, 1);
			skip_ws(x);
			if (x->p < x->end && (*x->p == '"' || *x->p == '\'')) {
				char q = *x->p;
				adv(x, 1);
				v = x->p;
				while (x->p < x->end && *x->p != q)
					adv(x, 1);
				if (x->p >= x->end) {
					lx_free(n);
					return lx_err(x, "unterminated attribute value");
				}
				vl = (size_t)(x->p - v);
				adv(x, 1);
			} else {
				/* unquoted: up to white space, '>' or "/>" */
				v = x->p;
				while (x->p < x->end && !isspace((unsigned char)*x->p) && *x->p != '>' &&
				       !(*x->p == '/' && x->p + 1 < x->end && x->p[1] == '>'))
					adv(x, 1);
				vl = (size_t)(x->p - v);
			}
		}
		lx_attr *na = tio_realloc(n->attrs, (n->nattrs + 1) * sizeof(*na));
		if (!na) {
			lx_free(n);
			return TIO_ERR_NOMEM;
		}
		n->attrs = na;
		tio_buf b = {0};
		int r = v ? add_decoded(&b, v, vl) : 0;
		na[n->nattrs].name = tio_strndup(an, anl);
		na[n->nattrs].value = tio_strdup(r ? "" : tio_buf_cstr(&b));
		tio_buf_free(&b);
		n->nattrs++;
		if (r || !na[n->nattrs - 1].name || !na[n->nattrs - 1].value) {
			lx_free(n);
			return TIO_ERR_NOMEM;
		}
	}
	*out = n;
	return 0;
}

int lx_parse(const char *text, size_t len, const char *path, lx_node **out)
{
	lx x = {text, text + len, path, 1};
	lx_node *root = tio_calloc(1, sizeof(*root));
	if (!root || !(root->name = tio_strdup("#root"))) {
		free(root);
		return TIO_ERR_NOMEM;
	}
	lx_node *stack[LX_MAX_DEPTH];
	int depth = 0;
	stack[0] = root;
	int r = 0;
	while (x.p < x.end && !r) {
		lx_node *cur = stack[depth];
		if (*x.p != '<') {
			const char *s = x.p;
			while (x.p < x.end && *x.p != '<')
				adv(&x, 1);
			r = add_text(cur, s, (size_t)(x.p - s));
			continue;
		}
		if (starts(&x, "<!--")) {
			while (x.p < x.end && !starts(&x, "-->"))
				adv(&x, 1);
			if (x.p >= x.end)
				r = lx_err(&x, "unterminated comment");
			adv(&x, 3);
			continue;
		}
		if (starts(&x, "<?") || starts(&x, "<!")) {
			while (x.p < x.end && *x.p != '>')
				adv(&x, 1);
			adv(&x, 1);
			continue;
		}
		if (starts(&x, "</")) {
			adv(&x, 2);
			const char *s = x.p;
			while (x.p < x.end && is_name(*x.p))
				adv(&x, 1);
			size_t l = (size_t)(x.p - s);
			while (x.p < x.end && *x.p != '>')
				adv(&x, 1);
			if (x.p >= x.end) {
				r = lx_err(&x, "unterminated end tag");
				break;
			}
			adv(&x, 1);
			/* close the nearest open element of that name, else the current one */
			int k = depth;
			while (k > 0 && !(strlen(stack[k]->name) == l && !memcmp(stack[k]->name, s, l)))
				k--;
			if (k == 0)
				k = depth;
			if (k > 0)
				depth = k - 1;
			continue;
		}
		adv(&x, 1);
		lx_node *n = NULL;
		bool empty = false;
		r = start_tag(&x, &n, &empty);
		if (r)
			break;
		/* a void element left open is closed by whatever comes next */
		while (depth > 0 && is_void(stack[depth]->name))
			depth--;
		/* descriptions hold text only: <description> inside one is the seed's
		 * typo for </description>, any other element closes it */
		if (depth > 0 && !strcmp(stack[depth]->name, "description")) {
			bool again = !strcmp(n->name, "description");
			while (depth > 0 && !strcmp(stack[depth]->name, "description"))
				depth--;
			if (again) {
				lx_free(n);
				continue;
			}
		}
		r = add_kid(stack[depth], n);
		if (r) {
			lx_free(n);
			break;
		}
		if (!empty && !is_void(n->name)) {
			if (depth + 1 >= LX_MAX_DEPTH) {
				r = lx_err(&x, "elements nested too deep");
				break;
			}
			stack[++depth] = n;
		}
	}
	if (r) {
		lx_free(root);
		return r;
	}
	*out = root;
	return 0;
}
