/*
 * Public API additions that the generic JSON printer (examples/json-print.c)
 * needed beyond field.h and class.h as first written:
 *
 *   tio_field_next_child      walk a compound's members/elements in linear
 *                             time (tio_field_member/element(i) walk i
 *                             siblings each: reading all n of them that way
 *                             is quadratic)
 *   tio_msg_discarded_cycles  the discarded range's clock values, which the
 *                             JSON output prints next to the ns
 */
#include "traceio/class.h"
#include "traceio/field.h"
#include "ir/ir.h"

/* As api-field.c: a text array decoded as one value has no element values. */
static bool is_text_val(const tio_val *v)
{
	return (v->fc->kind == TIO_FC_ARRAY || v->fc->kind == TIO_FC_SEQUENCE) && v->fc->a.text && v->n == 0 && v->v.s.p;
}

/* As api-field.c: does v have children after it?  (kind first: a leaf's `n` may be stale) */
static bool has_children(const tio_val *v)
{
	switch (v->fc->kind) {
	case TIO_FC_STRUCT:
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		return v->n > 0;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		return v->n > 0 && !is_text_val(v);
	default:
		return false;
	}
}

/* As api-field.c: v's index in its message's array (down its first children to a leaf). */
static uint32_t idx_of(const tio_val *v)
{
	uint32_t depth = 0;
	while (has_children(v)) {
		v++;
		depth++;
	}
	return v->end - 1 - depth;
}

int tio_field_next_child(const tio_field *parent, const tio_field *child, const tio_field **out)
{
	if (!parent || !child || !out)
		return tio_err_set(TIO_ERR_USAGE, "tio_field_next_child: no parent, child or output");
	if (!has_children(parent))
		return tio_err_set(TIO_ERR_USAGE, "tio_field_next_child: the parent has no member or element values");
	uint32_t pi = idx_of(parent);
	const tio_val *base = parent - pi;
	uint32_t ci = idx_of(child);
	if (base + ci != child || ci <= pi || ci >= parent->end)
		return tio_err_set(TIO_ERR_USAGE, "tio_field_next_child: the child is not a value of the parent");
	*out = child->end < parent->end ? base + child->end : NULL;
	return 0;
}

bool tio_msg_discarded_cycles(const tio_msg *m, uint64_t *begin_cycles, uint64_t *end_cycles)
{
	if (!m || (m->type != TIO_MSG_DISCARDED_EVENTS && m->type != TIO_MSG_DISCARDED_PACKETS) || !m->has_range)
		return false;
	if (begin_cycles)
		*begin_cycles = m->begin_cycles;
	if (end_cycles)
		*end_cycles = m->end_cycles;
	return true;
}
