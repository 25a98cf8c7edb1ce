/*-------------------------------------------------------------------------
 *
 * scan_filter.c
 *	  An absorbed scan's simple quals, evaluated in place: comparisons of
 *	  integer, date and timestamp columns with constants or with each other,
 *	  equality of text and char(n) columns with constants, IN lists of
 *	  either, and NULL tests, on values read straight from the heap tuple.
 *	  This file compiles the quals; scan_filter_eval.c evaluates them.
 *
 * Why: through ExecQual a tuple is stored in a slot, every column up to the
 * last one a qual reads is deformed into it, and each comparison is an
 * interpreted function call.  TPC-H filters lineitem on l_shipdate, its
 * eleventh column, behind four numerics and two char(1)s: on the host twin
 * (SF 1, perf) deforming and interpreting took half of a filtered absorbed
 * scan's time, more than PostgreSQL's own Seq Scan with the same filter.
 * Here the tuple's attributes are walked as heap deforming walks them, only
 * the columns the quals read are kept, and the comparisons are inline.
 *
 * Exactness: a clause is taken only when its operator's C function is one
 * listed here: the built-in btree comparisons of int2, int4 and int8 (their
 * cross-type ones too), date, timestamp and timestamptz, and date against
 * timestamp (core's own date_cmp_timestamp_internal decides those, infinite
 * and out-of-range values included); text and char(n) (in)equality under a
 * deterministic collation, which is byte equality (char(n) without its
 * trailing spaces), as texteq and bpchareq decide it.  All are strict and
 * raise no error, so a NULL operand fails the clause as it fails the qual;
 * an IN list's NULL element never makes the clause true, so it is dropped.  The clauses
 * taken are a prefix of the plan's qual list; the rest run through ExecQual
 * after them, in the plan's order, so every clause sees the rows it would
 * see in a Seq Scan.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "scan_filter_internal.h"

#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

/* An operator's C function this file evaluates, and its operands' widths. */
typedef struct KnownFunc
{
	Oid			fn;
	uint8		op;
	uint8		width[2];		/* bytes of each operand: 2, 4 or 8 */
	uint8		mode;
} KnownFunc;

#define SIX(pre, suf, lw, rw, mode) \
	{pre##LT##suf, FOP_LT, {lw, rw}, mode}, \
	{pre##LE##suf, FOP_LE, {lw, rw}, mode}, \
	{pre##EQ##suf, FOP_EQ, {lw, rw}, mode}, \
	{pre##NE##suf, FOP_NE, {lw, rw}, mode}, \
	{pre##GE##suf, FOP_GE, {lw, rw}, mode}, \
	{pre##GT##suf, FOP_GT, {lw, rw}, mode}

static const KnownFunc known_funcs[] = {
	SIX(F_INT2, , 2, 2, FMODE_INT),
	SIX(F_INT4, , 4, 4, FMODE_INT),
	SIX(F_INT8, , 8, 8, FMODE_INT),
	SIX(F_INT24, , 2, 4, FMODE_INT),
	SIX(F_INT42, , 4, 2, FMODE_INT),
	SIX(F_INT28, , 2, 8, FMODE_INT),
	SIX(F_INT82, , 8, 2, FMODE_INT),
	SIX(F_INT48, , 4, 8, FMODE_INT),
	SIX(F_INT84, , 8, 4, FMODE_INT),
	SIX(F_DATE_, , 4, 4, FMODE_INT),
	SIX(F_TIMESTAMP_, , 8, 8, FMODE_INT),
	SIX(F_TIMESTAMPTZ_, , 8, 8, FMODE_INT),
	SIX(F_DATE_, _TIMESTAMP, 4, 8, FMODE_DATE_TS),
	SIX(F_TIMESTAMP_, _DATE, 8, 4, FMODE_TS_DATE),
	{F_TEXTEQ, FOP_EQ, {0, 0}, FMODE_TEXT},
	{F_TEXTNE, FOP_NE, {0, 0}, FMODE_TEXT},
	{F_BPCHAREQ, FOP_EQ, {0, 0}, FMODE_BPCHAR},
	{F_BPCHARNE, FOP_NE, {0, 0}, FMODE_BPCHAR},
};

static const KnownFunc *
known_func(Oid fn)
{
	for (int i = 0; i < lengthof(known_funcs); i++)
		if (known_funcs[i].fn == fn)
			return &known_funcs[i];
	return NULL;
}

/*
 * Index of heap column att (0-based) among the filter's, added if new.  Its
 * width: the bytes of its by-value integer, or 0 for any other type.
 */
static int
filter_column(GpuScanFilter *f, Form_pg_attribute att)
{
	int			attnum = att->attnum - 1;

	for (int c = 0; c < f->ncols; c++)
		if (f->attnum[c] == attnum)
			return c;
	if (f->ncols == FILTER_MAX_COLS)
		return -1;
	f->attnum[f->ncols] = attnum;
	f->width[f->ncols] = att->attbyval && (att->attlen == 2 || att->attlen == 4 ||
										   att->attlen == 8) ? att->attlen : 0;
	return f->ncols++;
}

/*
 * A plain column of the scanned relation: stored as a by-value integer of
 * width bytes, or as a varlena (width -1, under a binary-compatible cast),
 * or any type (width 0, for a NULL test).  Its filter column, or -1.
 */
static int
column_operand(GpuScanFilter *f, Node *n, Index scanrelid, TupleDesc desc, int width)
{
	Var		   *v;
	Form_pg_attribute att;

	/* varchar = varchar is texteq over its columns relabelled as text */
	if (width < 0 && IsA(n, RelabelType))
		n = (Node *) ((RelabelType *) n)->arg;
	v = (Var *) n;
	if (!IsA(n, Var) || v->varno != scanrelid || v->varlevelsup != 0 ||
		v->varattno <= 0 || v->varattno > desc->natts)
		return -1;
	att = TupleDescAttr(desc, v->varattno - 1);
	if (att->attisdropped)
		return -1;
	if (width > 0 && (!att->attbyval || att->attlen != width))
		return -1;
	if (width < 0 && att->attlen != -1)
		return -1;
	return filter_column(f, att);
}

/* A string constant's bytes, as the filter compares them. */
static FilterString
string_constant(Datum d, uint8 mode)
{
	return string_bytes(pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d)), mode);
}

/* The operator's function if this file evaluates it under collation collid. */
static const KnownFunc *
clause_func(Oid opfuncid, Oid opno, Oid collid)
{
	const KnownFunc *kf = known_func(OidIsValid(opfuncid) ? opfuncid : get_opcode(opno));

	/* bytes decide string equality only under a deterministic collation */
	if (kf != NULL && string_mode(kf->mode) &&
		(!OidIsValid(collid) || !get_collation_isdeterministic(collid)))
		return NULL;
	return kf;
}

/* An operand's width for column_operand: strings are varlenas. */
static inline int
operand_width(const KnownFunc *kf, int i)
{
	return string_mode(kf->mode) ? -1 : kf->width[i];
}

/*
 * A date column against a finite timestamp constant t, rewritten as a
 * comparison of dates: with t = q days + r microseconds (0 <= r < a day),
 * a date is below t when it is below q, or q itself with r > 0, and equals
 * t only at q with r = 0.  Infinite dates, and finite ones past the
 * timestamps' range, compare as date_cmp_timestamp_internal has them, since
 * q lies well inside the dates' range.  A `date + interval` bound is a
 * timestamp: this saves that call on every row that reaches the term.
 * Equality with r > 0 is never true; it keeps the call.
 */
static void
date_against_timestamp(FilterTerm *t)
{
	Timestamp	ts = (Timestamp) t->cst[1];
	int64		q,
				r;

	if (TIMESTAMP_NOT_FINITE(ts))
		return;
	q = ts / USECS_PER_DAY;
	r = ts % USECS_PER_DAY;
	if (r < 0)
	{
		q--;
		r += USECS_PER_DAY;
	}
	switch (t->op)
	{
		case FOP_LT:
		case FOP_GE:
			t->cst[1] = q + (r > 0);
			break;
		case FOP_LE:
		case FOP_GT:
			t->cst[1] = q;
			break;
		default:
			if (r != 0)
				return;
			t->cst[1] = q;
			break;
	}
	t->mode = FMODE_INT;
}

/* col op col, or col op constant (either side); strings: col op constant. */
static bool
compile_comparison(GpuScanFilter *f, FilterTerm *t, OpExpr *op, Index scanrelid, TupleDesc desc)
{
	const KnownFunc *kf = clause_func(op->opfuncid, op->opno, op->inputcollid);
	int			ncols = 0;

	if (kf == NULL || list_length(op->args) != 2)
		return false;
	t->kind = FK_CMP;
	t->op = kf->op;
	t->mode = kf->mode;
	for (int i = 0; i < 2; i++)
	{
		Node	   *arg = list_nth(op->args, i);

		if (IsA(arg, Const))
		{
			Const	   *c = (Const *) arg;

			if (c->constisnull)
				return false;
			t->col[i] = -1;
			if (string_mode(kf->mode))
			{
				if (c->constlen != -1)
					return false;
				t->nvals = 1;
				t->svals = palloc(sizeof(FilterString));
				t->svals[0] = string_constant(c->constvalue, kf->mode);
				continue;
			}
			if (!c->constbyval || c->constlen != kf->width[i])
				return false;
			t->cst[i] = datum_int64(c->constvalue, kf->width[i]);
		}
		else if ((t->col[i] = column_operand(f, arg, scanrelid, desc, operand_width(kf, i))) >= 0)
			ncols++;
		else
			return false;
	}
	if (string_mode(kf->mode))
	{
		/* the column first */
		if (ncols != 1)
			return false;
		if (t->col[0] < 0)
			t->col[0] = t->col[1];
		t->col[1] = -1;
		return true;
	}
	if (t->mode == FMODE_DATE_TS && t->col[0] >= 0 && t->col[1] < 0)
		date_against_timestamp(t);
	return ncols > 0;
}

/* col IN (constants): = ANY of a constant array, integers or strings. */
#define FILTER_MAX_IN 64

static bool
compile_in_list(GpuScanFilter *f, FilterTerm *t, ScalarArrayOpExpr *sa, Index scanrelid,
				TupleDesc desc)
{
	const KnownFunc *kf = clause_func(sa->opfuncid, sa->opno, sa->inputcollid);
	Const	   *c = lsecond(sa->args);
	ArrayType  *arr;
	Oid			elemtype;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	if (kf == NULL || !sa->useOr || kf->op != FOP_EQ ||
		(kf->mode != FMODE_INT && !string_mode(kf->mode)) ||
		!IsA(c, Const) || c->constisnull)
		return false;
	t->kind = FK_IN;
	t->mode = kf->mode;
	t->col[0] = column_operand(f, linitial(sa->args), scanrelid, desc, operand_width(kf, 0));
	t->col[1] = -1;
	if (t->col[0] < 0)
		return false;
	arr = DatumGetArrayTypeP(c->constvalue);
	elemtype = ARR_ELEMTYPE(arr);
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	if (string_mode(kf->mode) ? typlen != -1 : (!typbyval || typlen != kf->width[1]))
		return false;
	deconstruct_array(arr, elemtype, typlen, typbyval, typalign, &elems, &nulls, &n);
	if (n > FILTER_MAX_IN)
		return false;
	if (string_mode(kf->mode))
		t->svals = palloc(sizeof(FilterString) * Max(n, 1));
	else
		t->ivals = palloc(sizeof(int64) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		/* x = NULL is never true: a NULL element cannot pass a row */
		if (nulls[i])
			continue;
		if (string_mode(kf->mode))
			t->svals[t->nvals++] = string_constant(elems[i], kf->mode);
		else
			t->ivals[t->nvals++] = datum_int64(elems[i], kf->width[1]);
	}
	return true;
}

/* Clause e as a term of f; false (f unchanged but for columns) if it is not one. */
static bool
compile_clause(GpuScanFilter *f, Expr *e, Index scanrelid, TupleDesc desc)
{
	FilterTerm *t = &f->terms[f->nterms];
	bool		ok;

	if (f->nterms == FILTER_MAX_TERMS)
		return false;
	memset(t, 0, sizeof(*t));
	if (IsA(e, NullTest))
	{
		NullTest   *nt = (NullTest *) e;

		/* a row value's IS NULL looks into its fields */
		if (nt->argisrow || type_is_rowtype(exprType((Node *) nt->arg)))
			return false;
		t->kind = nt->nulltesttype == IS_NULL ? FK_IS_NULL : FK_NOT_NULL;
		t->col[0] = column_operand(f, (Node *) nt->arg, scanrelid, desc, 0);
		ok = t->col[0] >= 0;
	}
	else if (IsA(e, OpExpr))
		ok = compile_comparison(f, t, (OpExpr *) e, scanrelid, desc);
	else if (IsA(e, ScalarArrayOpExpr))
		ok = compile_in_list(f, t, (ScalarArrayOpExpr *) e, scanrelid, desc);
	else
		ok = false;
	if (ok)
		f->nterms++;
	return ok;
}

/* Sorts the columns by their place in the tuple, renumbering the terms'. */
static void
sort_columns(GpuScanFilter *f)
{
	int			order[FILTER_MAX_COLS];
	int			newidx[FILTER_MAX_COLS];
	int16		attnum[FILTER_MAX_COLS];
	uint8		width[FILTER_MAX_COLS];

	for (int c = 0; c < f->ncols; c++)
		order[c] = c;
	for (int i = 1; i < f->ncols; i++)
		for (int j = i; j > 0 && f->attnum[order[j - 1]] > f->attnum[order[j]]; j--)
		{
			int			x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	for (int c = 0; c < f->ncols; c++)
	{
		newidx[order[c]] = c;
		attnum[c] = f->attnum[order[c]];
		width[c] = f->width[order[c]];
	}
	memcpy(f->attnum, attnum, sizeof(attnum[0]) * f->ncols);
	memcpy(f->width, width, sizeof(width[0]) * f->ncols);
	for (int k = 0; k < f->nterms; k++)
		for (int i = 0; i < 2; i++)
			if (f->terms[k].col[i] >= 0 && (i == 0 || f->terms[k].kind == FK_CMP))
				f->terms[k].col[i] = newidx[f->terms[k].col[i]];
}

/*
 * The leading clauses of a scan's quals that are evaluated in place, or
 * NULL if the first one is not; *rest gets the clauses after them, for
 * ExecQual.
 */
GpuScanFilter *
gpuhash_scan_filter_compile(List *quals, Index scanrelid, TupleDesc desc, List **rest)
{
	GpuScanFilter *f;
	ListCell   *lc;

	*rest = quals;
	if (!gpuhash_scan_filter_in_place || quals == NIL)
		return NULL;
	f = palloc0(sizeof(GpuScanFilter));
	foreach(lc, quals)
	{
		GpuScanFilter saved = *f;

		if (!compile_clause(f, (Expr *) lfirst(lc), scanrelid, desc))
		{
			/* its columns go too */
			*f = saved;
			break;
		}
	}
	if (f->nterms == 0)
	{
		pfree(f);
		return NULL;
	}
	f->detoast_cxt = AllocSetContextCreate(CurrentMemoryContext, "gpuhash scan filter",
										   ALLOCSET_SMALL_SIZES);
	*rest = list_copy_tail(quals, f->nterms);
	sort_columns(f);

	/*
	 * The fixed-width columns before the first one read lie at the same
	 * offsets in every tuple without NULLs: the walk starts after them.
	 */
	for (int i = 0; i < f->attnum[0] && TupleDescAttr(desc, i)->attlen > 0; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		f->skip_off = att_align_nominal(f->skip_off, att->attalign) + att->attlen;
		f->skip = i + 1;
	}
	return f;
}
