/*-------------------------------------------------------------------------
 *
 * rows.c
 *	  A GpuHashJoin's rows as the node handles them: the 64-bit key of a row
 *	  (its key columns packed, or their combined extended hashes), the copy
 *	  of the columns the join keeps, and those columns as a tuple for a
 *	  hash batch file.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "common/hashfn.h"

/* Folds key column i's value into the row's 64-bit key k. */
static inline uint64
fold_key(GpuJoinState *gs, GpuKeyEval *keys, int i, Datum d, bool outer, uint64 k)
{
	GpuKeySpec *spec = &gs->info.keys[i];

	if (gs->info.fingerprint)
	{
		uint64		h = DatumGetUInt64(FunctionCall2Coll(&keys[i].hashfn, spec->collation,
														 d, UInt64GetDatum(0)));

		return i == 0 ? h : hash_combine64(k, h);
	}
	return gpuhash_pack(k, gpuhash_encode_datum(d, outer ? spec->outer_conv : spec->inner_conv),
						spec->width, gs->info.nkeys);
}

/*
 * The 64-bit key of the row in slot: its key columns packed (exact keys) or
 * their combined extended hashes (fingerprints); false if a key column is
 * NULL (such a row matches nothing).
 */
bool
gpuhash_row_key(GpuJoinState *gs, TupleTableSlot *slot, GpuKeyEval *keys, bool outer,
		uint64 *key)
{
	ExprContext *econtext = gs->key_econtext;
	MemoryContext old = NULL;
	uint64		k = 0;
	bool		ok = true;

	/*
	 * Detoasting, hashing and key expressions allocate: all of it goes with
	 * the row.  Plain columns packed as exact keys allocate nothing, and
	 * skip the context's switch and reset.
	 */
	bool		allocates = gs->info.fingerprint ||
		!(outer ? gs->outer_keys_plain : gs->inner_keys_plain);

	if (allocates)
		old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	for (int i = 0; i < gs->info.nkeys; i++)
	{
		Datum		d;
		bool		isnull;

		if (keys[i].state == NULL)
			d = slot_getattr(slot, keys[i].attno, &isnull);
		else
		{
			if (outer)
				econtext->ecxt_outertuple = slot;
			else
				econtext->ecxt_innertuple = slot;
			d = ExecEvalExpr(keys[i].state, econtext, &isnull);
		}
		if (isnull)
		{
			ok = false;
			break;
		}
		k = fold_key(gs, keys, i, d, outer, k);
	}
	if (allocates)
	{
		MemoryContextSwitchTo(old);
		ResetExprContext(econtext);
	}
	*key = gs->info.fingerprint ? k & gs->fp_mask : k;
	return ok;
}

/*
 * The outer-side key, or a part of it, of given key column values (a
 * chain's level whose key comes from lower levels' rows: chain.c): the key
 * columns in mask (bit i: key column i) folded as gpuhash_row_key folds
 * them, the others packed as zero, so that the parts of a key keyed by
 * several sources OR into it.  Only values[i] and isnull[i] of the columns
 * in mask are read.  A mask short of some column only for exact keys (a
 * fingerprint hashes its columns in order).  False if one of them is NULL.
 */
bool
gpuhash_datums_key(GpuJoinState *gs, const Datum *values, const bool *isnull, uint32 mask,
				   uint64 *key)
{
	ExprContext *econtext = gs->key_econtext;
	MemoryContext old = NULL;
	uint64		k = 0;
	int			nkeys = gs->info.nkeys;

	for (int i = 0; i < nkeys; i++)
	{
		Assert(!gs->info.fingerprint || (mask & (UINT32_C(1) << i)));
		if ((mask & (UINT32_C(1) << i)) && isnull[i])
			return false;
	}
	/* hashing allocates; exact keys (a chain reads these per outer row) do not */
	if (gs->info.fingerprint)
		old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	for (int i = 0; i < nkeys; i++)
		k = (mask & (UINT32_C(1) << i)) ? fold_key(gs, gs->outer_keys, i, values[i], true, k) :
			gpuhash_pack(k, 0, gs->info.keys[i].width, nkeys);
	if (gs->info.fingerprint)
	{
		MemoryContextSwitchTo(old);
		ResetExprContext(econtext);
	}
	*key = gs->info.fingerprint ? k & gs->fp_mask : k;
	return true;
}

/*
 * The key of a heap tuple of an absorbed scan (heap_scan.c), outer or
 * inner side: plain key columns are read in place (heap_getattr: cached
 * offsets where the tuple allows, missing attributes too), other keys
 * through the scan's slot.
 */
bool
gpuhash_heap_key(GpuJoinState *gs, GpuHeapScan *scan, bool outer, HeapTuple tup, uint64 *key)
{
	GpuKeyEval *keys = outer ? gs->outer_keys : gs->inner_keys;
	uint64		k = 0;

	if (!(outer ? gs->outer_keys_plain : gs->inner_keys_plain) || gs->info.fingerprint)
	{
		ExecStoreHeapTuple(tup, scan->slot, false);
		return gpuhash_row_key(gs, scan->slot, keys, outer, key);
	}
	for (int i = 0; i < gs->info.nkeys; i++)
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, keys[i].attno, scan->desc, &isnull);

		if (isnull)
			return false;
		k = fold_key(gs, keys, i, d, outer, k);
	}
	*key = k;
	return true;
}

/*
 * Where the scan's key is one exact key of a plain column after columns of
 * fixed width only, its offset in a tuple without NULLs, as heap_getattr
 * would find it (the columns before it aligned and summed, dropped ones
 * included: their space stays in the rows written before the drop).  A
 * tuple with NULLs, or written before the key column was added, goes the
 * general way.
 */
void
gpuhash_heap_fast_key_setup(GpuJoinState *gs, GpuHeapScan *scan, bool outer)
{
	AttrNumber	attno;
	Form_pg_attribute att;
	GpuKeyConv	conv;
	int			off = 0;

	scan->fast_key_off = -1;
	if (gs->info.fingerprint || gs->info.nkeys != 1 ||
		!(outer ? gs->outer_keys_plain : gs->inner_keys_plain))
		return;
	attno = (outer ? gs->outer_keys : gs->inner_keys)[0].attno;
	conv = outer ? gs->info.keys[0].outer_conv : gs->info.keys[0].inner_conv;
	if (attno <= 0 || attno > scan->desc->natts || conv == GPUKEY_HASH)
		return;
	for (int i = 0; i < attno - 1; i++)
	{
		att = TupleDescAttr(scan->desc, i);
		if (att->attlen <= 0)
			return;
		off = att_align_nominal(off, att->attalign) + att->attlen;
	}
	att = TupleDescAttr(scan->desc, attno - 1);
	if (att->attlen <= 0 || att->attlen > (int) sizeof(Datum))
		return;
	scan->fast_key_off = att_align_nominal(off, att->attalign);
	scan->fast_key_attno = attno;
	scan->fast_key_len = att->attlen;
	scan->fast_key_byval = att->attbyval;
	scan->fast_key_conv = conv;
}

/*
 * The slot columns to deform for keep[]: its largest entry plus one.  keep
 * need not ascend: an absorbed scan's heap columns come in the plan's
 * target list order.
 */
int
gpuhash_keep_extent(const int *keep, int nkeep)
{
	int			n = 0;

	for (int k = 0; k < nkeep; k++)
		n = Max(n, keep[k] + 1);
	return n;
}

/* Copies the kept columns of the slot; by-reference values into cxt. */
void
gpuhash_copy_row(TupleTableSlot *slot, const int *keep, int nkeep, Datum *vals, bool *nulls,
		 MemoryContext cxt)
{
	TupleDesc	desc;

	/* nothing kept: slot may be NULL (an absorbed inner scan's rows) */
	if (nkeep == 0)
		return;
	desc = slot->tts_tupleDescriptor;
	slot_getsomeattrs(slot, gpuhash_keep_extent(keep, nkeep));
	for (int k = 0; k < nkeep; k++)
	{
		int			i = keep[k];
		Form_pg_attribute att = TupleDescAttr(desc, i);

		nulls[k] = slot->tts_isnull[i];
		if (nulls[k] || att->attbyval)
			vals[k] = slot->tts_values[i];
		else
		{
			MemoryContext old = MemoryContextSwitchTo(cxt);

			vals[k] = datumCopy(slot->tts_values[i], false, att->attlen);
			MemoryContextSwitchTo(old);
		}
	}
}

/* A row's kept columns (keep[] of the slot) as a tuple of desc, or NULL. */
MinimalTuple
gpuhash_form_kept_tuple(GpuJoinState *gs, TupleTableSlot *slot, const int *keep, int nkeep,
				TupleDesc desc)
{
	if (nkeep == 0)
		return NULL;
	slot_getsomeattrs(slot, gpuhash_keep_extent(keep, nkeep));
	for (int k = 0; k < nkeep; k++)
	{
		gs->spill_vals[k] = slot->tts_values[keep[k]];
		gs->spill_nulls[k] = slot->tts_isnull[keep[k]];
	}
	return heap_form_minimal_tuple(desc, gs->spill_vals, gs->spill_nulls);
}

/* The scratch row gpuhash_form_kept_tuple forms a tuple from: nmax columns. */
void
gpuhash_rows_begin(GpuJoinState *gs, int nmax)
{
	gs->spill_vals = palloc(sizeof(Datum) * nmax);
	gs->spill_nulls = palloc(sizeof(bool) * nmax);
}
