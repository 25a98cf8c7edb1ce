/*-------------------------------------------------------------------------
 *
 * parallel.c
 *	  A parallel-aware GpuHashJoin: the inner side is read once and the
 *	  join table built once, in the GPU service; every participant of the
 *	  parallel plan probes it with its share of the (partial) outer side.
 *
 * The first participant to arrive becomes the builder.  It runs the inner
 * plan (the others never run it), builds the table in the service with the
 * leader as its owner, and publishes the kept inner columns as MinimalTuples
 * in the query's DSA, in the table's key-grouped order, so any participant
 * can form result rows from a probe's range.  The others sleep on a
 * condition variable until the table is ready.  The table belongs to the
 * leader: the service frees it when the leader's backend exits at the
 * latest, and the leader frees it like any table of its own (end, rescan,
 * error or cancel); workers never free it.  The shared rows live in the
 * query's DSA.  Counts of batches and outer rows add up across participants
 * for EXPLAIN ANALYZE.
 *
 * Right and full joins keep one match bit per inner row in the DSA, set
 * atomically by whichever participant matches the row.  Each participant
 * counts itself in when it adopts the table and out when its outer side is
 * done; the one that brings the count to zero, first, emits the unmatched
 * inner rows, so they come out exactly once.  A participant that has not
 * counted itself in has not read any outer row, and once one participant's
 * outer side is exhausted no later one gets any: zero means every outer row
 * has been probed.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"

#include "access/htup_details.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"

typedef enum SharedPhase
{
	SHARED_EMPTY,				/* no builder yet */
	SHARED_BUILDING,
	SHARED_READY
} SharedPhase;

typedef struct GpuJoinShared
{
	slock_t		mutex;
	SharedPhase phase;
	ConditionVariable cv;
	int			leader_pid;

	/* the table, once ready */
	GpuTable	table;
	gh_device	device;
	int			scheme;
	uint64		n_inner;
	uint64		n_inner_all;	/* with right/full's NULL-key rows */
	uint64		null_key_rows;
	uint64		distinct_keys;
	double		build_ms;
	size_t		gpu_bytes;
	dsa_pointer rows;			/* MinimalTuples, back to back */
	dsa_pointer offsets;		/* uint64 per key-grouped position */
	dsa_pointer matched;		/* right/full: pg_atomic_uint32 per 32 rows */
	int			builds;
	int			probing;		/* participants probing now (under mutex) */
	bool		fill_claimed;	/* one has taken the unmatched inner rows */

	/* summed over participants */
	pg_atomic_uint64 batches;
	pg_atomic_uint64 outer_rows;
} GpuJoinShared;

Size
gpuhash_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return MAXALIGN(sizeof(GpuJoinShared));
}

void
gpuhash_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	GpuJoinShared *sh = (GpuJoinShared *) coordinate;

	memset(sh, 0, sizeof(*sh));
	SpinLockInit(&sh->mutex);
	ConditionVariableInit(&sh->cv);
	sh->phase = SHARED_EMPTY;
	sh->leader_pid = MyProcPid;
	sh->rows = sh->offsets = sh->matched = InvalidDsaPointer;
	pg_atomic_init_u64(&sh->batches, 0);
	pg_atomic_init_u64(&sh->outer_rows, 0);
	gs->shared = sh;
}

/* Frees the shared rows; the leader frees the table as its own. */
static void
release_shared(GpuJoinShared *sh, dsa_area *area)
{
	if (area && DsaPointerIsValid(sh->rows))
		dsa_free(area, sh->rows);
	if (area && DsaPointerIsValid(sh->offsets))
		dsa_free(area, sh->offsets);
	if (area && DsaPointerIsValid(sh->matched))
		dsa_free(area, sh->matched);
	sh->rows = sh->offsets = sh->matched = InvalidDsaPointer;
	sh->phase = SHARED_EMPTY;
	sh->probing = 0;
	sh->fill_claimed = false;
}

/* Rescan of a parallel plan: the shared state starts over. */
void
gpuhash_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	GpuJoinShared *sh = (GpuJoinShared *) coordinate;

	/* the old workers are gone: their rows can go */
	release_shared(sh, node->ss.ps.state->es_query_dsa);
	gs->shared = sh;
	pg_atomic_write_u64(&sh->batches, 0);
	pg_atomic_write_u64(&sh->outer_rows, 0);
}

void
gpuhash_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	GpuJoinState *gs = (GpuJoinState *) node;

	gs->shared = (GpuJoinShared *) coordinate;
	gs->owns_table = false;		/* the leader frees the shared table */
}

/*
 * Copies the shared figures into this participant's for EXPLAIN ANALYZE;
 * runs while the DSM is still mapped, and lets go of it: EndCustomScan
 * comes after the DSM is gone.  The shared rows are not freed here (workers
 * may still be stopping after a LIMIT); they go with the query's DSA, or at
 * a rescan once the old workers are gone.
 */
void
gpuhash_shutdown(CustomScanState *node)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	GpuJoinShared *sh = gs->shared;

	gs->shared = NULL;
	gs->shared_rows = NULL;
	gs->shared_offsets = NULL;
	gs->shared_matched = NULL;
	if (sh == NULL || sh->phase != SHARED_READY)
		return;
	/* a leader that never ran the join (the workers did it all) frees it here */
	if (gs->owns_table && !gpuhash_table_exists(&gs->table))
	{
		GpuTable	t = sh->table;

		gpuhash_table_free(&t);
	}
	gs->stats.built = true;
	gs->stats.device = sh->device;
	gs->stats.inner_rows = sh->n_inner;
	gs->stats.null_key_rows = sh->null_key_rows;
	gs->stats.distinct_keys = sh->distinct_keys;
	gs->stats.build_ms = sh->build_ms;
	gs->stats.gpu_bytes = sh->gpu_bytes;
	gs->stats.builds = sh->builds;
	gs->stats.batches = pg_atomic_read_u64(&sh->batches);
	gs->stats.outer_rows = pg_atomic_read_u64(&sh->outer_rows);
	gs->stats.in_service = true;
}

int
gpuhash_shared_builds(GpuJoinState *gs)
{
	return gs->shared ? gs->shared->builds : 0;
}

/* The builder's rows go to the DSA as MinimalTuples, key-grouped. */
static void
publish_rows(GpuJoinState *gs, dsa_area *area)
{
	GpuJoinShared *sh = gs->shared;
	uint64		n = gs->n_inner_all;
	int			nc = gs->n_inner_keep;
	uint64	   *offsets;
	Size		total = 0;
	char	   *rows;

	if (nc == 0 || n == 0)
		return;
	for (uint64 i = 0; i < n; i++)
	{
		MinimalTuple mt = heap_form_minimal_tuple(gs->inner_desc, gs->inner_vals + i * nc,
												  gs->inner_nulls + i * nc);

		total += MAXALIGN(mt->t_len);
		pfree(mt);
	}
	sh->rows = dsa_allocate_extended(area, Max(total, 1), DSA_ALLOC_HUGE);
	sh->offsets = dsa_allocate_extended(area, sizeof(uint64) * n, DSA_ALLOC_HUGE);
	rows = dsa_get_address(area, sh->rows);
	offsets = dsa_get_address(area, sh->offsets);
	total = 0;
	for (uint64 i = 0; i < n; i++)
	{
		MinimalTuple mt = heap_form_minimal_tuple(gs->inner_desc, gs->inner_vals + i * nc,
												  gs->inner_nulls + i * nc);

		offsets[i] = total;
		memcpy(rows + total, mt, mt->t_len);
		total += MAXALIGN(mt->t_len);
		pfree(mt);
	}
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

	SpinLockAcquire(&sh->mutex);
	if (sh->phase == SHARED_EMPTY)
	{
		sh->phase = SHARED_BUILDING;
		builder = true;
	}
	SpinLockRelease(&sh->mutex);

	if (builder)
	{
		/* the leader's exit, not ours, ends the table's life in the service */
		gs->table_owner_pid = sh->leader_pid;
		gpuhash_build_inner(gs);
		if (gs->n_inner > 0 && !gs->table.remote)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("gpuhash: a parallel GPU hash join needs the GPU service, which is not running")));
		publish_rows(gs, area);
		if (gs->fill_inner)
		{
			uint64		words = Max((gs->n_inner_all + 31) / 32, 1);
			pg_atomic_uint32 *m;

			sh->matched = dsa_allocate_extended(area, sizeof(pg_atomic_uint32) * words,
												DSA_ALLOC_HUGE);
			m = dsa_get_address(area, sh->matched);
			for (uint64 w = 0; w < words; w++)
				pg_atomic_init_u32(&m[w], 0);
			gs->shared_matched = m;
		}
		sh->table = gs->table;
		sh->device = gs->device;
		sh->scheme = gs->scheme;
		sh->n_inner = gs->n_inner;
		sh->n_inner_all = gs->n_inner_all;
		sh->null_key_rows = gs->stats.null_key_rows;
		sh->distinct_keys = gs->stats.distinct_keys;
		sh->build_ms = gs->stats.build_ms;
		sh->gpu_bytes = gs->stats.gpu_bytes;
		SpinLockAcquire(&sh->mutex);
		sh->builds++;
		sh->phase = SHARED_READY;
		sh->probing++;
		SpinLockRelease(&sh->mutex);
		ConditionVariableBroadcast(&sh->cv);
		return;
	}

	ConditionVariablePrepareToSleep(&sh->cv);
	for (;;)
	{
		SharedPhase phase;

		SpinLockAcquire(&sh->mutex);
		phase = sh->phase;
		if (phase == SHARED_READY)
			sh->probing++;
		SpinLockRelease(&sh->mutex);
		if (phase == SHARED_READY)
			break;
		ConditionVariableSleep(&sh->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();

	gs->table = sh->table;
	gs->device = sh->device;
	gs->scheme = sh->scheme;
	gs->n_inner = sh->n_inner;
	gs->n_inner_all = sh->n_inner_all;
	gs->inner_vals = NULL;
	gs->inner_nulls = NULL;
	gs->inner_keys_arr = NULL;
	if (DsaPointerIsValid(sh->rows))
	{
		gs->shared_rows = dsa_get_address(area, sh->rows);
		gs->shared_offsets = dsa_get_address(area, sh->offsets);
	}
	if (DsaPointerIsValid(sh->matched))
		gs->shared_matched = dsa_get_address(area, sh->matched);
	gs->built = true;
}

/* Shared counters of one participant's batch. */
void
gpuhash_shared_count_batch(GpuJoinState *gs, uint64 outer_rows)
{
	if (gs->shared == NULL)
		return;
	pg_atomic_fetch_add_u64(&gs->shared->batches, 1);
	pg_atomic_fetch_add_u64(&gs->shared->outer_rows, outer_rows);
}

/*
 * This participant's outer side is done.  True for the one participant that
 * is to emit the unmatched inner rows of a right/full join: the first to
 * find nobody else probing.
 */
bool
gpuhash_shared_probe_done(GpuJoinState *gs)
{
	GpuJoinShared *sh = gs->shared;
	bool		fill = false;

	SpinLockAcquire(&sh->mutex);
	Assert(sh->probing > 0);
	if (--sh->probing == 0 && !sh->fill_claimed)
	{
		sh->fill_claimed = true;
		fill = true;
	}
	SpinLockRelease(&sh->mutex);
	return fill;
}
