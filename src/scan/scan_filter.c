/*-------------------------------------------------------------------------
 *
 * scan_filter.c
 *	  An absorbed scan's simple quals, evaluated in place: comparisons of
 *	  integer, date and timestamp columns with constants or with each other,
 *	  equality of text and char(n) columns with constants, IN lists of
 *	  either, and NULL tests, on values read straight from the heap tuple.
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

/* The comparison a clause makes of its two operands' order. */
typedef enum FilterOp
{
	FOP_LT,
	FOP_LE,
	FOP_EQ,
	FOP_NE,
	FOP_GE,
	FOP_GT
} FilterOp;

/* How the two operands compare. */
typedef enum FilterMode
{
	FMODE_INT,					/* as signed integers: the same type, or ints */
	FMODE_DATE_TS,				/* a date against a timestamp */
	FMODE_TS_DATE,				/* a timestamp against a date */
	FMODE_TEXT,					/* text: bytes, under a deterministic collation */
	FMODE_BPCHAR				/* char(n): bytes without trailing spaces */
} FilterMode;

typedef enum FilterKind
{
	FK_CMP,						/* column op column, or column op constant */
	FK_IN,						/* column = ANY (constants) */
	FK_IS_NULL,
	FK_NOT_NULL
} FilterKind;

/* A string constant, without its header (and a char(n)'s trailing spaces). */
typedef struct FilterString
{
	const char *data;
	int			len;
} FilterString;

/*
 * A clause: operand -1 is its constant, others index the filter's columns.
 * FK_IN and string comparisons have column col[0] and constants vals[].
 */
typedef struct FilterTerm
{
	uint8		kind;			/* FilterKind */
	uint8		op;				/* FilterOp */
	uint8		mode;			/* FilterMode */
	int8		col[2];			/* a NULL test: col[0] */
	int64		cst[2];
	int			nvals;
	int64	   *ivals;			/* FK_IN of integers */
	FilterString *svals;		/* strings: FK_IN, or FK_CMP's one constant */
} FilterTerm;

#define FILTER_MAX_TERMS 16
#define FILTER_MAX_COLS 8

struct GpuScanFilter
{
	int			nterms;
	FilterTerm	terms[FILTER_MAX_TERMS];
	int			ncols;
	int16		attnum[FILTER_MAX_COLS];	/* 0-based, ascending once compiled */
	uint8		width[FILTER_MAX_COLS]; /* filter_column() */
	/* a tuple without NULLs: its first skip columns end at skip_off */
	int			skip;
	uint32		skip_off;
	MemoryContext detoast_cxt;	/* a compressed or out-of-line string's copy */
};

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

/* Is this a string comparison (operands of width 0: varlenas)? */
static inline bool
string_mode(uint8 mode)
{
	return mode == FMODE_TEXT || mode == FMODE_BPCHAR;
}

static const KnownFunc *
known_func(Oid fn)
{
	for (int i = 0; i < lengthof(known_funcs); i++)
		if (known_funcs[i].fn == fn)
			return &known_funcs[i];
	return NULL;
}

/* A by-value datum of width bytes as int64. */
static inline int64
datum_int64(Datum d, int width)
{
	switch (width)
	{
		case 2:
			return DatumGetInt16(d);
		case 4:
			return DatumGetInt32(d);
		default:
			return DatumGetInt64(d);
	}
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

/* A detoasted string's bytes as the filter compares them: char(n)'s without trailing spaces. */
static inline FilterString
string_bytes(struct varlena *v, uint8 mode)
{
	FilterString fs;

	fs.data = VARDATA_ANY(v);
	fs.len = VARSIZE_ANY_EXHDR(v);
	while (mode == FMODE_BPCHAR && fs.len > 0 && fs.data[fs.len - 1] == ' ')
		fs.len--;
	return fs;
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

/*
 * The filter's columns of tuple th, as datums (a varlena's points into the
 * page): walked as heap deforming walks a tuple (alignment, short and
 * toasted varlena headers, the NULL bitmap), the columns after the last one
 * needed left alone.  A column the tuple does not store (added after it was
 * written) takes its missing value.
 */
static inline void
read_columns(const GpuScanFilter *f, HeapTupleHeader th, TupleDesc desc, Datum *vals,
			 bool *nulls)
{
	int			natts = HeapTupleHeaderGetNatts(th);
	bool		hasnulls = (th->t_infomask & HEAP_HASNULL) != 0;
	bits8	   *bp = th->t_bits;
	char	   *tp = (char *) th + th->t_hoff;
	uint32		off = hasnulls ? 0 : f->skip_off;
	int			c = 0;

	for (int i = hasnulls ? 0 : f->skip; c < f->ncols; i++)
	{
		Form_pg_attribute att;
		bool		want;

		if (i >= natts)
		{
			for (; c < f->ncols; c++)
				vals[c] = getmissingattr(desc, f->attnum[c] + 1, &nulls[c]);
			return;
		}
		att = TupleDescAttr(desc, i);
		want = f->attnum[c] == i;
		if (hasnulls && att_isnull(i, bp))
		{
			if (want)
			{
				nulls[c] = true;
				vals[c++] = (Datum) 0;
			}
			continue;
		}
		off = att_align_pointer(off, att->attalign, att->attlen, tp + off);
		if (want)
		{
			nulls[c] = false;
			vals[c] = fetchatt(att, tp + off);
			if (++c == f->ncols)
				return;
		}
		off = att_addlength_pointer(off, att->attlen, tp + off);
	}
}

static inline bool
op_holds(uint8 op, int cmp)
{
	switch (op)
	{
		case FOP_LT:
			return cmp < 0;
		case FOP_LE:
			return cmp <= 0;
		case FOP_EQ:
			return cmp == 0;
		case FOP_NE:
			return cmp != 0;
		case FOP_GE:
			return cmp >= 0;
		default:
			return cmp > 0;
	}
}

/*
 * A string column's bytes as the filter compares them; a compressed or
 * out-of-line value is detoasted into the filter's context (*copied).
 */
static inline FilterString
string_value(const GpuScanFilter *f, Datum d, uint8 mode, bool *copied)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
	{
		MemoryContext old = MemoryContextSwitchTo(f->detoast_cxt);

		v = pg_detoast_datum_packed(v);
		MemoryContextSwitchTo(old);
		*copied = true;
	}
	return string_bytes(v, mode);
}

static inline bool
string_equal(FilterString a, FilterString b)
{
	return a.len == b.len && memcmp(a.data, b.data, a.len) == 0;
}

/* Does term t hold for the row's columns? */
static inline bool
term_holds(const GpuScanFilter *f, const FilterTerm *t, const Datum *vals, const bool *nulls,
		   bool *copied)
{
	int64		a,
				b;
	int			c0 = t->col[0];
	int			cmp;

	switch (t->kind)
	{
		case FK_IS_NULL:
			return nulls[c0];
		case FK_NOT_NULL:
			return !nulls[c0];
		case FK_IN:
			if (nulls[c0])
				return false;
			if (string_mode(t->mode))
			{
				FilterString v = string_value(f, vals[c0], t->mode, copied);

				for (int i = 0; i < t->nvals; i++)
					if (string_equal(v, t->svals[i]))
						return true;
				return false;
			}
			a = datum_int64(vals[c0], f->width[c0]);
			for (int i = 0; i < t->nvals; i++)
				if (a == t->ivals[i])
					return true;
			return false;
		default:
			break;
	}
	if ((c0 >= 0 && nulls[c0]) || (t->col[1] >= 0 && nulls[t->col[1]]))
		return false;
	if (string_mode(t->mode))
	{
		bool		eq = string_equal(string_value(f, vals[c0], t->mode, copied), t->svals[0]);

		return t->op == FOP_EQ ? eq : !eq;
	}
	a = c0 >= 0 ? datum_int64(vals[c0], f->width[c0]) : t->cst[0];
	b = t->col[1] >= 0 ? datum_int64(vals[t->col[1]], f->width[t->col[1]]) : t->cst[1];
	if (t->mode == FMODE_INT)
		cmp = (a > b) - (a < b);
	else if (t->mode == FMODE_DATE_TS)
		cmp = date_cmp_timestamp_internal((DateADT) a, (Timestamp) b);
	else
		cmp = -date_cmp_timestamp_internal((DateADT) b, (Timestamp) a);
	return op_holds(t->op, cmp);
}

/* Does heap tuple th pass every clause of f? */
bool
gpuhash_scan_filter_pass(const GpuScanFilter *f, HeapTupleHeader th, TupleDesc desc)
{
	Datum		vals[FILTER_MAX_COLS];
	bool		nulls[FILTER_MAX_COLS];
	bool		copied = false;
	bool		pass = true;

	read_columns(f, th, desc, vals, nulls);
	for (int k = 0; k < f->nterms && pass; k++)
		pass = term_holds(f, &f->terms[k], vals, nulls, &copied);
	if (copied)
		MemoryContextReset(f->detoast_cxt);
	return pass;
}

/* How many of the scan's clauses f evaluates (EXPLAIN VERBOSE). */
int
gpuhash_scan_filter_clauses(const GpuScanFilter *f)
{
	return f ? f->nterms : 0;
}
