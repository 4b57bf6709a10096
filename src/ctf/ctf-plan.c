/*
 * Compile field classes into decoding plans (see ctf-plan.h).
 * CTF 1.8.3 section 4: alignment, byte order and size decide which
 * specialized instruction reads a field.
 */
#include "ctf/ctf-plan.h"

#include <stdlib.h>

static int emit(plan *p, const tio_fc *fc, const char *name, uint32_t parent, uint32_t *nslots);

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

static int emit_int(plan_ins *in, const tio_fc *fc, int32_t def_clock)
{
	uint32_t size = fc->i.size;
	bool be = fc->i.byte_order == TIO_BE;
	bool aligned = fc->align % 8 == 0;
	in->size = size;
	if (fc->i.is_signed)
		in->flags |= PF_SIGNED;
	if (be)
		in->flags |= PF_BE;
	if (fc->i.clock >= 0 && fc->i.clock == def_clock)
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
	in->sh = (uint8_t)(64 - size);
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
		r = emit_int(in, fc, p->def_clock);
		if (r)
			return tio_err_push(r, "%s: field '%s'", p->scope, name ? name : "");
		break;
	case TIO_FC_FLOAT: {
		uint32_t size = fc->f.exp_dig + fc->f.mant_dig;
		in->size = size;
		if (fc->f.byte_order == TIO_BE)
			in->flags |= PF_BE;
		if (fc->f.bit_rev)
			in->flags |= PF_BITREV; /* the generic op below reverses its bits */
		if (fc->f.bit_rev && size >= 2 && size <= 64 && fc->f.exp_dig >= 1 && fc->f.exp_dig <= 30)
			in->op = OP_FLOAT;
		else if (size == 32 && fc->f.exp_dig == 8 && fc->align % 8 == 0)
			in->op = OP_F32;
		else if (size == 64 && fc->f.exp_dig == 11 && fc->align % 8 == 0)
			in->op = OP_F64;
		else if (size >= 2 && size <= 64 && fc->f.exp_dig >= 1 && fc->f.exp_dig <= 30)
			in->op = OP_FLOAT;
		else
			return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: field '%s': floating point with %u exponent and %u mantissa bits",
					   p->scope, name ? name : "", fc->f.exp_dig, fc->f.mant_dig);
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

static bool run_member(const plan_ins *in)
{
	return in->op <= OP_U64BE && !in->bf_unit && !(in->flags & (PF_SAVE | PF_CLOCK | PF_ROLE | PF_BITREV));
}

/* The run_n/run_bits of every structure's members (see plan_ins). */
static void mark_runs(plan *p)
{
	for (uint32_t i = 0; i < p->n; i++) {
		if (p->ins[i].op != OP_STRUCT || p->ins[i].n < 2)
			continue;
		/* members backwards: walk forwards once to find them */
		uint32_t n = p->ins[i].n, j = i + 1, last = UINT32_MAX;
		uint32_t *idx = tio_calloc(n, sizeof(uint32_t));
		if (!idx)
			return; /* no runs: the plain path decodes the same */
		for (uint32_t k = 0; k < n; k++, j = p->ins[j].next)
			idx[k] = j;
		for (uint32_t k = n; k-- > 0;) {
			plan_ins *m = &p->ins[idx[k]];
			if (!run_member(m)) {
				last = UINT32_MAX;
				continue;
			}
			m->run_n = 1;
			m->run_bits = m->size;
			if (last != UINT32_MAX && p->ins[last].align <= 8) {
				m->run_n += p->ins[last].run_n;
				m->run_bits += p->ins[last].run_bits;
			}
			last = idx[k];
		}
		free(idx);
	}
}

#define LIN_MAX_DEPTH 32 /* the decoder's stack of open structures */

static int lin_add(plan *p, size_t *cap, uint8_t kind, uint32_t i)
{
	if (tio_grow(&p->lin, cap, p->nlin + 1, sizeof(lin_op)))
		return TIO_ERR_NOMEM;
	const plan_ins *in = &p->ins[i];
	p->lin[p->nlin++] = (lin_op){.kind = kind, .flags = in->flags, .sh = in->sh, .size = in->size,
				     .amask = in->align > 1 ? in->align - 1 : 0, .ins = i, .fc = in->fc};
	return 0;
}

/* The op of an integer that is not a member of a run (see enum lin_kind). */
static uint8_t int_kind(const plan_ins *in)
{
	if (in->bf_unit)
		return LK_CALL;
	if (in->op > OP_U64BE || (in->flags & PF_BITREV) || in->align < 8 || in->align % 8)
		return LK_INT;
	unsigned fx = in->flags & (PF_SAVE | PF_ROLE | PF_CLOCK);
	if ((fx == PF_CLOCK || fx == (PF_CLOCK | PF_ROLE)) && in->role != TIO_ROLE_END_TS)
		return LK_FINT_CLK;
	if (fx == PF_SAVE)
		return LK_FINT_SAVE;
	if (fx == (PF_SAVE | PF_ROLE))
		return LK_FINT_SR;
	return LK_FINT;
}

/*
 * The values the ops from `from` to the last one make when their number
 * does not depend on the data, else 0 (0 values also gives 0: such a
 * structure keeps its LK_SE, which costs nothing worth saving).
 */
static uint32_t fixed_values(const plan *p, uint32_t from)
{
	uint64_t nv = 0;
	for (uint32_t k = from; k < p->nlin; k++) {
		const lin_op *o = &p->lin[k];
		switch (o->kind) {
		case LK_SBF: case LK_SB0: case LK_RUNMEM: case LK_INT: case LK_FINT: case LK_FINT_CLK:
		case LK_FINT_SAVE: case LK_FINT_SR: case LK_F32: case LK_F64: case LK_STR: case LK_TEXT:
			nv++;
			break;
		case LK_RUN:
			break;
		case LK_ARR:
			if (p->ins[o->ins].op != OP_ARRAY)
				return 0;
			nv += 1 + (uint64_t)p->ins[o->ins].n;
			k++; /* its element op makes no value of its own */
			break;
		default: /* LK_SB (a structure of its own of variable size), calls, variants */
			return 0;
		}
	}
	return nv < UINT32_MAX / 2 ? (uint32_t)nv : 0;
}

static int lin_emit(plan *p, size_t *cap, uint32_t i, int depth)
{
	const plan_ins *in = &p->ins[i];
	int r;
	switch (in->op) {
	case OP_STRUCT: {
		if (depth >= LIN_MAX_DEPTH)
			return TIO_ERR_LIMIT;
		/* an empty structure reads nothing that would check where it starts:
		   LK_SB0 does (aligned past the content's end: an error) */
		if (!in->n)
			return lin_add(p, cap, LK_SB0, i);
		uint32_t sb = p->nlin;
		if ((r = lin_add(p, cap, LK_SB, i)))
			return r;
		p->lin[sb].n = in->n;
		uint32_t j = i + 1;
		for (uint32_t k = 0; k < in->n;) {
			const plan_ins *c = &p->ins[j];
			if (c->run_n >= 1) {
				uint32_t nk = c->run_n;
				if ((r = lin_add(p, cap, LK_RUN, j)))
					return r;
				p->lin[p->nlin - 1].n = nk;
				p->lin[p->nlin - 1].size = c->run_bits;
				for (uint32_t m = 0; m < nk; m++, j = p->ins[j].next)
					if ((r = lin_add(p, cap, LK_RUNMEM, j)))
						return r;
				k += nk;
				continue;
			}
			if ((r = lin_emit(p, cap, j, depth + 1)))
				return r;
			j = c->next;
			k++;
		}
		uint32_t nv = fixed_values(p, sb + 1);
		if (nv) {
			p->lin[sb].kind = LK_SBF;
			p->lin[sb].aux = nv + 1;
			return 0;
		}
		return lin_add(p, cap, LK_SE, i);
	}
	case OP_U8: case OP_U16LE: case OP_U32LE: case OP_U64LE:
	case OP_U16BE: case OP_U32BE: case OP_U64BE: case OP_BITSLE: case OP_BITSBE: {
		uint8_t kind = int_kind(in);
		if ((r = lin_add(p, cap, kind, i)))
			return r;
		/* the slot and role in the op: no load of the instruction */
		lin_op *o = &p->lin[p->nlin - 1];
		if (kind == LK_FINT_SAVE || kind == LK_FINT_SR)
			o->n = (uint32_t)in->slot;
		if (kind == LK_FINT_CLK || kind == LK_FINT_SR)
			o->aux = in->role;
		if (kind == LK_FINT_CLK && in->role == TIO_ROLE_EVENT_TS)
			o->flags &= (uint8_t)~PF_ROLE;
		return 0;
	}
	case OP_F32:
	case OP_F64:
		return lin_add(p, cap, in->align % 8 == 0 ? (in->op == OP_F32 ? LK_F32 : LK_F64) : LK_CALL, i);
	case OP_STRING:
		return lin_add(p, cap, in->unit == 1 ? LK_STR : LK_CALL, i);
	case OP_TEXT:
		if ((r = lin_add(p, cap, LK_TEXT, i)))
			return r;
		p->lin[p->nlin - 1].n = in->n;
		return 0;
	case OP_ARRAY:
	case OP_SEQ: {
		const plan_ins *el = &p->ins[i + 1];
		bool packed = el->op <= OP_U64BE && !(el->flags & (PF_SAVE | PF_CLOCK | PF_ROLE | PF_BITREV)) &&
			      !el->bf_unit && el->align <= el->size && el->align % 8 == 0;
		if (!packed)
			return lin_add(p, cap, LK_CALL, i);
		uint32_t a = p->nlin;
		if ((r = lin_add(p, cap, LK_ARR, i)) || (r = lin_add(p, cap, LK_RUNMEM, i + 1)))
			return r;
		/* the length in the op: n (static), or the slot aux (PF_SEQ_TEXT) */
		if (in->op == OP_SEQ) {
			p->lin[a].flags |= PF_SEQ_TEXT;
			p->lin[a].aux = (uint32_t)in->slot;
		} else {
			p->lin[a].n = in->n;
		}
		return 0;
	}
	case OP_VARIANT: {
		if (depth >= LIN_MAX_DEPTH)
			return TIO_ERR_LIMIT;
		/* options by number: the ranges' option indexes are instruction indexes */
		uint32_t nopt = in->fc->v.noptions, var = p->nlin, aux = p->nlin_opt;
		uint32_t *no = realloc(p->lin_opt, (p->nlin_opt + nopt + 1) * sizeof(uint32_t));
		if (!no)
			return TIO_ERR_NOMEM;
		p->lin_opt = no;
		p->nlin_opt += nopt;
		if ((r = lin_add(p, cap, LK_VAR, i)))
			return r;
		p->lin[var].aux = aux;
		p->lin[var].n = (uint32_t)in->slot; /* the selector's slot, in the op */
		uint32_t *vends = tio_calloc(nopt ? nopt : 1, sizeof(uint32_t));
		if (!vends)
			return TIO_ERR_NOMEM;
		uint32_t j = i + 1;
		for (uint32_t k = 0; k < nopt; k++, j = p->ins[j].next) {
			p->lin_opt[aux + k] = p->nlin;
			if ((r = lin_emit(p, cap, j, depth + 1)) || (r = lin_add(p, cap, LK_VEND, i))) {
				free(vends);
				return r;
			}
			vends[k] = p->nlin - 1;
		}
		for (uint32_t k = 0; k < nopt; k++)
			p->lin[vends[k]].n = p->nlin;
		free(vends);
		return 0;
	}
	default:
		return lin_add(p, cap, LK_CALL, i);
	}
}

/* The flat program of a compiled plan (none when too deep: the tree is run). */
static int linearize(plan *p)
{
	size_t cap = 0;
	int r = lin_emit(p, &cap, 0, 0);
	if (!r)
		r = lin_add(p, &cap, LK_END, 0);
	if (r) {
		free(p->lin);
		free(p->lin_opt);
		p->lin = NULL;
		p->lin_opt = NULL;
		p->nlin = p->nlin_opt = 0;
		return r == TIO_ERR_NOMEM ? r : 0;
	}
	/* each call: the in-line values after it, to reserve room again */
	uint32_t after = 0;
	for (uint32_t k = p->nlin; k-- > 0;) {
		lin_op *o = &p->lin[k];
		if (o->kind == LK_CALL)
			o->n = after;
		else if (o->kind == LK_ARR)
			p->lin[k + 1].n = after; /* its element op: room to reserve after the elements */
		else if (o->kind == LK_SB || o->kind == LK_SBF || o->kind == LK_SB0 || o->kind == LK_RUNMEM || o->kind == LK_INT ||
			 o->kind == LK_FINT || o->kind == LK_FINT_CLK || o->kind == LK_FINT_SAVE ||
			 o->kind == LK_FINT_SR || o->kind == LK_F32 ||
			 o->kind == LK_F64 || o->kind == LK_STR || o->kind == LK_VAR || o->kind == LK_ARR ||
			 o->kind == LK_TEXT)
			after++;
	}
	p->lin_vals = after;
	for (uint32_t k = 0; k + 1 < p->nlin; k++)
		if (p->lin[k].kind == LK_SE && p->lin[k + 1].kind == LK_END)
			p->lin[k].kind = LK_SE_END; /* one dispatch less a scope */
	for (uint32_t k = 0; k < p->nlin; k++) { /* a variant's ranges: their option's ops (one load less) */
		const lin_op *o = &p->lin[k];
		if (o->kind != LK_VAR)
			continue;
		plan_ins *in = &p->ins[o->ins];
		for (uint32_t j = 0; j < in->n; j++)
			in->vr[j].lin = p->lin_opt[o->aux + in->vr[j].ord];
	}
	for (uint32_t k = 0; k < p->nlin; k++) /* and one less an event header with a variant (LTTng's) */
		if (p->lin[k].kind == LK_VEND && p->lin[k].n < p->nlin && p->lin[p->lin[k].n].kind == LK_SE_END)
			p->lin[k].kind = LK_VEND_SE_END;
	return 0;
}

int plan_compile(plan *p, const tio_fc *fc, const char *scope, int32_t def_clock, uint32_t *nslots)
{
	memset(p, 0, sizeof(*p));
	p->def_clock = def_clock;
	p->scope = scope;
	if (!fc)
		return 0;
	int r = emit(p, fc, NULL, UINT32_MAX, nslots);
	if (!r) {
		mark_runs(p);
		r = linearize(p);
	}
	if (r)
		plan_free(p);
	return r;
}

void plan_free(plan *p)
{
	for (uint32_t i = 0; i < p->n; i++)
		free(p->ins[i].vr);
	free(p->ins);
	free(p->lin);
	free(p->lin_opt);
	memset(p, 0, sizeof(*p));
}

/*
 * Give the targets of `ref` a save slot: one slot for the target and its
 * alternatives (tio_ref.alts: whichever of them is decoded saves there).
 * References with alternatives go first (pass 0), so that a reference to
 * one of those fields alone (pass 1) finds the shared slot.  Alternatives
 * that already have different slots (two such references overlapping)
 * cannot share one.
 */
static int slot_ref(const tio_ref *ref, uint32_t *nslots, int pass)
{
	if (!ref->target || (pass == 0) != (ref->nalts > 0))
		return 0;
	int32_t slot = -1;
	for (uint32_t k = 0; k <= ref->nalts; k++) {
		const tio_fc *t = k ? ref->alts[k - 1] : ref->target;
		if (t->save_slot < 0)
			continue;
		if (slot >= 0 && t->save_slot != slot)
			return tio_err_set(TIO_ERR_UNSUPPORTED,
					   "`%s`: the fields this location designates are also designated separately by others",
					   ref->path ? ref->path : "");
		slot = t->save_slot;
	}
	if (slot < 0)
		slot = (int32_t)(*nslots)++;
	for (uint32_t k = 0; k <= ref->nalts; k++) {
		tio_fc *t = (tio_fc *)(k ? ref->alts[k - 1] : ref->target); /* slots are decode metadata */
		t->save_slot = slot;
	}
	return 0;
}

static int slots_fc(const tio_fc *fc, uint32_t *nslots, int pass, int depth)
{
	int r = 0;
	if (!fc || depth > 256)
		return 0;
	switch (fc->kind) {
	case TIO_FC_STRUCT:
		for (uint32_t i = 0; !r && i < fc->st.nmembers; i++)
			r = slots_fc(fc->st.members[i].fc, nslots, pass, depth + 1);
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		if (fc->kind == TIO_FC_SEQUENCE)
			r = slot_ref(&fc->a.len, nslots, pass);
		if (!r)
			r = slots_fc(fc->a.elem, nslots, pass, depth + 1);
		break;
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		r = slot_ref(&fc->v.sel, nslots, pass);
		for (uint32_t i = 0; !r && i < fc->v.noptions; i++)
			r = slots_fc(fc->v.options[i].fc, nslots, pass, depth + 1);
		break;
	case TIO_FC_DSTRING:
	case TIO_FC_DBLOB:
		r = slot_ref(&fc->s.len, nslots, pass);
		break;
	default:
		break;
	}
	return r;
}

int plan_assign_slots(tio_trace_class *tc, uint32_t *nslots)
{
	int r = 0;
	for (int pass = 0; !r && pass < 2; pass++) {
		r = slots_fc(tc->pkt_header, nslots, pass, 0);
		for (uint32_t i = 0; !r && i < tc->nscs; i++) {
			tio_stream_class *sc = tc->scs[i];
			r = slots_fc(sc->pkt_ctx, nslots, pass, 0);
			if (!r)
				r = slots_fc(sc->ev_header, nslots, pass, 0);
			if (!r)
				r = slots_fc(sc->ev_common_ctx, nslots, pass, 0);
			for (uint32_t j = 0; !r && j < sc->necs; j++) {
				r = slots_fc(sc->ecs[j]->spec_ctx, nslots, pass, 0);
				if (!r)
					r = slots_fc(sc->ecs[j]->payload, nslots, pass, 0);
			}
		}
	}
	return r;
}
