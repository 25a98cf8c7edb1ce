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
 *	  Fused, the bottom level fills its probe batches as always.  The keys
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
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "service.h"

#include "access/htup_details.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"

typedef enum ChainPhase
{
	CH_START,					/* a scan starts: tables, fused or not */
	CH_UNFUSED,					/* the nodes run one by one this scan */
	CH_NEXT_BATCH,				/* the bottom's next outer batch */
	CH_REQUEST,					/* the next part of the batch probed */
	CH_EMIT,					/* its combinations formed into rows */
	CH_DONE
} ChainPhase;

typedef struct ChainLevel
{
	GpuJoinState *gs;
	gh_level_kind kind;
	/*
	 * The key, in parts by source: part q's key columns (mask: bit i for
	 * key column i) come from the outer rows (from_level -1, the chain's
	 * outer key column `column`) or from a lower level's rows (its carried
	 * column `column`).  More than one part only for exact keys, which pack
	 * so that the parts OR together (gh_chain_level).
	 */
	int			n_parts;
	gh_chain_key_part part[GH_CHAIN_KEY_PARTS];
	uint32		part_mask[GH_CHAIN_KEY_PARTS];
	int		   *src;			/* per key column, the source's kept column index
								 * (outer rows: bottom's outer_keep, or with its
								 * rows in pages, a heap column) */
	/* the key parts of upper levels this level's inner rows carry */
	int			n_carry;
	int			carry_for[GH_MAX_CHAIN_LEVELS];
	uint32		carry_mask[GH_MAX_CHAIN_LEVELS];
	uint64		carried_version;	/* the table they were set for (serial:
									 * its table_version) */
	/* the row formed last at this level, for the combination's prefix */
	bool		row_ok;
	TupleTableSlot *row;
	double		rows_out;		/* rows formed, not yet counted (EXPLAIN) */
} ChainLevel;

typedef struct GpuChain
{
	int			n;
	ChainLevel	lv[GH_MAX_CHAIN_LEVELS];
	gh_chain_level levels[GH_MAX_CHAIN_LEVELS];
	GpuTable   *tables[GH_MAX_CHAIN_LEVELS];
	/* columns of the outer keys: 0 the bottom's own key, then upper levels' parts */
	int			n_outer_cols;
	int			outer_col_level[GH_MAX_CHAIN_LEVELS];
	uint32		outer_col_mask[GH_MAX_CHAIN_LEVELS];

	ChainPhase	phase;
	const char *unfused_why;	/* the last scan that ran unfused: why */
	MemoryContext cxt;

	/* the batch: outer keys, column c at c * batch_cap */
	GpuProbeBatch *b;
	int			batch_cap;
	uint64	   *okeys;
	uint8	   *ovalid;
	/* a request: rows [lo, hi) of the batch, combinations [skip, skip + written) */
	int			req_rows;		/* rows a request takes at most */
	int			req_n;			/* ... and now: fewer where rows fan out */
	uint64	   *req_keys;
	uint8	   *req_valid;
	int			lo;
	int			hi;
	uint64		skip;
	uint64		total;
	uint64		written;
	uint64		cur;
	uint64		cap;			/* combinations a request returns at most */
	uint32	   *out_outer;
	uint32	   *out_pos;
	/* the combination formed last */
	int64		last_outer;
	uint32		last_pos[GH_MAX_CHAIN_LEVELS];

	/* EXPLAIN ANALYZE */
	uint64		requests;
	uint64		combinations;
	uint64		fused_scans;
} GpuChain;

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
	ch->phase = CH_START;
	ch->last_outer = -1;
}

/* ---------------------------------------------------------------------
 * The start of a scan
 * --------------------------------------------------------------------- */

static void count_level_rows(GpuChain *ch, bool run);

/* How many upper levels' key columns gs's inner rows carry (0: none). */
int
gpuhash_carried_columns(GpuJoinState *gs)
{
	return gs->carrier ? gs->carrier->lv[gs->carrier_level].n_carry : 0;
}

/*
 * The carried keys of n inner rows of carrier level gs, kept as vals and
 * nulls (n_inner_keep columns a row): column c of row i goes to
 * keys[c * ld + i], as the upper level's own probe would make its key.
 * The readers of a parallel inner side call this on their share, in its
 * storage order; a walk over the shared rows in the table's order would
 * deform each tuple at a cache miss, in one participant.
 */
void
gpuhash_carried_keys(GpuJoinState *gs, const Datum *vals, const bool *nulls, uint64 n,
					 uint64 *keys, uint8 *valid, uint64 ld)
{
	GpuChain   *ch = gs->carrier;
	ChainLevel *l = &ch->lv[gs->carrier_level];
	int			nc = gs->n_inner_keep;
	Datum		d[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];

	for (int c = 0; c < l->n_carry; c++)
	{
		ChainLevel *up = &ch->lv[l->carry_for[c]];
		uint32		mask = l->carry_mask[c];

		for (uint64 p = 0; p < n; p++)
		{
			const Datum *iv = vals + p * nc;
			const bool *in = nulls + p * nc;
			uint64		key;

			if ((p & 0xffff) == 0)
				CHECK_FOR_INTERRUPTS();
			for (int i = 0; i < up->gs->info.nkeys; i++)
			{
				if (!(mask & (UINT32_C(1) << i)))
					continue;
				d[i] = iv[up->src[i]];
				isnull[i] = in[up->src[i]];
			}
			valid[c * ld + p] = gpuhash_datums_key(up->gs, d, isnull, mask, &key);
			keys[c * ld + p] = valid[c * ld + p] ? key : 0;
		}
	}
}

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
	if (gs->inner_vals == NULL && gpuhash_shared_carried(gs, &ready_keys, &ready_valid))
		st = gpuhash_table_set_carried(&gs->table, ready_keys, ready_valid, m);
	else if (gs->inner_vals != NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(ch->cxt);
		uint64	   *keys = MemoryContextAllocHuge(ch->cxt, sizeof(uint64) * Max(n * m, 1));
		uint8	   *valid = MemoryContextAllocHuge(ch->cxt, Max(n * m, 1));

		gpuhash_carried_keys(gs, gs->inner_vals, gs->inner_nulls, n, keys, valid, n);
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
static void
chain_start(GpuChain *ch)
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
	bottom->phase = gpuhash_start_scan(bottom);
	if (bottom->phase == GJ_DONE)
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
		count_level_rows(ch, true);
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
		l->gs->css.ss.ps.ps_ExprContext->ecxt_scantuple = l->gs->css.ss.ss_ScanTupleSlot;
	}
	if (ch->okeys == NULL)
	{
		/* the arrays live as long as the node */
		MemoryContext nodecxt = ch->lv[ch->n - 1].gs->cxt;
		uint64		svc_rows = bottom->table.remote ?
			gpuhash_service_chain_rows(ch->n_outer_cols, ch->n) : 0;

		ch->batch_cap = bottom->batch_cap;
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
 * Batches and requests
 * --------------------------------------------------------------------- */

/* A column of the bottom's outer row i: src as level_key found it. */
static inline Datum
outer_value(GpuJoinState *bottom, GpuProbeBatch *b, int i, int src, bool *isnull)
{
	if (gpuhash_batch_rows_in_pages(bottom))
		return heap_getattr(&b->tups[i], src, bottom->oscan->desc, isnull);
	*isnull = b->nulls[(size_t) i * bottom->n_outer_keep + src];
	return b->vals[(size_t) i * bottom->n_outer_keep + src];
}

/*
 * How many rows ahead the upper levels' keys are read from an outer tuple
 * in its page: the batch was filled a while ago, so each tuple is a cache
 * miss again (perf, host twin, Q09 at SF 1: most of the chain's own time
 * was the load of these tuples' headers).
 */
#define KEY_PREFETCH_AHEAD 8

/* The batch's outer keys: the bottom's, then the upper levels' read from its rows. */
static void
batch_keys(GpuChain *ch, GpuProbeBatch *b)
{
	GpuJoinState *bottom = ch->lv[0].gs;
	bool		in_pages = gpuhash_batch_rows_in_pages(bottom);
	Datum		d[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];

	for (int i = 0; i < b->n; i++)
	{
		ch->okeys[i] = b->keys[i];
		ch->ovalid[i] = !b->nokey[i];
	}
	if (ch->n_outer_cols == 1)
		return;
	if (in_pages)
		for (int i = 0; i < Min(b->n, KEY_PREFETCH_AHEAD); i++)
			gpuhash_prefetch(b->tups[i].t_data);
	/* row by row, all of its columns: each tuple is loaded once */
	for (int i = 0; i < b->n; i++)
	{
		if (in_pages && i + KEY_PREFETCH_AHEAD < b->n)
		{
			const char *t = (const char *) b->tups[i + KEY_PREFETCH_AHEAD].t_data;

			gpuhash_prefetch(t);
			gpuhash_prefetch(t + 63);
		}
		for (int c = 1; c < ch->n_outer_cols; c++)
		{
			ChainLevel *l = &ch->lv[ch->outer_col_level[c]];
			uint32		mask = ch->outer_col_mask[c];
			size_t		at = (size_t) c * ch->batch_cap + i;

			for (int k = 0; k < l->gs->info.nkeys; k++)
				if (mask & (UINT32_C(1) << k))
					d[k] = outer_value(bottom, b, i, l->src[k], &isnull[k]);
			ch->ovalid[at] = gpuhash_datums_key(l->gs, d, isnull, mask, &ch->okeys[at]);
			if (!ch->ovalid[at])
				ch->okeys[at] = 0;
		}
	}
}

/* Drops the batch's first `lo` rows, emitted already; the rest move up. */
static void
drop_emitted_rows(GpuJoinState *bottom, GpuProbeBatch *b, int lo)
{
	int			nc = bottom->n_outer_keep;
	int			rest = b->n - lo;

	memmove(b->keys, b->keys + lo, sizeof(uint64) * rest);
	memmove(b->nokey, b->nokey + lo, sizeof(bool) * rest);
	if (nc > 0)
	{
		memmove(b->vals, b->vals + (size_t) lo * nc, sizeof(Datum) * rest * nc);
		memmove(b->nulls, b->nulls + (size_t) lo * nc, sizeof(bool) * rest * nc);
	}
	/* their pages stay pinned by the batch until it goes */
	if (b->tups)
		memmove(b->tups, b->tups + lo, sizeof(HeapTupleData) * rest);
	b->n = rest;
	b->any_key = false;
	for (int i = 0; i < rest; i++)
		b->any_key |= !b->nokey[i];
}

/*
 * A request failed at a row boundary of the batch: the nodes take over,
 * one by one, from that row on (each then falls back as a single join
 * does).  A request too large for the chain (a row whose combinations
 * alone exceed GH_CHAIN_MAX_COMBINATIONS, or the GPU's memory) is no
 * failure: the nodes just run apart.  Any other failure is an ERROR with
 * gpuhash.device = gpu, and on the host twin, where it is no GPU's
 * condition but a bug to show.
 */
static void
unfuse_now(GpuChain *ch, GpuJoinState *top, gh_status st)
{
	GpuJoinState *bottom = ch->lv[0].gs;
	bool		too_large = st == GH_ERR_TOO_LARGE || st == GH_ERR_GPU_MEMORY;

	if (!too_large &&
		(gpuhash_device_mode == GPUHASH_DEVICE_GPU || bottom->device != GH_DEVICE_GPU))
		ereport(ERROR,
				(errcode(st == GH_ERR_HOST_MEMORY ? ERRCODE_OUT_OF_MEMORY : ERRCODE_SYSTEM_ERROR),
				 errmsg("gpuhash: probing a chain of GPU joins failed: %s", gh_last_error())));
	if (!too_large)
	{
		ereport(NOTICE,
				(errmsg("gpuhash: probing a chain of GPU joins failed, its joins continue one by one: %s",
						gh_last_error())));
		top->stats.fallbacks++;
	}
	/* the batch's rows not emitted stay the bottom's next ones, probed as a single join */
	count_level_rows(ch, false);
	if (ch->lo > 0)
		drop_emitted_rows(bottom, ch->b, ch->lo);
	ch->b->state = PB_FILLED;
	bottom->cb = NULL;
	bottom->phase = GJ_NEED_BATCH;
	for (int k = 1; k < ch->n; k++)
		ch->lv[k].gs->phase = GJ_BUILD;
	ch->b = NULL;
	ch->unfused_why = too_large ? "a row's combinations exceed a chain probe" :
		"a chain probe failed";
	ch->phase = CH_UNFUSED;
}

/*
 * CH_REQUEST: rows [lo, hi) of the batch, combinations from skip.  A GPU
 * short of memory for a part's combinations is asked for half the rows.
 */
static void
chain_request(GpuChain *ch, GpuJoinState *top)
{
	int			n;
	gh_status	st;
	instr_time	t0;
	double		level_ms[GH_MAX_CHAIN_LEVELS] = {0};

	for (;;)
	{
		n = ch->hi - ch->lo;
		for (int c = 0; c < ch->n_outer_cols; c++)
		{
			memcpy(ch->req_keys + (size_t) c * n, ch->okeys + (size_t) c * ch->batch_cap + ch->lo,
				   sizeof(uint64) * n);
			memcpy(ch->req_valid + (size_t) c * n, ch->ovalid + (size_t) c * ch->batch_cap + ch->lo, n);
		}
		INSTR_TIME_SET_CURRENT(t0);
		st = gpuhash_table_chain_probe(ch->tables, ch->levels, ch->n, ch->req_keys, ch->req_valid,
									   ch->n_outer_cols, n, ch->skip, ch->out_outer, ch->out_pos,
									   ch->cap, &ch->total, &ch->written, level_ms);
		top->stats.wait_ms += gpuhash_ms_since(t0);
		ch->requests++;
		for (int k = 0; k < ch->n; k++)
		{
			ch->lv[k].gs->stats.chain_ms += level_ms[k];
			level_ms[k] = 0;
		}
		if (st == GH_OK)
			break;
		if ((st == GH_ERR_GPU_MEMORY || st == GH_ERR_TOO_LARGE) && n > 1 && ch->skip == 0)
		{
			ch->hi = ch->lo + n / 2;
			ch->req_n = n / 2;
			continue;
		}
		if (ch->skip == 0)
		{
			unfuse_now(ch, top, st);
			return;
		}
		ereport(ERROR,
				(errcode(st == GH_ERR_HOST_MEMORY ? ERRCODE_OUT_OF_MEMORY : ERRCODE_SYSTEM_ERROR),
				 errmsg("gpuhash: probing a chain of GPU joins failed: %s", gh_last_error())));
	}

	/*
	 * More combinations than one answer holds.  Those of the rows before
	 * the last one answered are complete: they are formed, and the next
	 * request starts at that row, with as many rows as fitted.  Asking for
	 * the rest by windows would probe all the rows again for each window:
	 * windows are for one row whose combinations alone overflow.
	 */
	if (ch->skip == 0 && ch->total > ch->written && n > 1)
	{
		uint32		last = ch->out_outer[ch->written - 1];

		if (last == 0)
		{
			ch->hi = ch->lo + 1;
			ch->req_n = 1;
			ch->phase = CH_REQUEST;
			return;
		}
		while (ch->written > 0 && ch->out_outer[ch->written - 1] == last)
			ch->written--;
		ch->total = ch->written;
		ch->hi = ch->lo + (int) last;
		ch->req_n = (int) last;
	}
	else if (ch->skip == 0 && ch->total < ch->cap / 2)
		ch->req_n = Min(ch->req_rows, ch->req_n * 2);
	ch->combinations += ch->written;
	ch->cur = 0;
	ch->last_outer = -1;
	ch->phase = CH_EMIT;
}

/* After a request's combinations: more of them, the batch's next rows, or the next batch. */
static void
request_done(GpuChain *ch)
{
	ch->skip += ch->written;
	if (ch->skip < ch->total && ch->written > 0)
	{
		ch->phase = CH_REQUEST;
		return;
	}
	ch->skip = 0;
	ch->lo = ch->hi;
	if (ch->lo < ch->b->n)
	{
		ch->hi = Min(ch->b->n, ch->lo + ch->req_n);
		ch->phase = CH_REQUEST;
		return;
	}
	gpuhash_batch_emitted(ch->lv[0].gs);
	ch->b = NULL;
	ch->phase = CH_NEXT_BATCH;
}

/*
 * Rows formed at each level below the top, for EXPLAIN ANALYZE's row
 * counts.  With run, even none: the level ran (a loop, as for a node pulled).
 */
static void
count_level_rows(GpuChain *ch, bool run)
{
	for (int k = 0; k < ch->n - 1; k++)
	{
		ChainLevel *l = &ch->lv[k];
		Instrumentation *instr = l->gs->css.ss.ps.instrument;

		if (instr && (run || l->rows_out > 0))
		{
			InstrStartNode(instr);
			InstrStopNode(instr, l->rows_out);
		}
		l->rows_out = 0;
	}
}

/* CH_NEXT_BATCH: the bottom's next batch and its keys; or the end. */
static void
chain_next_batch(GpuChain *ch, GpuJoinState *top)
{
	GpuJoinState *bottom = ch->lv[0].gs;
	instr_time	t0;

	count_level_rows(ch, true);
	INSTR_TIME_SET_CURRENT(t0);
	ch->b = gpuhash_next_filled_batch(bottom);
	if (ch->b != NULL)
		batch_keys(ch, ch->b);
	/* the bottom counts it too: for the top, it is not emit time */
	top->stats.read_ms += gpuhash_ms_since(t0);
	if (ch->b == NULL)
	{
		/* every level's outer side is done (parallel plans count it) */
		for (int k = 0; k < ch->n; k++)
			gpuhash_end_probe(ch->lv[k].gs);
		ch->phase = CH_DONE;
		return;
	}
	top->stats.batches++;
	top->stats.outer_rows += ch->b->n;
	ch->lo = 0;
	ch->hi = Min(ch->b->n, ch->req_n);
	ch->skip = 0;
	ch->phase = CH_REQUEST;
}

/* ---------------------------------------------------------------------
 * Forming rows
 * --------------------------------------------------------------------- */

/*
 * Level k's row for outer row i and position pos, over the row of the
 * level below: as that node would form it.  False when its quals reject it.
 */
static bool
form_level(GpuChain *ch, int k, int64 i, uint32 pos)
{
	ChainLevel *l = &ch->lv[k];
	GpuJoinState *gs = l->gs;
	ExprContext *econtext = gs->css.ss.ps.ps_ExprContext;
	int64		inner = pos == GH_NO_ROW ? -1 : (int64) pos;

	ResetExprContext(econtext);
	if (k == 0)
		gpuhash_store_row(gs, i, inner);
	else
		gpuhash_store_row_from(gs, ch->lv[k - 1].row, inner);
	if (gs->qual != NULL && !ExecQual(gs->qual, econtext))
	{
		InstrCountFiltered2(&gs->css, 1);
		return false;
	}
	if (gs->filter != NULL && !ExecQual(gs->filter, econtext))
	{
		InstrCountFiltered1(&gs->css, 1);
		return false;
	}
	l->row = gs->css.ss.ps.ps_ProjInfo ? ExecProject(gs->css.ss.ps.ps_ProjInfo) :
		gs->css.ss.ss_ScanTupleSlot;
	l->rows_out++;
	return true;
}

/*
 * How many combinations ahead of the one being formed their rows are
 * prefetched.  A combination reads its outer tuple in a page read when the
 * batch was filled, and each level's inner row at a random place in that
 * level's kept rows: without prefetching, each is a cache miss the loop
 * waits on (perf, host twin, Q09 at SF 1: three quarters of forming a row
 * was the load of its inner row's columns).
 */
#define CHAIN_PREFETCH_AHEAD 12

/*
 * Starts loading what forming combination j reads at level k's inner row
 * (pos): its kept columns, or where a shared row's pointer is; a shared
 * row itself once its pointer is in (second).  Statements, not functions:
 * see PREFETCH_ROW in executor.c.
 */
#define PREFETCH_LEVEL_ROW(gs, pos, second) \
	do { \
		GpuJoinState *g_ = (gs); \
		uint32		p_ = (pos); \
		if (p_ != GH_NO_ROW) \
		{ \
			if (!(second)) \
				GPUHASH_PREFETCH_INNER_ROW(g_, p_); \
			else if (g_->n_inner_keep > 0 && !g_->inner_vals && g_->shared_rowptrs) \
				gpuhash_prefetch(dsa_get_address(g_->shared_area, g_->shared_rowptrs[p_])); \
		} \
	} while (0)

#define PREFETCH_COMBINATION(ch, j, second, in_pages) \
	do { \
		GpuChain   *c_ = (ch); \
		uint64		j_ = (j); \
		if (j_ < c_->written) \
		{ \
			GpuJoinState *b_ = c_->lv[0].gs; \
			int64		i_ = (int64) c_->out_outer[j_] + c_->lo; \
			if (!(second)) \
			{ \
				if (in_pages) \
					gpuhash_prefetch(c_->b->tups[i_].t_data); \
				else if (b_->n_outer_keep > 0) \
					gpuhash_prefetch(c_->b->vals + (size_t) i_ * b_->n_outer_keep); \
			} \
			for (int k_ = 0; k_ < c_->n; k_++) \
				PREFETCH_LEVEL_ROW(c_->lv[k_].gs, c_->out_pos[(size_t) k_ * c_->cap + j_], second); \
		} \
	} while (0)

/*
 * CH_EMIT: the next combination's row, or NULL when the request's are done.
 * Levels below the first one that differs from the previous combination
 * keep their rows (and their verdicts).
 */
static TupleTableSlot *
chain_emit(GpuChain *ch)
{
	bool		in_pages = gpuhash_batch_rows_in_pages(ch->lv[0].gs);

	if (ch->cur == 0)
	{
		/* a new request: the first combinations' loads start together */
		for (uint64 j = 0; j < CHAIN_PREFETCH_AHEAD; j++)
			PREFETCH_COMBINATION(ch, j, false, in_pages);
		for (uint64 j = 0; j < CHAIN_PREFETCH_AHEAD / 2; j++)
			PREFETCH_COMBINATION(ch, j, true, in_pages);
	}
	while (ch->cur < ch->written)
	{
		uint64		j = ch->cur++;
		int64		i = (int64) ch->out_outer[j] + ch->lo;
		int			d = 0;
		bool		ok = true;

		if ((j & 0x3fff) == 0)
			CHECK_FOR_INTERRUPTS();
		PREFETCH_COMBINATION(ch, j + CHAIN_PREFETCH_AHEAD, false, in_pages);
		PREFETCH_COMBINATION(ch, j + CHAIN_PREFETCH_AHEAD / 2, true, in_pages);
		if (i == ch->last_outer)
			while (d < ch->n && ch->out_pos[(size_t) d * ch->cap + j] == ch->last_pos[d])
				d++;
		for (int k = 0; k < d && ok; k++)
			ok = ch->lv[k].row_ok;
		if (!ok)
			continue;
		ch->last_outer = i;
		for (int k = d; k < ch->n; k++)
		{
			uint32		pos = ch->out_pos[(size_t) k * ch->cap + j];

			ch->last_pos[k] = pos;
			ch->lv[k].row_ok = ok && form_level(ch, k, i, pos);
			ok = ch->lv[k].row_ok;
		}
		/* the top's row is not reused: a duplicate combination forms it again */
		ch->last_pos[ch->n - 1] = GH_NO_ROW - 1;
		if (ok)
			return ch->lv[ch->n - 1].row;
	}
	return NULL;
}

/*
 * The top node's turn: a row of the fused chain (true, *out NULL at the
 * end); false when the chain does not run fused this scan and the node
 * runs its own state machine.
 */
bool
gpuhash_chain_step(GpuJoinState *top, TupleTableSlot **out)
{
	GpuChain   *ch = top->chain;
	instr_time	t0;

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		switch (ch->phase)
		{
			case CH_START:
				INSTR_TIME_SET_CURRENT(t0);
				chain_start(ch);
				top->stats.start_ms += gpuhash_ms_since(t0);
				break;
			case CH_UNFUSED:
				return false;
			case CH_NEXT_BATCH:
				chain_next_batch(ch, top);
				break;
			case CH_REQUEST:
				chain_request(ch, top);
				break;
			case CH_EMIT:
				if ((*out = chain_emit(ch)) != NULL)
					return true;
				request_done(ch);
				break;
			case CH_DONE:
				count_level_rows(ch, true);
				*out = NULL;
				return true;
		}
	}
}

/* A rescan of the top: the chain starts over (the levels rescan themselves). */
void
gpuhash_chain_rescan(GpuJoinState *top)
{
	GpuChain   *ch = top->chain;

	count_level_rows(ch, false);
	ch->b = NULL;
	ch->last_outer = -1;
	ch->phase = CH_START;
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
