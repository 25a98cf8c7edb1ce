/*-------------------------------------------------------------------------
 *
 * chain_rows.c
 *	  A fused chain's combinations formed into rows (chain.c says what a
 *	  chain is): level by level, with each level's join filter, filter and
 *	  projection as that node would; a combination whose lower levels are
 *	  the previous one's reuses their rows.
 *
 *-------------------------------------------------------------------------
 */
#include "chain_internal.h"

#include "executor/executor.h"
#include "miscadmin.h"

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
 * waits on (perf, host twin, a chain probed by 6 M outer rows: three
 * quarters of forming a row was the load of its inner row's columns).
 */
#define CHAIN_PREFETCH_AHEAD 12

/*
 * Starts loading what forming combination j reads at level k's inner row
 * (pos): where its tuple's pointer is, or the tuple once the pointer is in
 * (second).  Statements, not functions:
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
			else \
				GPUHASH_PREFETCH_INNER_TUPLE(g_, p_); \
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
TupleTableSlot *
gpuhash_chain_emit(GpuChain *ch)
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
 * Rows formed at each level below the top, for EXPLAIN ANALYZE's row
 * counts.  With run, even none: the level ran (a loop, as for a node pulled).
 */
void
gpuhash_chain_count_rows(GpuChain *ch, bool run)
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
