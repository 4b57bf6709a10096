/*
 * TSDL (CTF 1.8.3, section 7 and annex C) internals: the token stream the
 * lexer (tsdl-lex.c) hands to the parser (tsdl-parse.c).
 */
#ifndef TIO_TSDL_H
#define TIO_TSDL_H

#include "common/common.h"

/* Safety limits: input asking for more is refused with TIO_ERR_LIMIT. */
#define TSDL_MAX_TEXT (32u << 20)    /* metadata text, bytes */
#define TSDL_MAX_TOKENS (8u << 20)   /* tokens */
#define TSDL_MAX_DEPTH 64	     /* nesting of blocks and field classes */
#define TSDL_MAX_NODES (2u << 20)    /* field class nodes, typealias copies included */

enum tsdl_tok_kind {
	TK_EOF = 0,
	TK_ID,	 /* identifier or keyword (kw != 0) */
	TK_INT,	 /* integer constant: ival, overflow */
	TK_STR,	 /* string literal: str (decoded), slen */
	TK_CHAR, /* character constant: ival */
	TK_PUNCT /* punct */
};

/* Multi-character punctuators; single ones use their character. */
enum { P_ARROW = 'A', P_DOTS = 'E', P_TASSIGN = 'T' };

/*
 * Keywords (C.1.2).  The lexer sets tok.kw.  A keyword may be a value, a
 * path token or an enumerator label, not a name that a declaration
 * introduces (field, option, typedef, typealias, struct/variant/enum name,
 * variant tag): tsdl-parse.c refuses those, as babeltrace does.
 */
enum tsdl_kw {
	KW_NONE = 0,
	KW_ALIGN,
	KW_CALLSITE,
	KW_CONST,
	KW_CHAR,
	KW_CLOCK,
	KW_DOUBLE,
	KW_ENUM,
	KW_ENV,
	KW_EVENT,
	KW_FLOATING_POINT,
	KW_FLOAT,
	KW_INTEGER,
	KW_INT,
	KW_LONG,
	KW_SHORT,
	KW_SIGNED,
	KW_STREAM,
	KW_STRING,
	KW_STRUCT,
	KW_TRACE,
	KW_TYPEALIAS,
	KW_TYPEDEF,
	KW_UNSIGNED,
	KW_VARIANT,
	KW_VOID,
	KW_BOOL,
	KW_COMPLEX,
	KW_IMAGINARY,
};

typedef struct tsdl_tok {
	uint8_t kind;	  /* enum tsdl_tok_kind */
	uint8_t kw;	  /* enum tsdl_kw, TK_ID only */
	char punct;	  /* TK_PUNCT */
	bool overflow;	  /* TK_INT: did not fit in 64 bits */
	uint32_t line, col;
	const char *p;	  /* the token's text in the source */
	uint32_t n;
	uint64_t ival;
	char *str;	  /* TK_STR: decoded, NUL-terminated, malloc'd */
	uint32_t slen;
} tsdl_tok;

/*
 * Split `text` into tokens, ending with a TK_EOF token.  Comments,
 * white space (CR included) and a leading UTF-8 BOM are skipped.  A
 * string literal's value (str, slen) ends at its first \0 escape, as in
 * babeltrace.  On error the message is "NAME:LINE:COL: ..." and nothing
 * is returned.
 */
int tsdl_lex(const char *text, size_t len, const char *name, tsdl_tok **toks, size_t *ntoks);
void tsdl_toks_free(tsdl_tok *toks, size_t n);

#endif
