/*
 * The name index of the CTF metadata parsers (name-index.h): open
 * addressing with linear probing on an FNV-1a hash of the name, at most
 * half full, rebuilt from the caller's array when it grows.
 */
#include "ctf/name-index.h"

#include <stdlib.h>

static const char *elem_name(const void *arr, size_t stride, uint32_t i)
{
	return *(const char *const *)((const char *)arr + (size_t)i * stride);
}

static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

uint32_t ctf_nidx_find(const ctf_nidx *x, const void *arr, size_t stride, uint32_t n, const char *s,
		       size_t len)
{
	if (!x || !x->cap) {
		for (uint32_t i = 0; i < n; i++) {
			const char *e = elem_name(arr, stride, i);
			if (e && strlen(e) == len && !memcmp(e, s, len))
				return i;
		}
		return CTF_NIDX_NONE;
	}
	for (uint32_t h = name_hash(s, len) & (x->cap - 1);; h = (h + 1) & (x->cap - 1)) {
		uint32_t v = x->slot[h];
		if (!v)
			return CTF_NIDX_NONE;
		const char *e = elem_name(arr, stride, v - 1);
		if (strlen(e) == len && !memcmp(e, s, len))
			return v - 1;
	}
}

/* Element i into the table, unless unnamed or named as an earlier one (the first is found). */
static void put(ctf_nidx *x, const void *arr, size_t stride, uint32_t i)
{
	const char *e = elem_name(arr, stride, i);
	if (!e)
		return;
	uint32_t h = name_hash(e, strlen(e)) & (x->cap - 1);
	while (x->slot[h]) {
		if (!strcmp(elem_name(arr, stride, x->slot[h] - 1), e))
			return;
		h = (h + 1) & (x->cap - 1);
	}
	x->slot[h] = i + 1;
}

int ctf_nidx_add(ctf_nidx *x, const void *arr, size_t stride, uint32_t n)
{
	if (!x || n < CTF_NIDX_LINEAR)
		return 0;
	if (x->cap && n <= x->cap / 2) {
		put(x, arr, stride, n - 1);
		return 0;
	}
	if (n > (1u << 29)) /* the callers' limits keep far below; a table past 2^31 slots is not made */
		return tio_err_oom();
	uint32_t cap = 64;
	while (cap < 4 * (uint64_t)n)
		cap *= 2;
	uint32_t *slot = tio_calloc(cap, sizeof(uint32_t));
	if (!slot)
		return TIO_ERR_NOMEM;
	free(x->slot);
	x->slot = slot;
	x->cap = cap;
	for (uint32_t i = 0; i < n; i++)
		put(x, arr, stride, i);
	return 0;
}

void ctf_nidx_free(ctf_nidx *x)
{
	free(x->slot);
	x->slot = NULL;
	x->cap = 0;
}
