/*
 * Compile field classes into decoding plans (see ctf-plan.h).
 * CTF 1.8.3 section 4: alignment, byte order and size decide which
 * specialized instruction reads a field.
 */
#include "ctf/ctf-plan.h"

#include <stdlib.h>

static int emit(plan *p, const tio_fc *fc, const char *name, uint32_t parent, uint32_t *nslots);
static int32_t cur_def_clock; /* set by plan_compile for emit_int */

static int add(plan *p, uint32_t *idx)
{
	if (p->n >= (1u << 24))
		return tio_err_set(TIO_ERR_LIMIT, "%s: decoding plan too large", p->scope);
	size_t cap = p->cap;
	if (tio_grow(&p->ins, &cap, p->n + 1, sizeof(plan_ins)))
		return TIO_ERR_NOMEM;
	p->cap = (uint32_t)cap;
	*idx = p->n++;
	memset(&p->ins[*idx], 0, sizeof(plan_ins));
	p->ins[*idx].slot = -1;
	return 0;
}

static int vr_cmp(const void *a, const void *b)
{
	const plan_vrange *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Does enum label `label` name variant option `opt`?  CTF 1 names may carry one leading '_'. */
static bool label_matches(const char *label, const char *opt)
{
	if (!label || !opt)
		return false;
	if (!strcmp(label, opt))
		return true;
	if (label[0] == '_' && !strcmp(label + 1, opt))
		return true;
	if (opt[0] == '_' && !strcmp(label, opt + 1))
		return true;
	return false;
}

static int compile_variant(plan *p, uint32_t idx, const tio_fc *fc, uint32_t *opt_idx)
{
	const tio_fc *tag = fc->v.sel.target;
	plan_vrange *vr = NULL;
	size_t n = 0, cap = 0;
	if (fc->v.ranges) { /* CTF 2 style: ranges per option */
		for (uint32_t o = 0; o < fc->v.noptions; o++)
			for (uint32_t r = 0; r < fc->v.ranges[o].nranges; r++) {
				if (tio_grow(&vr, &cap, n + 1, sizeof(*vr)))
					goto oom;
				vr[n++] = (plan_vrange){(uint64_t)fc->v.ranges[o].ranges[r].lo,
							(uint64_t)fc->v.ranges[o].ranges[r].hi, opt_idx[o], o};
			}
	} else if (tag && (tag->kind == TIO_FC_ENUM)) {
		for (uint32_t m = 0; m < tag->i.nmappings; m++) {
			const tio_mapping *mp = &tag->i.mappings[m];
			int64_t o = -1;
			for (uint32_t k = 0; k < fc->v.noptions && o < 0; k++)
				if (label_matches(mp->label, fc->v.options[k].name))
					o = k;
			if (o < 0)
				continue; /* selecting this label is an error at decode time */
			for (uint32_t r = 0; r < mp->nranges; r++) {
				if (tio_grow(&vr, &cap, n + 1, sizeof(*vr)))
					goto oom;
				vr[n++] = (plan_vrange){(uint64_t)mp->ranges[r].lo,
							(uint64_t)mp->ranges[r].hi, opt_idx[o], (uint32_t)o};
			}
		}
	}
	/* signed selectors compare as signed: bias so unsigned order works */
	bool tag_signed = tag && (tag->kind == TIO_FC_VARINT ? tag->vi.is_signed : tag->i.is_signed);
	if (tag_signed) {
		p->ins[idx].flags |= PF_SIGNED;
		for (size_t k = 0; k < n; k++) {
			vr[k].lo ^= 1ULL << 63;
			vr[k].hi ^= 1ULL << 63;
		}
	}
	if (n > 1)
		qsort(vr, n, sizeof(*vr), vr_cmp);
	p->ins[idx].vr = vr;
	p->ins[idx].n = (uint32_t)n;
	return 0;
oom:
	free(vr);
	return TIO_ERR_NOMEM;
}

static int emit_int(plan_ins *in, const tio_fc *fc)
{
	uint32_t size = fc->i.size;
	bool be = fc->i.byte_order == TIO_BE;
	bool aligned = fc->align % 8 == 0;
	in->size = size;
	if (fc->i.is_signed)
		in->flags |= PF_SIGNED;
	if (be)
		in->flags |= PF_BE;
	if (fc->i.clock >= 0 && fc->i.clock == cur_def_clock)
		in->flags |= PF_CLOCK;
	if (fc->role)
		in->flags |= PF_ROLE;
	in->role = (uint8_t)fc->role;
	if (size == 0)
		return tio_err_set(TIO_ERR_FORMAT, "integer of size 0");
	if (size > 64) {
		in->op = OP_BIGINT;
		return 0;
	}
	in->mask = size == 64 ? UINT64_MAX : (1ULL << size) - 1;
	if (fc->i.bf_unit) {
		/* generic path: run() applies the unit rule before reading */
		in->bf_unit = fc->i.bf_unit;
		in->op = be ? OP_BITSBE : OP_BITSLE;
		return 0;
	}
	if (fc->i.bit_rev) {
		/* rare: the generic bit reader, then reverse (see run_int) */
		in->flags |= PF_BITREV;
		in->op = be ? OP_BITSBE : OP_BITSLE;
		return 0;
	}
	if (aligned && size == 8)
		in->op = OP_U8;
	else if (aligned && size == 16)
		in->op = be ? OP_U16BE : OP_U16LE;
	else if (aligned && size == 32)
		in->op = be ? OP_U32BE : OP_U32LE;
	else if (aligned && size == 64)
		in->op = be ? OP_U64BE : OP_U64LE;
	else
		in->op = be ? OP_BITSBE : OP_BITSLE;
	return 0;
}

static bool is_text_elem(const tio_fc *e)
{
	return (e->kind == TIO_FC_INT || e->kind == TIO_FC_ENUM) && e->i.size == 8 && e->align % 8 == 0 &&
	       e->i.clock < 0 && e->save_slot < 0;
}

static int emit(plan *p, const tio_fc *fc, const char *name, uint32_t parent, uint32_t *nslots)
{
	uint32_t idx = 0;
	int r = add(p, &idx);
	if (r)
		return r;
	plan_ins *in = &p->ins[idx];
	in->fc = fc;
	in->name = name;
	in->parent = parent;
	in->align = fc->align ? fc->align : 1;
	if (fc->save_slot >= 0) {
		in->flags |= PF_SAVE;
		in->slot = fc->save_slot;
	}
	switch (fc->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM:
	case TIO_FC_BOOL:
	case TIO_FC_BITMAP:
		r = emit_int(in, fc);
		if (r)
			return tio_err_push(r, "%s: field '%s'", p->scope, name ? name : "");
		break;
	case TIO_FC_FLOAT: {
		uint32_t size = fc->f.exp_dig + fc->f.mant_dig;
		in->size = size;
		if (fc->f.byte_order == TIO_BE)
			in->flags |= PF_BE;
		if (size == 32 && fc->f.exp_dig == 8 && fc->align % 8 == 0)
			in->op = OP_F32;
		else if (size == 64 && fc->f.exp_dig == 11 && fc->align % 8 == 0)
			in->op = OP_F64;
		else if (size >= 2 && size <= 64 && fc->f.exp_dig >= 1 && fc->f.exp_dig <= 30)
			in->op = OP_FLOAT;
		else
			return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: field '%s': floating point with %u exponent and %u mantissa bits",
					   p->scope, name ? name : "", fc->f.exp_dig, fc->f.mant_dig);
		in->mask = size == 64 ? UINT64_MAX : (1ULL << size) - 1;
		break;
	}
	case TIO_FC_STRING:
		in->op = OP_STRING;
		in->unit = fc->s.encoding == TIO_ENC_UTF16 ? 2 : fc->s.encoding == TIO_ENC_UTF32 ? 4 : 1;
		if (fc->s.byte_order == TIO_BE)
			in->flags |= PF_BE;
		in->align = fc->align < 8 ? 8 : fc->align;
		break;
	case TIO_FC_VARINT:
		in->op = OP_VARINT;
		if (fc->vi.is_signed)
			in->flags |= PF_SIGNED;
		if (fc->role == TIO_ROLE_EVENT_TS || fc->role == TIO_ROLE_BEGIN_TS)
			in->flags |= PF_CLOCK; /* a full clock value: no wrap-around */
		if (fc->role)
			in->flags |= PF_ROLE;
		in->role = (uint8_t)fc->role;
		in->align = fc->align < 8 ? 8 : fc->align;
		break;
	case TIO_FC_SSTRING:
	case TIO_FC_SBLOB:
		in->op = OP_SBYTES;
		if (fc->s.length > UINT32_MAX)
			return tio_err_set(TIO_ERR_LIMIT, "%s: field '%s': length %llu too large", p->scope,
					   name ? name : "", (unsigned long long)fc->s.length);
		in->n = (uint32_t)fc->s.length;
		in->align = fc->align < 8 ? 8 : fc->align;
		break;
	case TIO_FC_DSTRING:
	case TIO_FC_DBLOB:
		in->op = OP_DBYTES;
		if (!fc->s.len.target || fc->s.len.target->save_slot < 0)
			return tio_err_set(TIO_ERR_FORMAT, "%s: field '%s': unresolved length '%s'", p->scope,
					   name ? name : "", fc->s.len.path ? fc->s.len.path : "");
		in->slot = fc->s.len.target->save_slot;
		in->align = fc->align < 8 ? 8 : fc->align;
		break;
	case TIO_FC_OPTIONAL: {
		in->op = OP_OPTIONAL;
		const tio_fc *sel = fc->v.sel.target;
		if (!sel || sel->save_slot < 0 || fc->v.noptions != 1)
			return tio_err_set(TIO_ERR_FORMAT, "%s: field '%s': unresolved selector '%s'", p->scope,
					   name ? name : "", fc->v.sel.path ? fc->v.sel.path : "");
		in->slot = sel->save_slot;
		if (sel->kind == TIO_FC_BOOL || !fc->v.ranges) {
			in->flags |= PF_BOOLSEL;
		} else {
			bool sgn = (sel->kind == TIO_FC_VARINT) ? sel->vi.is_signed : sel->i.is_signed;
			size_t cap = 0, n = 0;
			plan_vrange *vr = NULL;
			for (uint32_t k = 0; k < fc->v.ranges[0].nranges; k++) {
				if (tio_grow(&vr, &cap, n + 1, sizeof(*vr))) {
					free(vr);
					return TIO_ERR_NOMEM;
				}
				uint64_t lo = (uint64_t)fc->v.ranges[0].ranges[k].lo, hi = (uint64_t)fc->v.ranges[0].ranges[k].hi;
				if (sgn) {
					lo ^= 1ULL << 63;
					hi ^= 1ULL << 63;
				}
				vr[n++] = (plan_vrange){lo, hi, 0, 0};
			}
			if (sgn)
				in->flags |= PF_SIGNED;
			if (n > 1)
				qsort(vr, n, sizeof(*vr), vr_cmp);
			in->vr = vr;
			in->n = (uint32_t)n;
		}
		r = emit(p, fc->v.options[0].fc, fc->v.options[0].name, idx, nslots);
		if (r)
			return r;
		break;
	}
	case TIO_FC_STRUCT:
		in->op = OP_STRUCT;
		in->n = fc->st.nmembers;
		for (uint32_t i = 0; i < fc->st.nmembers; i++) {
			r = emit(p, fc->st.members[i].fc, fc->st.members[i].name, idx, nslots);
			if (r)
				return r;
		}
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		if (fc->kind == TIO_FC_ARRAY && fc->a.length > UINT32_MAX)
			return tio_err_set(TIO_ERR_LIMIT, "%s: field '%s': array length %llu too large",
					   p->scope, name ? name : "", (unsigned long long)fc->a.length);
		if (fc->kind == TIO_FC_SEQUENCE) {
			if (!fc->a.len.target || fc->a.len.target->save_slot < 0)
				return tio_err_set(TIO_ERR_FORMAT, "%s: field '%s': unresolved length '%s'",
						   p->scope, name ? name : "", fc->a.len.path ? fc->a.len.path : "");
			in->slot = fc->a.len.target->save_slot;
		}
		in->n = (uint32_t)fc->a.length;
		if (fc->a.text && is_text_elem(fc->a.elem)) {
			in->op = OP_TEXT;
			if (fc->kind == TIO_FC_SEQUENCE)
				in->flags |= PF_SEQ_TEXT;
			in->align = fc->align < 8 ? 8 : fc->align;
			break;
		}
		in->op = fc->kind == TIO_FC_ARRAY ? OP_ARRAY : OP_SEQ;
		r = emit(p, fc->a.elem, NULL, idx, nslots);
		if (r)
			return r;
		break;
	case TIO_FC_VARIANT: {
		in->op = OP_VARIANT;
		if (!fc->v.sel.target || fc->v.sel.target->save_slot < 0)
			return tio_err_set(TIO_ERR_FORMAT, "%s: field '%s': unresolved selector '%s'",
					   p->scope, name ? name : "", fc->v.sel.path ? fc->v.sel.path : "");
		in->slot = fc->v.sel.target->save_slot;
		uint32_t *opt_idx = tio_calloc(fc->v.noptions ? fc->v.noptions : 1, sizeof(uint32_t));
		if (!opt_idx)
			return TIO_ERR_NOMEM;
		for (uint32_t i = 0; i < fc->v.noptions; i++) {
			opt_idx[i] = p->n;
			r = emit(p, fc->v.options[i].fc, fc->v.options[i].name, idx, nslots);
			if (r) {
				free(opt_idx);
				return r;
			}
		}
		r = compile_variant(p, idx, fc, opt_idx);
		free(opt_idx);
		if (r)
			return r;
		break;
	}
	}
	p->ins[idx].next = p->n;
	return 0;
}

int plan_compile(plan *p, const tio_fc *fc, const char *scope, int32_t def_clock, uint32_t *nslots)
{
	memset(p, 0, sizeof(*p));
	cur_def_clock = def_clock;
	p->scope = scope;
	if (!fc)
		return 0;
	int r = emit(p, fc, NULL, UINT32_MAX, nslots);
	if (r)
		plan_free(p);
	return r;
}

void plan_free(plan *p)
{
	for (uint32_t i = 0; i < p->n; i++)
		free(p->ins[i].vr);
	free(p->ins);
	memset(p, 0, sizeof(*p));
}

static void slot_ref(const tio_ref *ref, uint32_t *nslots)
{
	tio_fc *t = (tio_fc *)ref->target; /* the trace class owns it; slots are decode metadata */
	if (t && t->save_slot < 0)
		t->save_slot = (int32_t)(*nslots)++;
}

static void slots_fc(const tio_fc *fc, uint32_t *nslots, int depth)
{
	if (!fc || depth > 256)
		return;
	switch (fc->kind) {
	case TIO_FC_STRUCT:
		for (uint32_t i = 0; i < fc->st.nmembers; i++)
			slots_fc(fc->st.members[i].fc, nslots, depth + 1);
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		if (fc->kind == TIO_FC_SEQUENCE)
			slot_ref(&fc->a.len, nslots);
		slots_fc(fc->a.elem, nslots, depth + 1);
		break;
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		slot_ref(&fc->v.sel, nslots);
		for (uint32_t i = 0; i < fc->v.noptions; i++)
			slots_fc(fc->v.options[i].fc, nslots, depth + 1);
		break;
	case TIO_FC_DSTRING:
	case TIO_FC_DBLOB:
		slot_ref(&fc->s.len, nslots);
		break;
	default:
		break;
	}
}

int plan_assign_slots(tio_trace_class *tc, uint32_t *nslots)
{
	slots_fc(tc->pkt_header, nslots, 0);
	for (uint32_t i = 0; i < tc->nscs; i++) {
		tio_stream_class *sc = tc->scs[i];
		slots_fc(sc->pkt_ctx, nslots, 0);
		slots_fc(sc->ev_header, nslots, 0);
		slots_fc(sc->ev_common_ctx, nslots, 0);
		for (uint32_t j = 0; j < sc->necs; j++) {
			slots_fc(sc->ecs[j]->spec_ctx, nslots, 0);
			slots_fc(sc->ecs[j]->payload, nslots, 0);
		}
	}
	return 0;
}
