/*-------------------------------------------------------------------------
 *
 * chain.c
 *	  Multi-level GPU joins: a stack of GpuHashJoin nodes, each the outer
 *	  side of the one above, probed together per outer batch
 *	  (gh_chain_probe) instead of node by node.
 *
 *	  The plan keeps one node per join, so planning, EXPLAIN and the nodes'
 *	  own paths stay as they are.  At ExecInit the top node of such a stack
 *	  takes the levels below it into its chain, where each level's semantics
 *	  allow a probe without the rows in between: inner, semi, anti and left
 *	  joins (the last three without other join clauses), and each upper
 *	  level's keys plain columns of the chain's outer rows or of lower
 *	  levels' inner rows (of several sources only for exact keys: the key
 *	  is then put together from parts, one per source, OR'd on the probe).
 *
 *	  At the start of a scan the bottom level starts as always (its first
 *	  outer row, its table) and the upper levels build their tables.  The
 *	  chain runs fused when every table fits one hash batch and all live in
 *	  one place (the GPU service, or this process); otherwise the nodes run
 *	  one by one as always, already built.
 *
 *	  Fused, the bottom level fills its probe batches as always; where it
 *	  reads pages (page_scan.c) the walk's probe of its table leaves only
 *	  the rows that can join (every row that passes, under a left or anti
 *	  bottom), each keyed from its tuple, and the chain probes every level
 *	  again with those keys.  The keys
 *	  (or key parts) of upper levels that come from the outer rows are read
 *	  with them; those that come from inner rows are carried by their
 *	  level's table, set once per build.  One request per batch (or per
 *	  part of a batch, within a staging chunk) returns the combinations,
 *	  and each level's probe time for its node (EXPLAIN ANALYZE: Chain
 *	  Level Time).  A combination is an outer row and a position per
 *	  level, grouped by outer row.  Only they are formed into rows, level
 *	  by level, with each level's join filter, filter and
 *	  projection, as that node would; a combination whose lower levels are
 *	  the previous one's reuses their rows.  Nothing in between goes through
 *	  ExecProcNode, the upper levels' keys are never computed from rows,
 *	  and their batches never filled.
 *
 *	  This file: which levels a chain takes at ExecInit, the start of a
 *	  scan (the tables, their carried keys, fused or not) and EXPLAIN.
 *	  chain_probe.c runs the batches and requests, chain_rows.c forms the
 *	  rows; chain_internal.h holds the state they share.
 *
 *-------------------------------------------------------------------------
 */
#include "chain_internal.h"
#include "scan/page_scan.h"
#include "service.h"

#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"

/* ---------------------------------------------------------------------
 * ExecInit: which levels a chain takes
 * --------------------------------------------------------------------- */

/* Can this join be a level of a chain?  The probe decides its matches alone. */
static bool
level_kind(GpuJoinState *gs, gh_level_kind *kind)
{
	if (gs->fill_inner || (gs->oscan == NULL && gs->outer_ps == NULL))
		return false;
	switch (gs->info.jointype)
	{
		case JOIN_INNER:
			*kind = GH_LEVEL_INNER;
			return true;
		case JOIN_SEMI:
			*kind = GH_LEVEL_SEMI;
			break;
		case JOIN_ANTI:
			*kind = GH_LEVEL_ANTI;
			break;
		case JOIN_LEFT:
			*kind = GH_LEVEL_LEFT;
			break;
		default:
			return false;
	}
	/* a join filter would decide matches after the probe */
	return gs->qual == NULL;
}

/* Index of col in keep[0..n), or -1. */
static int
keep_index(const int *keep, int n, int col)
{
	for (int k = 0; k < n; k++)
		if (keep[k] == col)
			return k;
	return -1;
}

/*
 * Where output column a (1-based) of level k comes from: *level -1 and
 * *col the bottom's outer column, or *level j and *col level j's inner
 * column (0-based).  False when it is computed, not a plain column.
 */
static bool
resolve_column(GpuChain *ch, int k, AttrNumber a, int *level, int *col)
{
	for (;;)
	{
		GpuJoinState *gs = ch->lv[k].gs;
		AttrNumber	b = a;

		if (gs->css.ss.ps.ps_ProjInfo != NULL)
		{
			List	   *tlist = gs->css.ss.ps.plan->targetlist;
			Expr	   *e;

			if (a < 1 || a > list_length(tlist))
				return false;
			e = ((TargetEntry *) list_nth(tlist, a - 1))->expr;
			while (IsA(e, RelabelType))
				e = ((RelabelType *) e)->arg;
			if (!IsA(e, Var) || ((Var *) e)->varno != INDEX_VAR)
				return false;
			b = ((Var *) e)->varattno;
		}
		if (b < 1 || b > gs->n_outer_cols + gs->n_inner_cols)
			return false;
		if (b > gs->n_outer_cols)
		{
			*level = k;
			*col = b - 1 - gs->n_outer_cols;
			return true;
		}
		if (k == 0)
		{
			*level = -1;
			*col = b - 1;
			return true;
		}
		a = b;
		k--;
	}
}

/*
 * The new level's key (the level at ch->n - 1, over the one below it):
 * each key column resolved to one source, found in what that source keeps,
 * and the columns grouped by source into the key's parts.  False when the
 * level cannot join the chain.
 */
static bool
level_key(GpuChain *ch, ChainLevel *l)
{
	GpuJoinState *gs = l->gs;
	GpuJoinState *bottom = ch->lv[0].gs;
	int			nkeys = gs->info.nkeys;

	if (nkeys < 1 || nkeys > 32)
		return false;
	l->src = palloc(sizeof(int) * nkeys);
	l->n_parts = 0;
	for (int i = 0; i < nkeys; i++)
	{
		int			level,
					col,
					idx,
					q;

		if (gs->outer_keys[i].state != NULL ||
			!resolve_column(ch, ch->n - 2, gs->outer_keys[i].attno, &level, &col))
			return false;
		/* a semi or anti level's inner columns are never a row's (NULL above it) */
		if (level >= 0 && ch->lv[level].kind != GH_LEVEL_INNER &&
			ch->lv[level].kind != GH_LEVEL_LEFT)
			return false;
		if (level >= 0)
			idx = keep_index(ch->lv[level].gs->inner_keep, ch->lv[level].gs->n_inner_keep, col);
		else if (gpuhash_batch_rows_in_pages(bottom))
			idx = bottom->oscan->attno[col];	/* read from the page */
		else
			idx = keep_index(bottom->outer_keep, bottom->n_outer_keep, col);
		if (idx < 0)
			return false;
		l->src[i] = idx;
		for (q = 0; q < l->n_parts && l->part[q].from_level != level; q++)
			;
		if (q == l->n_parts)
		{
			if (q == GH_CHAIN_KEY_PARTS)
				return false;
			l->part[q].from_level = level;
			l->part_mask[q] = 0;
			l->n_parts++;
		}
		l->part_mask[q] |= UINT32_C(1) << i;
	}
	/* a fingerprint combines its columns' hashes in order: it does not split */
	return l->n_parts == 1 || !gs->info.fingerprint;
}

/*
 * At the end of a GpuHashJoin's ExecInit: if its outer side is a
 * GpuHashJoin that can be a level, this node becomes the top of a chain,
 * taking over the chain below it if there is one.
 */
void
gpuhash_chain_init(GpuJoinState *top)
{
	GpuJoinState *below;
	GpuChain   *ch;
	ChainLevel *l;
	gh_level_kind kind;

	if (!gpuhash_chain_joins || !gpuhash_is_join_state(top->outer_ps) ||
		!level_kind(top, &kind))
		return;
	below = (GpuJoinState *) top->outer_ps;
	if (below->chain)
		ch = below->chain;
	else
	{
		gh_level_kind below_kind;

		if (below->chain_member || !level_kind(below, &below_kind))
			return;
		ch = palloc0(sizeof(GpuChain));
		ch->n = 1;
		ch->lv[0].gs = below;
		ch->lv[0].kind = below_kind;
		ch->lv[0].n_parts = 1;
		ch->lv[0].part[0].from_level = -1;
		ch->lv[0].part[0].column = 0;
		ch->lv[0].part_mask[0] = ~UINT32_C(0);
		ch->lv[0].carried_version = PG_UINT64_MAX;
		ch->n_outer_cols = 1;
		ch->outer_col_level[0] = 0;
		ch->outer_col_mask[0] = ~UINT32_C(0);
	}
	if (ch->n >= GH_MAX_CHAIN_LEVELS)
		return;
	l = &ch->lv[ch->n++];
	memset(l, 0, sizeof(*l));
	l->gs = top;
	l->kind = kind;
	l->carried_version = PG_UINT64_MAX;
	if (!level_key(ch, l))
	{
		ch->n--;
		if (ch->n == 1)
			pfree(ch);
		return;
	}
	/* each part a column: of the outer keys, or carried by its level's rows */
	for (int q = 0; q < l->n_parts; q++)
	{
		if (l->part[q].from_level < 0)
		{
			l->part[q].column = ch->n_outer_cols;
			ch->outer_col_level[ch->n_outer_cols] = ch->n - 1;
			ch->outer_col_mask[ch->n_outer_cols++] = l->part_mask[q];
		}
		else
		{
			ChainLevel *src = &ch->lv[l->part[q].from_level];

			l->part[q].column = src->n_carry;
			src->carry_for[src->n_carry] = ch->n - 1;
			src->carry_mask[src->n_carry++] = l->part_mask[q];
			/* its readers make the keys as they keep the rows */
			src->gs->carrier = ch;
			src->gs->carrier_level = l->part[q].from_level;
		}
	}

	/* the chain moves up: the levels below are members */
	below->chain = NULL;
	for (int k = 0; k < ch->n - 1; k++)
		ch->lv[k].gs->chain_member = true;
	top->chain = ch;
	top->outer_is_level = true;
	top->no_prefill = true;
	if (ch->cxt == NULL)
		ch->cxt = AllocSetContextCreate(top->cxt, "GpuHashJoin chain", ALLOCSET_DEFAULT_SIZES);
	/*
	 * The bottom's batches of pages, each a chain request: one more of
	 * them, read while a request runs (chain_probe.c), and larger ones.
	 */
	if (gpuhash_page_chain_may_read(ch->lv[0].gs))
	{
		gpuhash_probe_deepen(ch->lv[0].gs);
		gpuhash_page_chain_bottom(ch->lv[0].gs);
	}
	ch->phase = CH_START;
	ch->last_outer = -1;
}

/* ---------------------------------------------------------------------
 * The start of a scan
 * --------------------------------------------------------------------- */

/*
 * Sets level j's carried columns: the keys of the upper levels that read
 * its inner rows, per row in the table's key-grouped order.  A parallel
 * inner side's readers made them already (shared_inner.c); a serial one's
 * rows lie in that order.
 */
static void
set_carried(GpuChain *ch, int j)
{
	ChainLevel *l = &ch->lv[j];
	GpuJoinState *gs = l->gs;
	uint64		n = gs->n_inner;
	int			m = l->n_carry;
	const uint64 *ready_keys;
	const uint8 *ready_valid;
	gh_status	st;
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	if (gs->inner_tups == NULL && gpuhash_shared_carried(gs, &ready_keys, &ready_valid))
		st = gpuhash_table_set_carried(&gs->table, ready_keys, ready_valid, m);
	else if (gs->inner_tups != NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(ch->cxt);
		uint64	   *keys = MemoryContextAllocHuge(ch->cxt, sizeof(uint64) * Max(n * m, 1));
		uint8	   *valid = MemoryContextAllocHuge(ch->cxt, Max(n * m, 1));

		gpuhash_carried_keys(gs, gs->inner_tups, n, keys, valid, n);
		st = gpuhash_table_set_carried(&gs->table, keys, valid, m);
		MemoryContextSwitchTo(old);
		MemoryContextReset(ch->cxt);
	}
	else
	{
		gh_set_last_error("the shared rows came without their carried keys");
		st = GH_ERR_INVALID;
	}
	gs->stats.carry_ms += gpuhash_ms_since(t0);
	if (st != GH_OK)
		ereport(ERROR,
				(errcode(st == GH_ERR_HOST_MEMORY ? ERRCODE_OUT_OF_MEMORY : ERRCODE_SYSTEM_ERROR),
				 errmsg("gpuhash: could not give a chained join table its carried keys: %s",
						gh_last_error())));
	l->carried_version = gs->table_version;
}

/* Why the built levels cannot run fused this scan; NULL when they can. */
static const char *
why_unfused(GpuChain *ch)
{
	GpuJoinState *bottom = ch->lv[0].gs;
	gh_table_info ti;

	for (int k = 0; k < ch->n; k++)
	{
		GpuJoinState *gs = ch->lv[k].gs;

		if (gs->split)
			return "a level's inner side was split into shared batches";
		if (gs->nbatch > 1)
			return "a level's inner side took several hash batches";
		if (gs->n_inner == 0 || !gpuhash_table_exists(&gs->table))
			return "a level's inner side is empty";
		if (gs->table.remote != bottom->table.remote || gs->device != bottom->device)
			return "the levels' tables live in different places";
		gpuhash_table_info(&gs->table, &ti);
		if (ti.parts > 1)
			return "a level's table is partitioned over GPUs";
	}
	return NULL;
}

/*
 * CH_START: the gates of the upper levels, then the bottom's start (first
 * outer row, table), then the upper levels' tables.  An empty result ends
 * here: a level that yields no row leaves all above it without rows (no
 * level emits unmatched inner rows).
 */
void
gpuhash_chain_start(GpuChain *ch)
{
	GpuJoinState *bottom = ch->lv[0].gs;
	const char *why;

	for (int k = 1; k < ch->n; k++)
	{
		GpuJoinState *gs = ch->lv[k].gs;
		ExprContext *econtext = gs->css.ss.ps.ps_ExprContext;

		if (gs->gate != NULL && !ExecQual(gs->gate, econtext))
		{
			ResetExprContext(econtext);
			ch->phase = CH_DONE;
			return;
		}
	}
	gpuhash_step_set_phase(bottom, gpuhash_start_scan(bottom));
	if (bottom->step.phase == GJ_DONE)
	{
		ch->phase = CH_DONE;
		return;
	}
	for (int k = 1; k < ch->n; k++)
	{
		GpuJoinState *gs = ch->lv[k].gs;

		if (gs->built)
			continue;
		if (gs->shared)
			gpuhash_shared_build(gs);
		else
			gpuhash_build_inner(gs);
	}
	if ((why = why_unfused(ch)) != NULL)
	{
		/* the nodes run one by one, their tables built: no level starts over */
		ch->unfused_why = why;
		ch->phase = CH_UNFUSED;
		/* the bottom ran its start here, not through ExecProcNode: a loop */
		gpuhash_chain_count_rows(ch, true);
		return;
	}
	for (int j = 0; j < ch->n; j++)
	{
		ChainLevel *l = &ch->lv[j];

		if (l->n_carry == 0)
			continue;
		if (l->gs->shared)
		{
			if (gpuhash_shared_carry_begin(l->gs))
			{
				set_carried(ch, j);
				gpuhash_shared_carry_done(l->gs);
			}
		}
		else if (l->carried_version != l->gs->table_version)
			set_carried(ch, j);
	}
	for (int k = 0; k < ch->n; k++)
	{
		ChainLevel *l = &ch->lv[k];

		ch->tables[k] = &l->gs->table;
		ch->levels[k].table = NULL;
		ch->levels[k].kind = l->kind;
		ch->levels[k].n_parts = l->n_parts;
		memcpy(ch->levels[k].part, l->part, sizeof(l->part));
	}
	if (ch->okeys == NULL)
	{
		/* the arrays live as long as the node */
		MemoryContext nodecxt = ch->lv[ch->n - 1].gs->cxt;
		uint64		svc_rows = bottom->table.remote ?
			gpuhash_service_chain_rows(ch->n_outer_cols, ch->n) : 0;

		/* a batch of pages (page_scan.c) may hold more rows than one of tuples */
		ch->batch_cap = bottom->page ? Max(bottom->batch_cap, bottom->page->rows_cap) :
			bottom->batch_cap;
		ch->req_rows = svc_rows > 0 ? (int) Min(svc_rows, (uint64) ch->batch_cap) : ch->batch_cap;
		ch->cap = Max((uint64) ch->req_rows * 2, 16384);
		ch->okeys = MemoryContextAllocHuge(nodecxt, sizeof(uint64) * ch->batch_cap * ch->n_outer_cols);
		ch->ovalid = MemoryContextAllocHuge(nodecxt, (Size) ch->batch_cap * ch->n_outer_cols);
		ch->req_keys = MemoryContextAllocHuge(nodecxt, sizeof(uint64) * ch->req_rows * ch->n_outer_cols);
		ch->req_valid = MemoryContextAllocHuge(nodecxt, (Size) ch->req_rows * ch->n_outer_cols);
		ch->out_outer = MemoryContextAllocHuge(nodecxt, sizeof(uint32) * ch->cap);
		ch->out_pos = MemoryContextAllocHuge(nodecxt, sizeof(uint32) * ch->cap * ch->n);
	}
	ch->req_n = ch->req_rows;
	ch->fused_scans++;
	ch->phase = CH_NEXT_BATCH;
}

/* ---------------------------------------------------------------------
 * EXPLAIN
 * --------------------------------------------------------------------- */

void
gpuhash_chain_explain(GpuJoinState *gs, ExplainState *es)
{
	GpuChain   *ch = gs->chain;

	if (gs->chain_member)
	{
		ExplainPropertyText("Chained", "probed with the GpuHashJoin above", es);
		return;
	}
	if (ch == NULL)
		return;
	ExplainPropertyInteger("Chain Levels", NULL, ch->n, es);
	if (!es->analyze)
		return;
	if (ch->fused_scans > 0)
	{
		ExplainPropertyUInteger("Chain Requests", NULL, ch->requests, es);
		ExplainPropertyUInteger("Chain Combinations", NULL, ch->combinations, es);
	}
	if (ch->unfused_why)
		ExplainPropertyText("Chain Unfused", ch->unfused_why, es);
}
