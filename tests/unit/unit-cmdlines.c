/*
 * Which comm `trace-cmd report` shows for a pid (src/sink/printfmt.c).
 *
 * libtraceevent registers the saved_cmdlines and every comm the sched_switch
 * plugin prints in a list, duplicates allowed, until the first lookup of a
 * non-zero pid; it then sorts the list once (stable, newest first among equal
 * pids) and from then on finds a pid with bsearch and adds only unknown
 * pids.  So when a recording starts with "swapper/0:0 ==> trace-cmd:N" and
 * saved_cmdlines says "N sh" (the pid exec'd later), the answer depends on
 * where bsearch lands.  A real recording showed it (trace-cmd printed
 * "trace-cmd-N" where saved_cmdlines said "sh"); these cases pin the rule,
 * each chosen so that a simpler rule (saved line wins, last registration
 * wins, no re-search after an insertion) gives another answer.
 */
#include <stdio.h>
#include <string.h>

#include "../../src/sink/printfmt.h"

static const char fmt[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"REC->prev_state ? \"S\" : \"R\", REC->next_comm, REC->next_pid, REC->next_prio\n";

static int failures, checks;

static void put32(uint8_t *p, int32_t v) { memcpy(p, &v, 4); } /* the test runs little-endian */

/* Print one sched_switch record (prev -> next) as the report does. */
static void sw(pf_event *e, const char *prev, int ppid, const char *next, int npid)
{
	uint8_t d[64] = {0};
	d[0] = 0x74; /* 372 */
	d[1] = 0x01;
	put32(d + 4, ppid);
	strncpy((char *)d + 8, prev, 15);
	put32(d + 24, ppid);
	put32(d + 28, 120);
	strncpy((char *)d + 40, next, 15);
	put32(d + 56, npid);
	put32(d + 60, 120);
	tio_buf s = {0};
	pf_print_info(e, &s, d, sizeof(d), sizeof(d), false);
	tio_buf_free(&s);
}

static void expect(pf_ctx *c, int pid, const char *want, const char *what)
{
	const char *got = pf_comm(c, pid);
	checks++;
	if (strcmp(got, want)) {
		failures++;
		printf("not ok %s: pid %d is \"%s\", want \"%s\"\n", what, pid, got, want);
	} else {
		printf("ok %s: pid %d is \"%s\"\n", what, pid, got);
	}
}

int main(void)
{
	/* 1: list (100 sh) (0 swapper/0) (100 trace-cmd); sorted
	      (0) (100 trace-cmd) (100 sh); bsearch over 3 hits index 1 */
	pf_ctx *c = pf_ctx_new(8, false);
	pf_event *e = pf_event_parse(c, "sched", fmt, strlen(fmt));
	pf_ctx_load_cmdlines(c, "100 sh\n");
	sw(e, "swapper/0", 0, "trace-cmd", 100);
	expect(c, 100, "trace-cmd", "a comm printed before the first lookup beats saved_cmdlines");
	/* after the first lookup a known pid is not overridden... */
	sw(e, "trace-cmd", 100, "other", 100);
	expect(c, 100, "trace-cmd", "no override once sorted");
	/* ...but inserting pid 150 moves the duplicates: (0) (100 tc) (100 sh) (150):
	   bsearch over 4 hits index 2 */
	sw(e, "swapper/0", 0, "x", 150);
	expect(c, 150, "x", "a new pid after the first lookup is added");
	expect(c, 100, "sh", "an insertion can change which duplicate bsearch finds");
	pf_event_free(e);
	pf_ctx_free(c);

	/* 2: list (100 sh) (200 bash) (0) (100 trace-cmd); sorted
	      (0) (100 trace-cmd) (100 sh) (200 bash); bsearch over 4 hits index 2 */
	c = pf_ctx_new(8, false);
	e = pf_event_parse(c, "sched", fmt, strlen(fmt));
	pf_ctx_load_cmdlines(c, "100 sh\n200 bash\n");
	sw(e, "swapper/0", 0, "trace-cmd", 100);
	expect(c, 100, "sh", "the saved line can win too, by position");
	expect(c, 200, "bash", "other pids unaffected");
	expect(c, 0, "<idle>", "pid 0");
	expect(c, 300, "<...>", "unknown pid");
	pf_event_free(e);
	pf_ctx_free(c);

	/* 3: pid 0 lookups do not sort: the registration after it still counts */
	c = pf_ctx_new(8, false);
	e = pf_event_parse(c, "sched", fmt, strlen(fmt));
	pf_ctx_load_cmdlines(c, "9 c\n");
	expect(c, 0, "<idle>", "pid 0 before anything");
	sw(e, "swapper/0", 0, "z", 9);
	/* list (9 c) (0) (9 z); sorted (0) (9 z) (9 c): bsearch over 3 hits index 1 */
	expect(c, 9, "z", "registration after a pid-0 lookup");
	pf_event_free(e);
	pf_ctx_free(c);

	printf("%d passed, %d failed\n", checks - failures, failures);
	return failures != 0;
}
