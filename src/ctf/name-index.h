/*
 * The index of a metadata array's names that both CTF metadata parsers
 * use: TSDL (tsdl-parse.c: structure members, variant options,
 * enumerators, a variant tag's labels) and CTF 2 (ctf2-meta.c: members,
 * options, field-class aliases, clock class ids).  Looking each new name up
 * among every earlier one made the metadata's cost quadratic (the callers
 * say how slow it was), so names are hashed once there are CTF_NIDX_LINEAR
 * or more; fewer are compared one by one.
 *
 * The elements are the caller's array, each beginning with its name (a
 * `char *`; NULL: unnamed, never found), `stride` bytes apart; the index
 * holds their positions, so the array may move.  What the index belongs to
 * (a compound, a tag) and who frees it are the caller's business.
 */
#ifndef TIO_NAME_INDEX_H
#define TIO_NAME_INDEX_H

#include "common/common.h"

#define CTF_NIDX_LINEAR 16 /* fewer names are compared one by one */
#define CTF_NIDX_NONE UINT32_MAX

typedef struct ctf_nidx {
	uint32_t *slot; /* element + 1, 0: empty */
	uint32_t cap;	/* a power of two; 0: not built, names compared one by one */
} ctf_nidx;

/* The first element of arr[0, n) named s (len bytes), or CTF_NIDX_NONE; x may be NULL. */
uint32_t ctf_nidx_find(const ctf_nidx *x, const void *arr, size_t stride, uint32_t n, const char *s,
		       size_t len);
/* arr[n - 1] was just added: index it (all of arr when the index is (re)built); x may be NULL. */
int ctf_nidx_add(ctf_nidx *x, const void *arr, size_t stride, uint32_t n);
void ctf_nidx_free(ctf_nidx *x);

#endif
