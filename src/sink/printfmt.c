/*
 * ftrace `print fmt` parser and evaluator, behaving like libtraceevent 1.7
 * (event-parse.c) so that `traceio print` matches `trace-cmd report` byte
 * for byte: same tokenizer, same operator-precedence rotation, same
 * printk-conversion splitting into a "print cache", same raw field dump.
 * Re-implemented from the documented behaviour; see printfmt.h.
 */
#define _GNU_SOURCE
#include "sink/printfmt.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <strings.h>

/* ---------------------------------------------------------------- context */

typedef struct func_ent {
	uint64_t addr;
	char *name;
	size_t line; /* position in kallsyms: duplicates sort like libtraceevent's list */
} func_ent;

typedef struct printk_ent {
	uint64_t addr;
	char *fmt;
} printk_ent;

typedef struct cmdline {
	int pid;
	char *comm;
} cmdline;

struct pf_ctx {
	int long_size;
	bool be;
	char *kallsyms; /* unparsed until needed */
	func_ent *funcs;
	size_t nfuncs;
	bool funcs_ready;
	printk_ent *printk;
	size_t nprintk;
	cmdline *cmds;
	size_t ncmds, cmdcap;
	/*
	 * libtraceevent keeps registrations in a list (duplicates allowed)
	 * until the first pid lookup, then sorts them once; cmds_sorted says
	 * whether that happened, cmds_dups whether a pid is there twice.
	 */
	bool cmds_sorted, cmds_dups;
	/* pid -> comm hits, direct-mapped; cleared when an insertion may move a duplicate */
	struct { int pid; uint32_t len; const char *comm; } ccache[1024];
	/* bprint fields, cached like tep->bprint_* */
	pf_fstack *fs, *own_fs; /* the function plugin's stacks (shared, or its own) */
	int rec_cpu;		/* the record being printed (pf_ctx_set_record) */
	uint64_t rec_ts;
	bool rec_ns;
};

/*
 * libtraceevent's function plugin guesses call depth per CPU from a stack
 * of function names: a parent found at depth i puts the child at i + 1
 * (the entries above stay, stale, as the plugin leaves them), a parent not
 * found restarts the stack.  Names point into a context's kallsyms table.
 */
typedef struct fstack_cpu {
	const char **name;
	size_t n, cap; /* n: entries ever set (never shrinks) */
} fstack_cpu;

struct pf_fstack {
	fstack_cpu *cpu;
	size_t ncpu;
	/*
	 * The kvm plugin's other static state: the text of the last
	 * kvm_emulate_insn bytes, which a record with len 0 prints again.
	 */
	char kvm_insn[256 * 3];
};

enum { TOK_ERROR, TOK_NONE, TOK_SPACE, TOK_NEWLINE, TOK_OP, TOK_DELIM, TOK_ITEM, TOK_DQUOTE, TOK_SQUOTE };

enum {
	FF_POINTER = 1, FF_SIGNED = 2, FF_STRING = 4, FF_ARRAY = 8, FF_LONG = 16, FF_DYNAMIC = 32,
	FF_RELATIVE = 64,
};

typedef struct pf_field {
	struct pf_field *next;
	char *type, *name;
	int offset, size, arraylen, elementsize;
	unsigned flags;
} pf_field;

enum arg_type {
	A_NULL, A_ATOM, A_FIELD, A_FLAGS, A_SYMBOL, A_HEX, A_HEX_STR, A_INT_ARRAY, A_TYPE, A_STRING,
	A_BSTRING, A_BITMASK, A_CPUMASK, A_DYNARRAY, A_DYNARRAY_LEN, A_OP,
};

typedef struct flag_sym {
	struct flag_sym *next;
	char *value, *str;
} flag_sym;

typedef struct arg arg;
struct arg {
	arg *next;
	int type;
	union {
		struct { char *atom; } atom;
		struct { char *name; pf_field *field; } field;
		struct { arg *field; char *delim; flag_sym *flags; } flags;
		struct { arg *field; flag_sym *symbols; } symbol;
		struct { arg *field, *size; } hex;
		struct { arg *field, *count, *el_size; } int_array;
		struct { char *type; arg *item; } typecast;
		struct { char *string; pf_field *field; } string;
		struct { pf_field *field; } dynarray;
		struct { char *op; arg *left, *right; int prio; } op;
	};
	/*
	 * Evaluation caches, filled on first evaluation (after parsing, which
	 * rewrites args freely: they are outside the union so that a rewrite
	 * never leaves a stale value): A_ATOM value, A_OP operator code,
	 * A_TYPE cast class.
	 */
	bool ready;
	int code;
	unsigned long long cval;
	bool func; /* a plugin function kept as an operation: never rotated into */
};

enum { P_STRING, P_DIGIT, P_POINTER, P_ARGSTR };

/* A printf conversion compiled once: formatted without vfprintf when `ok`. */
typedef struct fspec {
	bool ok, left, plus, space, alt, zero;
	int width, prec; /* -1 when absent */
	char conv;
} fspec;

typedef struct parse {
	struct parse *next;
	char *format;
	int type;
	arg *arg, *len_as_arg;
	int ls;
	fspec sp;
	bool safe; /* format checked: only flags, width, length and one conversion */
} parse;

enum { EV_FAILED = 1, EV_FTRACE = 2, EV_BPRINT = 4 };

enum handler {
	H_NONE, H_SCHED_SWITCH, H_SCHED_WAKEUP, H_KSTACK, H_HRTIMER_START, H_HRTIMER_EXPIRE, H_FUTEX,
	H_KMEM, H_TLB, H_FUNCTION, H_FUNC_REPEATS, H_RAW_DATA, H_FGRAPH_ENT, H_FGRAPH_RET,
	H_KVM_EXIT, H_KVM_ENTRY, H_KVM_EMULATE, H_KVM_NESTED_EXIT, H_KVM_NESTED_INJECT,
	H_KVM_MMU_GET_PAGE, H_KVM_MMU_ROLE,
};

struct pf_event {
	pf_ctx *ctx;
	char *name, *system;
	int id;
	unsigned flags;
	pf_field *common, *fields;
	char *format;
	arg *args;
	parse *cache;
	int handler;
	pf_field *bp_buf, *bp_ip, *bp_fmt;
	int cap; /* readable bytes of the current record (see pf_print_info) */
	pf_field *pid_field; /* common_pid, found once */
	bool pid_ready;
	/* tokenizer */
	const char *in;
	size_t in_len, in_pos;
};

/* ---------------------------------------------------------------- small helpers */

static void seq_printf(tio_buf *s, const char *fmt, ...) TIO_PRINTF(2, 3);
static void seq_printf(tio_buf *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tio_buf_vaddf(s, fmt, ap);
	va_end(ap);
}

static void seq_puts(tio_buf *s, const char *p) { tio_buf_adds(s, p); }
static void seq_putc(tio_buf *s, char c) { tio_buf_addc(s, c); }

static uint64_t read_num(const pf_ctx *c, const void *p, int size)
{
	switch (size) {
	case 1: return *(const uint8_t *)p;
	case 2: return c->be ? tio_be16(p) : tio_le16(p);
	case 4: return c->be ? tio_be32(p) : tio_le32(p);
	case 8: return c->be ? tio_be64(p) : tio_le64(p);
	}
	return 0;
}

static char *xstrdup(const char *s) { return s ? strdup(s) : NULL; }

/*
 * A field's offset, size or array length: at most 16 MiB (the largest
 * trace.dat page), so that offset + size never overflows an int; -1 beyond.
 */
static int field_num(const char *tok)
{
	unsigned long v = strtoul(tok, NULL, 0);
	return v > (1ul << 24) ? -1 : (int)v;
}

static char *xasprintf(const char *fmt, ...) TIO_PRINTF(1, 2);
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p = NULL;
	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		p = NULL;
	va_end(ap);
	return p;
}

static int append(char **buf, const char *delim, const char *str)
{
	size_t a = *buf ? strlen(*buf) : 0;
	char *n = realloc(*buf, a + strlen(delim) + strlen(str) + 1);
	if (!n)
		return -1;
	n[a] = 0;
	strcat(n, delim);
	strcat(n, str);
	*buf = n;
	return 0;
}

/* ---------------------------------------------------------------- context: tables */

pf_ctx *pf_ctx_new(int long_size, bool big_endian)
{
	pf_ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->long_size = long_size;
	c->be = big_endian;
	c->rec_cpu = -1;
	return c;
}

pf_fstack *pf_fstack_new(void) { return calloc(1, sizeof(pf_fstack)); }

void pf_fstack_free(pf_fstack *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->ncpu; i++)
		free(fs->cpu[i].name);
	free(fs->cpu);
	free(fs);
}

void pf_ctx_set_fstack(pf_ctx *c, pf_fstack *fs) { c->fs = fs; }

void pf_ctx_set_record(pf_ctx *c, int cpu, uint64_t ts, bool ns)
{
	c->rec_cpu = cpu;
	c->rec_ts = ts;
	c->rec_ns = ns;
}

void pf_ctx_free(pf_ctx *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nfuncs; i++)
		free(c->funcs[i].name);
	free(c->funcs);
	for (size_t i = 0; i < c->nprintk; i++)
		free(c->printk[i].fmt);
	free(c->printk);
	for (size_t i = 0; i < c->ncmds; i++)
		free(c->cmds[i].comm);
	free(c->cmds);
	free(c->kallsyms);
	pf_fstack_free(c->own_fs);
	free(c);
}

void pf_ctx_set_kallsyms(pf_ctx *c, const char *text)
{
	free(c->kallsyms);
	c->kallsyms = xstrdup(text);
	c->funcs_ready = false;
}

static int func_cmp(const void *a, const void *b)
{
	const func_ent *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* libtraceevent prepends to a list then sorts stably: later lines first */
	return x->line > y->line ? -1 : x->line < y->line;
}

/* /proc/kallsyms lines "addr type name [mod]"; skips '$' names and absolute (A/a) symbols. */
static void funcs_init(pf_ctx *c)
{
	c->funcs_ready = true;
	if (!c->kallsyms)
		return;
	size_t cap = 0;
	char *p = c->kallsyms;
	while (*p) {
		char *e = strchr(p, '\n');
		if (e)
			*e = 0;
		char *q;
		unsigned long long addr = strtoull(p, &q, 16);
		if (q != p && *q == ' ' && q[1] && q[2] == ' ') {
			char ch = q[1];
			char *name = q + 3;
			size_t nl = strcspn(name, " \t");
			if (name[0] != '$' && ch != 'A' && ch != 'a' && nl) {
				if (c->nfuncs == cap) {
					size_t nc = cap ? cap * 2 : 4096;
					func_ent *nf = realloc(c->funcs, nc * sizeof(*nf));
					if (!nf)
						break;
					c->funcs = nf;
					cap = nc;
				}
				c->funcs[c->nfuncs].addr = addr;
				c->funcs[c->nfuncs].line = c->nfuncs;
				c->funcs[c->nfuncs].name = strndup(name, nl);
				if (!c->funcs[c->nfuncs].name)
					break;
				c->nfuncs++;
			}
		}
		if (!e)
			break;
		p = e + 1;
	}
	free(c->kallsyms);
	c->kallsyms = NULL;
	if (c->nfuncs)
		qsort(c->funcs, c->nfuncs, sizeof(func_ent), func_cmp);
}

/* The function containing addr: exact match or between two entries (not past the last). */
static const func_ent *find_func(pf_ctx *c, uint64_t addr)
{
	if (!c->funcs_ready)
		funcs_init(c);
	size_t lo = 0, hi = c->nfuncs;
	if (!hi)
		return NULL;
	/* libtraceevent's bsearch: entry i matches when addr == f[i] or f[i] < addr < f[i+1],
	   with a sentinel f[n].addr = 0 (so the last entry only matches exactly) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const func_ent *f = &c->funcs[mid];
		uint64_t next = mid + 1 < c->nfuncs ? c->funcs[mid + 1].addr : 0;
		if (addr == f->addr || (addr > f->addr && addr < next))
			return f;
		if (addr < f->addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static int printk_cmp(const void *a, const void *b)
{
	const printk_ent *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void pf_ctx_set_printk(pf_ctx *c, const char *text)
{
	if (!text)
		return;
	char *copy = strdup(text);
	if (!copy)
		return;
	size_t cap = 0;
	char *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		if (!colon)
			break;
		*colon = 0;
		uint64_t addr = strtoull(line, NULL, 16);
		char *fmt = colon + 1;
		if (*fmt)
			fmt++; /* the space after ':' */
		if (fmt[0] == '"')
			fmt++;
		char *d = strdup(fmt);
		if (!d)
			break;
		size_t l = strlen(d);
		if (l && d[l - 1] == '"')
			d[--l] = 0;
		if (l >= 2 && !strcmp(d + l - 2, "\\n"))
			d[l - 2] = 0;
		if (c->nprintk == cap) {
			size_t nc = cap ? cap * 2 : 256;
			printk_ent *np = realloc(c->printk, nc * sizeof(*np));
			if (!np) {
				free(d);
				break;
			}
			c->printk = np;
			cap = nc;
		}
		c->printk[c->nprintk].addr = addr;
		c->printk[c->nprintk++].fmt = d;
	}
	free(copy);
	if (c->nprintk)
		qsort(c->printk, c->nprintk, sizeof(printk_ent), printk_cmp);
}

static const printk_ent *find_printk(const pf_ctx *c, uint64_t addr)
{
	printk_ent key = {.addr = addr};
	if (!c->nprintk)
		return NULL;
	return bsearch(&key, c->printk, c->nprintk, sizeof(printk_ent), printk_cmp);
}

static cmdline *find_cmd(pf_ctx *c, int pid, size_t *pos)
{
	size_t lo = 0, hi = c->ncmds;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->cmds[mid].pid == pid)
			return &c->cmds[mid];
		if (c->cmds[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (pos)
		*pos = lo;
	return NULL;
}

static bool cmds_grow(pf_ctx *c)
{
	if (c->ncmds < c->cmdcap)
		return true;
	size_t nc = c->cmdcap ? c->cmdcap * 2 : 256;
	cmdline *n = realloc(c->cmds, nc * sizeof(*n));
	if (!n)
		return false;
	c->cmds = n;
	c->cmdcap = nc;
	return true;
}

/*
 * tep_register_comm.  Before the first lookup it only appends (pid 0 and
 * duplicate pids included: the sched_switch plugin registers the comms it
 * prints, so a pid of saved_cmdlines can come twice); afterwards it adds a
 * pid at its sorted place unless the pid is known (no override).
 */
static void register_comm(pf_ctx *c, const char *comm, int pid)
{
	size_t pos = c->ncmds;
	if (c->cmds_sorted && (!pid || find_cmd(c, pid, &pos)))
		return;
	if (!cmds_grow(c))
		return;
	char *d = strdup(comm);
	if (!d)
		return;
	memmove(&c->cmds[pos + 1], &c->cmds[pos], (c->ncmds - pos) * sizeof(cmdline));
	c->cmds[pos].pid = pid;
	c->cmds[pos].comm = d;
	c->ncmds++;
	/* an insertion shifts duplicates, so a later bsearch may land on the other one */
	if (c->cmds_sorted && c->cmds_dups)
		memset(c->ccache, 0, sizeof(c->ccache));
}

/*
 * cmdline_init: the list (newest first) sorted by pid with glibc's qsort,
 * which is a merge sort here, hence stable: among equal pids the newest
 * registration comes first.  Ours appended oldest first, so reverse, then
 * sort stably.
 */
static void cmds_sort(pf_ctx *c)
{
	c->cmds_sorted = true;
	size_t n = c->ncmds;
	if (n < 2)
		return;
	for (size_t i = 0; i < n / 2; i++) {
		cmdline t = c->cmds[i];
		c->cmds[i] = c->cmds[n - 1 - i];
		c->cmds[n - 1 - i] = t;
	}
	cmdline *tmp = malloc(n * sizeof(*tmp));
	if (!tmp) { /* cannot happen in practice; fall back to insertion sort (stable) */
		for (size_t i = 1; i < n; i++) {
			cmdline k = c->cmds[i];
			size_t j = i;
			while (j && c->cmds[j - 1].pid > k.pid) {
				c->cmds[j] = c->cmds[j - 1];
				j--;
			}
			c->cmds[j] = k;
		}
	} else {
		/* bottom-up merge sort */
		cmdline *a = c->cmds, *b = tmp;
		for (size_t w = 1; w < n; w *= 2) {
			for (size_t lo = 0; lo < n; lo += 2 * w) {
				size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
				size_t i = lo, j = mid, k = lo;
				while (i < mid && j < hi)
					b[k++] = a[j].pid < a[i].pid ? a[j++] : a[i++];
				while (i < mid)
					b[k++] = a[i++];
				while (j < hi)
					b[k++] = a[j++];
			}
			cmdline *t = a;
			a = b;
			b = t;
		}
		if (a != c->cmds)
			memcpy(c->cmds, a, n * sizeof(*a));
		free(tmp);
	}
	for (size_t i = 1; i < n; i++)
		if (c->cmds[i].pid == c->cmds[i - 1].pid)
			c->cmds_dups = true;
}

/* saved_cmdlines: "pid comm" lines, registered in file order. */
void pf_ctx_load_cmdlines(pf_ctx *c, const char *text)
{
	if (!text)
		return;
	const char *p = text;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		char line[512];
		if (l >= sizeof(line))
			l = sizeof(line) - 1;
		memcpy(line, p, l);
		line[l] = 0;
		char *q;
		long pid = strtol(line, &q, 10);
		if (q != line) {
			while (*q == ' ')
				q++;
			if (*q)
				register_comm(c, q, (int)pid);
		} else {
			break;
		}
		if (!e)
			break;
		p = e + 1;
	}
}

const char *pf_comm(pf_ctx *c, int pid)
{
	size_t len;
	return pf_comm_len(c, pid, &len);
}

const char *pf_comm_len(pf_ctx *c, int pid, size_t *len)
{
	if (!pid) {
		*len = 6;
		return "<idle>";
	}
	size_t h = (unsigned)pid % TIO_ARRAY_LEN(c->ccache);
	if (TIO_UNLIKELY(!c->cmds_sorted))
		cmds_sort(c);
	if (TIO_LIKELY(c->ccache[h].comm && c->ccache[h].pid == pid)) {
		*len = c->ccache[h].len;
		return c->ccache[h].comm;
	}
	cmdline *m = find_cmd(c, pid, NULL);
	if (!m) {
		*len = 5;
		return "<...>";
	}
	c->ccache[h].pid = pid;
	c->ccache[h].comm = m->comm;
	c->ccache[h].len = (uint32_t)strlen(m->comm);
	*len = c->ccache[h].len;
	return m->comm;
}

/* ---------------------------------------------------------------- tokenizer */

static int get_type(int ch)
{
	if (ch == '\n')
		return TOK_NEWLINE;
	if (isspace(ch))
		return TOK_SPACE;
	if (isalnum(ch) || ch == '_')
		return TOK_ITEM;
	if (ch == '\'')
		return TOK_SQUOTE;
	if (ch == '"')
		return TOK_DQUOTE;
	if (!isprint(ch))
		return TOK_NONE;
	if (ch == '(' || ch == ')' || ch == ',')
		return TOK_DELIM;
	return TOK_OP;
}

static int rd_char(pf_event *e)
{
	if (e->in_pos >= e->in_len)
		return -1;
	return (unsigned char)e->in[e->in_pos++];
}

static int peek_char(pf_event *e)
{
	if (e->in_pos >= e->in_len)
		return -1;
	return (unsigned char)e->in[e->in_pos];
}

static int force_token(pf_event *e, const char *str, char **tok);

static int read_token_raw(pf_event *e, char **tok)
{
	tio_buf b = {0};
	int ch, last_ch, quote_ch, next_ch;
	*tok = NULL;
	ch = rd_char(e);
	if (ch < 0)
		return TOK_NONE;
	int type = get_type(ch);
	if (type == TOK_NONE)
		return type;
	tio_buf_addc(&b, (char)ch);
	switch (type) {
	case TOK_NEWLINE:
	case TOK_DELIM:
		*tok = strdup(tio_buf_cstr(&b));
		tio_buf_free(&b);
		return *tok ? type : TOK_ERROR;
	case TOK_OP:
		switch (ch) {
		case '-':
			next_ch = peek_char(e);
			if (next_ch == '>') {
				tio_buf_addc(&b, (char)rd_char(e));
				break;
			}
			/* fall through */
		case '+':
		case '|':
		case '&':
		case '>':
		case '<':
			last_ch = ch;
			ch = peek_char(e);
			if (ch != last_ch)
				goto test_equal;
			tio_buf_addc(&b, (char)rd_char(e));
			switch (last_ch) {
			case '>':
			case '<':
				goto test_equal;
			default:
				break;
			}
			break;
		case '!':
		case '=':
			goto test_equal;
		default:
			break;
		}
		*tok = strdup(tio_buf_cstr(&b));
		tio_buf_free(&b);
		return type;
	test_equal:
		ch = peek_char(e);
		if (ch == '=')
			tio_buf_addc(&b, (char)rd_char(e));
		goto out;
	case TOK_DQUOTE:
	case TOK_SQUOTE:
		b.len--; /* no quotes */
		quote_ch = ch;
	concat:
		do {
			last_ch = ch;
			ch = rd_char(e);
			if (ch > 0)
				tio_buf_addc(&b, (char)ch);
			else
				break;
			if (ch == '\\' && last_ch == '\\')
				last_ch = 0;
		} while ((ch != quote_ch && isprint(ch)) || last_ch == '\\' || ch == '\n');
		if (ch > 0)
			b.len--; /* the closing quote */
		if (ch <= 0)
			type = TOK_NONE;
		if (type == TOK_DQUOTE) {
			size_t save = e->in_pos;
			do {
				ch = rd_char(e);
			} while (ch >= 0 && isspace(ch));
			if (ch == '"')
				goto concat;
			e->in_pos = save;
		}
		goto out;
	default:
		break;
	}
	while (get_type(peek_char(e)) == type)
		tio_buf_addc(&b, (char)rd_char(e));
out:
	*tok = strdup(tio_buf_cstr(&b) ? tio_buf_cstr(&b) : "");
	tio_buf_free(&b);
	if (!*tok)
		return TOK_NONE;
	if (type == TOK_ITEM) {
		if (!strcmp(*tok, "LOCAL_PR_FMT")) {
			free(*tok);
			return force_token(e, "\"%s\" ", tok);
		} else if (!strcmp(*tok, "STA_PR_FMT")) {
			free(*tok);
			return force_token(e, "\" sta:%pM\" ", tok);
		} else if (!strcmp(*tok, "VIF_PR_FMT")) {
			free(*tok);
			return force_token(e, "\" vif:%p(%d)\" ", tok);
		}
	}
	return type;
}

static int force_token(pf_event *e, const char *str, char **tok)
{
	const char *sb = e->in;
	size_t sp = e->in_pos, sl = e->in_len;
	e->in = str;
	e->in_pos = 0;
	e->in_len = strlen(str);
	int t = read_token_raw(e, tok);
	e->in = sb;
	e->in_pos = sp;
	e->in_len = sl;
	return t;
}

static int read_token(pf_event *e, char **tok)
{
	for (;;) {
		int t = read_token_raw(e, tok);
		if (t != TOK_SPACE)
			return t;
		free(*tok);
	}
}

static int read_token_item(pf_event *e, char **tok)
{
	for (;;) {
		int t = read_token_raw(e, tok);
		if (t != TOK_SPACE && t != TOK_NEWLINE)
			return t;
		free(*tok);
		*tok = NULL;
	}
}

static int test_type_token(int type, const char *tok, int expect, const char *et)
{
	if (type != expect)
		return -1;
	if (!tok || strcmp(tok, et))
		return -1;
	return 0;
}

static int read_expected(pf_event *e, int expect, const char *str, bool newline_ok)
{
	char *tok;
	int t = newline_ok ? read_token(e, &tok) : read_token_item(e, &tok);
	int r = test_type_token(t, tok, expect, str);
	free(tok);
	return r;
}

static int read_expect_type(pf_event *e, int expect, char **tok)
{
	int t = read_token(e, tok);
	if (t == expect)
		return 0;
	free(*tok); /* the caller owns the token only when it is the expected one */
	*tok = NULL;
	return -1;
}

/* ---------------------------------------------------------------- fields */

static pf_field *find_in(pf_field *f, const char *name)
{
	for (; f; f = f->next)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

static pf_field *find_field(pf_event *e, const char *name) { return find_in(e->fields, name); }

static pf_field *find_any_field(pf_event *e, const char *name)
{
	pf_field *f = find_in(e->common, name);
	return f ? f : find_in(e->fields, name);
}

static unsigned type_size(const char *name)
{
	static const struct {
		const char *t;
		unsigned s;
	} tbl[] = {{"u8", 1}, {"u16", 2}, {"u32", 4}, {"u64", 8}, {"s8", 1},
		   {"s16", 2}, {"s32", 4}, {"s64", 8}, {"char", 1}};
	for (size_t i = 0; i < TIO_ARRAY_LEN(tbl); i++)
		if (!strcmp(tbl[i].t, name))
			return tbl[i].s;
	return 0;
}

static void free_fields(pf_field *f)
{
	while (f) {
		pf_field *n = f->next;
		free(f->type);
		free(f->name);
		free(f);
		f = n;
	}
}

static int read_fields(pf_event *e, pf_field **list)
{
	int count = 0;
	char *tok = NULL, *last = NULL;
	const char *delim = " ";
	pf_field *f = NULL;
	for (;;) {
		unsigned size_dynamic = 0;
		int t = read_token(e, &tok);
		if (t == TOK_NEWLINE) {
			free(tok);
			return count;
		}
		count++;
		if (test_type_token(t, tok, TOK_ITEM, "field"))
			goto fail;
		free(tok);
		t = read_token(e, &tok);
		if ((e->flags & EV_FTRACE) && t == TOK_ITEM && !strcmp(tok, "special")) {
			free(tok);
			t = read_token(e, &tok);
		}
		if (test_type_token(t, tok, TOK_OP, ":"))
			goto fail;
		free(tok);
		tok = NULL;
		if (read_expect_type(e, TOK_ITEM, &tok))
			goto fail;
		last = tok;
		tok = NULL;
		f = calloc(1, sizeof(*f));
		if (!f)
			goto fail;
		for (;;) {
			t = read_token(e, &tok);
			if (t == TOK_ITEM || (t == TOK_OP && !strcmp(tok, "*")) ||
			    ((e->flags & EV_FTRACE) && t == TOK_OP && !strcmp(tok, "."))) {
				if (!strcmp(tok, "*"))
					f->flags |= FF_POINTER;
				if (f->type) {
					int r = append(&f->type, delim, last);
					free(last);
					last = NULL;
					if (r < 0)
						goto fail;
				} else {
					f->type = last;
				}
				last = tok;
				tok = NULL;
				delim = " ";
				continue;
			}
			if (t == TOK_DELIM && last && !strcmp("__attribute__", last) && tok[0] == '(') {
				int depth = 1;
				if (append(&f->type, " ", last) || append(&f->type, "", "("))
					goto fail;
				delim = " ";
				free(tok);
				tok = NULL;
				while ((t = read_token(e, &tok)) != TOK_NONE) {
					int r;
					if (t == TOK_DELIM) {
						if (tok[0] == '(')
							depth++;
						else if (tok[0] == ')')
							depth--;
						if (!depth)
							break;
						r = append(&f->type, "", tok);
						delim = "";
					} else {
						r = append(&f->type, delim, tok);
						delim = " ";
					}
					if (r < 0)
						goto fail;
					free(last);
					last = tok;
					tok = NULL;
				}
				free(tok);
				tok = NULL;
				continue;
			}
			break;
		}
		if (!f->type)
			goto fail;
		f->name = last;
		last = NULL;
		if (t != TOK_OP)
			goto fail;
		if (!strcmp(tok, "[")) {
			int last_type = t;
			char *brackets = tok;
			tok = NULL;
			f->flags |= FF_ARRAY;
			t = read_token(e, &tok);
			f->arraylen = t == TOK_ITEM && field_num(tok) > 0 ? field_num(tok) : 0;
			while (tok && strcmp(tok, "]")) {
				const char *d2 = (last_type == TOK_ITEM && t == TOK_ITEM) ? " " : "";
				last_type = t;
				if (append(&brackets, d2, tok)) {
					free(brackets);
					goto fail;
				}
				f->arraylen = field_num(tok) > 0 ? field_num(tok) : 0;
				free(tok);
				t = read_token(e, &tok);
				if (t == TOK_NONE) {
					free(brackets);
					goto fail;
				}
			}
			free(tok);
			tok = NULL;
			if (append(&brackets, "", "]")) {
				free(brackets);
				goto fail;
			}
			t = read_token(e, &tok);
			if (t == TOK_ITEM) {
				if (append(&f->type, " ", f->name) || append(&f->type, "", brackets)) {
					free(brackets);
					goto fail;
				}
				size_dynamic = type_size(f->name);
				free(f->name);
				f->name = tok;
				tok = NULL;
				t = read_token(e, &tok);
			} else {
				if (append(&f->type, "", brackets)) {
					free(brackets);
					goto fail;
				}
			}
			free(brackets);
		}
		if ((f->flags & FF_ARRAY) &&
		    (strstr(f->type, "char") || strstr(f->type, "u8") || strstr(f->type, "s8")))
			f->flags |= FF_STRING;
		if (!strncmp(f->type, "__data_loc", 10))
			f->flags |= FF_DYNAMIC;
		if (!strncmp(f->type, "__rel_loc", 9))
			f->flags |= FF_DYNAMIC | FF_RELATIVE;
		if (strstr(f->type, "long"))
			f->flags |= FF_LONG;
		if (test_type_token(t, tok, TOK_OP, ";"))
			goto fail;
		free(tok);
		tok = NULL;
		if (read_expected(e, TOK_ITEM, "offset", true) || read_expected(e, TOK_OP, ":", true) ||
		    read_expect_type(e, TOK_ITEM, &tok))
			goto fail;
		f->offset = field_num(tok);
		free(tok);
		tok = NULL;
		if (f->offset < 0)
			goto fail; /* a hostile offset: refused, not read out of the record */
		if (read_expected(e, TOK_OP, ";", true) || read_expected(e, TOK_ITEM, "size", true) ||
		    read_expected(e, TOK_OP, ":", true) || read_expect_type(e, TOK_ITEM, &tok))
			goto fail;
		f->size = field_num(tok);
		free(tok);
		tok = NULL;
		if (f->size < 0)
			goto fail;
		if ((f->flags & FF_DYNAMIC) && f->size == 2)
			f->flags |= FF_STRING | FF_ARRAY;
		if (read_expected(e, TOK_OP, ";", true))
			goto fail;
		t = read_token(e, &tok);
		if (t != TOK_NEWLINE) {
			if (test_type_token(t, tok, TOK_ITEM, "signed"))
				goto fail;
			free(tok);
			tok = NULL;
			if (read_expected(e, TOK_OP, ":", true) || read_expect_type(e, TOK_ITEM, &tok))
				goto fail;
			if (strtoul(tok, NULL, 0))
				f->flags |= FF_SIGNED;
			free(tok);
			tok = NULL;
			if (read_expected(e, TOK_OP, ";", true) || read_expect_type(e, TOK_NEWLINE, &tok))
				goto fail;
		}
		free(tok);
		tok = NULL;
		if (f->flags & (FF_ARRAY | FF_DYNAMIC)) {
			if (f->arraylen)
				f->elementsize = f->size / f->arraylen;
			else if (f->flags & FF_DYNAMIC)
				f->elementsize = (int)size_dynamic;
			else if (f->flags & FF_STRING)
				f->elementsize = 1;
			else if (f->flags & FF_LONG)
				f->elementsize = e->ctx->long_size;
		} else {
			f->elementsize = f->size;
		}
		*list = f;
		list = &f->next;
		f = NULL;
	}
fail:
	free(tok);
	free(last);
	if (f) {
		free(f->type);
		free(f->name);
		free(f);
	}
	return -1;
}

/* ---------------------------------------------------------------- print fmt arguments */

static arg *alloc_arg(void) { return calloc(1, sizeof(arg)); }

static void free_flag_sym(flag_sym *f)
{
	while (f) {
		flag_sym *n = f->next;
		free(f->value);
		free(f->str);
		free(f);
		f = n;
	}
}

static void free_arg(arg *a)
{
	if (!a)
		return;
	switch (a->type) {
	case A_ATOM: free(a->atom.atom); break;
	case A_FIELD: free(a->field.name); break;
	case A_FLAGS:
		free_arg(a->flags.field);
		free(a->flags.delim);
		free_flag_sym(a->flags.flags);
		break;
	case A_SYMBOL:
		free_arg(a->symbol.field);
		free_flag_sym(a->symbol.symbols);
		break;
	case A_HEX:
	case A_HEX_STR:
		free_arg(a->hex.field);
		free_arg(a->hex.size);
		break;
	case A_INT_ARRAY:
		free_arg(a->int_array.field);
		free_arg(a->int_array.count);
		free_arg(a->int_array.el_size);
		break;
	case A_TYPE:
		free(a->typecast.type);
		free_arg(a->typecast.item);
		break;
	case A_STRING:
	case A_BSTRING:
	case A_BITMASK:
	case A_CPUMASK:
		free(a->string.string);
		break;
	case A_OP:
		free(a->op.op);
		free_arg(a->op.left);
		free_arg(a->op.right);
		break;
	default:
		break;
	}
	free(a);
}

static void free_args(arg *a)
{
	while (a) {
		arg *n = a->next;
		free_arg(a);
		a = n;
	}
}

static int process_arg_token(pf_event *e, arg *a, char **tok, int type);
static int process_op(pf_event *e, arg *a, char **tok);

static int process_arg(pf_event *e, arg *a, char **tok)
{
	char *token;
	int type = read_token(e, &token);
	*tok = token;
	return process_arg_token(e, a, tok, type);
}

static int get_op_prio(const char *op)
{
	if (strlen(op) == 1) {
		switch (op[0]) {
		case '~':
		case '!': return 4;
		case '*':
		case '/':
		case '%': return 6;
		case '+':
		case '-': return 7;
		case '<':
		case '>': return 9;
		case '&': return 11;
		case '^': return 12;
		case '|': return 13;
		case '?': return 16;
		default: return -1;
		}
	}
	if (!strcmp(op, "++") || !strcmp(op, "--"))
		return 3;
	if (!strcmp(op, ">>") || !strcmp(op, "<<"))
		return 8;
	if (!strcmp(op, ">=") || !strcmp(op, "<="))
		return 9;
	if (!strcmp(op, "==") || !strcmp(op, "!="))
		return 10;
	if (!strcmp(op, "&&"))
		return 14;
	if (!strcmp(op, "||"))
		return 15;
	return -1;
}

static int set_op_prio(arg *a)
{
	if (!a->op.left || a->op.left->type == A_NULL)
		a->op.prio = 0;
	else
		a->op.prio = get_op_prio(a->op.op);
	return a->op.prio;
}

static int consolidate_op_arg(int type, arg *a)
{
	if (type == TOK_ERROR)
		return -1;
	if (a->type != A_OP)
		return 0;
	int r = 0;
	if (a->op.left)
		r = consolidate_op_arg(type, a->op.left);
	if (r < 0)
		return r;
	if (a->op.right)
		r = consolidate_op_arg(type, a->op.right);
	if (r < 0)
		return r;
	if (!a->op.left || !a->op.right)
		return 0;
	if (a->op.left->type != A_ATOM || a->op.right->type != A_ATOM)
		return 0;
	unsigned long long l = strtoull(a->op.left->atom.atom, NULL, 0);
	unsigned long long rr = strtoull(a->op.right->atom.atom, NULL, 0);
	unsigned long long v;
	const char *op = a->op.op;
	switch (op[0]) {
	/* shift counts taken modulo 64, as libtraceevent's C shifts do on x86-64 (trace-cmd
	   prints 1 << 70 as 64), without C's undefined behaviour */
	case '>': v = op[1] == '>' ? l >> (rr & 63) : op[1] == '=' ? l >= rr : l > rr; break;
	case '<': v = op[1] == '<' ? l << (rr & 63) : op[1] == '=' ? l <= rr : l < rr; break;
	case '&': v = op[1] == '&' ? (l && rr) : (l & rr); break;
	case '|': v = op[1] == '|' ? (l || rr) : (l | rr); break;
	case '-': v = l - rr; break;
	case '+': v = l + rr; break;
	case '*': v = l * rr; break;
	case '^': v = l ^ rr; break;
	case '/': if (!rr) return 0; v = l / rr; break;
	case '%': if (!rr) return 0; v = l % rr; break;
	case '=': v = l == rr; break;
	case '!': v = l != rr; break;
	default: return 0;
	}
	free_arg(a->op.left);
	free_arg(a->op.right);
	free(a->op.op);
	memset(&a->op, 0, sizeof(a->op)); /* nothing freed stays reachable through the union */
	a->type = A_ATOM;
	a->atom.atom = xasprintf("%lld", (long long)v);
	return a->atom.atom ? 0 : -1;
}

static int process_cond(pf_event *e, arg *top, char **tok)
{
	arg *a = alloc_arg(), *left = alloc_arg(), *right = alloc_arg();
	char *token = NULL;
	int type;
	if (!a || !left || !right) {
		free_arg(left);
		free_arg(right);
		goto out_free;
	}
	a->type = A_OP;
	a->op.left = left;
	a->op.right = right;
	*tok = NULL;
	type = process_arg(e, left, &token);
again:
	if (type == TOK_ERROR)
		goto out_free;
	if (type == TOK_OP && strcmp(token, ":")) {
		type = process_op(e, left, &token);
		goto again;
	}
	if (test_type_token(type, token, TOK_OP, ":"))
		goto out_free;
	a->op.op = token;
	type = process_arg(e, right, &token);
	top->op.right = a;
	*tok = token;
	return type;
out_free:
	top->op.right = NULL;
	free(token);
	free_arg(a);
	return TOK_ERROR;
}

static int process_array(pf_event *e, arg *top, char **tok)
{
	arg *a = alloc_arg();
	char *token = NULL;
	if (!a) {
		*tok = NULL;
		return TOK_ERROR;
	}
	*tok = NULL;
	int type = process_arg(e, a, &token);
	if (test_type_token(type, token, TOK_OP, "]")) {
		free(token);
		free_arg(a);
		return TOK_ERROR;
	}
	top->op.right = a;
	free(token);
	type = read_token_item(e, &token);
	*tok = token;
	return type;
}

static int process_op(pf_event *e, arg *a, char **tok)
{
	arg *left, *right = NULL;
	char *token = *tok;
	int type;
	/*
	 * On TOK_ERROR, *tok is NULL (the token is freed) and `a` is left in a
	 * state free_arg() frees completely: a->op.op is NULL or owned by `a`.
	 */
	if (a->type == A_OP && !a->op.left) {
		/* a unary operator: token is a->op.op (process_arg_token) */
		switch (token[0]) {
		case '~':
		case '!':
		case '+':
		case '-':
			break;
		default:
			goto out_unary;
		}
		if (token[1])
			goto out_unary;
		left = alloc_arg();
		if (!left)
			goto out_unary;
		left->type = A_NULL;
		a->op.left = left;
		right = alloc_arg();
		if (!right)
			goto out_unary;
		a->op.right = right;
		*tok = NULL;
		type = process_arg(e, right, tok);
		if (type == TOK_ERROR) {
			free(*tok);
			*tok = NULL;
			return TOK_ERROR;
		}
	} else if (!strcmp(token, "?")) {
		left = alloc_arg();
		if (!left)
			goto out_free;
		*left = *a;
		a->func = false;
		a->type = A_OP;
		a->op.op = token;
		a->op.left = left;
		a->op.right = NULL;
		a->op.prio = 0;
		type = process_cond(e, a, tok);
	} else if (!strcmp(token, ">>") || !strcmp(token, "<<") || !strcmp(token, "&") ||
		   !strcmp(token, "|") || !strcmp(token, "&&") || !strcmp(token, "||") ||
		   !strcmp(token, "-") || !strcmp(token, "+") || !strcmp(token, "*") ||
		   !strcmp(token, "^") || !strcmp(token, "/") || !strcmp(token, "%") ||
		   !strcmp(token, "<") || !strcmp(token, ">") || !strcmp(token, "<=") ||
		   !strcmp(token, ">=") || !strcmp(token, "==") || !strcmp(token, "!=")) {
		left = alloc_arg();
		if (!left)
			goto out_free;
		*left = *a;
		a->func = false;
		a->type = A_OP;
		a->op.op = token;
		a->op.left = left;
		a->op.right = NULL;
		if (set_op_prio(a) == -1) {
			e->flags |= EV_FAILED;
			a->op.op = NULL;
			goto out_free;
		}
		type = read_token_item(e, &token);
		*tok = token;
		if (!strcmp(a->op.op, "*") && type == TOK_DELIM && !strcmp(token, ")")) {
			if (left->type != A_ATOM)
				goto out_free;
			if (append(&left->atom.atom, " ", "*"))
				goto out_free;
			free(a->op.op);
			*a = *left;
			free(left);
			return type;
		}
		right = alloc_arg();
		if (!right)
			goto out_free;
		type = process_arg_token(e, right, tok, type);
		if (type == TOK_ERROR) {
			free_arg(right);
			token = NULL;
			goto out_free;
		}
		if (right->type == A_OP && !right->func && get_op_prio(a->op.op) < get_op_prio(right->op.op)) {
			arg tmp;
			a->op.right = right->op.left;
			tmp = *a;
			*a = *right;
			*right = tmp;
			a->op.left = right;
		} else {
			a->op.right = right;
		}
	} else if (!strcmp(token, "[")) {
		left = alloc_arg();
		if (!left)
			goto out_free;
		*left = *a;
		a->func = false;
		a->type = A_OP;
		a->op.op = token;
		a->op.left = left;
		a->op.right = NULL;
		a->op.prio = 0;
		type = process_array(e, a, tok);
	} else {
		e->flags |= EV_FAILED;
		goto out_free;
	}
	if (type == TOK_OP && strcmp(*tok, ":")) {
		int prio = get_op_prio(*tok);
		if (prio < 0 && right && !strcmp(*tok, "["))
			return process_op(e, right, tok); /* `1 + REC->a[2]`: the index binds to the right operand */
		if (prio < 0) {
			token = *tok;
			goto out_free;
		}
		if (prio > a->op.prio)
			return process_op(e, a, tok);
		return process_op(e, right, tok);
	}
	return type;
out_unary:
	a->op.op = NULL; /* token, freed below */
out_free:
	free(token);
	*tok = NULL;
	return TOK_ERROR;
}

static int process_entry(pf_event *e, arg *a, char **tok)
{
	char *token;
	int type = read_token_item(e, &token);
	if (type == TOK_DELIM && !strcmp(token, ")")) {
		*tok = token;
		return TOK_ITEM;
	}
	if (test_type_token(type, token, TOK_OP, "->"))
		goto out_free;
	free(token);
	if (read_expect_type(e, TOK_ITEM, &token))
		goto out_free;
	a->type = A_FIELD;
	a->field.name = token;
	a->field.field = find_any_field(e, token);
	type = read_token(e, &token);
	*tok = token;
	return type;
out_free:
	free(token);
	*tok = NULL;
	return TOK_ERROR;
}

static int alloc_and_process_delim(pf_event *e, const char *next, arg **out)
{
	arg *f = alloc_arg();
	char *token;
	if (!f)
		return -1;
	int type = process_arg(e, f, &token);
	if (type == TOK_OP) {
		type = process_op(e, f, &token);
		if (consolidate_op_arg(type, f) < 0)
			type = TOK_ERROR;
		if (type == TOK_ERROR)
			goto err;
	}
	if (test_type_token(type, token, TOK_DELIM, next))
		goto err;
	*out = f;
	free(token);
	return 0;
err:
	free(token);
	free_arg(f);
	return -1;
}

static unsigned long long eval_type_str(unsigned long long val, const char *type, int pointer)
{
	size_t len = strlen(type);
	if (len < 2)
		return val;
	if (pointer) {
		if (type[len - 1] != '*')
			return val;
		char *ref = strndup(type, len - 2);
		if (!ref)
			return val;
		val = eval_type_str(val, ref, 0);
		free(ref);
		return val;
	}
	if (type[len - 1] == '*')
		return val;
	if (!strncmp(type, "struct", 6))
		return val;
	if (!strcmp(type, "u8"))
		return val & 0xff;
	if (!strcmp(type, "u16"))
		return val & 0xffff;
	if (!strcmp(type, "u32"))
		return val & 0xffffffff;
	if (!strcmp(type, "u64") || !strcmp(type, "s64"))
		return val;
	if (!strcmp(type, "s8"))
		return (unsigned long long)(char)val & 0xff;
	if (!strcmp(type, "s16"))
		return (unsigned long long)(short)val & 0xffff;
	if (!strcmp(type, "s32"))
		return (unsigned long long)(int)val & 0xffffffff;
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	if (!strcmp(type, "char"))
		return val & 0xff;
	if (!strcmp(type, "short"))
		return val & 0xffff;
	if (!strcmp(type, "int"))
		return val & 0xffffffff;
	return val;
}

/* Operators of an A_OP, decoded once from their text (the evaluator's hot path). */
enum {
	OPC_UNKNOWN = -1, OPC_NONE = 0, OPC_INDEX, OPC_COND, OPC_NOT, OPC_NE, OPC_BNOT, OPC_LOR, OPC_BOR,
	OPC_LAND, OPC_BAND, OPC_LT, OPC_SHL, OPC_LE, OPC_GT, OPC_SHR, OPC_GE, OPC_EQ, OPC_SUB, OPC_ADD,
	OPC_DIV, OPC_MOD, OPC_MUL,
};

static int op_code(const char *op)
{
	char a = op[0], b = a ? op[1] : 0;
	switch (a) {
	case '[': return OPC_INDEX;
	case '?': return OPC_COND;
	case '!': return !b ? OPC_NOT : b == '=' ? OPC_NE : OPC_UNKNOWN;
	case '~': return OPC_BNOT;
	case '|': return b ? OPC_LOR : OPC_BOR;
	case '&': return b ? OPC_LAND : OPC_BAND;
	case '<': return !b ? OPC_LT : b == '<' ? OPC_SHL : b == '=' ? OPC_LE : OPC_UNKNOWN;
	case '>': return !b ? OPC_GT : b == '>' ? OPC_SHR : b == '=' ? OPC_GE : OPC_UNKNOWN;
	case '=': return b == '=' ? OPC_EQ : OPC_UNKNOWN;
	case '-': return OPC_SUB;
	case '+': return OPC_ADD;
	case '/': return OPC_DIV;
	case '%': return OPC_MOD;
	case '*': return OPC_MUL;
	}
	return OPC_UNKNOWN;
}

/*
 * eval_type_str(val, type, 0) as a cached operation: the typecast's mask
 * (or sign extension) is found once from its type text.
 */
enum { TC_NONE = 1, TC_U8, TC_U16, TC_U32, TC_S8, TC_S16, TC_S32 };

static int type_class(const char *type)
{
	size_t len = strlen(type);
	if (len < 2 || type[len - 1] == '*' || !strncmp(type, "struct", 6))
		return TC_NONE;
	static const struct { const char *n; int c; } t[] = {
		{"u8", TC_U8}, {"u16", TC_U16}, {"u32", TC_U32}, {"u64", TC_NONE}, {"s64", TC_NONE},
		{"s8", TC_S8}, {"s16", TC_S16}, {"s32", TC_S32},
	};
	for (size_t i = 0; i < TIO_ARRAY_LEN(t); i++)
		if (!strcmp(type, t[i].n))
			return t[i].c;
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	if (!strcmp(type, "char"))
		return TC_U8;
	if (!strcmp(type, "short"))
		return TC_U16;
	if (!strcmp(type, "int"))
		return TC_U32;
	return TC_NONE;
}

static unsigned long long type_cast(arg *a, unsigned long long val)
{
	if (TIO_UNLIKELY(!a->code))
		a->code = type_class(a->typecast.type);
	switch (a->code) {
	case TC_U8: return val & 0xff;
	case TC_U16: return val & 0xffff;
	case TC_U32: return val & 0xffffffff;
	case TC_S8: return (unsigned long long)(char)val & 0xff;
	case TC_S16: return (unsigned long long)(short)val & 0xffff;
	case TC_S32: return (unsigned long long)(int)val & 0xffffffff;
	}
	return val;
}

static int arg_num_eval(arg *a, long long *val)
{
	long long l, r;
	int ret = 1;
	switch (a->type) {
	case A_ATOM:
		*val = strtoll(a->atom.atom, NULL, 0);
		break;
	case A_TYPE:
		ret = arg_num_eval(a->typecast.item, val);
		if (ret)
			*val = (long long)eval_type_str((unsigned long long)*val, a->typecast.type, 0);
		break;
	case A_OP:
		switch (a->op.op[0]) {
		case '|':
		case '&':
		case '<':
		case '>':
		case '=':
		case '!':
			if (!(ret = arg_num_eval(a->op.left, &l)) || !(ret = arg_num_eval(a->op.right, &r)))
				break;
			switch (a->op.op[0]) {
			case '|': *val = a->op.op[1] ? (l || r) : (l | r); break;
			case '&': *val = a->op.op[1] ? (l && r) : (l & r); break;
			case '<':
				if (!a->op.op[1]) *val = l < r;
				else if (a->op.op[1] == '<') /* the count modulo 64, as on x86-64 */
					*val = (long long)((unsigned long long)l << ((unsigned long long)r & 63));
				else if (a->op.op[1] == '=') *val = l <= r;
				else ret = 0;
				break;
			case '>':
				if (!a->op.op[1]) *val = l > r;
				else if (a->op.op[1] == '>')
					*val = l >> ((unsigned long long)r & 63);
				else if (a->op.op[1] == '=') *val = l >= r;
				else ret = 0;
				break;
			case '=':
				if (a->op.op[1] != '=') ret = 0;
				else *val = l == r;
				break;
			case '!':
				if (a->op.op[1] == '=') *val = l != r;
				else ret = 0;
				break;
			}
			break;
		case '-':
		case '+':
			if (a->op.left->type == A_NULL)
				l = 0;
			else
				ret = arg_num_eval(a->op.left, &l);
			if (!ret)
				break;
			ret = arg_num_eval(a->op.right, &r);
			if (!ret)
				break;
			*val = a->op.op[0] == '-' ? (long long)((unsigned long long)l - (unsigned long long)r)
						  : (long long)((unsigned long long)l + (unsigned long long)r);
			break;
		case '~':
			ret = arg_num_eval(a->op.right, &r);
			if (ret)
				*val = ~r;
			break;
		default:
			ret = 0;
		}
		break;
	default:
		ret = 0;
	}
	return ret;
}

static char *arg_eval(arg *a, char buf[24])
{
	long long v;
	switch (a->type) {
	case A_ATOM: return a->atom.atom;
	case A_TYPE: return arg_eval(a->typecast.item, buf);
	case A_OP:
		if (!arg_num_eval(a, &v))
			break;
		snprintf(buf, 24, "%lld", v);
		return buf;
	default: break;
	}
	return NULL;
}

static int process_fields(pf_event *e, flag_sym **list, char **tok)
{
	int type;
	arg *a = NULL;
	flag_sym *f = NULL;
	char *token = *tok;
	char buf[24];
	do {
		free(token);
		type = read_token_item(e, &token);
		if (test_type_token(type, token, TOK_OP, "{"))
			break;
		a = alloc_arg();
		if (!a)
			goto out_free;
		free(token);
		type = process_arg(e, a, &token);
		if (type == TOK_OP)
			type = process_op(e, a, &token);
		if (type == TOK_ERROR)
			goto out_free;
		if (test_type_token(type, token, TOK_DELIM, ","))
			goto out_free;
		f = calloc(1, sizeof(*f));
		if (!f)
			goto out_free;
		char *v = arg_eval(a, buf);
		if (!v || !(f->value = strdup(v)))
			goto out_free_field;
		free_arg(a);
		a = alloc_arg();
		if (!a)
			goto out_free_field;
		free(token);
		type = process_arg(e, a, &token);
		if (test_type_token(type, token, TOK_OP, "}"))
			goto out_free_field;
		v = arg_eval(a, buf);
		if (!v || !(f->str = strdup(v)))
			goto out_free_field;
		free_arg(a);
		a = NULL;
		*list = f;
		list = &f->next;
		f = NULL;
		free(token);
		type = read_token_item(e, &token);
	} while (type == TOK_DELIM && !strcmp(token, ","));
	*tok = token;
	return type;
out_free_field:
	free_flag_sym(f);
out_free:
	free_arg(a);
	free(token);
	*tok = NULL;
	return TOK_ERROR;
}

static int process_field_arg(pf_event *e, arg *a, char **tok)
{
	int type = process_arg(e, a, tok);
	while (type == TOK_OP)
		type = process_op(e, a, tok);
	return type;
}

static int process_flags(pf_event *e, arg *a, char **tok)
{
	char *token = NULL;
	memset(a, 0, sizeof(*a));
	a->type = A_FLAGS;
	arg *f = alloc_arg();
	if (!f)
		goto out_free;
	int type = process_field_arg(e, f, &token);
	while (type == TOK_OP)
		type = process_op(e, f, &token);
	if (test_type_token(type, token, TOK_DELIM, ",")) {
		free_arg(f);
		goto out_free;
	}
	free(token);
	a->flags.field = f;
	type = read_token_item(e, &token);
	if (type >= TOK_ITEM) { /* ITEM, DQUOTE, SQUOTE */
		a->flags.delim = token;
		type = read_token_item(e, &token);
	}
	if (test_type_token(type, token, TOK_DELIM, ","))
		goto out_free;
	type = process_fields(e, &a->flags.flags, &token);
	if (test_type_token(type, token, TOK_DELIM, ")"))
		goto out_free;
	free(token);
	return read_token_item(e, tok);
out_free:
	free(token);
	*tok = NULL;
	return TOK_ERROR;
}

static int process_symbols(pf_event *e, arg *a, char **tok)
{
	char *token = NULL;
	memset(a, 0, sizeof(*a));
	a->type = A_SYMBOL;
	arg *f = alloc_arg();
	if (!f)
		goto out_free;
	int type = process_field_arg(e, f, &token);
	if (test_type_token(type, token, TOK_DELIM, ",")) {
		free_arg(f);
		goto out_free;
	}
	a->symbol.field = f;
	type = process_fields(e, &a->symbol.symbols, &token);
	if (test_type_token(type, token, TOK_DELIM, ")"))
		goto out_free;
	free(token);
	return read_token_item(e, tok);
out_free:
	free(token);
	*tok = NULL;
	return TOK_ERROR;
}

static int process_hex_common(pf_event *e, arg *a, char **tok, int t)
{
	memset(a, 0, sizeof(*a));
	a->type = t;
	if (alloc_and_process_delim(e, ",", &a->hex.field))
		goto out;
	if (alloc_and_process_delim(e, ")", &a->hex.size)) {
		free_arg(a->hex.field);
		a->hex.field = NULL;
		goto out;
	}
	return read_token_item(e, tok);
out:
	*tok = NULL;
	return TOK_ERROR;
}

static int process_int_array(pf_event *e, arg *a, char **tok)
{
	memset(a, 0, sizeof(*a));
	a->type = A_INT_ARRAY;
	if (alloc_and_process_delim(e, ",", &a->int_array.field))
		goto out;
	if (alloc_and_process_delim(e, ",", &a->int_array.count))
		goto out;
	if (alloc_and_process_delim(e, ")", &a->int_array.el_size))
		goto out;
	return read_token_item(e, tok);
out:
	*tok = NULL;
	return TOK_ERROR;
}

static int process_dynamic_array(pf_event *e, arg *a, char **tok)
{
	char *token;
	memset(a, 0, sizeof(*a));
	a->type = A_DYNARRAY;
	int type = read_token(e, &token);
	*tok = token;
	if (type != TOK_ITEM)
		goto out_free;
	pf_field *f = find_field(e, token);
	if (!f)
		goto out_free;
	a->dynarray.field = f;
	if (read_expected(e, TOK_DELIM, ")", true) < 0)
		goto out_free;
	free(token);
	type = read_token_item(e, &token);
	*tok = token;
	if (type != TOK_OP || strcmp(token, "["))
		return type;
	free(token);
	arg *x = alloc_arg();
	if (!x) {
		*tok = NULL;
		return TOK_ERROR;
	}
	type = process_arg(e, x, &token);
	if (type == TOK_ERROR)
		goto out_free_arg;
	if (!test_type_token(type, token, TOK_OP, "]"))
		goto out_free_arg; /* libtraceevent's inverted test: "]" is an error */
	free(token);
	free_arg(x); /* index arg is dropped, as in libtraceevent */
	return read_token_item(e, tok);
out_free_arg:
	free_arg(x);
out_free:
	free(token);
	*tok = NULL;
	return TOK_ERROR;
}

static int process_dynamic_array_len(pf_event *e, arg *a, char **tok)
{
	char *token;
	if (read_expect_type(e, TOK_ITEM, &token))
		goto out_free;
	a->type = A_DYNARRAY_LEN;
	pf_field *f = find_field(e, token);
	if (!f)
		goto out_free;
	a->dynarray.field = f;
	if (read_expected(e, TOK_DELIM, ")", true) < 0)
		goto out_err;
	free(token);
	int type = read_token(e, &token);
	*tok = token;
	return type;
out_free:
	free(token);
out_err:
	*tok = NULL;
	return TOK_ERROR;
}

static int process_paren(pf_event *e, arg *a, char **tok)
{
	char *token;
	int type = process_arg(e, a, &token);
	if (type == TOK_ERROR)
		goto out_free;
	if (type == TOK_OP)
		type = process_op(e, a, &token);
	if (type == TOK_ERROR)
		goto out_free;
	if (type == TOK_ITEM && !strcmp(token, ")")) {
		/* "(REC)->field": the item was REC alone, `a` is still empty
		   ("(~REC)->" is not a field: `a` holds the operator) */
		if (a->type != A_NULL)
			goto out_free;
		free(token);
		return process_entry(e, a, tok);
	}
	if (test_type_token(type, token, TOK_DELIM, ")"))
		goto out_free;
	free(token);
	type = read_token_item(e, &token);
	if (type >= TOK_ITEM || (type == TOK_DELIM && !strcmp(token, "("))) {
		if (a->type != A_ATOM)
			goto out_free;
		arg *item = alloc_arg();
		if (!item)
			goto out_free;
		char *tname = a->atom.atom;
		a->type = A_TYPE;
		a->typecast.type = tname;
		a->typecast.item = item;
		type = process_arg_token(e, item, &token, type);
	}
	*tok = token;
	return type;
out_free:
	free(token);
	*tok = NULL;
	return TOK_ERROR;
}

static int process_str(pf_event *e, arg *a, char **tok, int t)
{
	char *token;
	if (read_expect_type(e, TOK_ITEM, &token)) {
		free(token);
		*tok = NULL;
		return TOK_ERROR;
	}
	a->type = t;
	a->string.string = token;
	a->string.field = NULL;
	if (read_expected(e, TOK_DELIM, ")", true) < 0) {
		*tok = NULL;
		return TOK_ERROR;
	}
	int type = read_token(e, &token);
	*tok = token;
	return type;
}

static int process_builtin_expect(pf_event *e, arg *a, char **tok)
{
	char *token = NULL;
	int type = process_arg(e, a, &token);
	if (type != TOK_DELIM || !token || token[0] != ',')
		goto out_free;
	free(token);
	token = NULL;
	if (read_expect_type(e, TOK_ITEM, &token))
		goto out_free;
	if (read_expected(e, TOK_DELIM, ")", true) < 0)
		goto out_free;
	free(token);
	return read_token_item(e, tok);
out_free:
	free(token);
	*tok = NULL;
	return TOK_ERROR;
}

/*
 * One-argument numeric functions that plugins register, kept as an
 * operation on their argument, `x OP operand`, not a bare field: the same
 * value, and -R then prints the field itself as it would for any function
 * argument (hex for a long) rather than with the format's conversion.
 * jiffies_to_msecs(x) (jbd2 plugin) returns its argument unchanged (the
 * plugin cannot know HZ): `x + 0`; is_writable_pte(pte) (kvm plugin) is
 * the PTE's writable bit: `pte & 2`.
 */
static int process_one_arg_func(pf_event *e, arg *a, char **tok, const char *op, const char *operand)
{
	char *token = NULL;
	arg *inner = alloc_arg(), *right = alloc_arg();
	char *o = strdup(op), *r = strdup(operand);
	if (!inner || !right || !o || !r)
		goto error;
	int type = process_arg(e, inner, &token);
	if (type != TOK_DELIM || !token || strcmp(token, ")"))
		goto error;
	free(token);
	right->type = A_ATOM;
	right->atom.atom = r;
	a->type = A_OP;
	a->op.op = o;
	a->op.left = inner;
	a->op.right = right;
	a->op.prio = 0;
	a->func = true;
	return read_token_item(e, tok);
error:
	free(token);
	free_arg(inner);
	free_arg(right);
	free(o);
	free(r);
	*tok = NULL;
	return TOK_ERROR;
}

static int process_sizeof(pf_event *e, arg *a, char **tok)
{
	char *token = NULL;
	bool has_paren = false;
	int type = read_token_item(e, &token);
	a->type = A_ATOM;
	if (token && !strcmp(token, "unsigned")) {
		free(token);
		type = read_token_item(e, &token);
		if (type == TOK_ERROR)
			goto error;
		if (type != TOK_ITEM)
			has_paren = true;
	}
	if (!token)
		goto error;
	if (has_paren || !strcmp(token, "int")) {
		a->atom.atom = strdup("4");
	} else if (!strcmp(token, "long")) {
		free(token);
		type = read_token_item(e, &token);
		if (token && !strcmp(token, "long")) {
			a->atom.atom = strdup("8");
		} else {
			a->atom.atom = strdup(e->ctx->long_size == 4 ? "4" : "8");
			has_paren = true;
		}
	} else if (!strcmp(token, "REC")) { /* no u64/u32/u16/u8 in 1.7: the parse fails (dma_*_sgt) */
		free(token);
		type = read_token_item(e, &token);
		if (test_type_token(type, token, TOK_OP, "->"))
			goto error;
		free(token);
		token = NULL;
		if (read_expect_type(e, TOK_ITEM, &token))
			goto error;
		pf_field *f = find_any_field(e, token);
		if (!f || (f->flags & FF_ARRAY))
			goto error;
		a->atom.atom = xasprintf("%d", f->size);
	} else {
		goto error;
	}
	if (!a->atom.atom)
		goto error;
	if (!has_paren) {
		free(token);
		type = read_token_item(e, &token);
	}
	if (test_type_token(type, token, TOK_DELIM, ")"))
		goto error;
	free(token);
	return read_token_item(e, tok);
error:
	free(token);
	*tok = NULL;
	return TOK_ERROR;
}

static int process_function(pf_event *e, arg *a, char *token, char **tok)
{
	int r;
	if (!strcmp(token, "__print_flags")) {
		free(token);
		return process_flags(e, a, tok);
	}
	if (!strcmp(token, "__print_symbolic")) {
		free(token);
		return process_symbols(e, a, tok);
	}
	if (!strcmp(token, "__print_hex")) {
		free(token);
		return process_hex_common(e, a, tok, A_HEX);
	}
	if (!strcmp(token, "__print_hex_str")) {
		free(token);
		return process_hex_common(e, a, tok, A_HEX_STR);
	}
	if (!strcmp(token, "__print_array")) {
		free(token);
		return process_int_array(e, a, tok);
	}
	if (!strcmp(token, "__get_str") || !strcmp(token, "__get_rel_str")) {
		free(token);
		return process_str(e, a, tok, A_STRING);
	}
	if (!strcmp(token, "__get_bitmask") || !strcmp(token, "__get_rel_bitmask")) {
		free(token);
		return process_str(e, a, tok, A_BITMASK);
	}
	if (!strcmp(token, "__get_cpumask") || !strcmp(token, "__get_rel_cpumask")) {
		free(token);
		r = process_str(e, a, tok, A_CPUMASK);
		return r;
	}
	if (!strcmp(token, "__get_dynamic_array") || !strcmp(token, "__get_rel_dynamic_array") ||
	    !strcmp(token, "__get_sockaddr") || !strcmp(token, "__get_sockaddr_rel")) {
		free(token);
		return process_dynamic_array(e, a, tok);
	}
	if (!strcmp(token, "__get_dynamic_array_len") ||
	    !strcmp(token, "__get_rel_dynamic_array_len")) {
		free(token);
		return process_dynamic_array_len(e, a, tok);
	}
	if (!strcmp(token, "__builtin_expect")) {
		free(token);
		return process_builtin_expect(e, a, tok);
	}
	if (!strcmp(token, "sizeof")) {
		free(token);
		return process_sizeof(e, a, tok);
	}
	if (!strcmp(token, "jiffies_to_msecs")) {
		free(token);
		return process_one_arg_func(e, a, tok, "+", "0");
	}
	if (!strcmp(token, "is_writable_pte")) {
		free(token);
		return process_one_arg_func(e, a, tok, "&", "2");
	}
	/* other helper functions registered by plugins (scsi, cfg80211, xen, ...) are not known */
	free(token);
	*tok = NULL;
	return TOK_ERROR;
}

static int process_arg_token(pf_event *e, arg *a, char **tok, int type)
{
	char *token = *tok, *atom;
	switch (type) {
	case TOK_ITEM:
		if (!strcmp(token, "REC")) {
			free(token);
			type = process_entry(e, a, &token);
			break;
		}
		atom = token;
		type = read_token_item(e, &token);
		if (type == TOK_DELIM && !strcmp(token, "(")) {
			free(token);
			token = NULL;
			type = process_function(e, a, atom, &token);
			break;
		}
		while (type == TOK_ITEM) {
			if (append(&atom, " ", token)) {
				free(atom);
				free(token);
				*tok = NULL;
				return TOK_ERROR;
			}
			free(token);
			type = read_token_item(e, &token);
		}
		a->type = A_ATOM;
		a->atom.atom = atom;
		break;
	case TOK_SQUOTE: /* as libtraceevent 1.7: the text, so '5' is 5 and 'x' is 0 */
	case TOK_DQUOTE:
		a->type = A_ATOM;
		a->atom.atom = token;
		type = read_token_item(e, &token);
		break;
	case TOK_DELIM:
		if (!strcmp(token, "(")) {
			free(token);
			type = process_paren(e, a, &token);
			break;
		}
		/* fall through */
	case TOK_OP:
		a->type = A_OP;
		a->op.op = token;
		a->op.left = NULL;
		/* on error, a (op included) is left for the caller's free_arg() */
		type = process_op(e, a, &token);
		break;
	default:
		free(token);
		*tok = NULL;
		return TOK_ERROR;
	}
	*tok = token;
	return type;
}

static int read_print_args(pf_event *e, arg **list)
{
	int type = TOK_ERROR, n = 0;
	char *token = NULL;
	do {
		if (type == TOK_NEWLINE) {
			free(token);
			type = read_token_item(e, &token);
			continue;
		}
		/* the token read after a newline is not used (libtraceevent's loop): drop it */
		free(token);
		token = NULL;
		arg *a = alloc_arg();
		if (!a)
			return -1;
		type = process_arg(e, a, &token);
		if (type == TOK_ERROR) {
			free(token);
			free_arg(a);
			return -1;
		}
		*list = a;
		n++;
		if (type == TOK_OP) {
			type = process_op(e, a, &token);
			free(token);
			token = NULL;
			if (consolidate_op_arg(type, a) < 0)
				type = TOK_ERROR;
			if (type == TOK_ERROR) {
				*list = NULL;
				free_arg(a);
				return -1;
			}
			list = &a->next;
			continue;
		}
		if (type == TOK_DELIM && !strcmp(token, ",")) {
			free(token);
			token = NULL;
			*list = a;
			list = &a->next;
			continue;
		}
		break;
	} while (type != TOK_NONE);
	free(token); /* NULL or ours, whatever the type (TOK_NONE included) */
	return n;
}

static int read_print(pf_event *e)
{
	char *token;
	if (read_expected(e, TOK_ITEM, "print", false) < 0)
		return -1;
	if (read_expected(e, TOK_ITEM, "fmt", true) < 0)
		return -1;
	if (read_expected(e, TOK_OP, ":", true) < 0)
		return -1;
	if (read_expect_type(e, TOK_DQUOTE, &token)) {
		free(token);
		return -1;
	}
concat:
	e->format = token;
	e->args = NULL;
	int type = read_token_item(e, &token);
	if (type == TOK_NONE) {
		free(token);
		return 0;
	}
	if (type == TOK_DQUOTE) {
		char *cat = xasprintf("%s%s", e->format, token);
		free(token);
		free(e->format);
		e->format = NULL;
		if (!cat)
			return -1;
		token = cat;
		goto concat;
	}
	if (test_type_token(type, token, TOK_DELIM, ",")) {
		free(token);
		return -1;
	}
	free(token);
	return read_print_args(e, &e->args);
}

/* ---------------------------------------------------------------- the print cache */

static void free_parse(parse *p)
{
	while (p) {
		parse *n = p->next;
		free(p->format);
		free(p);
		p = n;
	}
}

static bool safe_format(const char *f, const char *convs);

/*
 * A literal width or precision above 65536 in a conversion becomes 65536, in
 * place (the number has at least 5 digits: never longer): printf would make
 * hundreds of megabytes of padding out of a hostile "%679886654d"
 * (trace-cmd prints them all), as the record's '*' arguments are bounded.
 */
static void clamp_widths(char *f)
{
	if (*f != '%')
		return;
	f++;
	while (*f && strchr("#-+ 0", *f))
		f++;
	for (int part = 0; part < 2; part++) { /* the width, then the precision */
		if (part) {
			if (*f != '.')
				return;
			f++;
		}
		char *d = f;
		unsigned long long v = 0;
		while (isdigit((unsigned char)*f)) {
			if (v <= 65536)
				v = v * 10 + (unsigned)(*f - '0');
			f++;
		}
		if (v > 65536) {
			memcpy(d, "65536", 5);
			memmove(d + 5, f, strlen(f) + 1);
			f = d + 5;
		}
	}
}

static void compile_spec(parse *p)
{
	fspec *sp = &p->sp;
	memset(sp, 0, sizeof(*sp));
	sp->width = sp->prec = -1;
	clamp_widths(p->format);
	if (p->type == P_DIGIT)
		p->safe = safe_format(p->format, "diuxXo");
	else if (p->type == P_ARGSTR)
		p->safe = safe_format(p->format, "s");
	if (!p->safe || strchr(p->format, '*'))
		return;
	const char *f = p->format + 1;
	for (;; f++) {
		if (*f == '-') sp->left = true;
		else if (*f == '+') sp->plus = true;
		else if (*f == ' ') sp->space = true;
		else if (*f == '#') sp->alt = true;
		else if (*f == '0') sp->zero = true;
		else break;
	}
	if (isdigit((unsigned char)*f)) {
		sp->width = 0;
		while (isdigit((unsigned char)*f)) /* only whether it is below 256 matters */
			sp->width = sp->width < 1000 ? sp->width * 10 + (*f++ - '0') : (f++, 1000);
	}
	if (*f == '.') {
		f++;
		sp->prec = 0;
		while (isdigit((unsigned char)*f))
			sp->prec = sp->prec < 1000 ? sp->prec * 10 + (*f++ - '0') : (f++, 1000);
	}
	while (*f && strchr("hlLzZ", *f))
		f++;
	sp->conv = *f;
	sp->ok = sp->width < 256 && sp->prec < 256;
}

static void pad(tio_buf *s, char c, int n)
{
	while (n-- > 0)
		tio_buf_addc(s, c);
}

/* printf("%<spec>", v) for d/i/u/x/X/o with the C promotions of `ls` applied. */
static void fmt_int(tio_buf *s, const fspec *sp, int ls, unsigned long long val)
{
	char dig[64];
	int n = 0;
	bool neg = false;
	unsigned long long u;
	char conv = sp->conv;
	if (conv == 'd' || conv == 'i') {
		long long v;
		switch (ls) {
		case -2: v = (signed char)val; break;
		case -1: v = (short)val; break;
		case 0: v = (int)val; break;
		default: v = (long long)val; break;
		}
		neg = v < 0;
		u = neg ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	} else {
		switch (ls) {
		case -2: u = (unsigned char)val; break;
		case -1: u = (unsigned short)val; break;
		case 0: u = (unsigned int)val; break;
		default: u = val; break;
		}
	}
	/* constant bases: no division instruction per digit */
	if (conv == 'x' || conv == 'X') {
		const char *digits = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
		for (unsigned long long t = u; t; t >>= 4)
			dig[n++] = digits[t & 15];
	} else if (conv == 'o') {
		for (unsigned long long t = u; t; t >>= 3)
			dig[n++] = (char)('0' + (t & 7));
	} else {
		for (unsigned long long t = u; t; t /= 10)
			dig[n++] = (char)('0' + t % 10);
	}
	int prec = sp->prec;
	int zeros = prec > n ? prec - n : 0;
	if (prec < 0 && n == 0)
		zeros = 1; /* "0" */
	if (conv == 'o' && sp->alt && zeros == 0 && (n == 0 || dig[n - 1] != '0'))
		zeros = 1;
	const char *pre = "";
	int prelen = 0;
	if (neg)
		pre = "-", prelen = 1;
	else if ((conv == 'd' || conv == 'i') && sp->plus)
		pre = "+", prelen = 1;
	else if ((conv == 'd' || conv == 'i') && sp->space)
		pre = " ", prelen = 1;
	else if (sp->alt && u && conv == 'x')
		pre = "0x", prelen = 2;
	else if (sp->alt && u && conv == 'X')
		pre = "0X", prelen = 2;
	int body = prelen + zeros + n;
	int w = sp->width > body ? sp->width - body : 0;
	if (tio_buf_reserve(s, (size_t)(body + w)))
		return;
	char *o = s->p + s->len;
	if (!sp->left && !(sp->zero && prec < 0)) {
		memset(o, ' ', (size_t)w);
		o += w;
	}
	memcpy(o, pre, (size_t)prelen);
	o += prelen;
	if (!sp->left && sp->zero && prec < 0) {
		memset(o, '0', (size_t)w);
		o += w;
	}
	memset(o, '0', (size_t)zeros);
	o += zeros;
	while (n)
		*o++ = dig[--n];
	if (sp->left) {
		memset(o, ' ', (size_t)w);
		o += w;
	}
	s->len = (size_t)(o - s->p);
}

static void fmt_str(tio_buf *s, const fspec *sp, const char *str)
{
	size_t l = sp->prec >= 0 ? strnlen(str, (size_t)sp->prec) : strlen(str);
	int w = sp->width > (int)l ? sp->width - (int)l : 0;
	if (!sp->left)
		pad(s, ' ', w);
	tio_buf_add(s, str, l);
	if (sp->left)
		pad(s, ' ', w);
}

static void parse_add(parse **pp, const char *format, int type, arg *a, arg *len_arg, int ls)
{
	parse *p = calloc(1, sizeof(*p));
	if (!p)
		return;
	p->format = strdup(format);
	if (!p->format) {
		free(p);
		return;
	}
	p->type = type;
	p->arg = a;
	p->len_as_arg = len_arg;
	p->ls = ls;
	compile_spec(p);
	*pp = p;
}

static int parse_arg_format_pointer(const char *format)
{
	int ret = 0, index, loop;
	switch (*format) {
	case 'F':
	case 'S':
	case 'f':
	case 's':
		ret++;
		break;
	case 'M':
	case 'm':
		switch (format[1]) {
		case 'R':
		case 'F':
			ret++;
			break;
		}
		ret++;
		break;
	case 'I':
	case 'i':
		index = 2;
		loop = 1;
		switch (format[1]) {
		case 'S':
			while (loop) {
				switch (format[index]) {
				case 'p':
				case 'f':
				case 's':
					ret++;
					index++;
					break;
				default:
					loop = 0;
					break;
				}
			}
			/* fall through */
		case '4':
			switch (format[index]) {
			case 'h':
			case 'n':
			case 'l':
			case 'b':
				ret++;
				index++;
				break;
			}
			if (format[1] == '4') {
				ret++;
				break;
			}
			/* fall through */
		case '6':
			if (format[index] == 'c')
				ret++;
			ret++;
			break;
		}
		ret++;
		break;
	case 'U':
		switch (format[1]) {
		case 'L':
		case 'l':
		case 'B':
		case 'b':
			ret++;
			break;
		}
		ret++;
		break;
	case 'h':
		switch (format[1]) {
		case 'C':
		case 'D':
		case 'N':
			ret++;
			break;
		}
		ret++;
		break;
	default:
		break;
	}
	return ret;
}

static int parse_arg_format(parse **pp, pf_event *e, const char *format, arg **a)
{
	arg *len_arg = NULL;
	char pf[32];
	const char *start = format;
	int ret = 0, ls = 0, res, len;
	format++;
	ret++;
	for (; *format; format++) {
		switch (*format) {
		case '#':
			break;
		case 'h':
			ls--;
			break;
		case 'l':
			ls++;
			break;
		case 'L':
			ls = 2;
			break;
		case 'z':
		case 'Z':
			ls = 1;
			break;
		case '.':
		case '0' ... '9':
		case '-':
			break; /* '+' is no flag there: ">+<" */
		case '*':
			if (!*a || len_arg) {
				e->flags |= EV_FAILED;
				return ret;
			}
			len_arg = *a;
			*a = (*a)->next;
			break;
		case 'p':
			if (!*a) {
				e->flags |= EV_FAILED;
				return ret;
			}
			res = parse_arg_format_pointer(format + 1);
			if (res > 0) {
				format += res;
				ret += res;
			}
			len = (int)(format + 1 - start);
			if (len > 31) {
				e->flags |= EV_FAILED;
				len = 31;
			}
			memcpy(pf, start, (size_t)len);
			pf[len] = 0;
			parse_add(pp, pf, P_POINTER, *a, len_arg, ls);
			*a = (*a)->next;
			ret++;
			return ret;
		case 'd': /* no 'c': libtraceevent 1.7 prints %c as ">c<" and takes no argument */
		case 'u':
		case 'i':
		case 'x':
		case 'X':
		case 'o':
			if (!*a) {
				e->flags |= EV_FAILED;
				return ret;
			}
			len = (int)(format + 1 - start);
			if (len > 30) {
				e->flags |= EV_FAILED;
				len = 30;
			}
			memcpy(pf, start, (size_t)len);
			pf[len] = 0;
			if (ls < -2 || ls > 2)
				e->flags |= EV_FAILED;
			parse_add(pp, pf, P_DIGIT, *a, len_arg, ls);
			*a = (*a)->next;
			ret++;
			return ret;
		case 's':
			if (!*a) {
				e->flags |= EV_FAILED;
				return ret;
			}
			len = (int)(format + 1 - start);
			if (len > 31) {
				e->flags |= EV_FAILED;
				len = 31;
			}
			memcpy(pf, start, (size_t)len);
			pf[len] = 0;
			parse_add(pp, pf, P_ARGSTR, *a, len_arg, 0);
			*a = (*a)->next;
			ret++;
			return ret;
		default:
			snprintf(pf, sizeof(pf), ">%c<", *format);
			parse_add(pp, pf, P_STRING, NULL, NULL, 0);
			ret++;
			return ret;
		}
		ret++;
	}
	return ret;
}

static int parse_arg_string(parse **pp, const char *format)
{
	tio_buf s = {0};
	int ret = 0;
	for (; *format; format++) {
		if (*format == '\\') {
			format++;
			ret++;
			switch (*format) {
			case 'n': tio_buf_addc(&s, '\n'); break;
			case 't': tio_buf_addc(&s, '\t'); break;
			case 'r': tio_buf_addc(&s, '\r'); break;
			case '\\': tio_buf_addc(&s, '\\'); break;
			case 0: format--; ret--; break;
			default: tio_buf_addc(&s, *format); break;
			}
		} else if (*format == '%') {
			if (format[1] == '%') {
				tio_buf_addc(&s, '%');
				format++;
				ret++;
			} else {
				break;
			}
		} else {
			tio_buf_addc(&s, *format);
		}
		ret++;
	}
	parse_add(pp, tio_buf_cstr(&s) ? tio_buf_cstr(&s) : "", P_STRING, NULL, NULL, 0);
	tio_buf_free(&s);
	return ret;
}

static parse *parse_args(pf_event *e, const char *format, arg *a)
{
	parse *ret = NULL, **pp = NULL;
	int len = (int)strlen(format);
	while (*format) {
		if (!ret)
			pp = &ret;
		int r;
		if (*format == '%' && format[1] != '%')
			r = parse_arg_format(pp, e, format, &a);
		else
			r = parse_arg_string(pp, format);
		if (*pp)
			pp = &(*pp)->next;
		len -= r;
		if (len > 0)
			format += r;
		else
			break;
	}
	return ret;
}

/* ---------------------------------------------------------------- event parse */

const char *pf_event_name(const pf_event *e) { return e->name; }

void pf_event_free(pf_event *e)
{
	if (!e)
		return;
	free(e->name);
	free(e->system);
	free_fields(e->common);
	free_fields(e->fields);
	free(e->format);
	free_args(e->args);
	free_parse(e->cache);
	free(e);
}

static char *line_value(const char *text, size_t len, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > kl && !memcmp(p, key, kl)) {
			const char *v = p + kl;
			while (v < nl && isspace((unsigned char)*v))
				v++;
			return strndup(v, (size_t)(nl - v));
		}
		p = nl < end ? nl + 1 : end;
	}
	return NULL;
}

/* The events libtraceevent's kvm plugin registers handlers for. */
static int kvm_handler(const char *system, const char *name)
{
	static const struct {
		const char *system, *name;
		int handler;
	} kvm[] = {
		{"kvm", "kvm_exit", H_KVM_EXIT},
		{"kvm", "kvm_entry", H_KVM_ENTRY},
		{"kvm", "kvm_emulate_insn", H_KVM_EMULATE},
		{"kvm", "kvm_nested_vmexit", H_KVM_NESTED_EXIT},
		{"kvm", "kvm_nested_vmexit_inject", H_KVM_NESTED_INJECT},
		{"kvmmmu", "kvm_mmu_get_page", H_KVM_MMU_GET_PAGE},
		{"kvmmmu", "kvm_mmu_sync_page", H_KVM_MMU_ROLE},
		{"kvmmmu", "kvm_mmu_unsync_page", H_KVM_MMU_ROLE},
		{"kvmmmu", "kvm_mmu_zap_page", H_KVM_MMU_ROLE},
		{"kvmmmu", "kvm_mmu_prepare_zap_page", H_KVM_MMU_ROLE},
	};
	if (strncmp(system, "kvm", 3))
		return H_NONE;
	for (size_t i = 0; i < TIO_ARRAY_LEN(kvm); i++)
		if (!strcmp(system, kvm[i].system) && !strcmp(name, kvm[i].name))
			return kvm[i].handler;
	return H_NONE;
}

pf_event *pf_event_parse(pf_ctx *c, const char *system, const char *text, size_t len)
{
	pf_event *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->ctx = c;
	e->system = strdup(system ? system : "");
	e->name = line_value(text, len, "name:");
	char *id = line_value(text, len, "ID:");
	e->id = id ? atoi(id) : -1;
	free(id);
	if (!e->system || !e->name) {
		pf_event_free(e);
		return NULL;
	}
	if (!strcmp(e->system, "ftrace")) {
		e->flags |= EV_FTRACE;
		if (!strcmp(e->name, "bprint"))
			e->flags |= EV_BPRINT;
	}
	/* tokenize from "format:" */
	const char *f = NULL;
	for (const char *p = text; p < text + len;) {
		const char *nl = memchr(p, '\n', (size_t)(text + len - p));
		if (!nl)
			nl = text + len;
		if (nl - p >= 7 && !memcmp(p, "format:", 7)) {
			f = p;
			break;
		}
		p = nl < text + len ? nl + 1 : text + len;
	}
	if (!strcmp(e->system, "sched") && !strcmp(e->name, "sched_switch"))
		e->handler = H_SCHED_SWITCH;
	else if (!strcmp(e->system, "sched") &&
		 (!strcmp(e->name, "sched_wakeup") || !strcmp(e->name, "sched_wakeup_new")))
		e->handler = H_SCHED_WAKEUP;
	else if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "kernel_stack"))
		e->handler = H_KSTACK;
	else if (!strcmp(e->system, "timer") && !strcmp(e->name, "hrtimer_start"))
		e->handler = H_HRTIMER_START;
	else if (!strcmp(e->system, "timer") && !strcmp(e->name, "hrtimer_expire_entry"))
		e->handler = H_HRTIMER_EXPIRE;
	else if (!strcmp(e->system, "syscalls") && !strcmp(e->name, "sys_enter_futex"))
		e->handler = H_FUTEX;
	else if (!strcmp(e->system, "kmem") &&
		 (!strcmp(e->name, "kfree") || !strcmp(e->name, "kmalloc") ||
		  !strcmp(e->name, "kmalloc_node") || !strcmp(e->name, "kmem_cache_alloc") ||
		  !strcmp(e->name, "kmem_cache_alloc_node") || !strcmp(e->name, "kmem_cache_free")))
		e->handler = H_KMEM;
	else if (!strcmp(e->system, "tlb") && !strcmp(e->name, "tlb_flush"))
		e->handler = H_TLB;
	else if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "function"))
		e->handler = H_FUNCTION;
	else if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "func_repeats"))
		e->handler = H_FUNC_REPEATS;
	else if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "raw_data"))
		e->handler = H_RAW_DATA;
	else if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "funcgraph_entry"))
		e->handler = H_FGRAPH_ENT;
	else if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "funcgraph_exit"))
		e->handler = H_FGRAPH_RET;
	else
		e->handler = kvm_handler(e->system, e->name);
	if (!f) {
		e->flags |= EV_FAILED;
		return e;
	}
	e->in = f;
	e->in_len = (size_t)(text + len - f);
	e->in_pos = 0;
	char *tok;
	if (read_expected(e, TOK_ITEM, "format", false) || read_expected(e, TOK_OP, ":", true) ||
	    read_expect_type(e, TOK_NEWLINE, &tok)) {
		e->flags |= EV_FAILED;
		return e;
	}
	free(tok);
	if (read_fields(e, &e->common) < 0 || read_fields(e, &e->fields) < 0) {
		e->flags |= EV_FAILED;
		return e;
	}
	int r = read_print(e);
	if (r < 0) {
		e->flags |= EV_FAILED;
		return e;
	}
	if (!r && (e->flags & EV_FTRACE)) {
		arg **list = &e->args;
		for (pf_field *fl = e->fields; fl; fl = fl->next) {
			arg *a = alloc_arg();
			if (!a)
				break;
			a->type = A_FIELD;
			a->field.name = strdup(fl->name);
			a->field.field = fl;
			*list = a;
			list = &a->next;
		}
	}
	if (!(e->flags & EV_BPRINT) && e->format)
		e->cache = parse_args(e, e->format, e->args);
	return e;
}

/* ---------------------------------------------------------------- evaluation */

static void dynamic_offset(pf_ctx *c, int fsize, const uint8_t *p, int data_size, unsigned *offset,
			   unsigned *len)
{
	unsigned long long val = read_num(c, p, fsize);
	unsigned o = (unsigned)(val & 0xffff), l;
	if (fsize == 2)
		l = (unsigned)data_size - o;
	else
		l = (unsigned)((val >> 16) & 0xffff);
	if (offset)
		*offset = o > (unsigned)data_size ? 0 : o;
	if (len)
		*len = o + l > (unsigned)data_size ? 0 : l;
}

static void dynamic_offset_field(pf_ctx *c, pf_field *f, const uint8_t *data, int size,
				 unsigned *offset, unsigned *len)
{
	if (f->offset + f->size > size) {
		if (offset)
			*offset = 0;
		if (len)
			*len = 0;
		return;
	}
	dynamic_offset(c, f->size, data + f->offset, size, offset, len);
	if ((f->flags & FF_RELATIVE) && offset)
		*offset += (unsigned)(f->offset + f->size);
}

static bool beyond(int size, int off, int fsize) { return off + fsize > size; }

static unsigned long long test_for_symbol(pf_ctx *c, arg *a)
{
	unsigned long long val = 0;
	if (isdigit((unsigned char)a->atom.atom[0]))
		return 0;
	if (!c->funcs_ready)
		funcs_init(c);
	for (size_t i = 0; i < c->nfuncs; i++) {
		if (!strcmp(a->atom.atom, c->funcs[i].name)) {
			val = c->funcs[i].addr;
			break;
		}
	}
	char *n = xasprintf("%lld", (long long)val);
	if (n) {
		free(a->atom.atom);
		a->atom.atom = n;
	}
	return val;
}

static unsigned long long eval_num_arg(const uint8_t *data, int size, pf_event *e, arg *a)
{
	pf_ctx *c = e->ctx;
	unsigned long long val = 0, left, right;
	arg *typearg = NULL, *larg;
	unsigned offset = 0, field_size;
	switch (a->type) {
	case A_NULL:
		return 0;
	case A_ATOM:
		/* the parse is final by now: the value never changes, so compute it once */
		if (TIO_LIKELY(a->ready))
			return a->cval;
		val = strtoull(a->atom.atom, NULL, 0);
		if (!val)
			val = test_for_symbol(c, a);
		a->cval = val;
		a->ready = true;
		return val;
	case A_FIELD:
		if (!a->field.field) {
			a->field.field = find_any_field(e, a->field.name);
			if (!a->field.field)
				return 0;
		}
		if (beyond(size, a->field.field->offset, a->field.field->size))
			return 0;
		return read_num(c, data + a->field.field->offset, a->field.field->size);
	case A_FLAGS:
	case A_SYMBOL:
	case A_INT_ARRAY:
	case A_HEX:
	case A_HEX_STR:
		break;
	case A_TYPE:
		val = eval_num_arg(data, size, e, a->typecast.item);
		return type_cast(a, val);
	case A_STRING:
	case A_BSTRING:
	case A_BITMASK:
	case A_CPUMASK:
		return 0;
	case A_OP:
		if (TIO_UNLIKELY(!a->code))
			a->code = op_code(a->op.op);
		if (a->code == OPC_INDEX) {
			right = eval_num_arg(data, size, e, a->op.right);
			larg = a->op.left;
			while (larg->type == A_TYPE) {
				if (!typearg)
					typearg = larg;
				larg = larg->typecast.item;
			}
			field_size = (unsigned)c->long_size;
			switch (larg->type) {
			case A_DYNARRAY:
				dynamic_offset_field(c, larg->dynarray.field, data, size, &offset, NULL);
				offset += (unsigned)right;
				if (larg->dynarray.field->elementsize)
					field_size = (unsigned)larg->dynarray.field->elementsize;
				break;
			case A_FIELD:
				if (!larg->field.field) {
					larg->field.field = find_any_field(e, larg->field.name);
					if (!larg->field.field)
						return 0;
				}
				field_size = (unsigned)larg->field.field->elementsize;
				offset = (unsigned)(larg->field.field->offset +
						    (long long)right * larg->field.field->elementsize);
				break;
			default:
				goto default_op;
			}
			if (beyond(size, (int)offset, (int)field_size))
				return 0;
			val = read_num(c, data + offset, (int)field_size);
			if (typearg)
				val = eval_type_str(val, typearg->typecast.type, 1);
			break;
		} else if (a->code == OPC_COND) {
			left = eval_num_arg(data, size, e, a->op.left);
			a = a->op.right;
			if (!a)
				return 0;
			if (left)
				val = eval_num_arg(data, size, e, a->op.left);
			else
				val = eval_num_arg(data, size, e, a->op.right);
			break;
		}
	default_op:
		left = eval_num_arg(data, size, e, a->op.left);
		right = eval_num_arg(data, size, e, a->op.right);
		switch (a->code) {
		case OPC_NOT: val = !right; break;
		case OPC_NE: val = left != right; break;
		case OPC_BNOT: val = ~right; break;
		case OPC_LOR: val = left || right; break;
		case OPC_BOR: val = left | right; break;
		case OPC_LAND: val = left && right; break;
		case OPC_BAND: val = left & right; break;
		case OPC_LT: val = left < right; break;
		case OPC_SHL: val = left << (right & 63); break; /* the count modulo 64, as on x86-64 */
		case OPC_LE: val = left <= right; break;
		case OPC_GT: val = left > right; break;
		case OPC_SHR: val = left >> (right & 63); break;
		case OPC_GE: val = left >= right; break;
		case OPC_EQ: val = left == right; break;
		case OPC_SUB: val = left - right; break;
		case OPC_ADD: val = left + right; break;
		case OPC_DIV: val = right ? left / right : 0; break;
		case OPC_MOD: val = right ? left % right : 0; break;
		case OPC_MUL: val = left * right; break;
		default: return 0;
		}
		break;
	case A_DYNARRAY_LEN:
		dynamic_offset_field(c, a->dynarray.field, data, size, NULL, &field_size);
		val = field_size;
		break;
	case A_DYNARRAY:
		dynamic_offset_field(c, a->dynarray.field, data, size, &offset, NULL);
		val = (unsigned long)(uintptr_t)(data + offset);
		break;
	default:
		return 0;
	}
	return val;
}

static const struct {
	const char *name;
	long long value;
} known_flags[] = {
	{"HI_SOFTIRQ", 0},	    {"TIMER_SOFTIRQ", 1},     {"NET_TX_SOFTIRQ", 2},
	{"NET_RX_SOFTIRQ", 3},	    {"BLOCK_SOFTIRQ", 4},     {"IRQ_POLL_SOFTIRQ", 5},
	{"TASKLET_SOFTIRQ", 6},	    {"SCHED_SOFTIRQ", 7},     {"HRTIMER_SOFTIRQ", 8},
	{"RCU_SOFTIRQ", 9},	    {"HRTIMER_NORESTART", 0}, {"HRTIMER_RESTART", 1},
};

static long long eval_flag(const char *flag)
{
	if (isdigit((unsigned char)flag[0]))
		return (long long)strtoull(flag, NULL, 0);
	for (size_t i = 0; i < TIO_ARRAY_LEN(known_flags); i++)
		if (!strcmp(known_flags[i].name, flag))
			return known_flags[i].value;
	return -1LL;
}

/* printf of a string through a format from the file ("%s", "%-10s", "%.*s"...). */
static const fspec *g_spec; /* set around print_str_arg calls (single-threaded sink) */
static void print_str_to_seq(tio_buf *s, const char *format, int len_arg, const char *str)
{
	if (g_spec && len_arg < 0) {
		fmt_str(s, g_spec, str);
		return;
	}
	/* a '*' takes its argument whatever its value (a record's can be negative) */
	if (strchr(format, '*'))
		tio_buf_addf(s, format, len_arg, str);
	else
		tio_buf_addf(s, format, str);
}

static void print_bitmask_to_seq(pf_ctx *c, tio_buf *s, const char *format, int len_arg,
				 const uint8_t *data, int size)
{
	int nr_bits = size * 8;
	int str_size = (nr_bits + 3) / 4;
	int len = 0;
	if (size <= 0) {
		print_str_to_seq(s, format, len_arg, "");
		return;
	}
	str_size += (nr_bits - 1) / 32;
	char *str = malloc((size_t)str_size + 1);
	if (!str)
		return;
	str[str_size] = 0;
	for (int i = str_size - 2; i >= 0; i -= 2) {
		int index = c->be ? size - (len + 1) : len;
		char buf[3];
		snprintf(buf, 3, "%02x", data[index]);
		memcpy(str + i, buf, 2);
		len++;
		if (!(len & 3) && i > 0) {
			i--;
			str[i] = ',';
		}
	}
	print_str_to_seq(s, format, len_arg, str);
	free(str);
}

static void print_cpumask_to_seq(pf_ctx *c, tio_buf *s, const char *format, int len_arg,
				 const uint8_t *data, int size)
{
	tio_buf str = {0};
	int firstone = -1, firstzero = -1, nr_bits = size * 8;
	bool first = true;
	for (int i = 0; i < size; i++) {
		int index = c->be ? size - (i + 1) : i;
		unsigned byte = data[index];
	more:
		if (firstone < 0 && byte) {
			firstone = ffs((int)byte) - 1;
			byte |= (1u << firstone) - 1;
			firstone += i * 8;
		}
		if (firstone < 0)
			continue;
		if ((~byte) & 0xff) {
			firstzero = ffs((int)(~byte & 0xff)) - 1;
			byte &= ~((1u << firstzero) - 1);
			firstzero += i * 8;
		} else if (i == size - 1) {
			firstzero = nr_bits;
			byte = 0;
		} else {
			continue;
		}
		if (!first)
			tio_buf_addc(&str, ',');
		first = false;
		tio_buf_addf(&str, "%d", firstone);
		if (firstzero > firstone + 1)
			tio_buf_addf(&str, "-%d", firstzero - 1);
		firstone = -1;
		if (byte)
			goto more;
	}
	print_str_to_seq(s, format, len_arg, tio_buf_cstr(&str) ? tio_buf_cstr(&str) : "");
	tio_buf_free(&str);
}

static void print_str_arg(tio_buf *s, const uint8_t *data, int size, pf_event *e,
			  const char *format, int len_arg, arg *a)
{
	pf_ctx *c = e->ctx;
	pf_field *f;
	unsigned offset, len;
	long long val, fval;
	switch (a->type) {
	case A_NULL:
		return;
	case A_ATOM:
		print_str_to_seq(s, format, len_arg, a->atom.atom);
		return;
	case A_FIELD: {
		f = a->field.field;
		if (!f) {
			f = find_any_field(e, a->field.name);
			if (!f)
				return;
			a->field.field = f;
		}
		len = f->size ? (unsigned)f->size : (unsigned)(size - f->offset);
		if (!(f->flags & FF_ARRAY) && f->size == c->long_size) {
			unsigned long long addr = 0;
			if (f->offset + f->size <= size) {
				if (c->long_size == 8)
					memcpy(&addr, data + f->offset, 8);
				else {
					uint32_t v32;
					memcpy(&v32, data + f->offset, 4);
					addr = v32;
				}
			}
			const printk_ent *pk = find_printk(c, addr);
			if (pk)
				seq_puts(s, pk->fmt);
			else
				seq_printf(s, "%llx", addr);
			break;
		}
		if (f->offset > size || (int)len > size - f->offset || (int)len < 0) {
			/* past the record: libtraceevent reads garbage; print nothing safer */
			len = f->offset < size ? (unsigned)(size - f->offset) : 0;
		}
		char *str = malloc(len + 1);
		if (!str)
			return;
		memcpy(str, data + f->offset, len);
		str[len] = 0;
		print_str_to_seq(s, format, len_arg, str);
		free(str);
		break;
	}
	case A_FLAGS: {
		val = (long long)eval_num_arg(data, size, e, a->flags.field);
		int print = 0;
		flag_sym *fl;
		for (fl = a->flags.flags; fl; fl = fl->next) {
			fval = eval_flag(fl->value);
			if (!val && fval < 0) {
				print_str_to_seq(s, format, len_arg, fl->str);
				break;
			}
			if (fval > 0 && (val & fval) == fval) {
				if (print && a->flags.delim)
					seq_puts(s, a->flags.delim);
				print_str_to_seq(s, format, len_arg, fl->str);
				print = 1;
				val &= ~fval;
			}
		}
		if (val) {
			if (print && a->flags.delim)
				seq_puts(s, a->flags.delim);
			seq_printf(s, "0x%llx", (unsigned long long)val);
		}
		break;
	}
	case A_SYMBOL: {
		val = (long long)eval_num_arg(data, size, e, a->symbol.field);
		flag_sym *fl;
		for (fl = a->symbol.symbols; fl; fl = fl->next) {
			fval = eval_flag(fl->value);
			if (val == fval) {
				print_str_to_seq(s, format, len_arg, fl->str);
				break;
			}
		}
		if (!fl)
			seq_printf(s, "0x%llx", (unsigned long long)val);
		break;
	}
	case A_HEX:
	case A_HEX_STR: {
		const uint8_t *hex;
		unsigned avail;
		if (a->hex.field->type == A_DYNARRAY) {
			dynamic_offset_field(c, a->hex.field->dynarray.field, data, size, &offset, NULL);
			hex = data + offset;
			avail = (unsigned)size - offset;
		} else {
			if (a->hex.field->type != A_FIELD)
				return; /* e.g. a constant expression folded to an atom */
			f = a->hex.field->field.field;
			if (!f) {
				f = find_any_field(e, a->hex.field->field.name);
				if (!f)
					return;
				a->hex.field->field.field = f;
			}
			if (f->offset > size)
				return;
			hex = data + f->offset;
			avail = (unsigned)(size - f->offset);
		}
		len = (unsigned)eval_num_arg(data, size, e, a->hex.size);
		if (len > avail)
			len = avail;
		for (unsigned i = 0; i < len; i++) {
			if (i && a->type == A_HEX)
				seq_putc(s, ' ');
			seq_printf(s, "%02x", hex[i]);
		}
		break;
	}
	case A_INT_ARRAY: {
		const uint8_t *num;
		unsigned avail;
		if (a->int_array.field->type == A_DYNARRAY) {
			dynamic_offset_field(c, a->int_array.field->dynarray.field, data, size, &offset, NULL);
			num = data + offset;
			avail = (unsigned)size - offset;
		} else {
			if (a->int_array.field->type != A_FIELD)
				return; /* e.g. a constant expression folded to an atom */
			f = a->int_array.field->field.field;
			if (!f) {
				f = find_any_field(e, a->int_array.field->field.name);
				if (!f)
					return;
				a->int_array.field->field.field = f;
			}
			if (f->offset > size)
				return;
			num = data + f->offset;
			avail = (unsigned)(size - f->offset);
		}
		len = (unsigned)eval_num_arg(data, size, e, a->int_array.count);
		int el = (int)eval_num_arg(data, size, e, a->int_array.el_size);
		/* libtraceevent 1.7: unsigned decimals in host order, one space between, no braces
		   (not the kernel's "{0x..,..}"); checked against trace-cmd 3.1.6 */
		unsigned used = 0;
		for (unsigned i = 0; i < len; i++) {
			int es = (el == 1 || el == 2 || el == 4 || el == 8) ? el : 1;
			if (used + (unsigned)es > avail)
				break;
			if (i)
				seq_putc(s, ' ');
			if (el == 1) {
				tio_buf_addu(s, num[0]);
			} else if (el == 2) {
				uint16_t v;
				memcpy(&v, num, 2);
				tio_buf_addu(s, v);
			} else if (el == 4) {
				uint32_t v;
				memcpy(&v, num, 4);
				tio_buf_addu(s, v);
			} else if (el == 8) {
				uint64_t v;
				memcpy(&v, num, 8);
				tio_buf_addu(s, v);
			} else {
				seq_printf(s, "BAD SIZE:%d 0x%x", el, num[0]);
			}
			num += es;
			used += (unsigned)es;
		}
		break;
	}
	case A_TYPE:
		break;
	case A_STRING: {
		if (!a->string.field) {
			a->string.field = find_any_field(e, a->string.string);
			if (!a->string.field)
				break;
		}
		dynamic_offset_field(c, a->string.field, data, size, &offset, &len);
		if (!len)
			break;
		/* the string is NUL-terminated inside the record; bound it anyway */
		char *str = strndup((const char *)data + offset, (size_t)size - offset);
		if (str) {
			print_str_to_seq(s, format, len_arg, str);
			free(str);
		}
		break;
	}
	case A_BSTRING:
		print_str_to_seq(s, format, len_arg, a->string.string);
		break;
	case A_BITMASK:
	case A_CPUMASK:
		if (!a->string.field) {
			a->string.field = find_any_field(e, a->string.string);
			if (!a->string.field)
				break;
		}
		dynamic_offset_field(c, a->string.field, data, size, &offset, &len);
		if (a->type == A_BITMASK)
			print_bitmask_to_seq(c, s, format, len_arg, data + offset, (int)len);
		else
			print_cpumask_to_seq(c, s, format, len_arg, data + offset, (int)len);
		break;
	case A_OP:
		if (a->op.op[0] != '?')
			return;
		val = (long long)eval_num_arg(data, size, e, a->op.left);
		if (!a->op.right)
			return;
		if (val)
			print_str_arg(s, data, size, e, format, len_arg, a->op.right->op.left);
		else
			print_str_arg(s, data, size, e, format, len_arg, a->op.right->op.right);
		break;
	default:
		break;
	}
}

static void print_function(tio_buf *s, const char *format, const uint8_t *data, int size,
			   pf_event *e, arg *a, bool raw)
{
	unsigned long long val = eval_num_arg(data, size, e, a);
	const func_ent *f = find_func(e->ctx, val);
	if (f) {
		seq_puts(s, f->name);
		if (*format == 'F' || *format == 'S')
			seq_printf(s, "+0x%llx", val - f->addr);
	}
	(void)raw; /* libtraceevent 1.7 prints the same in raw mode */
	if (!f) {
		if (e->ctx->long_size == 4)
			seq_printf(s, "0x%lx", (unsigned long)val);
		else
			seq_printf(s, "0x%llx", val);
	}
}

/*
 * An argument's type as libtraceevent 1.7 numbers it (enum
 * tep_print_arg_type), for "ARG TYPE NOT FIELD BUT N": this file's enum
 * orders them otherwise.  A plugin function kept as an operation is its
 * TEP_PRINT_FUNC.
 */
static int tep_type_num(const arg *a)
{
	switch (a->type) {
	case A_NULL: return 0;
	case A_ATOM: return 1;
	case A_FIELD: return 2;
	case A_FLAGS: return 3;
	case A_SYMBOL: return 4;
	case A_HEX: return 5;
	case A_INT_ARRAY: return 6;
	case A_TYPE: return 7;
	case A_STRING: return 8;
	case A_BSTRING: return 9;
	case A_DYNARRAY: return 10;
	case A_OP: return a->func ? 12 : 11;
	case A_BITMASK: return 13;
	case A_DYNARRAY_LEN: return 14;
	case A_HEX_STR: return 15;
	case A_CPUMASK: return 16;
	}
	return (int)a->type;
}

/*
 * The field a %pM/%pI/%pU argument names, typecasts skipped: NULL after
 * printing "ARG TYPE NOT FIELD BUT N" for another kind of argument, or
 * nothing when the event has no such field.
 */
static pf_field *pointer_field(tio_buf *s, pf_event *e, arg *a)
{
	while (a->type == A_TYPE)
		a = a->typecast.item;
	if (a->type != A_FIELD) {
		seq_printf(s, "ARG TYPE NOT FIELD BUT %d", tep_type_num(a));
		return NULL;
	}
	if (!a->field.field)
		a->field.field = find_any_field(e, a->field.name);
	return a->field.field;
}

static void print_mac_arg(tio_buf *s, const char *format, const uint8_t *data, int size,
			  pf_event *e, arg *a)
{
	const char *fmt = "%.2x:%.2x:%.2x:%.2x:%.2x:%.2x";
	bool reverse = false;
	pf_field *f = pointer_field(s, e, a);
	if (!f)
		return;
	if (format[0] == 'm')
		fmt = "%.2x%.2x%.2x%.2x%.2x%.2x";
	else if (format[0] == 'M' && format[1] == 'F')
		fmt = "%.2x-%.2x-%.2x-%.2x-%.2x-%.2x";
	if (format[1] == 'R')
		reverse = true;
	if (f->size != 6 || f->offset + 6 > size) {
		seq_puts(s, "INVALIDMAC");
		return;
	}
	const uint8_t *b = data + f->offset;
	if (reverse)
		tio_buf_addf(s, fmt, b[5], b[4], b[3], b[2], b[1], b[0]);
	else
		tio_buf_addf(s, fmt, b[0], b[1], b[2], b[3], b[4], b[5]);
}

/*
 * %pU of a 16-byte field: 8-4-4-4-12 hex digits, upper case for B/L, the
 * first three groups byte-swapped for l/L (little-endian UUIDs); another
 * size is "INVALIDUUID".
 */
static void print_uuid_arg(tio_buf *s, const char *format, const uint8_t *data, int size,
			   pf_event *e, arg *a)
{
	static const uint8_t be[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
	static const uint8_t le[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
	const char *hex = format[1] == 'B' || format[1] == 'L' ? "0123456789ABCDEF" : "0123456789abcdef";
	const uint8_t *order = format[1] == 'l' || format[1] == 'L' ? le : be;
	pf_field *f = pointer_field(s, e, a);
	if (!f)
		return;
	if (f->size != 16 || beyond(size, f->offset, 16)) {
		seq_puts(s, "INVALIDUUID");
		return;
	}
	const uint8_t *b = data + f->offset;
	for (int k = 0; k < 16; k++) {
		seq_putc(s, hex[b[order[k]] >> 4]);
		seq_putc(s, hex[b[order[k]] & 15]);
		if (k == 3 || k == 5 || k == 7 || k == 9)
			seq_putc(s, '-');
	}
}

static void print_ip4(tio_buf *s, char i, bool reverse, const uint8_t *b)
{
	const char *fmt = i == 'i' ? "%03d.%03d.%03d.%03d" : "%d.%d.%d.%d";
	if (reverse)
		tio_buf_addf(s, fmt, b[3], b[2], b[1], b[0]);
	else
		tio_buf_addf(s, fmt, b[0], b[1], b[2], b[3]);
}

/* %pI6c: RFC 5952-style compressed IPv6 (the kernel's and libtraceevent's rules). */
static void print_ip6c(tio_buf *s, const uint8_t *b)
{
	uint16_t w[8];
	for (int k = 0; k < 8; k++)
		w[k] = (uint16_t)(b[2 * k] << 8 | b[2 * k + 1]);
	bool v4mapped = !w[0] && !w[1] && !w[2] && !w[3] && !w[4] && w[5] == 0xffff;
	bool isatap = (b[8] | 0x02) == 0x02 && !b[9] && b[10] == 0x5e && b[11] == 0xfe;
	bool use4 = v4mapped || isatap;
	int range = use4 ? 6 : 8, longest = 1, colonpos = -1;
	for (int i = 0; i < range; i++) {
		int z = 0;
		for (int j = i; j < range && !w[j]; j++)
			z++;
		if (z > longest) {
			longest = z;
			colonpos = i;
		}
	}
	bool needcolon = false;
	for (int i = 0; i < range; i++) {
		if (i == colonpos) {
			if (needcolon || i == 0)
				tio_buf_addc(s, ':');
			tio_buf_addc(s, ':');
			needcolon = false;
			i += longest - 1;
			continue;
		}
		if (needcolon)
			tio_buf_addc(s, ':');
		tio_buf_addx(s, w[i], false);
		needcolon = true;
	}
	if (use4) {
		if (needcolon)
			tio_buf_addc(s, ':');
		print_ip4(s, 'I', false, b + 12);
	}
}

static void print_ip6(tio_buf *s, char i, bool compressed, const uint8_t *b)
{
	if (compressed) {
		print_ip6c(s, b);
		return;
	}
	for (int j = 0; j < 16; j += 2) {
		seq_printf(s, "%02x%02x", b[j], b[j + 1]);
		if (i == 'I' && j < 14)
			seq_putc(s, ':');
	}
}

/*
 * %pI4/%pi4 [hnlb], %pI6/%pi6, %pI6c, %pIS[p][c][hnlb] (a struct sockaddr
 * field: family 2 = IPv4 "a.b.c.d[:port]", 10 = IPv6 "[addr]:port" with p,
 * nothing for another family), as libtraceevent 1.7 prints them.
 */
static void print_ip_arg(tio_buf *s, const char *ptr, const uint8_t *data, int size, pf_event *e,
			 arg *a)
{
	char i = *ptr++;
	char ver = *ptr++;
	bool have_p = false, have_c = false, reverse = false;
	if (ver != '4' && ver != '6' && ver != 'S')
		return;
	if (ver == '6' && i == 'I' && *ptr == 'c')
		have_c = true;
	if (ver == 'S' && i == 'I') {
		if (*ptr == 'p') {
			have_p = true;
			ptr++;
		}
		if (*ptr == 'c') {
			have_c = true;
			ptr++;
		}
	}
	if (ver != '6') {
		switch (*ptr) {
		case 'h': reverse = !e->ctx->be; break;
		case 'l': reverse = true; break;
		}
	}
	pf_field *f = pointer_field(s, e, a);
	if (!f)
		return;
	const uint8_t *b = data + f->offset;
	if (ver == '4') {
		if (f->size != 4 || f->offset + 4 > size) {
			seq_puts(s, "INVALIDIPv4");
			return;
		}
		print_ip4(s, i, reverse, b);
		return;
	}
	if (ver == '6') {
		if (f->size != 16 || f->offset + 16 > size) {
			seq_puts(s, "INVALIDIPv6");
			return;
		}
		print_ip6(s, i, have_c, b);
		return;
	}
	if (f->size < 2 || f->offset + 2 > size)
		return;
	/* sa_family as libtraceevent reads it: in the host's byte order, not the
	   file's (a big-endian file read here gives what trace-cmd shows) */
	uint16_t family;
	memcpy(&family, b, sizeof(family));
	if (family == 2) { /* sockaddr_in: family, port (network order), address */
		if (f->size < 16 || f->offset + 16 > size) {
			seq_puts(s, "INVALIDIPv4");
			return;
		}
		print_ip4(s, i, reverse, b + 4);
		if (have_p)
			seq_printf(s, ":%d", b[2] << 8 | b[3]);
	} else if (family == 10) { /* sockaddr_in6: family, port, flowinfo, address, scope */
		if (f->size < 28 || f->offset + 28 > size) {
			seq_puts(s, "INVALIDIPv6");
			return;
		}
		if (have_p)
			seq_putc(s, '[');
		print_ip6(s, i, have_c, b + 8);
		if (have_p)
			seq_printf(s, "]:%d", b[2] << 8 | b[3]);
	}
}

static void print_arg_pointer(tio_buf *s, const char *format, int plen, const uint8_t *data,
			      int size, pf_event *e, arg *a, bool raw)
{
	if (a->type == A_BSTRING) {
		seq_puts(s, a->string.string);
		return;
	}
	while (*format) {
		if (*format == 'p') {
			format++;
			break;
		}
		format++;
	}
	switch (*format) {
	case 'F':
	case 'f':
	case 'S':
	case 's':
		print_function(s, format, data, size, e, a, raw);
		break;
	case 'M':
	case 'm':
		print_mac_arg(s, format, data, size, e, a);
		break;
	case 'I':
	case 'i':
		print_ip_arg(s, format, data, size, e, a);
		break;
	case 'U':
		print_uuid_arg(s, format, data, size, e, a);
		break;
	case 'h': {
		unsigned offset, arr_len;
		const char *delim = " ";
		if (format[1] == 'C')
			delim = ":";
		else if (format[1] == 'D')
			delim = "-";
		else if (format[1] == 'N')
			delim = "";
		if (a->type != A_DYNARRAY) {
			seq_printf(s, "ARG TYPE NOT FIELD BUT %d", tep_type_num(a));
			break;
		}
		dynamic_offset_field(e->ctx, a->dynarray.field, data, size, &offset, &arr_len);
		int pl = plen;
		if ((int)arr_len < pl)
			pl = (int)arr_len;
		if (pl < 1)
			break;
		seq_printf(s, "%02x", data[offset]);
		for (int k = 1; k < pl; k++)
			seq_printf(s, "%s%02x", delim, data[offset + (unsigned)k]);
		break;
	}
	default: {
		unsigned long long val = eval_num_arg(data, size, e, a);
		seq_printf(s, "%p", (void *)(uintptr_t)val);
		break;
	}
	}
}

/* Only formats made of printf flag/width/length chars and one conversion reach printf. */
static bool safe_format(const char *f, const char *convs)
{
	if (*f != '%')
		return false;
	int stars = 0;
	for (f++; *f; f++) {
		if (strchr("#-+ 0123456789.hlLzZ", *f))
			continue;
		if (*f == '*') {
			stars++;
			continue;
		}
		return strchr(convs, *f) && !f[1] && stars <= 1;
	}
	return false;
}

static void print_arg_number(tio_buf *s, const char *format, int plen, const uint8_t *data,
			     int size, int ls, pf_event *e, arg *a, const fspec *sp)
{
	unsigned long long val = eval_num_arg(data, size, e, a);
	char fmt[40];
	if (sp && sp->ok) {
		fmt_int(s, sp, ls, val);
		return;
	}
	/* normalize the length modifiers to what we pass (glibc reads %L/%z as long long/long) */
	if (!safe_format(format, "diuxXo")) {
		seq_puts(s, format);
		return;
	}
	snprintf(fmt, sizeof(fmt), "%s", format);
	bool star = strchr(fmt, '*') != NULL;
	switch (ls) {
	case -2:
		if (star) tio_buf_addf(s, fmt, plen, (char)val);
		else tio_buf_addf(s, fmt, (char)val);
		break;
	case -1:
		if (star) tio_buf_addf(s, fmt, plen, (short)val);
		else tio_buf_addf(s, fmt, (short)val);
		break;
	case 0:
		if (star) tio_buf_addf(s, fmt, plen, (int)val);
		else tio_buf_addf(s, fmt, (int)val);
		break;
	case 1:
		if (star) tio_buf_addf(s, fmt, plen, (long)val);
		else tio_buf_addf(s, fmt, (long)val);
		break;
	case 2:
		if (star) tio_buf_addf(s, fmt, plen, (long long)val);
		else tio_buf_addf(s, fmt, (long long)val);
		break;
	default:
		e->flags |= EV_FAILED;
	}
}

static void print_parse_data(parse *p, tio_buf *s, const uint8_t *data, int size, pf_event *e,
			     bool raw)
{
	int len_arg = -1;
	if (p->len_as_arg) {
		/* from the record: a width or precision of at most 65536 either way
		   (printf would make gigabytes of padding out of a hostile one) */
		int v = (int)eval_num_arg(data, size, e, p->len_as_arg); /* an int, as printf takes it */
		len_arg = v > 65536 ? 65536 : v < -65536 ? -65536 : v;
	}
	switch (p->type) {
	case P_DIGIT:
		if (!p->safe) {
			seq_puts(s, p->format);
			break;
		}
		print_arg_number(s, p->format, p->len_as_arg ? len_arg : -1, data, size, p->ls, e, p->arg,
				 &p->sp);
		break;
	case P_POINTER:
		print_arg_pointer(s, p->format, p->len_as_arg ? len_arg : 1, data, size, e, p->arg, raw);
		break;
	case P_ARGSTR:
		if (!p->safe) {
			seq_puts(s, p->format);
			break;
		}
		g_spec = p->sp.ok && !p->len_as_arg ? &p->sp : NULL;
		print_str_arg(s, data, size, e, p->format, p->len_as_arg ? len_arg : -1, p->arg);
		g_spec = NULL;
		break;
	default:
		seq_puts(s, p->format);
		break;
	}
}

static bool is_printable_array(const uint8_t *p, unsigned len)
{
	for (unsigned i = 0; i < len && p[i]; i++)
		if (!isprint(p[i]) && !isspace(p[i]))
			return false;
	return true;
}

static void print_field_raw(tio_buf *s, const uint8_t *data, int size, pf_event *e, pf_field *f)
{
	pf_ctx *c = e->ctx;
	unsigned offset, len;
	if (f->flags & FF_ARRAY) {
		if (f->flags & FF_DYNAMIC) {
			dynamic_offset_field(c, f, data, size, &offset, &len);
		} else {
			offset = (unsigned)f->offset;
			len = (unsigned)f->size;
			size = e->cap; /* static arrays are read whole, past a short record */
		}
		if (offset > (unsigned)size)
			offset = (unsigned)size, len = 0;
		if (len > (unsigned)size - offset)
			len = (unsigned)size - offset;
		if ((f->flags & FF_STRING) && is_printable_array(data + offset, len)) {
			size_t l = strnlen((const char *)data + offset, (size_t)size - offset);
			tio_buf_add(s, data + offset, l);
		} else {
			seq_puts(s, "ARRAY[");
			for (unsigned i = 0; i < len; i++) {
				if (i)
					seq_puts(s, ", ");
				seq_printf(s, "%02x", data[offset + i]);
			}
			seq_putc(s, ']');
			f->flags &= ~(unsigned)FF_STRING;
		}
		return;
	}
	unsigned long long val = beyond(size, f->offset, f->size) ? 0 : read_num(c, data + f->offset, f->size);
	if (f->flags & FF_POINTER) {
		seq_printf(s, "0x%llx", val);
	} else if (f->flags & FF_SIGNED) {
		switch (f->size) {
		case 4:
			if (f->flags & FF_LONG)
				seq_printf(s, "0x%x", (int)val);
			else
				seq_printf(s, "%d", (int)val);
			break;
		case 2:
			seq_printf(s, "%2d", (short)val);
			break;
		case 1:
			seq_printf(s, "%1d", (char)val);
			break;
		default:
			seq_printf(s, "%lld", (long long)val);
		}
	} else {
		if (f->flags & FF_LONG)
			seq_printf(s, "0x%llx", val);
		else
			seq_printf(s, "%llu", val);
	}
}

static void print_field(tio_buf *s, const uint8_t *data, int size, pf_event *e, pf_field *f,
			parse **pp, bool raw)
{
	parse *p = pp ? *pp : e->cache;
	bool has_0x = false;
	if (!p || (e->flags & EV_FAILED))
		goto out;
	if (f->flags & (FF_ARRAY | FF_STRING))
		goto out;
	parse *start = p;
	do {
		if (p->type == P_STRING) {
			size_t len = strlen(p->format);
			has_0x = len > 1 && !strcmp(p->format + len - 2, "0x");
			goto next;
		}
		arg *a = p->arg;
		while (a && a->type == A_TYPE)
			a = a->typecast.item;
		if (!a || a->type != A_FIELD || a->field.field != f) {
			has_0x = false;
			goto next;
		}
		if (has_0x)
			seq_puts(s, "0x");
		print_parse_data(p, s, data, size, e, raw);
		if (pp)
			*pp = p->next;
		return;
	next:
		p = p->next ? p->next : e->cache;
	} while (p != start);
out:
	print_field_raw(s, data, size, e, f);
}

static void print_fields(tio_buf *s, const uint8_t *data, int size, pf_event *e, bool raw)
{
	parse *p = e->cache;
	for (pf_field *f = e->fields; f; f = f->next) {
		seq_printf(s, " %s=", f->name);
		print_field(s, data, size, e, f, &p, raw);
	}
}

/* ---------------------------------------------------------------- bprint */

static arg *make_bprint_args(const char *fmt, const uint8_t *data, int size, pf_event *e)
{
	pf_ctx *c = e->ctx;
	pf_field *field = e->bp_buf, *ip_field = e->bp_ip;
	if (!field) {
		field = find_field(e, "buf");
		ip_field = find_field(e, "ip");
		if (!field || !ip_field)
			return NULL;
		e->bp_buf = field;
		e->bp_ip = ip_field;
	}
	unsigned long long ip = beyond(size, ip_field->offset, ip_field->size)
					? 0 : read_num(c, data + ip_field->offset, ip_field->size);
	arg *args = alloc_arg(), **next;
	if (!args)
		return NULL;
	args->type = A_ATOM;
	args->atom.atom = xasprintf("%lld", (long long)ip);
	if (!args->atom.atom) {
		free(args);
		return NULL;
	}
	next = &args->next;
	const uint8_t *bptr = data + field->offset, *end = data + size;
	if (strlen(fmt) < 5)
		return args;
	for (const char *ptr = fmt + 5; bptr < end && *ptr; ptr++) {
		int ls = 0, vsize = 0;
		if (*ptr != '%')
			continue;
	process_again:
		ptr++;
		switch (*ptr) {
		case '%':
			break;
		case 'l':
			ls++;
			goto process_again;
		case 'L':
			ls = 2;
			goto process_again;
		case '0' ... '9':
		case '.':
		case '#':
		case '+':
			goto process_again;
		case 'z':
		case 'Z':
			ls = 1;
			goto process_again;
		case 'p':
			ls = 1;
			if (isalnum((unsigned char)ptr[1])) {
				ptr++;
				switch (*ptr) {
				case 's':
				case 'S':
				case 'x':
					break;
				case 'f':
				case 'F':
					if (ptr[1] != 'w')
						break;
					/* fall through */
				default:
					if (isprint(*bptr))
						goto process_string;
				}
			}
			/* fall through */
		case 'd':
		case 'u':
		case 'i':
		case 'x':
		case 'X':
		case 'o':
			switch (ls) {
			case 0: vsize = 4; break;
			case 1: vsize = c->long_size; break;
			case 2: vsize = 8; break;
			default: vsize = ls; break;
			}
			/* fall through */
		case '*':
			if (*ptr == '*')
				vsize = 4;
			{
				/* the pointers are always 4 bytes aligned (relative to the record) */
				uintptr_t o = (uintptr_t)(bptr - data);
				o = (o + 3) & ~(uintptr_t)3;
				bptr = data + o;
			}
			if (bptr + vsize > end)
				return args;
			unsigned long long val = read_num(c, bptr, vsize);
			bptr += vsize;
			arg *a = alloc_arg();
			if (!a)
				goto out_free;
			a->type = A_ATOM;
			a->atom.atom = xasprintf("%lld", (long long)val);
			if (!a->atom.atom) {
				free(a);
				goto out_free;
			}
			*next = a;
			next = &a->next;
			if (*ptr == '*')
				goto process_again;
			break;
		case 's':
		process_string: {
			arg *sa = alloc_arg();
			if (!sa)
				goto out_free;
			sa->type = A_BSTRING;
			sa->string.string = strndup((const char *)bptr, (size_t)(end - bptr));
			if (!sa->string.string) {
				free(sa);
				goto out_free;
			}
			bptr += strlen(sa->string.string) + 1;
			*next = sa;
			next = &sa->next;
			break;
		}
		default:
			break;
		}
		if (!*ptr)
			break;
	}
	return args;
out_free:
	free_args(args);
	return NULL;
}

static char *get_bprint_format(const uint8_t *data, int size, pf_event *e)
{
	pf_field *f = e->bp_fmt;
	if (!f) {
		f = find_field(e, "fmt");
		if (!f)
			return NULL;
		e->bp_fmt = f;
	}
	unsigned long long addr = beyond(size, f->offset, f->size) ? 0 : read_num(e->ctx, data + f->offset, f->size);
	const printk_ent *pk = find_printk(e->ctx, addr);
	if (!pk)
		return xasprintf("%%ps: (NO FORMAT FOUND at %llx)\n", addr);
	return xasprintf("%s: %s", "%ps", pk->fmt);
}

static void pretty_print(tio_buf *s, const uint8_t *data, int size, pf_event *e)
{
	parse *p = e->cache;
	arg *args = NULL;
	char *bfmt = NULL;
	if (e->flags & EV_FAILED) {
		seq_puts(s, "[FAILED TO PARSE]");
		print_fields(s, data, size, e, false);
		return;
	}
	if (e->flags & EV_BPRINT) {
		bfmt = get_bprint_format(data, size, e);
		if (bfmt) {
			args = make_bprint_args(bfmt, data, size, e);
			p = parse_args(e, bfmt, args);
		} else {
			p = NULL;
		}
	}
	for (parse *q = p; q; q = q->next)
		print_parse_data(q, s, data, size, e, false);
	if (e->flags & EV_BPRINT) {
		free_parse(p);
		free_args(args);
		free(bfmt);
	}
}

/* ---------------------------------------------------------------- built-in handlers (plugins) */

static int get_field_val(pf_event *e, const char *name, const uint8_t *data, int size,
			 unsigned long long *val, bool any)
{
	pf_field *f = any ? find_any_field(e, name) : find_field(e, name);
	if (!f || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) ||
	    beyond(size, f->offset, f->size))
		return -1;
	*val = read_num(e->ctx, data + f->offset, f->size);
	return 0;
}

static void write_and_save_comm(pf_event *e, pf_field *f, const uint8_t *data, int size,
				tio_buf *s, int pid)
{
	size_t start = s->len;
	int l = f->size;
	if (f->offset + l > size)
		l = size > f->offset ? size - f->offset : 0;
	size_t n = strnlen((const char *)data + f->offset, (size_t)l);
	tio_buf_add(s, data + f->offset, n);
	char comm[256];
	size_t cl = s->len - start < sizeof(comm) - 1 ? s->len - start : sizeof(comm) - 1;
	memcpy(comm, s->p + start, cl);
	comm[cl] = 0;
	register_comm(e->ctx, comm, pid);
}

static void write_state(tio_buf *s, int val)
{
	const char states[] = "SDTtZXxW";
	bool found = false;
	for (size_t i = 0; i < sizeof(states) - 1; i++) {
		if (!(val & (1 << i)))
			continue;
		if (found)
			seq_putc(s, '|');
		found = true;
		seq_putc(s, states[i]);
	}
	if (!found)
		seq_putc(s, 'R');
}

/* libtraceevent's futex plugin: sys_enter_futex decoded by operation. */
static const struct futex_op {
	const char *name, *val, *utime, *uaddr2, *val3;
} futex_ops[] = {
	{"FUTEX_WAIT", " val=0x%08llx", " utime=0x%08llx", NULL, NULL},
	{"FUTEX_WAKE", " val=%llu", NULL, NULL, NULL},
	{"FUTEX_FD", " val=%llu", NULL, NULL, NULL},
	{"FUTEX_REQUEUE", " val=%llu", " val2=%llu", " uaddr2=0x%08llx", NULL},
	{"FUTEX_CMP_REQUEUE", " val=%llu", " val2=%llu", " uaddr2=0x%08llx", " val3=0x%08llx"},
	{"FUTEX_WAKE_OP", " val=%llu", " val2=%llu", " uaddr2=0x%08llx", " val3=0x%08llx"},
	{"FUTEX_LOCK_PI", NULL, " utime=0x%08llx", NULL, NULL},
	{"FUTEX_UNLOCK_PI", NULL, NULL, NULL, NULL},
	{"FUTEX_TRYLOCK_PI", NULL, NULL, NULL, NULL},
	{"FUTEX_WAIT_BITSET", " val=0x%08llx", " utime=0x%08llx", NULL, " val3=0x%08llx"},
	{"FUTEX_WAKE_BITSET", " val=%llu", NULL, NULL, " val3=0x%08llx"},
	{"FUTEX_WAIT_REQUEUE_PI", " val=0x%08llx", " utime=0x%08llx", " uaddr2=0x%08llx", " val3=0x%08llx"},
	{"FUTEX_CMP_REQUEUE_PI", " val=%llu", " val2=%llu", " uaddr2=0x%08llx", " val3=0x%08llx"},
};

static bool futex_handler(pf_event *e, tio_buf *s, const uint8_t *data, int size)
{
	unsigned long long uaddr, op, val, utime, uaddr2, val3;
	if (get_field_val(e, "uaddr", data, size, &uaddr, false) ||
	    get_field_val(e, "op", data, size, &op, false) ||
	    get_field_val(e, "val", data, size, &val, false) ||
	    get_field_val(e, "utime", data, size, &utime, false) ||
	    get_field_val(e, "uaddr2", data, size, &uaddr2, false) ||
	    get_field_val(e, "val3", data, size, &val3, false))
		return true;
	unsigned long long cmd = op & ~(unsigned long long)(128 | 256);
	if (cmd >= TIO_ARRAY_LEN(futex_ops))
		return true;
	const struct futex_op *f = &futex_ops[cmd];
	seq_printf(s, "op=%s", f->name);
	if (op & 128)
		seq_puts(s, "|FUTEX_PRIVATE_FLAG");
	if (op & 256)
		seq_puts(s, "|FUTEX_CLOCK_REALTIME");
	seq_printf(s, " uaddr=0x%08llx", uaddr);
	if (f->val)
		tio_buf_addf(s, f->val, val);
	if (f->utime)
		tio_buf_addf(s, f->utime, utime);
	if (f->uaddr2)
		tio_buf_addf(s, f->uaddr2, uaddr2);
	if (f->val3)
		tio_buf_addf(s, f->val3, val3);
	return false;
}

/* Set depth `pos` of a CPU's stack to `name` (grown in steps of 10, as the plugin does;
   not beyond 4096, so that hostile call chains cannot make lines of any length). */
static void fstack_set(fstack_cpu *st, size_t pos, const char *name)
{
	if (pos >= 4096)
		return; /* as when the plugin cannot grow its stack */
	if (pos >= st->cap) {
		size_t cap = st->cap + 10;
		const char **p = realloc(st->name, cap * sizeof(*p));
		if (!p)
			return; /* the plugin warns and goes on */
		st->name = p;
		st->cap = cap;
	}
	st->name[pos] = name;
	if (pos >= st->n) {
		for (size_t i = st->n; i < pos; i++)
			st->name[i] = NULL;
		st->n = pos + 1;
	}
}

/* The plugin's add_and_get_index(): the depth to indent a call of child from parent. */
static int fstack_index(pf_ctx *c, const char *parent, const char *child, int cpu)
{
	if (cpu < 0)
		return 0;
	pf_fstack *fs = c->fs;
	if (!fs && !(fs = c->own_fs = calloc(1, sizeof(*fs))))
		return 0;
	c->fs = fs;
	if ((size_t)cpu >= fs->ncpu) {
		fstack_cpu *p = realloc(fs->cpu, ((size_t)cpu + 1) * sizeof(*p));
		if (!p)
			return 0;
		memset(p + fs->ncpu, 0, ((size_t)cpu + 1 - fs->ncpu) * sizeof(*p));
		fs->cpu = p;
		fs->ncpu = (size_t)cpu + 1;
	}
	fstack_cpu *st = &fs->cpu[cpu];
	for (size_t i = 0; i < st->n && st->name[i]; i++) {
		if (!strcmp(parent, st->name[i])) {
			if (child)
				fstack_set(st, i + 1, child);
			return (int)i;
		}
	}
	fstack_set(st, 0, parent);
	if (child)
		fstack_set(st, 1, child);
	return 0;
}

/* The function plugin's text of a function or func_repeats record: false on '!' */
static bool function_text(pf_event *e, tio_buf *s, const uint8_t *data, int size)
{
	unsigned long long ip, pip;
	if (get_field_val(e, "ip", data, size, &ip, true)) {
		seq_putc(s, '!');
		return false;
	}
	const func_ent *fn = find_func(e->ctx, ip);
	if (get_field_val(e, "parent_ip", data, size, &pip, true)) {
		seq_putc(s, '!');
		return false;
	}
	const func_ent *pfn = find_func(e->ctx, pip);
	int index = pfn ? fstack_index(e->ctx, pfn->name, fn ? fn->name : NULL, e->ctx->rec_cpu) : 0;
	seq_printf(s, "%*s", index * 3, "");
	if (fn)
		seq_puts(s, fn->name);
	else
		seq_printf(s, "0x%llx", ip);
	/* the "parent" option ("<-- parent") is off by default */
	return true;
}

/*
 * trace-cmd's own function graph view (funcgraph_entry / funcgraph_exit):
 * an overhead mark and the duration in a fixed-width column, then the
 * call indented 2 spaces per depth.
 */
static void fgraph_overhead(tio_buf *s, unsigned long long d)
{
	const char *m = "  ";
	if (d == ~0ULL)
		m = "  ";
	else if (d > 1000000000ULL)
		m = "$ ";
	else if (d > 1000000ULL)
		m = "# ";
	else if (d > 100000ULL)
		m = "! ";
	else if (d > 10000ULL)
		m = "+ ";
	seq_puts(s, m);
}

static void fgraph_duration(tio_buf *s, unsigned long long d)
{
	size_t at = s->len;
	seq_printf(s, "%llu", d / 1000);
	if (s->len - at < 7) /* the ns part only while the us part has fewer than 7 digits */
		seq_printf(s, ".%03llu", d % 1000);
	size_t len = s->len - at;
	seq_puts(s, " us ");
	for (; len < 7; len++)
		seq_putc(s, ' ');
	seq_puts(s, "|  ");
}

/* 2 spaces per depth (trace-cmd's int arithmetic; at most 65536 spaces: a hostile depth
   would make gigabytes) */
static void fgraph_indent(tio_buf *s, unsigned long long depth)
{
	int n = (int)(depth * 2);
	for (int i = 0; i < n && i < 65536; i++)
		seq_putc(s, ' ');
}

bool pf_is_fgraph_entry(const pf_event *e) { return e->handler == H_FGRAPH_ENT; }

bool pf_is_fgraph_exit(const pf_event *e) { return e->handler == H_FGRAPH_RET; }

int pf_field_val(pf_event *e, const char *name, const uint8_t *data, int size, unsigned long long *val)
{
	return get_field_val(e, name, data, size, val, true);
}

void pf_fgraph_entry(pf_event *e, tio_buf *s, const uint8_t *data, int size, pf_event *re,
		     const uint8_t *rdata, int rsize)
{
	unsigned long long depth, func, call, ret;
	if (re) { /* a leaf: the entry and its return on one line */
		if (get_field_val(re, "rettime", rdata, rsize, &ret, true) ||
		    get_field_val(re, "calltime", rdata, rsize, &call, true)) {
			seq_putc(s, '!');
			return;
		}
		fgraph_overhead(s, ret - call);
		fgraph_duration(s, ret - call);
	} else {
		fgraph_overhead(s, ~0ULL);
		seq_puts(s, "           |  ");
	}
	if (get_field_val(e, "depth", data, size, &depth, true)) {
		seq_putc(s, '!');
		return;
	}
	fgraph_indent(s, depth);
	if (get_field_val(e, "func", data, size, &func, true)) {
		seq_putc(s, '!');
		return;
	}
	const func_ent *fn = find_func(e->ctx, func);
	if (fn)
		seq_puts(s, fn->name);
	else
		seq_printf(s, "%llx", func);
	seq_puts(s, re ? "();" : "() {");
}

/*
 * libtraceevent's kvm plugin (as trace-cmd 3.1.6 loads it: libtraceevent
 * 1.7.1, built without a disassembler).  Its handlers read fields the way
 * tep_get_field_val / tep_print_num_field / tep_get_field_raw do, with
 * their messages when a field is missing; a handler that fails part way
 * keeps what it wrote and the event's own print fmt follows (that is how
 * kvm_nested_vmexit of kernels whose event has no "rip" field prints).
 */

/* tep_get_field_val: "<CANT FIND FIELD name>", or " name=INVALID" for a size it cannot read */
static int kvm_val(pf_event *e, tio_buf *s, const char *name, const uint8_t *data,
		   unsigned long long *val, bool err)
{
	pf_field *f = find_field(e, name);
	if (!f) {
		if (err)
			seq_printf(s, "<CANT FIND FIELD %s>", name);
		return -1;
	}
	if ((f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) ||
	    beyond(e->cap, f->offset, f->size)) {
		if (err)
			seq_printf(s, " %s=INVALID", name);
		return -1;
	}
	*val = read_num(e->ctx, data + f->offset, f->size);
	return 0;
}

/* tep_print_num_field: the value through a one-conversion format, or CAN'T FIND FIELD "name" */
static int kvm_num(pf_event *e, tio_buf *s, const char *name, const uint8_t *data,
		   const char *before, bool is32, const char *after)
{
	pf_field *f = find_field(e, name);
	if (!f || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) ||
	    beyond(e->cap, f->offset, f->size)) {
		seq_printf(s, "CAN'T FIND FIELD \"%s\"", name);
		return -1;
	}
	unsigned long long v = read_num(e->ctx, data + f->offset, f->size);
	seq_puts(s, before);
	if (is32) /* a %u conversion given the 64-bit value: its low half */
		seq_printf(s, "%u", (unsigned)v);
	else
		seq_printf(s, "%llx", v);
	seq_puts(s, after);
	return 0;
}

/*
 * The plugin's own exit reason tables (the kernel's names of an older
 * release, without their EXIT_REASON_ / SVM_ prefixes), chosen by the
 * event's isa field: 1 VMX, 2 SVM.  The SVM table ends with EXIT_ERR (-1).
 */
typedef struct {
	int code;
	const char *name;
} kvm_reason;

static const kvm_reason kvm_vmx[] = {
	{0, "EXCEPTION_NMI"}, {1, "EXTERNAL_INTERRUPT"}, {2, "TRIPLE_FAULT"}, {7, "PENDING_INTERRUPT"},
	{8, "NMI_WINDOW"}, {9, "TASK_SWITCH"}, {10, "CPUID"}, {12, "HLT"}, {13, "INVD"},
	{14, "INVLPG"}, {15, "RDPMC"}, {16, "RDTSC"}, {18, "VMCALL"}, {19, "VMCLEAR"},
	{20, "VMLAUNCH"}, {21, "VMPTRLD"}, {22, "VMPTRST"}, {23, "VMREAD"}, {24, "VMRESUME"},
	{25, "VMWRITE"}, {26, "VMOFF"}, {27, "VMON"}, {28, "CR_ACCESS"}, {29, "DR_ACCESS"},
	{30, "IO_INSTRUCTION"}, {31, "MSR_READ"}, {32, "MSR_WRITE"}, {36, "MWAIT_INSTRUCTION"},
	{39, "MONITOR_INSTRUCTION"}, {40, "PAUSE_INSTRUCTION"}, {41, "MCE_DURING_VMENTRY"},
	{43, "TPR_BELOW_THRESHOLD"}, {44, "APIC_ACCESS"}, {45, "EOI_INDUCED"},
	{48, "EPT_VIOLATION"}, {49, "EPT_MISCONFIG"}, {50, "INVEPT"}, {52, "PREEMPTION_TIMER"},
	{54, "WBINVD"}, {55, "XSETBV"}, {56, "APIC_WRITE"}, {58, "INVPCID"}, {62, "PML_FULL"},
	{63, "XSAVES"}, {64, "XRSTORS"},
};

static const kvm_reason kvm_svm[] = {
	{0x000, "EXIT_READ_CR0"}, {0x003, "EXIT_READ_CR3"}, {0x004, "EXIT_READ_CR4"},
	{0x008, "EXIT_READ_CR8"}, {0x010, "EXIT_WRITE_CR0"}, {0x013, "EXIT_WRITE_CR3"},
	{0x014, "EXIT_WRITE_CR4"}, {0x018, "EXIT_WRITE_CR8"}, {0x020, "EXIT_READ_DR0"},
	{0x021, "EXIT_READ_DR1"}, {0x022, "EXIT_READ_DR2"}, {0x023, "EXIT_READ_DR3"},
	{0x024, "EXIT_READ_DR4"}, {0x025, "EXIT_READ_DR5"}, {0x026, "EXIT_READ_DR6"},
	{0x027, "EXIT_READ_DR7"}, {0x030, "EXIT_WRITE_DR0"}, {0x031, "EXIT_WRITE_DR1"},
	{0x032, "EXIT_WRITE_DR2"}, {0x033, "EXIT_WRITE_DR3"}, {0x034, "EXIT_WRITE_DR4"},
	{0x035, "EXIT_WRITE_DR5"}, {0x036, "EXIT_WRITE_DR6"}, {0x037, "EXIT_WRITE_DR7"},
	{0x040, "EXIT_EXCP_DE"}, {0x041, "EXIT_EXCP_DB"}, {0x043, "EXIT_EXCP_BP"},
	{0x044, "EXIT_EXCP_OF"}, {0x045, "EXIT_EXCP_BR"}, {0x046, "EXIT_EXCP_UD"},
	{0x047, "EXIT_EXCP_NM"}, {0x048, "EXIT_EXCP_DF"}, {0x04a, "EXIT_EXCP_TS"},
	{0x04b, "EXIT_EXCP_NP"}, {0x04c, "EXIT_EXCP_SS"}, {0x04d, "EXIT_EXCP_GP"},
	{0x04e, "EXIT_EXCP_PF"}, {0x050, "EXIT_EXCP_MF"}, {0x051, "EXIT_EXCP_AC"},
	{0x052, "EXIT_EXCP_MC"}, {0x053, "EXIT_EXCP_XF"}, {0x060, "EXIT_INTR"}, {0x061, "EXIT_NMI"},
	{0x062, "EXIT_SMI"}, {0x063, "EXIT_INIT"}, {0x064, "EXIT_VINTR"},
	{0x065, "EXIT_CR0_SEL_WRITE"}, {0x066, "EXIT_IDTR_READ"}, {0x067, "EXIT_GDTR_READ"},
	{0x068, "EXIT_LDTR_READ"}, {0x069, "EXIT_TR_READ"}, {0x06a, "EXIT_IDTR_WRITE"},
	{0x06b, "EXIT_GDTR_WRITE"}, {0x06c, "EXIT_LDTR_WRITE"}, {0x06d, "EXIT_TR_WRITE"},
	{0x06e, "EXIT_RDTSC"}, {0x06f, "EXIT_RDPMC"}, {0x070, "EXIT_PUSHF"}, {0x071, "EXIT_POPF"},
	{0x072, "EXIT_CPUID"}, {0x073, "EXIT_RSM"}, {0x074, "EXIT_IRET"}, {0x075, "EXIT_SWINT"},
	{0x076, "EXIT_INVD"}, {0x077, "EXIT_PAUSE"}, {0x078, "EXIT_HLT"}, {0x079, "EXIT_INVLPG"},
	{0x07a, "EXIT_INVLPGA"}, {0x07b, "EXIT_IOIO"}, {0x07c, "EXIT_MSR"},
	{0x07d, "EXIT_TASK_SWITCH"}, {0x07e, "EXIT_FERR_FREEZE"}, {0x07f, "EXIT_SHUTDOWN"},
	{0x080, "EXIT_VMRUN"}, {0x081, "EXIT_VMMCALL"}, {0x082, "EXIT_VMLOAD"},
	{0x083, "EXIT_VMSAVE"}, {0x084, "EXIT_STGI"}, {0x085, "EXIT_CLGI"}, {0x086, "EXIT_SKINIT"},
	{0x087, "EXIT_RDTSCP"}, {0x088, "EXIT_ICEBP"}, {0x089, "EXIT_WBINVD"},
	{0x08a, "EXIT_MONITOR"}, {0x08b, "EXIT_MWAIT"}, {0x08c, "EXIT_MWAIT_COND"},
	{0x08d, "EXIT_XSETBV"}, {0x400, "EXIT_NPF"}, {0x401, "EXIT_AVIC_INCOMPLETE_IPI"},
	{0x402, "EXIT_AVIC_UNACCELERATED_ACCESS"}, {-1, "EXIT_ERR"},
};

/* "reason NAME", "reason UNKNOWN-ISA" or "reason UNKNOWN (code)"; -1 when the field is missing */
static int kvm_exit_reason(pf_event *e, tio_buf *s, const char *name, const uint8_t *data)
{
	unsigned long long code, isa;
	if (kvm_val(e, s, name, data, &code, true))
		return -1;
	if (kvm_val(e, s, "isa", data, &isa, false))
		isa = 1; /* no isa field: VMX */
	const kvm_reason *t = NULL;
	size_t n = 0;
	if ((int)isa == 1) {
		t = kvm_vmx;
		n = TIO_ARRAY_LEN(kvm_vmx);
	} else if ((int)isa == 2) {
		t = kvm_svm;
		n = TIO_ARRAY_LEN(kvm_svm);
	} else {
		seq_puts(s, "reason UNKNOWN-ISA");
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (t[i].code == (int)code) { /* compared as ints */
			seq_printf(s, "reason %s", t[i].name);
			return 0;
		}
	}
	seq_printf(s, "reason UNKNOWN (%llu)", code);
	return 0;
}

static void kvm_exit_text(pf_event *e, tio_buf *s, const uint8_t *data, int size, int handler)
{
	unsigned long long rip, info1, info2;
	switch (handler) {
	case H_KVM_EXIT:
		if (kvm_exit_reason(e, s, "exit_reason", data) || kvm_val(e, s, "guest_rip", data, &rip, true))
			break;
		seq_printf(s, " rip 0x%llx", rip);
		/* (trace-cmd names guest functions only for host+guest reports of a guest it maps) */
		if (!kvm_val(e, s, "info1", data, &info1, false) && !kvm_val(e, s, "info2", data, &info2, false))
			seq_printf(s, " info %llx %llx", info1, info2);
		return;
	case H_KVM_ENTRY:
		kvm_num(e, s, "vcpu_id", data, " vcpu ", true, "");
		if (kvm_val(e, s, "rip", data, &rip, true))
			break;
		seq_printf(s, " rip 0x%llx", rip);
		return;
	case H_KVM_NESTED_EXIT:
		if (kvm_val(e, s, "rip", data, &rip, true))
			break;
		seq_printf(s, " rip %llx", rip);
		/* then as kvm_nested_vmexit_inject (no space before "reason") */
		/* fall through */
	case H_KVM_NESTED_INJECT:
		if (kvm_exit_reason(e, s, "exit_code", data))
			break;
		kvm_num(e, s, "exit_info1", data, " info1 ", false, "");
		kvm_num(e, s, "exit_info2", data, " info2 ", false, "");
		kvm_num(e, s, "exit_int_info", data, " int_info ", false, "");
		kvm_num(e, s, "exit_int_info_err", data, " int_info_err ", false, "");
		return;
	}
	pretty_print(s, data, size, e); /* the handler failed: the event's own text follows */
}

/*
 * kvm_emulate_insn without a disassembler: "csbase:rip: " and the
 * instruction's bytes in hex.  The plugin formats them into one static
 * buffer, so a record with len 0 shows the bytes of the one before it
 * (any input of the report); bytes past the 15 of insn come from the
 * record after it (as far as the record goes here).
 */
static pf_fstack *plugin_state(pf_ctx *c)
{
	if (!c->fs)
		c->fs = c->own_fs = calloc(1, sizeof(*c->fs));
	return c->fs;
}

static void kvm_emulate_text(pf_event *e, tio_buf *s, const uint8_t *data, int size)
{
	unsigned long long rip, csbase, len, flags, failed;
	if (kvm_val(e, s, "rip", data, &rip, true) || kvm_val(e, s, "csbase", data, &csbase, true) ||
	    kvm_val(e, s, "len", data, &len, true) || kvm_val(e, s, "flags", data, &flags, true) ||
	    kvm_val(e, s, "failed", data, &failed, true)) {
		pretty_print(s, data, size, e);
		return;
	}
	pf_field *f = find_field(e, "insn");
	if (!f) {
		seq_puts(s, "<CANT FIND FIELD insn>");
		pretty_print(s, data, size, e);
		return;
	}
	pf_fstack *st = plugin_state(e->ctx);
	char none[1] = "", *bytes = st ? st->kvm_insn : none;
	int n = (int)len;
	if (n > 0 && st) {
		char *p = bytes;
		for (int i = 0; i < n && i < 256 && f->offset + i < e->cap; i++) {
			uint8_t b = data[f->offset + i];
			*p++ = "0123456789abcdef"[b >> 4];
			*p++ = "0123456789abcdef"[b & 15];
			*p++ = ' ';
		}
		p[p > bytes ? -1 : 0] = 0;
	}
	seq_printf(s, "%llx:%llx: %s%s", csbase, rip, bytes, failed ? " FAIL" : "");
}

/*
 * The MMU page role as the plugin's own layout has it (an older kernel's
 * union kvm_mmu_page_role: level:4, cr4_pae:1, quadrant:2, direct:1,
 * access:3, invalid:1, efer_nx:1, cr0_wp:1, smep:1, smap:1, 8 bits of
 * padding, smm:8), read through C bit-fields, hence in the host's bit
 * order; a file of the other byte order shows the word.
 */
static unsigned role_bits(unsigned word, int pos, int width)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	pos = 32 - pos - width; /* bit-fields fill a big-endian word from the top */
#endif
	return (word >> pos) & ((1u << width) - 1);
}

static bool host_big_endian(void)
{
	const uint16_t one = 1;
	return *(const uint8_t *)&one == 0;
}

static void kvm_role_text(pf_event *e, tio_buf *s, const uint8_t *data, int size, bool get_page)
{
	static const char *const access[] = {"---", "--x", "w--", "w-x", "-u-", "-ux", "wu-", "wux"};
	unsigned long long v;
	if (get_page) {
		if (kvm_val(e, s, "created", data, &v, true))
			goto failed;
		seq_puts(s, v ? "new " : "existing ");
		if (kvm_val(e, s, "gfn", data, &v, true))
			goto failed;
		seq_printf(s, "sp gfn %llx ", v);
	}
	if (kvm_val(e, s, "role", data, &v, true))
		goto failed;
	unsigned w = (unsigned)v;
	if (e->ctx->be == host_big_endian())
		seq_printf(s, "%u q%u%s %s%s %spae %snxe %swp%s%s%s", role_bits(w, 0, 4), role_bits(w, 5, 2),
			   role_bits(w, 7, 1) ? " direct" : "", access[role_bits(w, 8, 3)],
			   role_bits(w, 11, 1) ? " invalid" : "", role_bits(w, 4, 1) ? "" : "!",
			   role_bits(w, 12, 1) ? "" : "!", role_bits(w, 13, 1) ? "" : "!",
			   role_bits(w, 14, 1) ? " smep" : "", role_bits(w, 15, 1) ? " smap" : "",
			   role_bits(w, 24, 8) ? " smm" : "");
	else
		seq_printf(s, "WORD: %08x", w);
	kvm_num(e, s, "root_count", data, " root ", true, " ");
	if (kvm_val(e, s, "unsync", data, &v, true))
		goto failed;
	seq_puts(s, v ? "unsync" : "sync"); /* and a NUL, which ends what trace-cmd prints */
	return;
failed:
	pretty_print(s, data, size, e);
}

/* Returns true when the pretty print should follow (handler declined). */
static bool run_handler(pf_event *e, tio_buf *s, const uint8_t *data, int size)
{
	unsigned long long val;
	pf_field *f;
	switch (e->handler) {
	case H_SCHED_SWITCH:
		if (get_field_val(e, "prev_pid", data, size, &val, true)) {
			seq_putc(s, '!');
			return false;
		}
		f = find_any_field(e, "prev_comm");
		if (f) {
			write_and_save_comm(e, f, data, size, s, (int)val);
			seq_putc(s, ':');
		}
		seq_printf(s, "%lld ", (long long)val);
		if (!get_field_val(e, "prev_prio", data, size, &val, true))
			seq_printf(s, "[%d] ", (int)val);
		if (!get_field_val(e, "prev_state", data, size, &val, true))
			write_state(s, (int)val);
		seq_puts(s, " ==> ");
		if (get_field_val(e, "next_pid", data, size, &val, true)) {
			seq_putc(s, '!');
			return false;
		}
		f = find_any_field(e, "next_comm");
		if (f) {
			write_and_save_comm(e, f, data, size, s, (int)val);
			seq_putc(s, ':');
		}
		seq_printf(s, "%lld", (long long)val);
		if (!get_field_val(e, "next_prio", data, size, &val, true))
			seq_printf(s, " [%d]", (int)val);
		return false;
	case H_SCHED_WAKEUP:
		if (get_field_val(e, "pid", data, size, &val, true)) {
			seq_putc(s, '!');
			return false;
		}
		f = find_any_field(e, "comm");
		if (f) {
			write_and_save_comm(e, f, data, size, s, (int)val);
			seq_putc(s, ':');
		}
		seq_printf(s, "%lld", (long long)val);
		if (!get_field_val(e, "prio", data, size, &val, true))
			seq_printf(s, " [%lld]", (long long)val);
		if (!get_field_val(e, "success", data, size, &val, false))
			seq_printf(s, " success=%lld", (long long)val);
		if (!get_field_val(e, "target_cpu", data, size, &val, true))
			seq_printf(s, " CPU:%03llu", val);
		return false;
	case H_KSTACK: {
		f = find_any_field(e, "caller");
		if (!f) {
			seq_puts(s, "<CANT FIND FIELD caller>");
			return false;
		}
		seq_puts(s, "<stack trace >\n");
		int ls = e->ctx->long_size;
		/* every entry that starts inside the record, the last one read past it as
		   trace-cmd does (a record whose length is no multiple of the long size) */
		for (int off = f->offset; off < size && off + ls <= e->cap; off += ls) {
			unsigned long long addr = read_num(e->ctx, data + off, ls);
			if ((ls == 8 && addr == (unsigned long long)-1) || (int)addr == -1)
				break;
			const func_ent *fn = find_func(e->ctx, addr);
			if (fn)
				seq_printf(s, "=> %s (%llx)\n", fn->name, addr);
			else
				seq_printf(s, "=> %llx\n", addr);
		}
		return false;
	}
	case H_HRTIMER_START:
	case H_HRTIMER_EXPIRE: {
		seq_puts(s, "hrtimer=");
		if (!get_field_val(e, "timer", data, size, &val, false))
			seq_printf(s, "0x%llx", val);
		else if (!get_field_val(e, "hrtimer", data, size, &val, false))
			seq_printf(s, "0x%llx", val);
		else
			seq_puts(s, "CAN'T FIND FIELD \"hrtimer\"");
		if (e->handler == H_HRTIMER_EXPIRE) {
			seq_puts(s, " now=");
			if (!get_field_val(e, "now", data, size, &val, false))
				seq_printf(s, "%llu", val);
			else
				seq_puts(s, "CAN'T FIND FIELD \"now\"");
		}
		if (!get_field_val(e, "function", data, size, &val, false)) {
			const func_ent *fn = find_func(e->ctx, val);
			char tmp[160];
			if (fn)
				snprintf(tmp, sizeof(tmp), "%s/0x%llx", fn->name, fn->addr - val);
			else
				snprintf(tmp, sizeof(tmp), "0x%08llx", val);
			seq_printf(s, " function=%s", tmp);
		}
		if (e->handler == H_HRTIMER_START) {
			seq_puts(s, " expires=");
			if (!get_field_val(e, "expires", data, size, &val, false))
				seq_printf(s, "%llu", val);
			else
				seq_puts(s, "CAN'T FIND FIELD \"expires\"");
			seq_puts(s, " softexpires=");
			if (!get_field_val(e, "softexpires", data, size, &val, false))
				seq_printf(s, "%llu", val);
			else
				seq_puts(s, "CAN'T FIND FIELD \"softexpires\"");
		}
		return false;
	}
	case H_FUTEX:
		return futex_handler(e, s, data, size);
	case H_KMEM: {
		/* the kmem plugin: "(function+0xoffset) " of call_site, then the event's own text */
		if (!get_field_val(e, "call_site", data, size, &val, true)) {
			const func_ent *fn = find_func(e->ctx, val);
			if (fn) {
				seq_putc(s, '(');
				seq_puts(s, fn->name);
				seq_printf(s, "+0x%x) ", (unsigned)(int)(val - fn->addr));
			}
		}
		return true;
	}
	case H_FUNCTION:
		function_text(e, s, data, size);
		return false;
	case H_FGRAPH_ENT: /* without the next record (the report sink looks ahead) */
		if (get_field_val(e, "common_pid", data, size, &val, true) ||
		    get_field_val(e, "func", data, size, &val, true)) {
			seq_putc(s, '!');
			return false;
		}
		pf_fgraph_entry(e, s, data, size, NULL, NULL, 0);
		return false;
	case H_FGRAPH_RET: {
		unsigned long long call, ret, depth;
		if (get_field_val(e, "rettime", data, size, &ret, true) ||
		    get_field_val(e, "calltime", data, size, &call, true)) {
			seq_putc(s, '!');
			return false;
		}
		fgraph_overhead(s, ret - call);
		fgraph_duration(s, ret - call);
		if (get_field_val(e, "depth", data, size, &depth, true)) {
			seq_putc(s, '!');
			return false;
		}
		fgraph_indent(s, depth);
		seq_putc(s, '}');
		return false;
	}
	case H_FUNC_REPEATS: {
		if (!function_text(e, s, data, size))
			return false;
		unsigned long long count, top, bottom;
		if (get_field_val(e, "count", data, size, &count, true) ||
		    get_field_val(e, "top_delta_ts", data, size, &top, true) ||
		    get_field_val(e, "bottom_delta_ts", data, size, &bottom, true)) {
			seq_putc(s, '!');
			return false;
		}
		seq_printf(s, " (count: %lld  last_ts: ", (long long)count);
		/* the record's time less the delta, as the report prints times */
		uint64_t ts = e->ctx->rec_ts - ((top << 32) | bottom);
		if (e->ctx->rec_ns)
			seq_printf(s, "%5llu.%09llu", (unsigned long long)(ts / 1000000000),
				   (unsigned long long)(ts % 1000000000));
		else {
			uint64_t us = (ts + 500) / 1000;
			seq_printf(s, "%5llu.%06llu", (unsigned long long)(us / 1000000),
				   (unsigned long long)(us % 1000000));
		}
		seq_putc(s, ')');
		return false;
	}
	case H_RAW_DATA: {
		if (get_field_val(e, "id", data, size, &val, true)) {
			seq_putc(s, '!');
			return false;
		}
		seq_printf(s, "# %llx", val);
		f = find_any_field(e, "buf");
		if (!f) {
			seq_puts(s, "<CANT FIND FIELD buf>");
			return false;
		}
		for (int off = f->offset; off < size; off++)
			seq_printf(s, " %02x", data[off]);
		return false;
	}
	case H_TLB: {
		/* the tlb plugin: its own names for reasons 0..3, nothing for the others */
		static const char *const reasons[] = {"flush on task switch", "remote shootdown",
						      "local shootdown", "local mm shootdown"};
		seq_puts(s, "pages=");
		if (!get_field_val(e, "pages", data, size, &val, false))
			seq_printf(s, "%ld", (long)val);
		else
			seq_puts(s, "CAN'T FIND FIELD \"pages\"");
		if (!get_field_val(e, "reason", data, size, &val, true)) {
			seq_puts(s, " reason=");
			if (val < TIO_ARRAY_LEN(reasons))
				seq_puts(s, reasons[val]);
			seq_printf(s, " (%lld)", (long long)val); /* the field's bytes, not sign-extended */
		}
		return false;
	}
	case H_KVM_EXIT:
	case H_KVM_ENTRY:
	case H_KVM_NESTED_EXIT:
	case H_KVM_NESTED_INJECT:
		kvm_exit_text(e, s, data, size, e->handler);
		return false;
	case H_KVM_EMULATE:
		kvm_emulate_text(e, s, data, size);
		return false;
	case H_KVM_MMU_GET_PAGE:
	case H_KVM_MMU_ROLE:
		kvm_role_text(e, s, data, size, e->handler == H_KVM_MMU_GET_PAGE);
		return false;
	default:
		return true;
	}
}

int pf_record_pid(pf_event *e, const uint8_t *data, int size)
{
	if (TIO_UNLIKELY(!e->pid_ready)) {
		e->pid_field = find_in(e->common, "common_pid");
		e->pid_ready = true;
	}
	pf_field *f = e->pid_field;
	if (!f || beyond(size, f->offset, f->size))
		return -1;
	return (int)read_num(e->ctx, data + f->offset, f->size);
}

size_t pf_record_latency(pf_event *e, const uint8_t *data, int size, bool raw, char out[PF_LAT_MAX])
{
	static const char hex[] = "0123456789abcdef";
	unsigned long long flags = 0, pc = 0, v;
	get_field_val(e, "common_flags", data, size, &flags, true);
	if (raw) /* -R: the flags in hex */
		return (size_t)snprintf(out, PF_LAT_MAX, "-0x%llx", flags);
	get_field_val(e, "common_preempt_count", data, size, &pc, true);
	size_t n = 0;
	/* the kernel's TRACE_FLAG_*: IRQS_OFF 1, IRQS_NOSUPPORT 2, NEED_RESCHED 4, HARDIRQ 8, SOFTIRQ 16 */
	out[n++] = flags & 1 ? 'd' : flags & 2 ? 'X' : '.';
	out[n++] = flags & 4 ? 'N' : '.';
	out[n++] = (flags & 8) && (flags & 16) ? 'H' : flags & 8 ? 'h' : flags & 16 ? 's' : '.';
	/* the preempt count's low nibble, then its high one (the migrate-disable depth) */
	out[n++] = pc & 15 ? hex[pc & 15] : '.';
	out[n++] = (pc >> 4) & 15 ? hex[(pc >> 4) & 15] : '.';
	/* an older kernel's fields, read as libtraceevent does (an int: -1 is '.') */
	static const char *const older[] = {"common_migrate_disable", "common_lock_depth"};
	for (int k = 0; k < 2; k++) {
		if (!find_in(e->common, older[k]))
			continue;
		int x = get_field_val(e, older[k], data, size, &v, true) ? -1 : (int)v;
		n += (size_t)snprintf(out + n, PF_LAT_MAX - n, x < 0 ? "." : "%d", x);
	}
	return n;
}

void pf_print_info(pf_event *e, tio_buf *s, const uint8_t *data, int size, int cap, bool raw)
{
	e->cap = cap > size ? cap : size;
	if (raw) {
		print_fields(s, data, size, e, true);
		return;
	}
	if (run_handler(e, s, data, size))
		pretty_print(s, data, size, e);
}
