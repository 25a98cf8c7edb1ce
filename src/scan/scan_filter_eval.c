/*-------------------------------------------------------------------------
 *
 * scan_filter_eval.c
 *	  An absorbed scan's simple quals (compiled by scan_filter.c) evaluated
 *	  on a heap tuple in its page: the columns they read walked as heap
 *	  deforming walks them, then each clause compared inline.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "scan_filter_internal.h"

#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "fmgr.h"
#include "utils/date.h"
#include "utils/memutils.h"

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
