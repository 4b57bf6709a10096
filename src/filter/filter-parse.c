/*
 * The -F filter language of trace-cmd report (libtraceevent's filter
 * strings): a lexer and a recursive-descent parser into fx_filter.
 *
 *   FILTER  = EVENTS [ ':' EXPR ]
 *   EVENTS  = EVENT { ',' EVENT }        EVENT = SYSTEM '/' NAME | NAME
 *   EXPR    = UNARY { ('&&' | '||') UNARY }   same precedence, left to right
 *   UNARY   = '!' UNARY | '(' EXPR ')' | FIELD CMP VALUE | FIELD AOP NUMBER
 *   CMP     = '==' '!=' '<' '<=' '>' '>=' '=~' '!~' '~'
 *   AOP     = '&' '|' '^' '+' '-' '*' '/' '%' '<<' '>>'
 *   VALUE   = NUMBER | '-' NUMBER | "string" | 'string'
 *
 * SYSTEM and NAME are POSIX basic regular expressions matched whole and
 * case-insensitively, as libtraceevent does.  `&&` and `||` have the same
 * precedence and group from the left, as in libtraceevent (`a || b && c` is
 * `(a || b) && c`).  Errors name the 1-based column in the text.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter-int.h"

#define FX_MAX_DEPTH 200
#define FX_MAX_NODES 8192

enum tok_type { T_END = 0, T_IDENT, T_NUM, T_STR, T_OP, T_LP, T_RP };

typedef struct lexer {
	const char *text; /* the whole -F text (columns count from it) */
	const char *p;	  /* next character */
	const char *end;
	/* current token */
	int type;
	const char *tp;
	size_t tlen;
	uint8_t op; /* T_OP: an fx_op, or OP_AND/OP_OR/OP_NOT */
	char *sval; /* T_STR (owned) */
	size_t slen;
	uint64_t num;
	int depth;
} lexer;

enum { OP_AND = 100, OP_OR, OP_NOT };

/* The 1-based column of `at` in the text. */
static uint32_t col_of(const lexer *lx, const char *at) { return (uint32_t)(at - lx->text) + 1; }

/* Set the usage error "-F: <what> at <column>". */
static int fx_error(const lexer *lx, const char *at, const char *fmt, ...) TIO_PRINTF(3, 4);
static int fx_error(const lexer *lx, const char *at, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return tio_err_set(TIO_ERR_USAGE, "-F: %s at %u", what, col_of(lx, at));
}

/* Operators, longest first: text, length, code. */
static const struct {
	const char *s;
	uint8_t len, op;
} ops[] = {
    {"&&", 2, OP_AND}, {"||", 2, OP_OR}, {"==", 2, FO_EQ},  {"!=", 2, FO_NE},  {"<=", 2, FO_LE},
    {">=", 2, FO_GE},  {"=~", 2, FO_RE}, {"!~", 2, FO_NRE}, {"<<", 2, FO_SHL}, {">>", 2, FO_SHR},
    {"!", 1, OP_NOT},  {"<", 1, FO_LT},	 {">", 1, FO_GT},   {"~", 1, FO_GLOB}, {"&", 1, FO_BAND},
    {"|", 1, FO_BOR},  {"^", 1, FO_XOR}, {"+", 1, FO_ADD},  {"-", 1, FO_SUB},  {"*", 1, FO_MUL},
    {"/", 1, FO_DIV},  {"%", 1, FO_MOD},
};

static bool is_op_char(int c) { return c && strchr("=!<>&|^+-*/%~", c); }

static bool is_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '[' || c == ']';
}

/* Read the next token into lx.  TIO_ERR_USAGE on a bad character, number or string. */
static int lex_next(lexer *lx)
{
	free(lx->sval);
	lx->sval = NULL;
	while (lx->p < lx->end && isspace((unsigned char)*lx->p))
		lx->p++;
	const char *s = lx->p;
	lx->tp = s;
	if (s >= lx->end) {
		lx->type = T_END;
		lx->tlen = 0;
		return 0;
	}
	unsigned char c = (unsigned char)*s;
	if (c == '(' || c == ')') {
		lx->type = c == '(' ? T_LP : T_RP;
		lx->tlen = 1;
		lx->p++;
		return 0;
	}
	if (isdigit(c)) {
		const char *e = s;
		while (e < lx->end && isalnum((unsigned char)*e))
			e++;
		char buf[72];
		size_t l = (size_t)(e - s);
		if (l >= sizeof(buf))
			return fx_error(lx, s, "number too long");
		memcpy(buf, s, l);
		buf[l] = 0;
		char *q;
		errno = 0;
		unsigned long long v = strtoull(buf, &q, 0);
		if (*q || errno)
			return fx_error(lx, s, "bad number '%s'", buf);
		lx->type = T_NUM;
		lx->num = v;
		lx->tlen = l;
		lx->p = e;
		return 0;
	}
	if (isalpha(c) || c == '_') {
		const char *e = s;
		while (e < lx->end && is_ident_char((unsigned char)*e))
			e++;
		lx->type = T_IDENT;
		lx->tlen = (size_t)(e - s);
		lx->p = e;
		return 0;
	}
	if (c == '"' || c == '\'') {
		/* a backslash keeps the quote or a backslash after it; other escapes stay (regexes)
		 */
		const char *e = s + 1;
		char *out = tio_malloc((size_t)(lx->end - s) + 1);
		if (!out)
			return TIO_ERR_NOMEM;
		size_t n = 0;
		while (e < lx->end && *e != (char)c) {
			if (*e == '\\' && e + 1 < lx->end && (e[1] == (char)c || e[1] == '\\'))
				e++;
			out[n++] = *e++;
		}
		if (e >= lx->end) {
			free(out);
			return fx_error(lx, s, "unterminated string");
		}
		out[n] = 0;
		lx->type = T_STR;
		lx->sval = out;
		lx->slen = n;
		lx->tlen = (size_t)(e + 1 - s);
		lx->p = e + 1;
		return 0;
	}
	if (is_op_char(c)) {
		for (size_t i = 0; i < TIO_ARRAY_LEN(ops); i++) {
			if ((size_t)(lx->end - s) >= ops[i].len &&
			    !memcmp(s, ops[i].s, ops[i].len)) {
				lx->type = T_OP;
				lx->op = ops[i].op;
				lx->tlen = ops[i].len;
				lx->p = s + ops[i].len;
				return 0;
			}
		}
		/* '=' alone, or followed by something that makes no operator ('=>') */
		size_t l = 1;
		while (l < 3 && s + l < lx->end && is_op_char((unsigned char)s[l]))
			l++;
		return fx_error(lx, s, "unknown operator '%.*s'", (int)l, s);
	}
	if (c < 0x20 || c >= 0x7f)
		return fx_error(lx, s, "unexpected byte 0x%02x", c);
	return fx_error(lx, s, "unexpected character '%c'", c);
}

/* A short description of the current token for messages. */
static const char *tok_desc(const lexer *lx, char *buf, size_t n)
{
	if (lx->type == T_END)
		return "end of filter";
	size_t l = lx->tlen > 40 ? 40 : lx->tlen;
	snprintf(buf, n, "'%.*s'", (int)l, lx->tp);
	return buf;
}

/* Append a node; its index or -1 (out of memory). */
static int32_t add_node(fx_filter *f, const fx_node *x)
{
	if (f->nnodes >= INT32_MAX - 1 ||
	    tio_grow(&f->nodes, &f->cap, f->nnodes + 1, sizeof(*f->nodes)))
		return -1;
	f->nodes[f->nnodes] = *x;
	return (int32_t)f->nnodes++;
}

static int parse_expr(lexer *lx, fx_filter *f, int32_t *out);

/* A comparison or arithmetic test on a field: FIELD op VALUE. */
static int parse_cond(lexer *lx, fx_filter *f, int32_t *out)
{
	char buf[64];
	fx_node x = {.kind = FX_CMP, .a = -1, .b = -1, .col = col_of(lx, lx->tp)};
	const char *fieldp = lx->tp;
	x.field = tio_strndup(lx->tp, lx->tlen);
	if (!x.field)
		return TIO_ERR_NOMEM;
	int r = lex_next(lx);
	if (r)
		goto fail;
	if (lx->type != T_OP || lx->op >= OP_AND) {
		r = fx_error(lx, lx->tp, "expected an operator after '%s', found %s", x.field,
			     tok_desc(lx, buf, sizeof(buf)));
		goto fail;
	}
	x.op = lx->op;
	const char *opp = lx->tp;
	if (x.op >= FO_ADD)
		x.kind = FX_ARITH;
	r = lex_next(lx);
	if (r)
		goto fail;
	bool neg = false;
	if (lx->type == T_OP && lx->op == FO_SUB) { /* a negative number (an extension) */
		neg = true;
		if ((r = lex_next(lx)))
			goto fail;
		if (lx->type != T_NUM) {
			r = fx_error(lx, lx->tp, "expected a number after '-'");
			goto fail;
		}
	}
	if (lx->type == T_NUM) {
		x.vkind = FV_NUM;
		x.num = neg ? (uint64_t)0 - lx->num : lx->num;
	} else if (lx->type == T_STR) {
		/* libtraceevent: a one-character 'c' is that character's number, except for regexes
		 */
		if (*lx->tp == '\'' && lx->slen == 1 && x.op != FO_RE && x.op != FO_NRE &&
		    x.op != FO_GLOB) {
			x.vkind = FV_NUM;
			x.num = (unsigned char)lx->sval[0];
		} else {
			x.vkind = FV_STR;
			x.str = lx->sval;
			x.slen = lx->slen;
			lx->sval = NULL;
		}
	} else if (lx->type == T_IDENT) {
		r = fx_error(lx, lx->tp,
			     "comparing field '%s' with field '%.*s' is not supported "
			     "(nor by trace-cmd)",
			     x.field, (int)lx->tlen, lx->tp);
		goto fail;
	} else {
		r = fx_error(lx, lx->tp, "expected a number or a string, found %s",
			     tok_desc(lx, buf, sizeof(buf)));
		goto fail;
	}
	if (x.kind == FX_ARITH && x.vkind != FV_NUM) {
		r = fx_error(lx, opp, "arithmetic on a string");
		goto fail;
	}
	if (x.kind == FX_CMP && x.vkind == FV_STR && x.op != FO_EQ && x.op != FO_NE &&
	    x.op != FO_RE && x.op != FO_NRE && x.op != FO_GLOB) {
		r = fx_error(lx, opp, "illegal comparison for a string (==, !=, =~, !~, ~)");
		goto fail;
	}
	if (x.kind == FX_CMP && x.vkind == FV_NUM &&
	    (x.op == FO_RE || x.op == FO_NRE || x.op == FO_GLOB)) {
		r = fx_error(lx, opp, "'%s' needs a string",
			     x.op == FO_GLOB ? "~"
			     : x.op == FO_RE ? "=~"
					     : "!~");
		goto fail;
	}
	if (x.op == FO_RE || x.op == FO_NRE) {
		x.re = tio_malloc(sizeof(*x.re));
		if (!x.re) {
			r = TIO_ERR_NOMEM;
			goto fail;
		}
		if (regcomp(x.re, x.str, REG_ICASE | REG_NOSUB)) {
			free(x.re);
			x.re = NULL;
			r = fx_error(lx, opp, "bad regular expression \"%s\"", x.str);
			goto fail;
		}
	}
	(void)fieldp;
	if ((r = lex_next(lx)))
		goto fail;
	*out = add_node(f, &x);
	if (*out < 0) {
		r = tio_err_oom();
		goto fail;
	}
	return 0;
fail:
	if (x.re) {
		regfree(x.re);
		free(x.re);
	}
	free(x.field);
	free(x.str);
	return r;
}

/* UNARY = '!' UNARY | '(' EXPR ')' | FIELD op VALUE */
static int parse_unary(lexer *lx, fx_filter *f, int32_t *out)
{
	char buf[64];
	if (++lx->depth > FX_MAX_DEPTH)
		return fx_error(lx, lx->tp, "expression nested too deeply");
	if (f->nnodes >= FX_MAX_NODES) /* evaluation recurses along && and || chains */
		return fx_error(lx, lx->tp, "filter too long (more than %d tests)", FX_MAX_NODES / 2);
	int r;
	if (lx->type == T_OP && lx->op == OP_NOT) {
		int32_t a;
		if ((r = lex_next(lx)) || (r = parse_unary(lx, f, &a)))
			return r;
		fx_node x = {.kind = FX_NOT, .a = a, .b = -1};
		if ((*out = add_node(f, &x)) < 0)
			return tio_err_oom();
	} else if (lx->type == T_LP) {
		const char *lp = lx->tp;
		if ((r = lex_next(lx)) || (r = parse_expr(lx, f, out)))
			return r;
		if (lx->type != T_RP)
			return fx_error(lx, lx->tp, "expected ')' for the '(' at %u, found %s",
					col_of(lx, lp), tok_desc(lx, buf, sizeof(buf)));
		if ((r = lex_next(lx)))
			return r;
	} else if (lx->type == T_IDENT) {
		if ((r = parse_cond(lx, f, out)))
			return r;
	} else {
		return fx_error(lx, lx->tp, "expected a field, '!' or '(', found %s",
				tok_desc(lx, buf, sizeof(buf)));
	}
	lx->depth--;
	return 0;
}

/* EXPR = UNARY { ('&&' | '||') UNARY }, left to right. */
static int parse_expr(lexer *lx, fx_filter *f, int32_t *out)
{
	int32_t a;
	int r = parse_unary(lx, f, &a);
	if (r)
		return r;
	while (lx->type == T_OP && (lx->op == OP_AND || lx->op == OP_OR)) {
		uint8_t k = lx->op == OP_AND ? FX_AND : FX_OR;
		int32_t b;
		if ((r = lex_next(lx)) || (r = parse_unary(lx, f, &b)))
			return r;
		fx_node x = {.kind = k, .a = a, .b = b};
		if ((a = add_node(f, &x)) < 0)
			return tio_err_oom();
	}
	*out = a;
	return 0;
}

/* Compile one event-name regex anchored at both ends, case-insensitive. */
static int event_regex(lexer *lx, const char *at, const char *s, size_t n, regex_t *re)
{
	char *pat = tio_malloc(n + 3);
	if (!pat)
		return TIO_ERR_NOMEM;
	pat[0] = '^';
	memcpy(pat + 1, s, n);
	pat[n + 1] = '$';
	pat[n + 2] = 0;
	int e = regcomp(re, pat, REG_ICASE | REG_NOSUB);
	free(pat);
	if (e)
		return fx_error(lx, at, "bad event name regular expression '%.*s'", (int)n, s);
	return 0;
}

/* Trim blanks around [*s, *s + *n). */
static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s))
		(*s)++, (*n)--;
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/*
 * The event list [s, e): comma-separated SYSTEM/NAME or NAME.  An element
 * without a '/' matches the system or the name of an event class.
 */
static int parse_events(lexer *lx, const char *s, const char *e, fx_filter *f)
{
	size_t cap = 0;
	while (s <= e) {
		const char *c = memchr(s, ',', (size_t)(e - s));
		if (!c)
			c = e;
		const char *es = s;
		size_t n = (size_t)(c - s);
		trim(&es, &n);
		if (!n)
			return fx_error(lx, es, "expected an event name");
		if (tio_grow(&f->ev, &cap, f->nev + 1, sizeof(*f->ev)))
			return TIO_ERR_NOMEM;
		fx_event *ev = &f->ev[f->nev];
		memset(ev, 0, sizeof(*ev));
		ev->col = col_of(lx, es);
		ev->text = tio_strndup(es, n);
		if (!ev->text)
			return TIO_ERR_NOMEM;
		const char *slash = memchr(es, '/', n);
		int r;
		if (slash) {
			const char *ns = slash + 1, *ss = es;
			size_t nn = (size_t)(es + n - ns), sn = (size_t)(slash - es);
			trim(&ss, &sn);
			trim(&ns, &nn);
			if (!sn || !nn)
				return free(ev->text), fx_error(lx, es, "expected SYSTEM/EVENT");
			const char *slash2 = memchr(ns, '/', nn);
			if (slash2) /* libtraceevent ignores what follows a second '/' */
				nn = (size_t)(slash2 - ns), trim(&ns, &nn);
			if ((r = event_regex(lx, ss, ss, sn, &ev->sys))) {
				free(ev->text);
				return r;
			}
			if ((r = event_regex(lx, ns, ns, nn, &ev->name))) {
				regfree(&ev->sys);
				free(ev->text);
				return r;
			}
			ev->has_sys = true;
		} else if ((r = event_regex(lx, es, es, n, &ev->name))) {
			free(ev->text);
			return r;
		}
		f->nev++;
		s = c + 1;
	}
	return 0;
}

int fx_parse(const char *text, fx_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->root = -1;
	lexer lx = {.text = text, .p = text, .end = text + strlen(text)};
	int r;
	if (!(f->text = tio_strdup(text)))
		return TIO_ERR_NOMEM;
	/*
	 * Where the event list ends: at the first ':', as in libtraceevent,
	 * except that a ':' followed at once by a name (or a regex of one) and
	 * another ':', a ',' or the end belongs to an LTTng "provider:event"
	 * name, so that those can be written as they are ("corpus:ints: v > 3",
	 * "corpus:ints", "corpus:.*").
	 */
	const char *colon = NULL;
	for (const char *q = text;;) {
		const char *c = strchr(q, ':');
		if (!c)
			break;
		const char *w = c + 1;
		while (isalnum((unsigned char)*w) || (*w && strchr("_.*?[]^$", *w)))
			w++;
		if (w > c + 1 && (*w == ':' || *w == ',' || !*w)) {
			q = w;
			continue;
		}
		colon = c;
		break;
	}
	const char *bad = colon ? NULL : strpbrk(text, "=<>&|!\"'");
	if (bad)
		return fx_error(&lx, bad, "expected 'EVENTS:' before the expression");
	const char *ev_end = colon ? colon : lx.end;
	if ((r = parse_events(&lx, text, ev_end, f)))
		return r;
	if (!colon)
		return 0;
	lx.p = colon + 1;
	if ((r = lex_next(&lx)))
		return r;
	if (lx.type == T_END)
		return fx_error(&lx, lx.tp, "empty filter after ':'");
	if ((r = parse_expr(&lx, f, &f->root)))
		goto out;
	if (lx.type != T_END) {
		char buf[64];
		r = fx_error(&lx, lx.tp, "expected '&&', '||' or the end, found %s%s",
			     tok_desc(&lx, buf, sizeof(buf)),
			     lx.type == T_OP && lx.op <= FO_GLOB
				 ? " (compare a field, not an expression)"
				 : "");
	}
out:
	free(lx.sval);
	return r;
}

void fx_filter_fini(fx_filter *f)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		free(f->nodes[i].field);
		free(f->nodes[i].str);
		if (f->nodes[i].re) {
			regfree(f->nodes[i].re);
			free(f->nodes[i].re);
		}
	}
	free(f->nodes);
	for (size_t i = 0; i < f->nev; i++) {
		regfree(&f->ev[i].name);
		if (f->ev[i].has_sys)
			regfree(&f->ev[i].sys);
		free(f->ev[i].text);
	}
	free(f->ev);
	free(f->text);
	memset(f, 0, sizeof(*f));
}

static const char *const op_text[] = {
    [FO_EQ] = "==",  [FO_NE] = "!=",  [FO_LT] = "<",   [FO_LE] = "<=",	[FO_GT] = ">",
    [FO_GE] = ">=",  [FO_RE] = "=~",  [FO_NRE] = "!~", [FO_GLOB] = "~",
    [FO_ADD] = "+",  [FO_SUB] = "-",  [FO_MUL] = "*",  [FO_DIV] = "/",	[FO_MOD] = "%",
    [FO_SHL] = "<<", [FO_SHR] = ">>", [FO_BAND] = "&", [FO_BOR] = "|",	[FO_XOR] = "^",
};

/* Print node i fully parenthesized. */
static int dump_node(const fx_filter *f, int32_t i, tio_buf *b)
{
	const fx_node *x = &f->nodes[i];
	switch (x->kind) {
	case FX_AND:
	case FX_OR:
		tio_buf_addc(b, '(');
		dump_node(f, x->a, b);
		tio_buf_adds(b, x->kind == FX_AND ? " && " : " || ");
		dump_node(f, x->b, b);
		return tio_buf_addc(b, ')');
	case FX_NOT:
		tio_buf_adds(b, "!");
		return dump_node(f, x->a, b);
	default:
		if (x->vkind == FV_STR)
			return tio_buf_addf(b, "%s %s \"%s\"", x->field, op_text[x->op], x->str);
		return tio_buf_addf(b, "%s %s %llu", x->field, op_text[x->op],
				    (unsigned long long)x->num);
	}
}

int fx_dump(const fx_filter *f, tio_buf *b)
{
	for (size_t i = 0; i < f->nev; i++)
		tio_buf_addf(b, "%s%s", i ? "," : "", f->ev[i].text);
	if (f->root < 0)
		return 0;
	tio_buf_adds(b, ": ");
	return dump_node(f, f->root, b);
}
