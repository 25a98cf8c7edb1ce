/*-------------------------------------------------------------------------
 *
 * chain_probe.c
 *	  A fused chain's probe (chain.c says what a chain is): the bottom
 *	  level's outer batches with the upper levels' keys read from their
 *	  rows, requests of a batch's combinations (split where they do not
 *	  fit one answer, handed back to the nodes one by one where a request
 *	  fails), and the top node's state machine over them.
 *
 *-------------------------------------------------------------------------
 */
#include "chain_internal.h"

#include "access/htup_details.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "portability/instr_time.h"

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
 * miss again (perf, host twin, a chain probed by 6 M outer rows: most of
 * the chain's own time was the load of these tuples' headers).
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

	/*
	 * Rows read in their pages are their tuples (b->tups, sized for a batch
	 * of pages, which may hold more rows than vals and nulls have room for);
	 * other rows are their kept columns.
	 */
	if (nc > 0 && !gpuhash_batch_rows_in_pages(bottom))
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
	gpuhash_chain_count_rows(ch, false);
	if (ch->lo > 0)
		drop_emitted_rows(bottom, ch->b, ch->lo);
	gpuhash_probe_batch_back(bottom, ch->b);
	gpuhash_step_set_phase(bottom, GJ_NEED_BATCH);
	for (int k = 1; k < ch->n; k++)
		gpuhash_step_set_phase(ch->lv[k].gs, GJ_BUILD);
	ch->b = NULL;
	ch->unfused_why = too_large ? "a row's combinations exceed a chain probe" :
		"a chain probe failed";
	ch->phase = CH_UNFUSED;
}

/*
 * The bottom's next pages read, once a batch, while its first request runs
 * in the GPU service (submitted, not yet waited for): the walks of the two
 * batches after this one are then in flight while the CPU forms this
 * one's rows.  An error meanwhile gives the request up.
 */
static void
read_ahead(GpuChain *ch, GpuJoinState *top, GhChainTicket *tk)
{
	instr_time	t0;

	if (ch->read_ahead)
		return;
	ch->read_ahead = true;
	INSTR_TIME_SET_CURRENT(t0);
	PG_TRY();
	{
		gpuhash_fill_ahead(ch->lv[0].gs);
	}
	PG_CATCH();
	{
		gpuhash_table_chain_abandon(tk);
		PG_RE_THROW();
	}
	PG_END_TRY();
	top->stats.read_ms += gpuhash_ms_since(t0);
}

/*
 * One request: to the GPU service, with the bottom's next pages read while
 * it runs; in this process at once (a bottom whose table is in this
 * process reads no pages: nothing to read ahead).
 */
static gh_status
chain_probe_once(GpuChain *ch, GpuJoinState *top, int n, double *level_ms)
{
	instr_time	t0;
	gh_status	st;
	GhChainTicket tk;
	GpuSvcTimes before = gpuhash_svc_times;

	INSTR_TIME_SET_CURRENT(t0);
	if (!ch->tables[0]->remote)
		st = gpuhash_table_chain_probe(ch->tables, ch->levels, ch->n, ch->req_keys,
									   ch->req_valid, ch->n_outer_cols, n, ch->skip,
									   ch->out_outer, ch->out_pos, ch->cap, &ch->total,
									   &ch->written, level_ms);
	else if ((st = gpuhash_table_chain_submit(ch->tables, ch->levels, ch->n, ch->req_keys,
											  ch->req_valid, ch->n_outer_cols, n, ch->skip,
											  ch->cap, &tk)) == GH_OK)
	{
		/* the read's time is the bottom's, not the wait's */
		top->stats.wait_ms += gpuhash_ms_since(t0);
		read_ahead(ch, top, &tk);
		INSTR_TIME_SET_CURRENT(t0);
		st = gpuhash_table_chain_wait(&tk, ch->out_outer, ch->out_pos, ch->cap, &ch->total,
									  &ch->written, level_ms);
	}
	top->stats.wait_ms += gpuhash_ms_since(t0);
	gpuhash_svc_times_since(&top->stats.svc, &before);
	return st;
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
		st = chain_probe_once(ch, top, n, level_ms);
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

/* CH_NEXT_BATCH: the bottom's next batch and its keys; or the end. */
static void
chain_next_batch(GpuChain *ch, GpuJoinState *top)
{
	GpuJoinState *bottom = ch->lv[0].gs;
	instr_time	t0;

	gpuhash_chain_count_rows(ch, true);
	INSTR_TIME_SET_CURRENT(t0);
	ch->b = gpuhash_next_filled_batch(bottom);
	/* a batch of pages none of whose rows can join asks for nothing */
	while (ch->b != NULL && ch->b->n == 0)
	{
		gpuhash_batch_emitted(bottom);
		ch->b = gpuhash_next_filled_batch(bottom);
	}
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
	ch->read_ahead = false;
	ch->lo = 0;
	ch->hi = Min(ch->b->n, ch->req_n);
	ch->skip = 0;
	ch->phase = CH_REQUEST;
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
				gpuhash_chain_start(ch);
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
				if ((*out = gpuhash_chain_emit(ch)) != NULL)
					return true;
				request_done(ch);
				break;
			case CH_DONE:
				gpuhash_chain_count_rows(ch, true);
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

	gpuhash_chain_count_rows(ch, false);
	ch->b = NULL;
	ch->last_outer = -1;
	ch->phase = CH_START;
}
