/*-------------------------------------------------------------------------
 *
 * executor.c
 *	  Runs a GpuHashJoin: a state machine like nodeHashjoin.c's, one
 *	  enum (GpuJoinPhase, join_state.h) and one switch in exec_gpu_join.
 *
 *	  BUILD:       the scan starts.  Pseudoconstant quals, once: false, no
 *				   row at all.  Unless unmatched inner rows come out, read the
 *				   first outer row first: an empty outer side needs no table.
 *				   Run the inner plan to completion (hash batch 0 of it:
 *				   batch.c); keep each row's columns in node memory and its
 *				   64-bit key in an array (NULL keys never match an `=` join:
 *				   such rows are dropped, or kept apart for a right/full join
 *				   to emit); build the join table; reorder the kept rows by
 *				   the table's key-grouped rowid order, so a probe's range
 *				   [offset, offset + count) indexes them.
 *	  NEED_BATCH:  pull up to gpuhash.batch_rows outer rows of this hash
 *				   batch (columns copied, key encoded), probe them at once
 *				   for rowid ranges.  An absorbed outer scan (heap_scan.c)
 *				   hands out tuples in their pinned pages instead: only the
 *				   key is read, the kept columns when a row matches.
 *	  NEXT_OUTER:  the next outer row of the probe batch.
 *	  SCAN_RANGE:  each inner row of its range: the join filter (for
 *				   fingerprint keys, first the keys' own equality) decides a
 *				   match; a match marks the inner row for right/full, ends
 *				   the row for semi/anti; the filter on joined rows decides
 *				   what comes out.
 *	  FILL_OUTER:  left/full/anti: an outer row without a match, NULL-extended.
 *	  FILL_INNER:  right/full: the inner rows never matched, NULL-extended;
 *				   right semi (anti): each inner row matched (never), once.
 *				   Their probe only marks the inner rows it matches.
 *	  NEW_BATCH:   the next hash batch: its inner rows from their file,
 *				   built; its outer file becomes the outer side.
 *	  DONE
 *
 *	  A failed GPU call falls back to the host twin for this join (with a
 *	  NOTICE), or is an ERROR when gpuhash.device is "gpu".  The join table
 *	  is freed at end, at a rescan that changes a parameter the inner plan
 *	  or the inner key expressions read (it is then rebuilt), and through a
 *	  memory context callback when the query errors out or is cancelled.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "probe_internal.h"
#include "scan/page_scan.h"

#include "executor/executor.h"
#include "access/htup_details.h"
#include "common/hashfn.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "nodes/nodeFuncs.h"
#include "utils/datum.h"
#include "utils/memutils.h"

static TupleTableSlot *exec_gpu_join(CustomScanState *node);
static void end_gpu_join(CustomScanState *node);
static void rescan_gpu_join(CustomScanState *node);

const CustomExecMethods gpuhash_exec_methods = {
	.CustomName = GPUHASH_NODE_NAME,
	.BeginCustomScan = gpuhash_begin_join,
	.ExecCustomScan = exec_gpu_join,
	.EndCustomScan = end_gpu_join,
	.ReScanCustomScan = rescan_gpu_join,
	.EstimateDSMCustomScan = gpuhash_estimate_dsm,
	.InitializeDSMCustomScan = gpuhash_init_dsm,
	.ReInitializeDSMCustomScan = gpuhash_reinit_dsm,
	.InitializeWorkerCustomScan = gpuhash_init_worker,
	.ShutdownCustomScan = gpuhash_shutdown,
	.ExplainCustomScan = gpuhash_explain,
};



/* The state machine, set up with the node: a scan starts at GJ_BUILD. */
void
gpuhash_step_begin(GpuJoinState *gs)
{
	gs->step.cur = -1;
	gs->step.phase = GJ_BUILD;
}

/* The empty row a count(*) reads: stored once, returned as is. */
static inline TupleTableSlot *
empty_row(GpuJoinState *gs)
{
	TupleTableSlot *slot = gs->css.ss.ps.ps_ResultTupleSlot;

	if (TTS_EMPTY(slot))
		ExecStoreVirtualTuple(slot);
	return slot;
}

/* The row in the scan slot passed: the filter on joined rows decides. */
static TupleTableSlot *
emit(GpuJoinState *gs, ExprContext *econtext)
{
	CustomScanState *node = &gs->css;

	if (gs->forms_no_rows)
		return empty_row(gs);

	if (gs->filter == NULL || ExecQual(gs->filter, econtext))
	{
		if (node->ss.ps.ps_ProjInfo == NULL)
			return node->ss.ss_ScanTupleSlot;
		return ExecProject(node->ss.ps.ps_ProjInfo);
	}
	InstrCountFiltered1(node, 1);
	ResetExprContext(econtext);
	return NULL;
}

/*
 * How many outer rows ahead of the one being emitted the rows it will touch
 * are prefetched.  A match reads its inner row at a random place in the
 * kept rows and its outer tuple in a page read a batch ago: without
 * prefetching, each is a cache miss that the emit loop waits on.
 */
#define PREFETCH_AHEAD 12

/*
 * Starts loading what emitting outer row i will read.  (A statement here,
 * not a function: GCC deems a function of prefetches alone free of effects
 * and drops its calls.)
 */
#define PREFETCH_ROW(gs, i) \
	do { \
		GpuProbeBatch *pb_ = (gs)->cb; \
		int			i_ = (i); \
		if (i_ < pb_->n && !((gs)->marks_only && (gs)->qual == NULL)) \
		{ \
			if (pb_->ranges[i_].count > 0) \
				GPUHASH_PREFETCH_INNER_ROW((gs), pb_->ranges[i_].offset); \
			if (batch_rows_in_pages(gs) && (pb_->ranges[i_].count > 0 || (gs)->fill_outer)) \
				gpuhash_prefetch(pb_->tups[i_].t_data); \
		} \
	} while (0)

/* GJ_NEXT_OUTER: the batch's next outer row with matches (any, when filling). */
static GpuJoinPhase
next_outer(GpuJoinState *gs)
{
	if (gs->step.cur < 0)
	{
		/* a new batch: the first rows' loads start together */
		for (int i = 0; i < PREFETCH_AHEAD; i++)
			PREFETCH_ROW(gs, i);
	}
	do
	{
		gs->step.cur++;
		PREFETCH_ROW(gs, gs->step.cur + PREFETCH_AHEAD);
		/* an inner row: its tuple's pointer is in by now, then the tuple */
		if (gs->n_inner_keep > 0 && !gs->marks_only &&
			gs->step.cur + PREFETCH_AHEAD / 2 < gs->cb->n)
		{
			const gh_range *r = &gs->cb->ranges[gs->step.cur + PREFETCH_AHEAD / 2];

			if (r->count > 0)
				GPUHASH_PREFETCH_INNER_TUPLE(gs, r->offset);
		}
	} while (!gs->fill_outer && gs->step.cur < gs->cb->n &&
			 gs->cb->ranges[gs->step.cur].count == 0);
	if (gs->step.cur >= gs->cb->n)
		return GJ_NEED_BATCH;
	gs->step.cur_match = 0;
	gs->step.cur_matched = false;
	return GJ_SCAN_RANGE;
}

/* scan_range's work on the current outer row's range: a joined row, or NULL. */
static inline TupleTableSlot *
scan_one_range(GpuJoinState *gs, ExprContext *econtext, bool anti)
{
	gh_range   *r = &gs->cb->ranges[gs->step.cur];
	TupleTableSlot *out;

	/*
	 * A right semi or anti join without a join filter: every row of the
	 * range is a match, marked without forming a row (none comes out here).
	 */
	if (gs->marks_only && gs->qual == NULL)
	{
		for (uint64 row = (uint64) r->offset + gs->step.cur_match;
			 row < (uint64) r->offset + r->count; row++)
			gpuhash_inner_mark(gs, row);
		gs->step.cur_match = r->count;
		gs->step.cur_matched = r->count > 0;
		return NULL;
	}
	while (gs->step.cur_match < r->count)
	{
		uint64		row = (uint64) r->offset + gs->step.cur_match++;

		/* a key can have millions of rows: stay cancellable */
		CHECK_FOR_INTERRUPTS();
		gpuhash_store_row(gs, gs->step.cur, (int64) row);
		if (gs->qual != NULL && !ExecQual(gs->qual, econtext))
		{
			InstrCountFiltered2(&gs->css, 1);
			ResetExprContext(econtext);
			continue;
		}
		gs->step.cur_matched = true;
		if (gs->fill_inner)
			gpuhash_inner_mark(gs, row);
		if (anti || gs->info.single_match)
			gs->step.cur_match = r->count;
		if (anti || gs->marks_only)
			continue;
		if ((out = emit(gs, econtext)) != NULL)
			return out;
	}
	return NULL;
}

/*
 * A count(*) over an inner or semi join (gs->bare_matches): the batch's next
 * match, the current range's or a later row's, comes out as the same empty
 * row without a turn of the state machine; false when the batch has none
 * left.  Each joined row is usually its outer row's only match: the
 * dispatch through scan_range and next_outer per row cost about a sixth of
 * such a join's backend time (perf, host twin, SF 1).
 */
static inline bool
next_bare_match(GpuJoinState *gs)
{
	GpuProbeBatch *b = gs->cb;
	uint32		count = b->ranges[gs->step.cur].count;

	if (gs->step.cur_match < count)
	{
		gs->step.cur_match = gs->info.single_match ? count : gs->step.cur_match + 1;
		return true;
	}
	while (++gs->step.cur < b->n)
	{
		count = b->ranges[gs->step.cur].count;
		if (count > 0)
		{
			gs->step.cur_match = gs->info.single_match ? count : 1;
			return true;
		}
	}
	return false;
}

/* next_bare_match's row, or NULL with the batch done. */
static inline TupleTableSlot *
next_bare_row(GpuJoinState *gs)
{
	if (next_bare_match(gs))
		return empty_row(gs);
	gs->step.phase = GJ_NEED_BATCH;
	return NULL;
}

/*
 * A count(*)'s next match where a range is being scanned (next_bare_row),
 * or NULL: the shortcut both entries take before the state machine.
 */
static inline TupleTableSlot *
bare_row_ready(GpuJoinState *gs)
{
	return gs->step.phase == GJ_SCAN_RANGE && gs->bare_matches ? next_bare_row(gs) : NULL;
}

/*
 * GJ_SCAN_RANGE: the current outer row against each inner row of its range.
 * The join filter decides a match; a match marks the inner row (right,
 * full), ends the row (anti: no row; semi or a unique inner side: one is
 * all).  Returns a joined row, or NULL once the phase changes.  A range
 * done goes on to the batch's next outer row with matches here, not through
 * a turn of the state machine: most joined rows are one outer row's only
 * match, and two dispatches a row cost a tenth of the node's own share of
 * a count(*) join's backend time on the host twin (perf, SF 1).
 */
static TupleTableSlot *
scan_range(GpuJoinState *gs, ExprContext *econtext)
{
	bool		anti = gs->info.jointype == JOIN_ANTI;
	TupleTableSlot *out;

	for (;;)
	{
		if ((out = scan_one_range(gs, econtext, anti)) != NULL)
			return out;
		/* the row's matches are done: unmatched, it may come out alone */
		if (gs->fill_outer && !gs->step.cur_matched)
		{
			gs->step.phase = GJ_FILL_OUTER;
			return NULL;
		}
		if ((gs->step.phase = next_outer(gs)) != GJ_SCAN_RANGE)
			return NULL;
	}
}

/*
 * GJ_FILL_INNER: the next inner row of this batch that never matched (a
 * right semi join's: that matched), or NULL.
 */
static TupleTableSlot *
fill_inner(GpuJoinState *gs, ExprContext *econtext)
{
	bool		skip = !gs->fill_matched;

	for (;;)
	{
		while (gs->step.fill_pos < gs->step.fill_end &&
			   gpuhash_inner_matched(gs, gs->step.fill_pos) == skip)
			gs->step.fill_pos++;
		if (gs->step.fill_pos < gs->step.fill_end)
			break;
		/* a shared fill's next chunk (parallel.c), or the end */
		if (!gs->step.fill_shared ||
			!gpuhash_shared_fill_claim(gs, &gs->step.fill_pos, &gs->step.fill_end))
		{
			gs->step.phase = gpuhash_batch_done(gs);
			return NULL;
		}
	}
	gpuhash_store_row(gs, -1, (int64) gs->step.fill_pos++);
	return emit(gs, econtext);
}

/*
 * The phases that start a scan or a batch: BUILD, NEW_BATCH, and a split
 * parallel join's SPLIT_OUTER and NEXT_SPLIT.  Their time is start time
 * under EXPLAIN ANALYZE, not emit time.
 */
static GpuJoinPhase
start_step(GpuJoinState *gs, ExprContext *econtext)
{
	GpuJoinPhase next;
	instr_time	t0;
	double		read_before = gs->stats.read_ms;

	INSTR_TIME_SET_CURRENT(t0);
	switch (gs->step.phase)
	{
		case GJ_BUILD:
			next = gpuhash_scan_start(gs, econtext);
			break;
		case GJ_NEW_BATCH:
			if (gpuhash_next_hash_batch(gs))
			{
				gs->step.cur = -1;
				next = GJ_NEED_BATCH;
			}
			else
				next = gpuhash_after_last_batch(gs);
			break;
		case GJ_SPLIT_OUTER:
			next = gpuhash_split_outer(gs);
			break;
		default:
			Assert(gs->step.phase == GJ_NEXT_SPLIT);
			next = GJ_DONE;
			if (gpuhash_split_next_batch(gs))
			{
				gpuhash_table_set_built(gs, false);
				gpuhash_build_inner(gs);
				gpuhash_split_batch_built(gs);
				gpuhash_probe_restart(gs);
				gs->step.cur = -1;
				next = GJ_NEED_BATCH;
			}
			break;
	}
	/* outer rows read meanwhile (a parallel build's prefill) are read time */
	gs->stats.start_ms += gpuhash_ms_since(t0) - (gs->stats.read_ms - read_before);
	return next;
}

/*
 * The node's state machine (join_state.h's GpuJoinPhase), one step per
 * turn of the loop, until a row comes out or the join is done.
 */
static TupleTableSlot *
exec_gpu_join_steps(GpuJoinState *gs)
{
	CustomScanState *node = &gs->css;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *out;

	/* the top of a chain: fused, the chain forms the rows (chain.c) */
	if (gs->chain && gpuhash_chain_step(gs, &out))
		return out;
	if ((out = bare_row_ready(gs)) != NULL)
		return out;
	/* the last row's memory: usually none (a call per row saved) */
	if (!econtext->ecxt_per_tuple_memory->isReset)
		ResetExprContext(econtext);
	econtext->ecxt_scantuple = node->ss.ss_ScanTupleSlot;
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		switch (gs->step.phase)
		{
			case GJ_BUILD:
			case GJ_NEW_BATCH:
			case GJ_SPLIT_OUTER:
			case GJ_NEXT_SPLIT:
				gs->step.phase = start_step(gs, econtext);
				break;
			case GJ_NEED_BATCH:
				if (gpuhash_next_batch(gs))
				{
					gs->step.cur = -1;
					gs->step.phase = GJ_NEXT_OUTER;
				}
				else
					gpuhash_end_probe(gs);
				break;
			case GJ_NEXT_OUTER:
				gs->step.phase = next_outer(gs);
				break;
			case GJ_SCAN_RANGE:
				if ((out = scan_range(gs, econtext)) != NULL)
					return out;
				break;
			case GJ_FILL_OUTER:
				gs->step.phase = GJ_NEXT_OUTER;
				gpuhash_store_row(gs, gs->step.cur, -1);
				if ((out = emit(gs, econtext)) != NULL)
					return out;
				break;
			case GJ_FILL_INNER:
				if ((out = fill_inner(gs, econtext)) != NULL)
					return out;
				break;
			case GJ_DONE:
				return NULL;
		}
	}
}

/*
 * The node's state machine (join_state.h's GpuJoinPhase), one step per
 * turn of the loop, until a row comes out or the join is done.  Under
 * EXPLAIN ANALYZE, the time of a call beyond reading, probing and starting
 * a scan or hash batch (the build, a parallel plan's barrier) is the emit
 * time: matching ranges, forming rows, the join's quals.
 */
static TupleTableSlot *
exec_gpu_join(CustomScanState *node)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	GpuJoinStats *st = &gs->stats;
	TupleTableSlot *out;
	instr_time	t0;
	double		other;

	/* two clock reads a row: only where EXPLAIN ANALYZE shows times */
	if (node->ss.ps.instrument == NULL || !node->ss.ps.instrument->need_timer)
	{
		/*
		 * A count(*)'s next match with no chain above (as in
		 * exec_gpu_join_steps), without the call into the state machine:
		 * the node's own code was 36.5 ns an outer row of a parallel
		 * count(*) join on the H100, 14 ns of it the state machine's
		 * entry, its dispatch and emit, which this path skips.
		 */
		if (gs->chain == NULL && (out = bare_row_ready(gs)) != NULL)
			return out;
		return exec_gpu_join_steps(gs);
	}
	other = st->read_ms + st->wait_ms + st->start_ms;
	INSTR_TIME_SET_CURRENT(t0);
	out = exec_gpu_join_steps(gs);
	st->emit_ms += gpuhash_ms_since(t0) - (st->read_ms + st->wait_ms + st->start_ms - other);
	return out;
}

/* ---------------------------------------------------------------------
 * End and rescan
 * --------------------------------------------------------------------- */

static void
end_gpu_join(CustomScanState *node)
{
	GpuJoinState *gs = (GpuJoinState *) node;

	gpuhash_release_batches(gs);
	gpuhash_free_table(gs);
	gpuhash_batch_files_close(gs);
	if (gs->oscan)
		gpuhash_heap_scan_end(gs->oscan);
	else
		ExecEndNode(gs->outer_ps);
	if (gs->iscan)
		gpuhash_heap_scan_end(gs->iscan);
	else
		ExecEndNode(gs->inner_ps);
}

/*
 * Custom children are not known to ExecReScan: pass changed parameters
 * down ourselves.  A child with changed parameters rescans itself on its
 * next ExecProcNode; the join table is rebuilt only when the inner side's
 * parameters changed, as nodeHashjoin.c does.
 */
static void
rescan_gpu_join(CustomScanState *node)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	Bitmapset  *chg = node->ss.ps.chgParam;

	/* the batches of the last scan, and their probes in flight, go */
	gpuhash_release_batches(gs);
	/* and an inner page walk's table, should a read have stopped short */
	gpuhash_page_inner_release(gs, true);
	if (gs->chain)
		gpuhash_chain_rescan(gs);
	if (chg)
	{
		if (gs->outer_ps)
			UpdateChangedParamSet(gs->outer_ps, chg);
		if (gs->inner_ps)
			UpdateChangedParamSet(gs->inner_ps, chg);
	}
	if ((gs->inner_ps && gs->inner_ps->chgParam != NULL) || gs->shared)
	{
		/* a parallel plan's shared table is rebuilt with its shared state */
		gpuhash_free_table(gs);
		gpuhash_table_set_built(gs, false);
		/* ... and a split one's batches (parallel.c deletes their files) */
		gpuhash_split_forget(gs);
		if (gs->shared)
			gpuhash_inner_forget(gs);

		/*
		 * The inner rows are read again: a child with changed parameters
		 * rescans itself, any other only when told.  (A parallel join's
		 * inner HashAggregate, untold, handed its reader no row on a
		 * Gather's rescan, and every later scan joined nothing: fuzzer
		 * seed 175.)
		 */
		if (gs->inner_ps && gs->inner_ps->chgParam == NULL)
			ExecReScan(gs->inner_ps);
	}
	else if (!gs->built || gs->nbatch > 1 || bms_overlap(chg, gs->inner_key_params))
	{
		/*
		 * The same inner rows, but keys (or an absorbed inner scan's quals)
		 * that read a changed parameter; or a table of one batch among
		 * several: as nodeHashjoin.c, start over.
		 */
		gpuhash_free_table(gs);
		gpuhash_table_set_built(gs, false);
		if (gs->inner_ps)
			ExecReScan(gs->inner_ps);
	}
	if (!gs->built)
	{
		if (gs->iscan)
			gpuhash_heap_scan_rescan(gs->iscan);
		gpuhash_batches_rescan(gs);
	}
	/*
	 * A chain's level below is never pulled through ExecProcNode while the
	 * chain runs fused, which would rescan it for changed parameters: it is
	 * rescanned now.
	 */
	if (gs->oscan)
	{
		gpuhash_heap_scan_rescan(gs->oscan);
		gpuhash_page_restart(gs);
	}
	else if (gs->outer_ps->chgParam == NULL || gs->outer_is_level)
		ExecReScan(gs->outer_ps);

	/* a kept table starts over unmatched, as nodeHashjoin.c resets match flags */
	if (gs->built && gs->matched)
		memset(gs->matched, 0, sizeof(uint32) * gpuhash_matched_words(gs));
	gpuhash_probe_restart(gs);
	gs->step.cur = -1;
	gs->step.cur_match = 0;
	gs->step.cur_matched = false;
	gpuhash_keyfilter_start(gs);
	gs->step.phase = GJ_BUILD;
	gs->step.fill_pos = 0;
	gs->step.fill_end = 0;
	gs->step.fill_shared = false;
}
