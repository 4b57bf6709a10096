/*
 * TSDL lexer: CTF 1.8.3 annex C.1 (lexical grammar).  Identifiers and
 * keywords, integer constants (decimal, octal, hexadecimal, with C
 * suffixes), string literals and character constants with C escapes,
 * the punctuators of C.1.7 plus ":=", comments.  Written for traceio.
 */
#include "ctf/tsdl.h"

#include <stdlib.h>

static const char *const kw_names[] = {
	[KW_ALIGN] = "align",
	[KW_CALLSITE] = "callsite",
	[KW_CONST] = "const",
	[KW_CHAR] = "char",
	[KW_CLOCK] = "clock",
	[KW_DOUBLE] = "double",
	[KW_ENUM] = "enum",
	[KW_ENV] = "env",
	[KW_EVENT] = "event",
	[KW_FLOATING_POINT] = "floating_point",
	[KW_FLOAT] = "float",
	[KW_INTEGER] = "integer",
	[KW_INT] = "int",
	[KW_LONG] = "long",
	[KW_SHORT] = "short",
	[KW_SIGNED] = "signed",
	[KW_STREAM] = "stream",
	[KW_STRING] = "string",
	[KW_STRUCT] = "struct",
	[KW_TRACE] = "trace",
	[KW_TYPEALIAS] = "typealias",
	[KW_TYPEDEF] = "typedef",
	[KW_UNSIGNED] = "unsigned",
	[KW_VARIANT] = "variant",
	[KW_VOID] = "void",
	[KW_BOOL] = "_Bool",
	[KW_COMPLEX] = "_Complex",
	[KW_IMAGINARY] = "_Imaginary",
};

typedef struct lexer {
	const char *s, *end, *name;
	const char *line_start;
	uint32_t line;
	tsdl_tok *toks;
	size_t n, cap;
	tio_buf sb; /* string literal being decoded */
} lexer;

static int lex_err(lexer *lx, const char *at, const char *fmt, ...) TIO_PRINTF(3, 4);

static int lex_err(lexer *lx, const char *at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tio_err_set(TIO_ERR_FORMAT, "%s:%u:%u: %s", lx->name, lx->line,
			   (unsigned)(at - lx->line_start) + 1, msg);
}

static bool is_id_start(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_id_char(int c) { return is_id_start(c) || (c >= '0' && c <= '9'); }
static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static tsdl_tok *new_tok(lexer *lx, const char *at, int kind)
{
	if (lx->n >= TSDL_MAX_TOKENS) {
		tio_err_set(TIO_ERR_LIMIT, "%s:%u: metadata has more than %u tokens", lx->name, lx->line,
			    TSDL_MAX_TOKENS);
		return NULL;
	}
	if (tio_grow(&lx->toks, &lx->cap, lx->n + 1, sizeof(tsdl_tok)))
		return NULL;
	tsdl_tok *t = &lx->toks[lx->n++];
	memset(t, 0, sizeof(*t));
	t->kind = (uint8_t)kind;
	t->line = lx->line;
	t->col = (uint32_t)(at - lx->line_start) + 1;
	t->p = at;
	return t;
}

static void put_utf8(tio_buf *b, uint32_t cp, int *rc)
{
	char u[4];
	int n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	if (tio_buf_add(b, u, (size_t)n))
		*rc = TIO_ERR_NOMEM;
}

/*
 * Decode a quoted literal (string or character constant) starting at the
 * opening quote into lx->sb.  Advances lx->s past the closing quote.
 */
static int lex_quoted(lexer *lx, char q)
{
	const char *open = lx->s;
	int rc = 0;
	bool ended = false; /* a \0 (or \x0, \00...) ended the value of a string literal */
	tio_buf_reset(&lx->sb);
	lx->s++;
	for (;;) {
		if (lx->s >= lx->end || *lx->s == '\n')
			return lex_err(lx, open, "unterminated %s", q == '"' ? "string literal" : "character constant");
		char c = *lx->s;
		if (c == q) {
			lx->s++;
			break;
		}
		if (c == 0)
			return lex_err(lx, lx->s, "NUL byte inside a %s", q == '"' ? "string literal" : "character constant");
		if (c != '\\') {
			if (!ended && tio_buf_addc(&lx->sb, c))
				return TIO_ERR_NOMEM;
			lx->s++;
			continue;
		}
		const char *esc = lx->s++;
		if (lx->s >= lx->end)
			return lex_err(lx, esc, "unterminated escape sequence");
		c = *lx->s++;
		uint32_t v = 0;
		switch (c) {
		case '\'': case '"': case '?': case '\\': v = (uint8_t)c; break;
		case 'a': v = '\a'; break;
		case 'b': v = '\b'; break;
		case 'f': v = '\f'; break;
		case 'n': v = '\n'; break;
		case 'r': v = '\r'; break;
		case 't': v = '\t'; break;
		case 'v': v = '\v'; break;
		case 'x': {
			/*
			 * babeltrace's rule, not C's: at most 3 hex digits ("\x0231" is
			 * "#1"), and a value over 0xff keeps its low 8 bits ("\x27b" is "{").
			 */
			int nd = 0;
			while (nd < 3 && lx->s < lx->end && hexval(*lx->s) >= 0) {
				v = v * 16 + (uint32_t)hexval(*lx->s++);
				nd++;
			}
			if (!nd)
				return lex_err(lx, esc, "\\x used with no following hex digits");
			v &= 0xFF;
			break;
		}
		case 'u': case 'U': {
			int want = c == 'u' ? 4 : 8;
			for (int k = 0; k < want; k++) {
				if (lx->s >= lx->end || hexval(*lx->s) < 0)
					return lex_err(lx, esc, "incomplete universal character name");
				v = v * 16 + (uint32_t)hexval(*lx->s++);
			}
			if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
				return lex_err(lx, esc, "invalid universal character name");
			if (v == 0)
				return lex_err(lx, esc, "NUL character inside a literal");
			if (!ended)
				put_utf8(&lx->sb, v, &rc);
			if (rc)
				return rc;
			continue;
		}
		default:
			if (c >= '0' && c <= '7') {
				/* up to 3 digits; over 0377 ("\777"): the low 8 bits, as babeltrace */
				v = (uint32_t)(c - '0');
				for (int k = 0; k < 2 && lx->s < lx->end && *lx->s >= '0' && *lx->s <= '7'; k++)
					v = v * 8 + (uint32_t)(*lx->s++ - '0');
				v &= 0xFF;
				break;
			}
			return lex_err(lx, esc, "unknown escape sequence '\\%c'", c >= 0x20 && c < 0x7F ? c : '?');
		}
		if (v == 0 && q == '"') {
			/* the value ends here (C string, as babeltrace reads it); the rest is still checked */
			ended = true;
			continue;
		}
		if (!ended && tio_buf_addc(&lx->sb, (char)v))
			return TIO_ERR_NOMEM;
	}
	return 0;
}

static int lex_number(lexer *lx)
{
	const char *at = lx->s;
	tsdl_tok *t = new_tok(lx, at, TK_INT);
	if (!t)
		return TIO_ERR_NOMEM;
	unsigned base = 10;
	if (lx->s[0] == '0' && lx->s + 1 < lx->end && (lx->s[1] == 'x' || lx->s[1] == 'X')) {
		base = 16;
		lx->s += 2;
		if (lx->s >= lx->end || hexval(*lx->s) < 0)
			return lex_err(lx, at, "invalid hexadecimal constant");
	} else if (lx->s[0] == '0') {
		base = 8;
	}
	uint64_t v = 0;
	bool ovf = false;
	while (lx->s < lx->end) {
		int d = hexval(*lx->s);
		if (d < 0 || (unsigned)d >= base) {
			if (base == 8 && (*lx->s == '8' || *lx->s == '9'))
				return lex_err(lx, at, "invalid digit '%c' in octal constant", *lx->s);
			break;
		}
		if (__builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, (uint64_t)d, &v))
			ovf = true;
		lx->s++;
	}
	/* Suffixes: u, l, ll in any valid C combination; we accept any mix. */
	while (lx->s < lx->end && (*lx->s == 'u' || *lx->s == 'U' || *lx->s == 'l' || *lx->s == 'L'))
		lx->s++;
	if (lx->s < lx->end && is_id_char((unsigned char)*lx->s))
		return lex_err(lx, at, "invalid integer constant '%.*s'", (int)(lx->s - at + 1), at);
	t = &lx->toks[lx->n - 1];
	t->ival = ovf ? UINT64_MAX : v;
	t->overflow = ovf;
	t->n = (uint32_t)(lx->s - at);
	return 0;
}

int tsdl_lex(const char *text, size_t len, const char *name, tsdl_tok **toks, size_t *ntoks)
{
	lexer lx = {.s = text, .end = text + len, .name = name, .line_start = text, .line = 1};
	int rc = 0;
	*toks = NULL;
	*ntoks = 0;
	if (len > TSDL_MAX_TEXT)
		return tio_err_set(TIO_ERR_LIMIT, "%s: metadata text is %zu bytes, more than the %u byte limit",
				   name, len, TSDL_MAX_TEXT);
	/* a UTF-8 byte order mark first is skipped (its bytes still count in line 1's columns) */
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		lx.s += 3;
	while (lx.s < lx.end) {
		const char *at = lx.s;
		unsigned char c = (unsigned char)*lx.s;
		if (c == '\n') {
			lx.s++;
			lx.line++;
			lx.line_start = lx.s;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
			lx.s++;
			continue;
		}
		if (c == '/' && lx.s + 1 < lx.end && lx.s[1] == '*') {
			lx.s += 2;
			for (;;) {
				if (lx.s + 1 >= lx.end) {
					rc = lex_err(&lx, at, "unterminated comment");
					goto fail;
				}
				if (lx.s[0] == '*' && lx.s[1] == '/') {
					lx.s += 2;
					break;
				}
				if (*lx.s == '\n') {
					lx.line++;
					lx.line_start = lx.s + 1;
				}
				lx.s++;
			}
			continue;
		}
		if (c == '/' && lx.s + 1 < lx.end && lx.s[1] == '/') {
			while (lx.s < lx.end && *lx.s != '\n')
				lx.s++;
			continue;
		}
		/* L"wide" and L'c' literals are read like the narrow ones. */
		if (c == 'L' && lx.s + 1 < lx.end && (lx.s[1] == '"' || lx.s[1] == '\'')) {
			lx.s++;
			c = (unsigned char)*lx.s;
		}
		if (c == '"' || c == '\'') {
			tsdl_tok *t = new_tok(&lx, at, c == '"' ? TK_STR : TK_CHAR);
			if (!t) {
				rc = TIO_ERR_NOMEM;
				goto fail;
			}
			if ((rc = lex_quoted(&lx, (char)c)))
				goto fail;
			t = &lx.toks[lx.n - 1];
			t->n = (uint32_t)(lx.s - at);
			if (c == '"') {
				t->slen = (uint32_t)lx.sb.len;
				t->str = tio_strndup(lx.sb.p ? lx.sb.p : "", lx.sb.len);
				if (!t->str) {
					rc = TIO_ERR_NOMEM;
					goto fail;
				}
			} else {
				if (lx.sb.len == 0) {
					rc = lex_err(&lx, at, "empty character constant");
					goto fail;
				}
				for (size_t k = 0; k < lx.sb.len && k < 8; k++)
					t->ival = (t->ival << 8) | (uint8_t)lx.sb.p[k];
			}
			continue;
		}
		if (c >= '0' && c <= '9') {
			if ((rc = lex_number(&lx)))
				goto fail;
			continue;
		}
		if (is_id_start(c)) {
			while (lx.s < lx.end && is_id_char((unsigned char)*lx.s))
				lx.s++;
			tsdl_tok *t = new_tok(&lx, at, TK_ID);
			if (!t) {
				rc = TIO_ERR_NOMEM;
				goto fail;
			}
			t->n = (uint32_t)(lx.s - at);
			for (size_t k = 1; k < TIO_ARRAY_LEN(kw_names); k++) {
				if (strlen(kw_names[k]) == t->n && !memcmp(kw_names[k], at, t->n)) {
					t->kw = (uint8_t)k;
					break;
				}
			}
			continue;
		}
		char pc = 0;
		size_t pn = 1;
		if (c == '.' && lx.s + 2 < lx.end && lx.s[1] == '.' && lx.s[2] == '.') {
			pc = P_DOTS;
			pn = 3;
		} else if (c == '-' && lx.s + 1 < lx.end && lx.s[1] == '>') {
			pc = P_ARROW;
			pn = 2;
		} else if (c == ':' && lx.s + 1 < lx.end && lx.s[1] == '=') {
			pc = P_TASSIGN;
			pn = 2;
		} else if (strchr("[](){}.*+-<>:;=,", c) && c) {
			pc = (char)c;
		}
		if (!pc) {
			if (c == 0)
				rc = lex_err(&lx, at, "NUL byte in metadata text");
			else if (c >= 0x20 && c < 0x7F)
				rc = lex_err(&lx, at, "unexpected character '%c'", c);
			else
				rc = lex_err(&lx, at, "unexpected byte 0x%02x", c);
			goto fail;
		}
		tsdl_tok *t = new_tok(&lx, at, TK_PUNCT);
		if (!t) {
			rc = TIO_ERR_NOMEM;
			goto fail;
		}
		t->punct = pc;
		t->n = (uint32_t)pn;
		lx.s += pn;
	}
	if (!new_tok(&lx, lx.s, TK_EOF)) {
		rc = TIO_ERR_NOMEM;
		goto fail;
	}
	tio_buf_free(&lx.sb);
	*toks = lx.toks;
	*ntoks = lx.n;
	return 0;
fail:
	tio_buf_free(&lx.sb);
	tsdl_toks_free(lx.toks, lx.n);
	return rc;
}

void tsdl_toks_free(tsdl_tok *toks, size_t n)
{
	for (size_t i = 0; toks && i < n; i++)
		free(toks[i].str);
	free(toks);
}
