/*-------------------------------------------------------------------------
 *
 * agg_join_carry.c
 *	  GpuPreAgg over an inner join: the carried columns, plain columns of
 *	  the inner side that the node hands up beside its group columns and
 *	  aggregates without grouping by them.  PostgreSQL lets such a column
 *	  stand ungrouped only where the GROUP BY holds its relation's primary
 *	  key (check_functional_grouping; remove_useless_groupby_columns then
 *	  drops it from the grouping), so all rows of a group share its value.
 *	  The GPU never sees them (they can be wide: a customer's address and
 *	  comment): a group from the GPU takes them from one inner row whose
 *	  inner group columns equal the group's, found in a hash table of the
 *	  inner rows by those columns; a pair the CPU joins takes them from its
 *	  own inner row.
 *
 *	  The table holds one row per distinct value of its key, pointing into
 *	  the collected rows (a shared dimension's chunks), so the dimension
 *	  comes from the plan's rows (not pages).  Where they outgrow work_mem
 *	  at run time and go to batches (agg_join_batches.c), the table holds
 *	  the rows of the batch in memory: every pair of a pass has its inner
 *	  row in that batch, so does every group the pass folds, and the
 *	  node hands the pass's groups up before the next batch replaces the
 *	  rows (agg_exec.c), each group not kept in a resident set across the
 *	  passes (agg_resident.c); the Finalize Aggregate adds up a group's
 *	  passes.  Its key is the carried relations'
 *	  primary key columns among the group columns: rows equal on them are
 *	  one row of each such relation, so they carry equal values, and the
 *	  key is short and usually first in the row (an integer, where the
 *	  other inner group columns can lie past wide text the table's build
 *	  would deform for every row).  Without such a key in the running
 *	  catalog, every inner group column.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join.h"

#include "access/hash.h"
#include "access/sysattr.h"
#include "catalog/pg_constraint.h"
#include "common/hashfn.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

typedef struct GpuAggCarry
{
	int			ncarry;
	int		   *pos;			/* each carried column's output position */
	int		   *tlpos;			/* ... and 1-based inner plan position */
	int			nikeys;			/* the table's key: group columns of the inner side */
	int		   *ikey;			/* ... their index among the group columns */
	int		   *ikey_tlpos;		/* ... and inner plan position */
	bool	   *ikey_byval;
	int16	   *ikey_len;		/* a by-value key's length */
	bool	   *ikey_bpchar;	/* compared as bpchar: trailing spaces not */
	TupleTableSlot *slot;		/* an inner row being hashed */
	Datum	   *vals;			/* the inner group values of a row or group */
	bool	   *nulls;

	/* open addressing over the rows, built at the first group (rows_cxt) */
	bool		built;
	MinimalTuple *table;
	uint32	   *hashes;
	uint64		mask;
	uint64		entries;		/* EXPLAIN ANALYZE */
	double		build_ms;
} GpuAggCarry;

static void carried_keys(GpuAggCarry *c, CustomScan *cscan, EState *estate, int nkeys);

/*
 * The carried columns of the plan: the entries after the group columns
 * that are not Aggrefs.  NULL where there are none.  Each must be a column
 * of the inner side in its plan's output, as the planner checked.
 */
GpuAggCarry *
gpuhash_agg_carry_init(GpuPreAggState *as, CustomScan *cscan, EState *estate,
					   TupleDesc inner_desc)
{
	List	   *tlist = cscan->custom_scan_tlist;
	GpuAggCarry *c = NULL;
	ListCell   *lc;

	foreach(lc, tlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		int			k = foreach_current_index(lc);
		Var		   *v = (Var *) tle->expr;

		if (k < as->nkeys || tle->resjunk || IsA(v, Aggref))
			continue;
		if (!IsA(v, Var) || v->varno == cscan->scan.scanrelid || v->varattno <= 0)
			elog(ERROR, "gpuhash: a GpuPreAgg output column that is no group column, aggregate or inner column");
		if (c == NULL)
		{
			c = palloc0(sizeof(GpuAggCarry));
			c->pos = palloc(sizeof(int) * list_length(tlist));
			c->tlpos = palloc(sizeof(int) * list_length(tlist));
		}
		c->pos[c->ncarry] = k;
		c->tlpos[c->ncarry] = gpuhash_preagg_inner_pos(cscan, 0, v);
		if (c->tlpos[c->ncarry] == 0)
			elog(ERROR, "gpuhash: GpuPreAgg's inner plan does not output carried column %d of %u",
				 v->varattno, v->varno);
		c->ncarry++;
	}
	if (c == NULL)
		return NULL;
	carried_keys(c, cscan, estate, as->nkeys);
	c->slot = ExecInitExtraTupleSlot(estate, inner_desc, &TTSOpsMinimalTuple);
	c->vals = palloc(sizeof(Datum) * c->nikeys);
	c->nulls = palloc(sizeof(bool) * c->nikeys);
	return c;
}

/*
 * The relation rte's primary key attnos (offset as in a Bitmapset of
 * get_primary_key_attnos), or NULL.
 */
static Bitmapset *
primary_key_of(RangeTblEntry *rte)
{
	Oid			constraint;

	if (rte->rtekind != RTE_RELATION)
		return NULL;
	return get_primary_key_attnos(rte->relid, false, &constraint);
}

/*
 * Is group column e (a Var of the inner side) part of the table's key?
 * With pk_only, only where it is a primary key column of a relation whose
 * columns are carried.
 */
static bool
key_column(Var *e, Bitmapset *carried_rels, EState *estate, bool pk_only)
{
	Bitmapset  *pk;

	if (!pk_only)
		return true;
	if (!bms_is_member(e->varno, carried_rels))
		return false;
	pk = primary_key_of(exec_rt_fetch(e->varno, estate));
	return bms_is_member(e->varattno - FirstLowInvalidHeapAttributeNumber, pk);
}

/*
 * The table's key: the inner group columns that are the carried relations'
 * primary key columns, every one of each such key among them (the planner
 * carries a column only so, agg_paths.c carried_ok); else all the inner
 * group columns, which hold those keys (one value of each carried column
 * for equal ones either way).
 */
static void
carried_keys(GpuAggCarry *c, CustomScan *cscan, EState *estate, int nkeys)
{
	List	   *tlist = cscan->custom_scan_tlist;
	Bitmapset  *rels = NULL;
	bool		pk_only = true;
	int			rel = -1;

	for (int i = 0; i < c->ncarry; i++)
	{
		Var		   *v = (Var *) list_nth_node(TargetEntry, tlist, c->pos[i])->expr;

		rels = bms_add_member(rels, v->varno);
	}
	/* every carried relation's whole key among the group columns */
	while (pk_only && (rel = bms_next_member(rels, rel)) >= 0)
	{
		Bitmapset  *pk = primary_key_of(exec_rt_fetch(rel, estate));

		if (pk == NULL)
			pk_only = false;
		for (int k = 0; pk_only && k < nkeys; k++)
		{
			Expr	   *e = list_nth_node(TargetEntry, tlist, k)->expr;

			while (IsA(e, RelabelType))
				e = ((RelabelType *) e)->arg;
			if (IsA(e, Var) && ((Var *) e)->varno == rel)
				pk = bms_del_member(pk, ((Var *) e)->varattno - FirstLowInvalidHeapAttributeNumber);
		}
		if (!bms_is_empty(pk))
			pk_only = false;
	}

	c->ikey = palloc(sizeof(int) * Max(nkeys, 1));
	c->ikey_tlpos = palloc(sizeof(int) * Max(nkeys, 1));
	c->ikey_byval = palloc(sizeof(bool) * Max(nkeys, 1));
	c->ikey_len = palloc(sizeof(int16) * Max(nkeys, 1));
	c->ikey_bpchar = palloc(sizeof(bool) * Max(nkeys, 1));
	for (int k = 0; k < nkeys; k++)
	{
		Expr	   *e = list_nth_node(TargetEntry, tlist, k)->expr;
		Oid			t;
		int16		len;
		bool		byval;

		while (IsA(e, RelabelType))
			e = ((RelabelType *) e)->arg;
		if (!IsA(e, Var) || ((Var *) e)->varno == cscan->scan.scanrelid ||
			!key_column((Var *) e, rels, estate, pk_only))
			continue;
		c->ikey[c->nikeys] = k;
		c->ikey_tlpos[c->nikeys] = gpuhash_preagg_inner_pos(cscan, 0, (Var *) e);
		if (c->ikey_tlpos[c->nikeys] == 0)
			elog(ERROR, "gpuhash: GpuPreAgg's inner plan does not output a group column");
		t = getBaseType(exprType((Node *) e));
		get_typlenbyval(t, &len, &byval);
		/* the GPU's keys: integer-like by value, else text, varchar, bpchar */
		if (!byval && len != -1)
			elog(ERROR, "gpuhash: a carried column's group key of type %u", t);
		c->ikey_byval[c->nikeys] = byval;
		c->ikey_len[c->nikeys] = len;
		c->ikey_bpchar[c->nikeys] = t == BPCHAROID;
		c->nikeys++;
	}

	/*
	 * No inner group column: a carried column's relation has its key among
	 * them, so the planner offers no such plan
	 */
	if (c->nikeys == 0)
		elog(ERROR, "gpuhash: GpuPreAgg carries inner columns without an inner group column");
}


/*
 * A by-value key's bits, its length's low bytes only: a tuple's 4-byte
 * value is sign-extended into its Datum (fetch_att), the GPU's oid key
 * zero-extended (ObjectIdGetDatum), and equal keys must compare equal.
 */
static uint64
key_bits(Datum d, int16 len)
{
	if (len >= (int16) sizeof(Datum))
		return (uint64) d;
	return (uint64) d & ((UINT64CONST(1) << (8 * len)) - 1);
}

/* A text-like key's bytes as equality sees them: bpchar's trailing spaces not. */
static const char *
key_bytes(Datum d, bool bpchar, int *len)
{
	struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));
	char	   *p = VARDATA_ANY(v);
	int			n = VARSIZE_ANY_EXHDR(v);

	*len = bpchar ? bpchartruelen(p, n) : n;
	return p;
}

/* The hash of the inner group values in vals/nulls (one per inner key). */
static uint32
key_hash(GpuAggCarry *c, const Datum *vals, const bool *nulls)
{
	uint32		h = 0;

	for (int i = 0; i < c->nikeys; i++)
	{
		uint32		x;

		if (nulls[i])
			x = 0x9e3779b9;
		else if (c->ikey_byval[i])
		{
			uint64		b = key_bits(vals[i], c->ikey_len[i]);

			x = hash_bytes_uint32((uint32) (b ^ (b >> 32)));
		}
		else
		{
			int			len;
			const char *p = key_bytes(vals[i], c->ikey_bpchar[i], &len);

			x = hash_bytes((const unsigned char *) p, len);
		}
		h = hash_combine(h, x);
	}
	return h;
}

/* Are the inner group values of the row in c->slot those in vals/nulls? */
static bool
key_equal(GpuAggCarry *c, const Datum *vals, const bool *nulls)
{
	for (int i = 0; i < c->nikeys; i++)
	{
		bool		isnull;
		Datum		d = slot_getattr(c->slot, c->ikey_tlpos[i], &isnull);

		if (isnull != nulls[i])
			return false;
		if (isnull)
			continue;
		if (c->ikey_byval[i])
		{
			if (key_bits(d, c->ikey_len[i]) != key_bits(vals[i], c->ikey_len[i]))
				return false;
		}
		else
		{
			int			la,
						lb;
			const char *a = key_bytes(d, c->ikey_bpchar[i], &la);
			const char *b = key_bytes(vals[i], c->ikey_bpchar[i], &lb);

			if (la != lb || memcmp(a, b, la) != 0)
				return false;
		}
	}
	return true;
}

/* The row with these inner group values; NULL where none (yet). */
static MinimalTuple
lookup(GpuAggCarry *c, const Datum *vals, const bool *nulls, uint32 h, uint64 *slotno)
{
	uint64		s = h & c->mask;

	for (;; s = (s + 1) & c->mask)
	{
		if (c->table[s] == NULL)
		{
			*slotno = s;
			return NULL;
		}
		if (c->hashes[s] == h)
		{
			ExecStoreMinimalTuple(c->table[s], c->slot, false);
			if (key_equal(c, vals, nulls))
			{
				*slotno = s;
				return c->table[s];
			}
		}
	}
}

/*
 * The table of every inner row in memory (all of them, or the batch's) by
 * its inner group values, the first of equal ones kept (the caller has
 * loaded the rows: a shared dimension's from its chunks).
 */
static void
build(GpuPreAggState *as, GpuAggCarry *c)
{
	GpuAggJoin *j = as->join;
	MemoryContext old;
	uint64		size = 16;
	Datum	   *vals = c->vals;
	bool	   *nulls = c->nulls;
	MemoryContext tmp;
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	if (!j->rows_loaded)
		elog(ERROR, "gpuhash: a GpuPreAgg's carried columns without its inner rows");
	while (size < 2 * j->nrows)
		size <<= 1;
	old = MemoryContextSwitchTo(j->rows_cxt);
	c->table = palloc_extended(sizeof(MinimalTuple) * size, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	c->hashes = palloc_extended(sizeof(uint32) * size, MCXT_ALLOC_HUGE);
	MemoryContextSwitchTo(old);
	c->mask = size - 1;
	c->entries = 0;
	/* a compressed key's detoasted copy, each row's */
	tmp = AllocSetContextCreate(CurrentMemoryContext, "GpuPreAgg carried keys",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(tmp);
	for (uint64 r = 0; r < j->nrows; r++)
	{
		MinimalTuple tup = j->rows[r].tup;
		uint32		h;
		uint64		s;

		MemoryContextReset(tmp);
		ExecStoreMinimalTuple(tup, c->slot, false);
		for (int i = 0; i < c->nikeys; i++)
			vals[i] = slot_getattr(c->slot, c->ikey_tlpos[i], &nulls[i]);
		h = key_hash(c, vals, nulls);
		if (lookup(c, vals, nulls, h, &s) == NULL)
		{
			c->table[s] = tup;
			c->hashes[s] = h;
			c->entries++;
		}
		if ((r & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	c->built = true;
	c->build_ms += gpuhash_ms_since(t0);
}

/*
 * A group's carried columns into slot, whose group columns are filled:
 * from the inner row of its inner group values, every inner row loaded.
 */
void
gpuhash_agg_carry_group(GpuPreAggState *as, TupleTableSlot *slot)
{
	GpuAggCarry *c = as->join->carry;
	Datum	   *vals = c->vals;
	bool	   *nulls = c->nulls;
	uint64		s;
	MinimalTuple tup;

	if (!c->built)
		build(as, c);
	for (int i = 0; i < c->nikeys; i++)
	{
		vals[i] = slot->tts_values[c->ikey[i]];
		nulls[i] = slot->tts_isnull[c->ikey[i]];
	}
	tup = lookup(c, vals, nulls, key_hash(c, vals, nulls), &s);
	if (tup == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gpuhash: no inner row has a GPU group's inner group columns")));
	/* lookup left the row in c->slot, its key columns deformed */
	for (int i = 0; i < c->ncarry; i++)
		slot->tts_values[c->pos[i]] = slot_getattr(c->slot, c->tlpos[i],
												   &slot->tts_isnull[c->pos[i]]);
}

/* A pair the CPU joined: the carried columns from its inner row (in row). */
void
gpuhash_agg_carry_pair(GpuAggCarry *c, TupleTableSlot *row, TupleTableSlot *slot)
{
	for (int i = 0; i < c->ncarry; i++)
		slot->tts_values[c->pos[i]] = slot_getattr(row, c->tlpos[i],
												   &slot->tts_isnull[c->pos[i]]);
}

/* The rows are gone (rows_cxt reset): the table with them. */
void
gpuhash_agg_carry_release(GpuAggCarry *c)
{
	if (c == NULL)
		return;
	if (c->slot != NULL)
		ExecClearTuple(c->slot);
	c->built = false;
	c->table = NULL;
	c->hashes = NULL;
	c->entries = 0;
}

/* EXPLAIN ANALYZE: the table's distinct inner group values and its build. */
void
gpuhash_agg_carry_explain(GpuAggCarry *c, ExplainState *es)
{
	if (c == NULL || !c->built)
		return;
	ExplainPropertyUInteger("Carried Keys", NULL, c->entries, es);
	if (es->timing)
		ExplainPropertyFloat("Carried Build Time", "ms", c->build_ms, 3, es);
}
