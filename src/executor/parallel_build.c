/*-------------------------------------------------------------------------
 *
 * parallel_build.c
 *	  The shared build of a parallel-aware GpuHashJoin (parallel.c tells
 *	  the whole story): the builder elected, the inner side read by one
 *	  participant or by all at a barrier, the table built once and
 *	  published, and adopted by every participant.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "parallel_internal.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "storage/barrier.h"
#include "storage/dsm.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"

/* The table's figures, for every participant to adopt. */
static void
publish_table(GpuJoinState *gs)
{
	GpuJoinShared *sh = gs->shared;
	bool		handed;

	if (gs->n_inner > 0 && !gs->table.remote)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuhash: a parallel GPU hash join needs the GPU service, which is not running")));
	/*
	 * From here on the shared state owns the table, not the builder; but a
	 * builder that finds the leader detached (the query is ending in error)
	 * keeps it.
	 */
	SpinLockAcquire(&sh->mutex);
	sh->table = gs->table;
	handed = !sh->leader_detached;
	sh->table_live = handed && gpuhash_table_exists(&gs->table);
	SpinLockRelease(&sh->mutex);
	gpuhash_table_set_owns(gs, !handed);
	if (handed)
		gpuhash_table_handed_over(&gs->table);
	sh->device = gs->device;
	sh->scheme = gs->scheme;
	sh->n_inner = gs->n_inner;
	sh->n_inner_all = gs->n_inner_all;
	sh->null_key_rows = gs->stats.null_key_rows;
	sh->distinct_keys = gs->stats.distinct_keys;
	sh->build_ms = gs->stats.build_ms;
	sh->table_ms = gs->stats.table_ms;
	sh->table_parts_ms = gs->stats.table_parts_ms;
	sh->filter_ms = gs->stats.filter_ms;
	sh->gpu_bytes = gs->stats.gpu_bytes;
	sh->table_parts = gs->stats.table_parts;
	pg_atomic_write_u32(&sh->published, 1);
}

/*
 * The table is ready: take it, and count in as a prober.  built: this
 * participant built it (publish_table decided whether it still owns it).
 */
static void
adopt(GpuJoinState *gs, dsa_area *area, bool built)
{
	GpuJoinShared *sh = gs->shared;

	gpuhash_table_adopt(gs, &sh->table, sh->device, sh->scheme);
	gpuhash_inner_adopt(gs, sh->n_inner, sh->n_inner_all);
	gpuhash_shared_inner_attach(gs, &sh->inner, area);
	if (!built)
		gpuhash_table_set_owns(gs, false);	/* the shared state frees it */
	gpuhash_keyfilter_start(gs);
	gpuhash_table_set_built(gs, true);
}

/* Arrives at the build barrier; the wait counts as Build Wait Time. */
static bool
build_barrier_wait(GpuJoinState *gs)
{
	instr_time	t0;
	bool		elected;

	INSTR_TIME_SET_CURRENT(t0);
	elected = BarrierArriveAndWait(&gs->shared->build_barrier, PG_WAIT_EXTENSION);
	gs->stats.build_wait_ms += gpuhash_ms_since(t0);
	return elected;
}

/*
 * Called by every participant at its first row: builds the shared table or
 * waits for it, then adopts it.
 */
void
gpuhash_shared_build(GpuJoinState *gs)
{
	GpuJoinShared *sh = gs->shared;
	dsa_area   *area = gs->css.ss.ps.state->es_query_dsa;
	bool		builder = false;

	if (area == NULL)
		elog(ERROR, "gpuhash: parallel-aware join without a DSA area");
	/* the leader's exit, not ours, ends the table's life in the service */
	gpuhash_table_set_service_owner(gs, sh->leader_pid);

	/*
	 * Counted as probing before reading any outer row: while the table is
	 * built the others prefill their first batches, and the participant
	 * that takes the unmatched inner rows (gpuhash_shared_probe_done) must
	 * not miss one that may still mark some.  Counting only once the
	 * table was adopted let a participant past the barrier, not yet
	 * counted, mark rows already emitted as unmatched.
	 */
	SpinLockAcquire(&sh->mutex);
	sh->probing++;
	SpinLockRelease(&sh->mutex);

	if (gs->info.parallel_inner)
	{
		int			phase = BarrierAttach(&sh->build_barrier);
		bool		split;

		if (phase == PHASE_READ)
		{
			/* this participant's share, kept (or in the split's batches) */
			gpuhash_read_inner_rows(gs);
			build_barrier_wait(gs);
			phase = PHASE_SHARE;
			if (!gpuhash_split_is_on(gs))
			{
				int			slot;

				/* the share directory, made once by whoever comes first; a slot in it */
				SpinLockAcquire(&sh->mutex);
				gpuhash_shared_inner_directory(&sh->inner, area);
				slot = sh->inner.n_chunks++;
				SpinLockRelease(&sh->mutex);
				if (slot >= sh->inner.max_chunks)
					elog(ERROR, "gpuhash: more inner readers than parallel participants");
				gpuhash_shared_inner_put_share(gs, &sh->inner, area, slot);
			}
		}
		/* every reader has read its share: whether the join split is known */
		split = gpuhash_split_is_on(gs);
		if (phase == PHASE_SHARE)
		{
			/* split: the kept rows to their batches, before anyone joins one */
			if (split)
				gpuhash_inner_split_done(gs);
			if (build_barrier_wait(gs) && !split)
			{
				gpuhash_table_set_owns(gs, true);	/* until published */
				gpuhash_shared_inner_build_from_shares(gs, &sh->inner, area);
				pg_atomic_write_u32(&sh->built, 1);
				builder = true;
			}
			else if (!split && gpuhash_shared_inner_keyed(&sh->inner, area) > 0)
			{
				/*
				 * While the elected one builds, the others read their first
				 * outer rows.  Only when some inner row has a key: with
				 * none, the outer side is never read, as in Parallel Hash
				 * (its scan quals could raise errors native would not).
				 */
				gpuhash_prefill_batches(gs);
			}
			phase = PHASE_BUILD;
		}
		if (phase == PHASE_BUILD)
		{
			build_barrier_wait(gs);
			phase = PHASE_LAYOUT;
		}
		if (phase == PHASE_LAYOUT)
		{
			if (!split)
				gpuhash_shared_inner_layout(gs, &sh->inner, area);
			build_barrier_wait(gs);
			phase = PHASE_FINISH;
		}
		if (phase == PHASE_FINISH)
		{
			if (builder)
			{
				gpuhash_shared_inner_finish(gs, &sh->inner, area);
				publish_table(gs);
			}
			build_barrier_wait(gs);
		}
		BarrierDetach(&sh->build_barrier);
		if (split)
		{
			/* a participant that read no inner row joins the split now */
			if (gs->split == NULL)
				gpuhash_inner_split_done(gs);
			SpinLockAcquire(&sh->mutex);
			sh->phase = SHARED_SPLIT;
			SpinLockRelease(&sh->mutex);
			return;
		}
		SpinLockAcquire(&sh->mutex);
		if (sh->phase != SHARED_READY)
			sh->builds++;
		sh->phase = SHARED_READY;
		SpinLockRelease(&sh->mutex);
		adopt(gs, area, builder);
		return;
	}

	SpinLockAcquire(&sh->mutex);
	if (sh->phase == SHARED_EMPTY)
	{
		sh->phase = SHARED_BUILDING;
		builder = true;
	}
	SpinLockRelease(&sh->mutex);

	if (builder)
	{
		gpuhash_table_set_owns(gs, true);	/* until published */
		gpuhash_shared_inner_build_one(gs, &sh->inner, area);
		if (gs->split)
		{
			/* it split while reading: every inner row is in the batches now */
			gpuhash_inner_split_done(gs);
			SpinLockAcquire(&sh->mutex);
			sh->phase = SHARED_SPLIT;
			SpinLockRelease(&sh->mutex);
			ConditionVariableBroadcast(&sh->cv);
			return;
		}
		publish_table(gs);
		SpinLockAcquire(&sh->mutex);
		sh->builds++;
		sh->phase = SHARED_READY;
		SpinLockRelease(&sh->mutex);
		ConditionVariableBroadcast(&sh->cv);
		adopt(gs, area, builder);
		return;
	}

	ConditionVariablePrepareToSleep(&sh->cv);
	for (;;)
	{
		SharedPhase phase;

		SpinLockAcquire(&sh->mutex);
		phase = sh->phase;
		SpinLockRelease(&sh->mutex);
		if (phase == SHARED_READY || phase == SHARED_SPLIT)
			break;
		ConditionVariableSleep(&sh->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	if (gpuhash_split_is_on(gs))
	{
		gpuhash_inner_split_done(gs);
		return;
	}
	adopt(gs, area, false);
}
