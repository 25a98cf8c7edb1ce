/*-------------------------------------------------------------------------
 *
 * agg_exec.c
 *	  The GpuPreAgg node (issue 55): partial aggregates over one absorbed
 *	  heap scan, folded on the GPU (or its host twin), handed to
 *	  PostgreSQL's Finalize Aggregate as the rows of a Partial Aggregate.
 *
 * The plan (src/agg/ planner side) is a CustomScan of the relation whose
 * custom_scan_tlist holds the group columns then the partial Aggrefs
 * (AGGSPLIT_INITIAL_SERIAL), and whose target list points at them.  The
 * node never evaluates an Aggref: each row it hands out carries a group's
 * columns and, per aggregate, the partial state Datum PostgreSQL's own
 * partial aggregate would hold (agg_catalog.h), so the Finalize Aggregate
 * deserializes, combines and finishes it with PostgreSQL's functions.
 *
 * The rows, per participant:
 *	- one per group of each set (agg_fold.c: a set spills past
 *	  work_mem x hash_mem_multiplier, and the last set goes at the scan's
 *	  end); several rows of one group are fine, the Finalize Aggregate
 *	  combines them;
 *	- one per tuple of a page the walker refused (a compressed or
 *	  out-of-line value, an overflow...), read by the CPU while the page is
 *	  still pinned: its visible tuples (as seen under the lock, or as
 *	  heapgetpage decided) that pass the quals, each with its own one-row
 *	  state (gpuhash_agg_row_datum);
 *	- with no group column and no other row, one row of empty states: a
 *	  plain Partial Aggregate emits one row over no input, and so does this
 *	  node, so the Finalize Aggregate gives count 0 and sum NULL.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_exec.h"
#include "agg_exchange.h"
#include "agg_join.h"
#include "agg_resident.h"

#include "access/heapam.h"
#include "access/relscan.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

static void begin_preagg(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_preagg(CustomScanState *node);
static void end_preagg(CustomScanState *node);
static void rescan_preagg(CustomScanState *node);
static Size estimate_dsm_preagg(CustomScanState *node, ParallelContext *pcxt);
static void init_dsm_preagg(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void reinit_dsm_preagg(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void init_worker_preagg(CustomScanState *node, shm_toc *toc, void *coordinate);
static void explain_preagg(CustomScanState *node, List *ancestors, ExplainState *es);
static void shutdown_preagg(CustomScanState *node);

static const CustomExecMethods preagg_exec_methods = {
	.CustomName = "GpuPreAgg",
	.BeginCustomScan = begin_preagg,
	.ExecCustomScan = exec_preagg,
	.EndCustomScan = end_preagg,
	.ReScanCustomScan = rescan_preagg,
	.EstimateDSMCustomScan = estimate_dsm_preagg,
	.InitializeDSMCustomScan = init_dsm_preagg,
	.ReInitializeDSMCustomScan = reinit_dsm_preagg,
	.InitializeWorkerCustomScan = init_worker_preagg,
	.ExplainCustomScan = explain_preagg,
	.ShutdownCustomScan = shutdown_preagg,
};

Node *
gpuhash_preagg_create_state(CustomScan *cscan)
{
	GpuPreAggState *as = palloc0(sizeof(GpuPreAggState));

	NodeSetTag(as, T_CustomScanState);
	as->css.methods = &preagg_exec_methods;
	as->css.flags = cscan->flags;
	return (Node *) as;
}

static void
begin_preagg(CustomScanState *node, EState *estate, int eflags)
{
	GpuPreAggState *as = (GpuPreAggState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	as->cxt = CurrentMemoryContext;
	gpuhash_agg_setup(as, cscan, estate, eflags);
	as->agg_pos = palloc(sizeof(int) * Max(as->naggs, 1));
	{
		ListCell   *lc;
		int			a = 0;

		foreach(lc, cscan->custom_scan_tlist)
			if (foreach_current_index(lc) >= as->nkeys &&
				IsA(lfirst_node(TargetEntry, lc)->expr, Aggref))
				as->agg_pos[a++] = foreach_current_index(lc);
	}
	gpuhash_agg_resident_init(as, cscan);
	as->phase = GA_SCAN;
}

/* A group state the core flagged: PostgreSQL's error, or an internal one. */
static void
check_state(const gh_agg_state *st)
{
	if (st->flags & GH_AGG_S_FLOAT_OVERFLOW)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value out of range: overflow")));
	if (st->flags & GH_AGG_S_FALLBACK)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gpuhash: the GPU aggregate could not hold a value exactly (GH_AGG_S_FALLBACK)"),
				 errdetail("The plan's aggregates were accepted as exact; this is a bug.")));
}

/* Row i of set g into slot: its group columns and partial states. */
static void
group_row(GpuPreAggState *as, const gh_agg_groups *g, uint64 i, TupleTableSlot *slot)
{
	int			na = g->naggs,
				kw = gh_agg_groups_key_words(g);

	ExecClearTuple(slot);
	memset(slot->tts_isnull, true, sizeof(bool) * slot->tts_tupleDescriptor->natts);
	for (int k = 0; k < as->nkeys; k++)
	{
		bool		isnull = (g->nulls[i] & (1u << k)) != 0;

		slot->tts_values[k] = isnull ? (Datum) 0 :
			gpuhash_agg_key_datum(as->key_conv[k], as->key_type[k], as->key_typmod[k],
								  g->keys + i * kw, kw, as->key_shift[k], as->key_width[k],
								  &isnull);
		slot->tts_isnull[k] = isnull;
	}
	/* inner columns the group determines, read from all inner rows (agg_join_carry.c) */
	if (as->join != NULL && as->join->carry != NULL)
	{
		/* a dimension per participant holds its rows from the start */
		if (!as->join->rows_loaded && as->join->shared != NULL)
			gpuhash_agg_join_par_load(as->join);
		gpuhash_agg_carry_group(as, slot);
	}
	for (int a = 0; a < as->naggs; a++)
	{
		const gh_agg_state *st = &g->states[i * na + a];
		bool		isnull = false;

		check_state(st);
		slot->tts_values[as->agg_pos[a]] = gpuhash_agg_state_datum(&as->aggs[a], st, &isnull);
		slot->tts_isnull[as->agg_pos[a]] = isnull;
	}
	ExecStoreVirtualTuple(slot);
	as->groups_out++;
	as->emitted_any = true;
}

/* A plain aggregate over no row: one row of empty states. */
static void
empty_row(GpuPreAggState *as, TupleTableSlot *slot)
{
	gh_agg_state st;

	memset(&st, 0, sizeof(st));
	ExecClearTuple(slot);
	memset(slot->tts_isnull, true, sizeof(bool) * slot->tts_tupleDescriptor->natts);
	for (int a = 0; a < as->naggs; a++)
	{
		bool		isnull = false;

		slot->tts_values[as->agg_pos[a]] = gpuhash_agg_state_datum(&as->aggs[a], &st, &isnull);
		slot->tts_isnull[as->agg_pos[a]] = isnull;
	}
	ExecStoreVirtualTuple(slot);
	as->emitted_any = true;
}

/*
 * The next tuple of the reading request's refused pages that passes the
 * quals, in t (pointing into its pinned page); false when none is left.
 * All-visible pages by the line pointers seen under the lock, others by
 * heapgetpage's visible offsets, as the join's page path reads them.
 */
static bool
next_refused_tuple(GpuPreAggState *as, HeapTuple t)
{
	GpuAggReq  *q = as->reading;
	GpuPageReq *r = &q->r;
	ExprContext *econtext = as->css.ss.ps.ps_ExprContext;

	for (; q->next_page < r->n_pages; q->next_page++, q->next_item = 0)
	{
		int			p = q->next_page;
		gh_page_ref *ref = &r->refs[p];
		const ItemIdData *lps = r->lps + (Size) p * GH_PAGE_MAX_TUPLES;
		bool		all = ref->nvis == GH_PAGE_ALL_VISIBLE;
		int			n = all ? ref->maxoff : ref->nvis;
		Page		page = BufferGetPage(q->pins[p]);

		if (!r->refused[p])
			continue;
		if (q->next_item == 0)
			as->pp.pages_refused++;
		while (q->next_item < n)
		{
			int			i = q->next_item++;
			OffsetNumber off = all ? i + 1 : r->visible[ref->vis_start + i];

			if (all && !ItemIdIsNormal(&lps[off - 1]))
				continue;
			gpuhash_page_tuple(page, r->blocks[p], off, RelationGetRelid(as->os->rel), t);
			if (gpuhash_heap_scan_tuple_passes(as->os, econtext, t))
				return true;
		}
	}
	return false;
}

/* A tuple the CPU read into slot: its group columns and one-row states. */
static void
cpu_row(GpuPreAggState *as, HeapTuple t, TupleTableSlot *slot)
{
	TupleTableSlot *hs = as->os->slot;

	ExecStoreHeapTuple(t, hs, false);
	slot_getallattrs(hs);
	as->os->slot_row = -1;
	ExecClearTuple(slot);
	memset(slot->tts_isnull, true, sizeof(bool) * slot->tts_tupleDescriptor->natts);
	for (int k = 0; k < as->nkeys; k++)
	{
		slot->tts_values[k] = hs->tts_values[as->key_attno[k] - 1];
		slot->tts_isnull[k] = hs->tts_isnull[as->key_attno[k] - 1];
	}
	for (int a = 0; a < as->naggs; a++)
	{
		const GpuAggSupport *s = &as->aggs[a];
		bool		isnull = false;

		for (int j = 0; j < 3; j++)
		{
			as->vals[j] = s->attno[j] > 0 ? hs->tts_values[s->attno[j] - 1] : (Datum) 0;
			as->nulls[j] = s->attno[j] > 0 ? hs->tts_isnull[s->attno[j] - 1] : true;
		}
		slot->tts_values[as->agg_pos[a]] = gpuhash_agg_row_datum(s, as->vals, as->nulls, &isnull);
		slot->tts_isnull[as->agg_pos[a]] = isnull;
	}
	ExecStoreVirtualTuple(slot);
	as->rows_out_cpu++;
	as->emitted_any = true;
}

static TupleTableSlot *
project(CustomScanState *node, TupleTableSlot *slot)
{
	ProjectionInfo *proj = node->ss.ps.ps_ProjInfo;

	if (proj == NULL)
		return slot;
	node->ss.ps.ps_ExprContext->ecxt_scantuple = slot;
	return ExecProject(proj);
}

/* The node's next row, wherever it comes from (exec_preagg). */
static TupleTableSlot *
next_row(CustomScanState *node)
{
	GpuPreAggState *as = (GpuPreAggState *) node;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	MemoryContext old;

	ResetExprContext(econtext);
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		/* a set's groups: spilled, or the last */
		if (as->pending != NIL)
		{
			gh_agg_groups *g = linitial(as->pending);

			if (as->out_pos < g->n_groups)
			{
				old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
				group_row(as, g, as->out_pos++, slot);
				MemoryContextSwitchTo(old);
				return project(node, slot);
			}
			gh_agg_groups_free(g);
			as->pending = list_delete_first(as->pending);
			pfree(g);
			as->out_pos = 0;
			continue;
		}
		/* over a join: each refused tuple's pairs, joined by the CPU */
		if (as->reading != NULL && as->join != NULL)
		{
			HeapTupleData t;
			bool		pair;

			/* a shared dimension's rows, read from its chunks at the first need */
			if (!as->join->rows_loaded)
				gpuhash_agg_join_par_load(as->join);
			pair = as->join->have_cur &&
				gpuhash_agg_join_next_pair(as, NULL, false);

			while (!pair && next_refused_tuple(as, &t))
			{
				as->join->have_cur = true;
				pair = gpuhash_agg_join_next_pair(as, &t, true);
			}
			if (pair)
			{
				old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
				gpuhash_agg_join_cpu_row(as, slot);
				MemoryContextSwitchTo(old);
				return project(node, slot);
			}
			as->join->have_cur = false;
			gpuhash_agg_release_req(as, as->reading);
			continue;
		}
		/* the refused pages of the request answered last */
		if (as->reading != NULL)
		{
			HeapTupleData t;

			if (next_refused_tuple(as, &t))
			{
				old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
				cpu_row(as, &t, slot);
				MemoryContextSwitchTo(old);
				return project(node, slot);
			}
			gpuhash_agg_release_req(as, as->reading);
			continue;
		}
		if (as->phase == GA_SCAN)
		{
			/* the inner side first: its rows, its dimension */
			if (as->join != NULL && !as->join->collected)
			{
				/* an outer join in parallel: among the walkers (agg_join_outer.c) */
				gpuhash_agg_outer_par_begin(as);
				/* in a parallel query, one dimension for all (agg_join_par.c) */
				if (as->join->shared != NULL)
					gpuhash_agg_join_par_collect(as);
				else
					gpuhash_agg_join_collect(as);
			}
			if (gpuhash_agg_advance(as))
				continue;

			/*
			 * Carried columns come from the rows of the batch in memory:
			 * the pass's groups go up before the next batch replaces them
			 * (agg_join_carry.c)
			 */
			if (gpuhash_agg_join_carry_batched(as) && !as->join->pass_out &&
				gpuhash_agg_join_more_batches(as->join))
			{
				gpuhash_agg_flush(as);
				if (as->aprog != NULL && as->groups.n_groups > 0)
					gpuhash_agg_spill(as);
				as->join->pass_out = true;
				continue;
			}
			/* a further batch of the inner rows: the outer pages again */
			if (as->join != NULL && gpuhash_agg_join_next_batch(as))
			{
				gpuhash_agg_restart_walk(as);
				continue;
			}
			/* the scan is over: the last set goes out */
			as->phase = GA_FINAL;
			gpuhash_agg_flush(as);
			if (as->aprog != NULL && as->groups.n_groups > 0)
				gpuhash_agg_spill(as);
			gpuhash_agg_resident_end(as);
			continue;
		}
		if (as->phase == GA_FINAL)
		{
			/* the resident set's groups, a chunk at a time */
			if (gpuhash_agg_resident_next(as))
				continue;
			/* owned groups, their one reader: the rows folded beside the set */
			{
				TupleTableSlot *x = gpuhash_agg_resident_exchanged(as);

				if (x != NULL)
					return x;
			}
			/* an outer join: the inner rows nothing matched (agg_join_outer.c) */
			if (gpuhash_agg_outer_folds(as) && !as->join->rows_loaded)
			{
				/* the shared chunks, or (from pages) the table read by the CPU */
				if (as->join->shared != NULL)
					gpuhash_agg_join_par_load(as->join);
				else
					gpuhash_agg_join_load_rows(as);
			}
			if (gpuhash_agg_outer_next(as))
			{
				old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
				gpuhash_agg_join_cpu_row(as, slot);
				MemoryContextSwitchTo(old);
				return project(node, slot);
			}
			as->phase = GA_DONE;
			if (as->nkeys == 0 && !as->emitted_any)
			{
				old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
				empty_row(as, slot);
				MemoryContextSwitchTo(old);
				return project(node, slot);
			}
		}
		return ExecClearTuple(slot);
	}
}

/*
 * The next row handed up.  Where each group has one owner (agg_resident.c),
 * a row made before the participant's walks ended was folded beside the
 * set: it goes to the exchange, and its owner hands it up later.
 */
static TupleTableSlot *
exec_preagg(CustomScanState *node)
{
	GpuPreAggState *as = (GpuPreAggState *) node;

	for (;;)
	{
		TupleTableSlot *slot = next_row(node);

		if (TupIsNull(slot) || !gpuhash_agg_resident_diverts(as))
			return slot;
		gpuhash_agg_exchange_put(as->exch, slot);
	}
}

static void
end_preagg(CustomScanState *node)
{
	GpuPreAggState *as = (GpuPreAggState *) node;

	gpuhash_agg_reset(as);
	if (as->join != NULL)
	{
		gpuhash_agg_join_release(as->join);
		gpuhash_agg_join_pages_end(as);
		gpuhash_agg_star_end(as);
		ExecEndNode(as->join->inner_ps);
	}
	gpuhash_heap_scan_end(as->os);
}

static void
rescan_preagg(CustomScanState *node)
{
	GpuPreAggState *as = (GpuPreAggState *) node;

	gpuhash_agg_reset(as);
	gpuhash_agg_resident_rescan(as);
	if (as->join != NULL)
		gpuhash_agg_join_rescan(as);
	gpuhash_heap_scan_rescan(as->os);
	as->phase = GA_SCAN;
	as->emitted_any = false;
}

/* Where each part of the node's DSM starts: one layout for every caller. */
typedef struct PreAggDsmLayout
{
	Size		resident;		/* resident groups' Barrier (agg_resident.c) */
	Size		outer;			/* an outer join's walk barrier (agg_join_outer.c) */
	Size		inner_pages;	/* a shared dimension's inner table's block
								 * allocator (agg_join_pages.c) */
	Size		exchange;		/* owned groups' exchange (agg_exchange.c) */
} PreAggDsmLayout;

/*
 * The parts, in order: a Parallel Seq Scan's block allocator (heap_scan.c),
 * a shared dimension's coordination (agg_join_par.c), the resident groups'
 * region, an outer join's walk barrier and flags, the block allocator of
 * a shared dimension's inner table walked by pages (as a Parallel Seq
 * Scan's: PostgreSQL's, its snapshot the leader's), last the exchange of
 * owned groups, whose size follows the participants (known to the leader
 * only: no part's place depends on it); each MAXALIGNed after all before
 * it.  Returns the total size.
 */
static Size
dsm_layout(GpuPreAggState *as, PreAggDsmLayout *layout, int participants)
{
	Size		off;

	off = MAXALIGN(gpuhash_heap_scan_estimate(as->os) + gpuhash_agg_join_par_estimate(as));
	if (layout != NULL)
		layout->resident = off;
	off = MAXALIGN(off + gpuhash_agg_resident_estimate(as));
	if (layout != NULL)
		layout->outer = off;
	off = MAXALIGN(off + gpuhash_agg_outer_par_estimate(as));
	if (layout != NULL)
		layout->inner_pages = off;
	off = MAXALIGN(off + gpuhash_agg_join_pages_estimate(as));
	if (layout != NULL)
		layout->exchange = off;
	if (as->exch != NULL)
		off = MAXALIGN(off + gpuhash_agg_exchange_estimate(participants));
	return off;
}

static Size
estimate_dsm_preagg(CustomScanState *node, ParallelContext *pcxt)
{
	GpuPreAggState *as = (GpuPreAggState *) node;

	return dsm_layout(as, NULL, pcxt->nworkers + 1);
}

static void
init_dsm_preagg(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuPreAggState *as = (GpuPreAggState *) node;
	PreAggDsmLayout r;

	gpuhash_heap_scan_init_dsm(as->os, coordinate);
	gpuhash_agg_join_par_init(as, pcxt, coordinate);
	dsm_layout(as, &r, pcxt->nworkers + 1);
	gpuhash_agg_resident_init_dsm(as, (char *) coordinate + r.resident);
	gpuhash_agg_outer_par_init(as, (char *) coordinate + r.outer, false);
	gpuhash_agg_join_pages_init_dsm(as, (char *) coordinate + r.inner_pages, false);
	if (as->exch != NULL)
		gpuhash_agg_exchange_init_dsm(as->exch, pcxt, (char *) coordinate + r.exchange);
}

static void
reinit_dsm_preagg(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuPreAggState *as = (GpuPreAggState *) node;
	PreAggDsmLayout r;

	gpuhash_heap_scan_reinit_dsm(as->os, coordinate);
	gpuhash_agg_join_par_reinit(as, coordinate);
	dsm_layout(as, &r, pcxt->nworkers + 1);
	gpuhash_agg_resident_reinit_dsm(as, (char *) coordinate + r.resident);
	gpuhash_agg_outer_par_init(as, (char *) coordinate + r.outer, true);
	gpuhash_agg_join_pages_init_dsm(as, (char *) coordinate + r.inner_pages, true);
	if (as->exch != NULL)
		gpuhash_agg_exchange_reinit_dsm(as->exch, (char *) coordinate + r.exchange);
}

static void
init_worker_preagg(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	GpuPreAggState *as = (GpuPreAggState *) node;
	PreAggDsmLayout r;

	gpuhash_heap_scan_init_worker(as->os, coordinate);
	gpuhash_agg_join_par_attach(as, coordinate);
	dsm_layout(as, &r, 0);
	gpuhash_agg_resident_attach(as, (char *) coordinate + r.resident);
	gpuhash_agg_outer_par_attach(as, (char *) coordinate + r.outer);
	gpuhash_agg_join_pages_attach(as, (char *) coordinate + r.inner_pages);
	if (as->exch != NULL)
		gpuhash_agg_exchange_attach(as->exch, (char *) coordinate + r.exchange);
}

/* Before a parallel plan's DSM goes: what the node keeps of it. */
static void
shutdown_preagg(CustomScanState *node)
{
	gpuhash_agg_resident_shutdown((GpuPreAggState *) node);
}

/* EXPLAIN: keys, aggregates, the GPU's and the CPU's quals; ANALYZE figures. */
static void
explain_preagg(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GpuPreAggState *as = (GpuPreAggState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);
	bool		useprefix = es->verbose;
	StringInfoData buf,
				carried;
	ListCell   *lc;
	int			a = 0,
				c = 0;

	initStringInfo(&buf);
	initStringInfo(&carried);
	foreach(lc, cscan->custom_scan_tlist)
	{
		int			k = foreach_current_index(lc);
		Node	   *e = (Node *) lfirst_node(TargetEntry, lc)->expr;

		if (k < as->nkeys)
			appendStringInfoString(&buf, k == 0 ? "keys " : ", ");
		else if (IsA(e, Aggref))
			appendStringInfoString(&buf, a++ > 0 ? ", " : as->nkeys > 0 ? ", aggregates " :
								   "aggregates ");
		else
		{
			/* a column the group determines (agg_join_carry.c) */
			if (!lfirst_node(TargetEntry, lc)->resjunk)
				appendStringInfo(&carried, "%s%s", c++ > 0 ? ", " : ", carried ",
								 deparse_expression(e, context, useprefix, false));
			continue;
		}
		appendStringInfoString(&buf, deparse_expression(e, context, useprefix, false));
	}
	appendStringInfoString(&buf, carried.data);
	ExplainPropertyText("GPU Aggregate", buf.data, es);

	/*
	 * Where the rows are folded, in the machine formats that tools read to
	 * say what ran (tpch/run.py); the text form reads the same on either.
	 */
	if (es->format != EXPLAIN_FORMAT_TEXT)
		ExplainPropertyText("Device", as->why_cpu != NULL ? "host" :
							gh_device_name(as->device), es);
	if (as->join != NULL)
		gpuhash_agg_join_explain(as, context, useprefix, es);
	if (as->why_cpu != NULL)
		ExplainPropertyText("GPU Declined", as->why_cpu, es);
	else
	{
		if (as->pp.prog.gpu_quals != NIL)
			ExplainPropertyText("GPU Filter",
								deparse_expression((Node *) make_ands_explicit(as->pp.prog.gpu_quals),
												   context, useprefix, false), es);
	}
	gpuhash_agg_resident_explain(as, es);
	if (as->pp.prog.cpu_quals != NIL)
		ExplainPropertyText("CPU Filter",
							deparse_expression((Node *) make_ands_explicit(as->pp.prog.cpu_quals),
											   context, useprefix, false), es);
	if (!es->analyze)
		return;
	ExplainPropertyUInteger("Pages All-Visible", NULL, as->pp.pages_all_visible, es);
	ExplainPropertyUInteger("Pages Checked", NULL, as->pp.pages_checked, es);
	ExplainPropertyUInteger("Pages Refused", NULL, as->pp.pages_refused, es);
	if (as->pp.pages_stored > 0)
	{
		/* gpuhash.page_cache_size: pages walked from their copies on the device */
		ExplainPropertyUInteger("Pages From Page Cache", NULL,
								as->pp.pages_stored - as->pp.pages_filled, es);
		ExplainPropertyUInteger("Pages Into Page Cache", NULL, as->pp.pages_filled, es);
	}
	ExplainPropertyUInteger("Rows Folded", NULL, as->rows_folded, es);
	ExplainPropertyUInteger("Rows From CPU", NULL, as->rows_out_cpu, es);
	ExplainPropertyUInteger("Groups", NULL, as->groups_out, es);
	ExplainPropertyUInteger("Requests", NULL, as->pp.requests, es);
	ExplainPropertyUInteger("Requests In Service", NULL, as->in_service, es);
	ExplainPropertyUInteger("Spills", NULL, as->spills, es);
	if (es->timing)
		ExplainPropertyFloat("GPU Time", "ms", as->gpu_ms, 3, es);
}
