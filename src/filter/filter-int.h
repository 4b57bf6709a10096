/*
 * Event filters (trace-cmd report's -F syntax), inside the library:
 * the syntax tree that filter-parse.c makes from one -F text, compiled per
 * event class and evaluated by filter.c.
 */
#ifndef TIO_FILTER_INT_H
#define TIO_FILTER_INT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

/* Node kinds of the expression tree. */
enum fx_kind {
	FX_AND = 0,
	FX_OR,
	FX_NOT,
	FX_CMP,	  /* FIELD op VALUE */
	FX_ARITH, /* FIELD aop NUMBER: true when the result is not 0 (trace-cmd's `FIELD & 4`) */
};

/* Comparison operators (FX_CMP), and arithmetic ones (FX_ARITH). */
enum fx_op {
	FO_EQ = 0,
	FO_NE,
	FO_LT,
	FO_LE,
	FO_GT,
	FO_GE,
	FO_RE,
	FO_NRE, /* =~ !~ : POSIX basic regex, case-insensitive (libtraceevent) */
	FO_GLOB, /* ~ : the kernel's glob (fnmatch), an extension; !~ is the regex one */
	FO_ADD,
	FO_SUB,
	FO_MUL,
	FO_DIV,
	FO_MOD,
	FO_SHL,
	FO_SHR,
	FO_BAND,
	FO_BOR,
	FO_XOR,
};

/* What the right-hand value of an FX_CMP is. */
enum fx_vkind { FV_NUM = 0, FV_STR };

typedef struct fx_node {
	uint8_t kind, op, vkind;
	int32_t a, b; /* children (AND, OR: both; NOT: a) */
	uint32_t col; /* 1-based column of the field name in the -F text */
	char *field;  /* CMP, ARITH */
	char *str;    /* FV_STR value */
	size_t slen;
	uint64_t num; /* FV_NUM value (two's complement when written negative) */
	regex_t *re;  /* FO_RE, FO_NRE: compiled once */
} fx_node;

/* One SYSTEM/EVENT (or NAME) of the event list, as anchored regexes. */
typedef struct fx_event {
	regex_t sys, name;
	bool has_sys;
	char *text;   /* as written, trimmed (error messages) */
	uint32_t col; /* 1-based column */
} fx_event;

/* One parsed -F text. */
typedef struct fx_filter {
	char *text;
	bool invert;
	fx_event *ev;
	size_t nev;
	fx_node *nodes;
	size_t nnodes, cap;
	int32_t root; /* -1: no expression (every event of the named classes) */
} fx_filter;

/*
 * Parse one -F text into *out (zeroed first).  TIO_ERR_USAGE with
 * "-F: <what> at <column>", TIO_ERR_NOMEM.  fx_filter_fini frees it.
 */
int fx_parse(const char *text, fx_filter *out);
void fx_filter_fini(fx_filter *f);

/* The expression back as text, fully parenthesized (tests/unit/unit-filter.c). */
int fx_dump(const fx_filter *f, tio_buf *b);

#endif
