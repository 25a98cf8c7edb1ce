/*-------------------------------------------------------------------------
 *
 * parallel.c
 *	  A parallel-aware GpuHashJoin: the inner side is read once and the
 *	  join table built once, in the GPU service; every participant of the
 *	  parallel plan probes it with its share of the (partial) outer side.
 *	  This file coordinates: the DSM (the shared state, then an absorbed
 *	  outer scan's block allocator), the election of the builder, the
 *	  barrier, the table's ownership and the counters; the build itself is
 *	  parallel_build.c's, the rows shared_inner.c's.
 *
 * Two ways to read the inner side, chosen by the planner:
 *
 * - one reader: the first participant to arrive runs the (complete) inner
 *	 plan, builds the table and publishes the rows; the others sleep on a
 *	 condition variable until the table is ready.
 * - all readers (a partial inner plan, as Parallel Hash reads it): every
 *	 participant that arrives while the inner side is being read takes its
 *	 share and waits at a barrier, after which all know whether the join
 *	 split; then each publishes its keys and rows in the DSA and waits
 *	 again; the one the barrier elects concatenates the keys, builds the
 *	 table and lays out the rows; a participant arriving later waits for the
 *	 table or finds it ready.  A participant that never read the inner side
 *	 finds nothing left to read: once one participant's partial scan is
 *	 exhausted, every row belongs to a participant attached to the barrier.
 *
 * Either way the kept inner columns are MinimalTuples in the query's DSA
 * (shared_inner.c), reached through one dsa_pointer per key-grouped
 * position, so a probe's range indexes them directly.
 * The table is built with the leader as its owner in the service (which
 * frees it when the leader's backend exits, at the latest).  Until the
 * builder publishes it, the builder frees it on error like any table of its
 * own; once published, the leader frees it when no participant can probe it
 * any more: when the query's DSM segment is detached (normal end, error or
 * cancel alike), or at a rescan (the old workers are gone).  On error the
 * leader detaches before its workers have exited: a builder that publishes
 * after that keeps the table as its own (leader_detached).  Without a
 * segment no worker can start: the leader runs the join as a serial one,
 * without shared state.  Counts of batches and outer rows add up across
 * participants for EXPLAIN ANALYZE.
 *
 * An inner side that outgrows what all participants may keep together
 * splits the join into shared batches instead (parallel_split.c): the
 * readers find out while reading, and the shared state's phase becomes
 * SHARED_SPLIT instead of SHARED_READY.
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
#include "parallel_internal.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "storage/barrier.h"
#include "storage/dsm.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"

/*
 * The node's DSM: the shared join state, then the block allocators of an
 * absorbed outer and inner Parallel Seq Scan (heap_scan.c), if any.
 */
#define SCAN_SPACE(coordinate) ((char *) (coordinate) + MAXALIGN(sizeof(GpuJoinShared)))
#define INNER_SCAN_SPACE(gs, coordinate) \
	(SCAN_SPACE(coordinate) + gpuhash_heap_scan_estimate((gs)->oscan))

Size
gpuhash_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	GpuJoinState *gs = (GpuJoinState *) node;

	return MAXALIGN(sizeof(GpuJoinShared)) + gpuhash_heap_scan_estimate(gs->oscan) +
		gpuhash_heap_scan_estimate(gs->iscan);
}

static void
init_shared(GpuJoinShared *sh, int nworkers)
{
	SpinLockInit(&sh->mutex);
	ConditionVariableInit(&sh->cv);
	BarrierInit(&sh->build_barrier, 0);
	sh->phase = SHARED_EMPTY;
	gpuhash_shared_inner_init(&sh->inner, nworkers + 1);
	sh->probing = 0;
	sh->fill_claimed = false;
	pg_atomic_init_u64(&sh->fill_next, 0);
	sh->carry = CARRY_NONE;
	sh->table_live = false;
	pg_atomic_init_u32(&sh->published, 0);
	pg_atomic_init_u32(&sh->built, 0);
	sh->leader_detached = false;
	gpuhash_split_shared_init(&sh->split, nworkers + 1);
	pg_atomic_init_u64(&sh->batches, 0);
	pg_atomic_init_u64(&sh->outer_rows, 0);
	for (int i = 0; i < N_SUMMED; i++)
		pg_atomic_init_u64(&sh->sums[i], 0);
}

/*
 * Has the builder of this scan's shared table built or published it
 * (prefilling stops)?  A table built from all participants' shares is
 * published only after barriers every participant must reach, so the end
 * of its build is what the prefilling ones watch (a prefill that waited for
 * the publication ran to its limit, read by tuples rather than by the page
 * path that the built table allows).
 */
bool
gpuhash_shared_table_published(GpuJoinState *gs)
{
	return pg_atomic_read_u32(&gs->shared->published) != 0 ||
		pg_atomic_read_u32(&gs->shared->built) != 0;
}

/*
 * The published table goes, once (the leader, when no one can probe it).
 * detaching: the leader's segment detach, after which nobody would free a
 * table published later.
 */
static void
free_published_table(GpuJoinShared *sh, bool detaching)
{
	GpuTable	t;
	bool		live;

	SpinLockAcquire(&sh->mutex);
	live = sh->table_live;
	t = sh->table;
	sh->table_live = false;
	if (detaching)
		sh->leader_detached = true;
	SpinLockRelease(&sh->mutex);
	if (live)
		gpuhash_table_free(&t);
}

/*
 * Detach of the query's DSM segment by the leader.  At a normal end the
 * workers have finished; on error the leader detaches right after asking
 * them to stop, so a worker may still finish a build and publish it: it
 * then sees leader_detached and keeps the table, which its own cleanup or
 * exit frees.
 */
static void
on_detach_free_table(dsm_segment *seg, Datum arg)
{
	free_published_table((GpuJoinShared *) DatumGetPointer(arg), true);
}

/*
 * The node's setup prepared a serial join (as it runs without a parallel
 * context); with one, the participants share a table or split together.
 */
static void
not_serial(GpuJoinState *gs)
{
	gpuhash_batches_off(gs);
}

void
gpuhash_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	GpuJoinShared *sh = (GpuJoinShared *) coordinate;

	memset(sh, 0, sizeof(*sh));
	init_shared(sh, pcxt->nworkers);
	sh->leader_pid = MyProcPid;
	sh->in_dsm = pcxt->seg != NULL;
	gpuhash_heap_scan_init_dsm(gs->oscan, SCAN_SPACE(coordinate));
	gpuhash_heap_scan_init_dsm(gs->iscan, INNER_SCAN_SPACE(gs, coordinate));
	/*
	 * Without a segment no worker can start: the leader runs the join alone,
	 * as a serial one (its own table, hash batches in its files).
	 */
	if (!sh->in_dsm)
		return;
	not_serial(gs);
	on_dsm_detach(pcxt->seg, on_detach_free_table, PointerGetDatum(sh));
	/* the split's files, deleted when the last participant detaches */
	SharedFileSetInit(&sh->split.fileset, pcxt->seg);
	sh->seg_handle = dsm_segment_handle(pcxt->seg);
	gs->shared = sh;
	gs->split_shared = &sh->split;
}

/* Rescan of a parallel plan: the shared state starts over. */
void
gpuhash_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	GpuJoinShared *sh = (GpuJoinShared *) coordinate;
	dsa_area   *area = node->ss.ps.state->es_query_dsa;
	int			builds = sh->builds;

	gpuhash_heap_scan_reinit_dsm(gs->oscan, SCAN_SPACE(coordinate));
	gpuhash_heap_scan_reinit_dsm(gs->iscan, INNER_SCAN_SPACE(gs, coordinate));
	if (!sh->in_dsm)
		return;					/* the leader alone, serial */
	/* the old workers are gone: their table, rows and files can go */
	free_published_table(sh, false);
	gpuhash_shared_inner_release(&sh->inner, area);
	gpuhash_split_shared_reset(&sh->split, area);
	init_shared(sh, pcxt->nworkers);
	sh->builds = builds;
	gs->shared = sh;
	gs->split_shared = &sh->split;
}

void
gpuhash_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	GpuJoinShared *sh = (GpuJoinShared *) coordinate;
	dsm_segment *seg = dsm_find_mapping(sh->seg_handle);

	if (seg == NULL)
		elog(ERROR, "gpuhash: a parallel worker without its query's DSM segment");
	gs->shared = sh;
	gs->split_shared = &sh->split;
	not_serial(gs);
	gpuhash_table_set_owns(gs, false);	/* only while it builds, if it does */
	SharedFileSetAttach(&sh->split.fileset, seg);
	gpuhash_heap_scan_init_worker(gs->oscan, SCAN_SPACE(coordinate));
	gpuhash_heap_scan_init_worker(gs->iscan, INNER_SCAN_SPACE(gs, coordinate));
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

	gpuhash_split_close(gs);
	gs->shared = NULL;
	gs->split_shared = NULL;
	gpuhash_shared_inner_detach(gs);
	gpuhash_keyfilter_forget(gs);
	if (sh == NULL)
		return;
	if (sh->phase == SHARED_READY)
	{
		gs->stats.built = true;
		gs->stats.device = sh->device;
		gs->stats.inner_rows = sh->n_inner;
		gs->stats.null_key_rows = sh->null_key_rows;
		gs->stats.distinct_keys = sh->distinct_keys;
		gs->stats.build_ms = sh->build_ms;
		gs->stats.table_ms = sh->table_ms;
		gs->stats.table_parts_ms = sh->table_parts_ms;
		gs->stats.filter_ms = sh->filter_ms;
		gs->stats.gpu_bytes = sh->gpu_bytes;
		gs->stats.table_parts = sh->table_parts;
		gs->stats.builds = sh->builds;
		gs->stats.in_service = true;
		gs->stats.hash_batches = 1;
	}
	else if (sh->phase == SHARED_SPLIT)
		gpuhash_split_stats(&sh->split, &gs->stats);
	else
		return;
	gs->stats.batches = pg_atomic_read_u64(&sh->batches);
	gs->stats.outer_rows = pg_atomic_read_u64(&sh->outer_rows);
	for (int i = 0; i < N_SUMMED; i++)
	{
		char	   *field = (char *) &gs->stats + summed_stats[i].offset;
		uint64		v = pg_atomic_read_u64(&sh->sums[i]);

		if (summed_stats[i].is_ms)
			*(double *) field = v / 1000.0;
		else
			*(uint64 *) field = v;
	}
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
 * find nobody else probing.  *shared_fill: every participant fills chunks.
 *
 * A right semi or anti join's probe emits nothing, so no participant that
 * is still probing can be blocked on a tuple queue (nor on anything but its
 * own pages): every participant waits here for the last one's marks and
 * then fills chunks of the table (gpuhash_shared_fill_claim), and all of
 * them emit, rather than one emitting every row.  A participant that
 * starts later finds the outer scan done and fills what chunks are left.
 */
bool
gpuhash_shared_probe_done(GpuJoinState *gs, bool *shared_fill)
{
	GpuJoinShared *sh = gs->shared;
	bool		fill = false;
	bool		last;

	SpinLockAcquire(&sh->mutex);
	Assert(sh->probing > 0);
	last = --sh->probing == 0;
	if (last && !sh->fill_claimed)
	{
		sh->fill_claimed = true;
		fill = true;
	}
	SpinLockRelease(&sh->mutex);
	*shared_fill = false;
	if (!gs->marks_only)
		return fill;

	if (last)
		ConditionVariableBroadcast(&sh->cv);
	else
	{
		ConditionVariablePrepareToSleep(&sh->cv);
		for (;;)
		{
			int			probing;

			SpinLockAcquire(&sh->mutex);
			probing = sh->probing;
			SpinLockRelease(&sh->mutex);
			if (probing == 0)
				break;
			ConditionVariableSleep(&sh->cv, PG_WAIT_EXTENSION);
		}
		ConditionVariableCancelSleep();
	}
	*shared_fill = true;
	return true;
}

/* Table rows a participant of a shared fill claims at once. */
#define FILL_CHUNK 16384

/*
 * The next chunk of table rows [*start, *end) of a shared fill for this
 * participant to fill; false when none is left.
 */
bool
gpuhash_shared_fill_claim(GpuJoinState *gs, uint64 *start, uint64 *end)
{
	uint64		s = pg_atomic_fetch_add_u64(&gs->shared->fill_next, FILL_CHUNK);

	if (s >= gs->n_inner_all)
		return false;
	*start = s;
	*end = Min(s + FILL_CHUNK, gs->n_inner_all);
	return true;
}

/*
 * This participant's outer side is done: its counts of outer rows the key
 * filter let go, of the absorbed scan, and its times, into the sums.
 */
void
gpuhash_shared_add_counts(GpuJoinState *gs)
{
	GpuJoinShared *sh = gs->shared;

	for (int i = 0; i < N_SUMMED; i++)
	{
		char	   *field = (char *) &gs->stats + summed_stats[i].offset;

		if (summed_stats[i].is_ms)
		{
			/* emit time is a difference of clocks: never below zero in the sum */
			pg_atomic_fetch_add_u64(&sh->sums[i], (uint64) Max(*(double *) field * 1000.0, 0));
			*(double *) field = 0;
		}
		else
		{
			pg_atomic_fetch_add_u64(&sh->sums[i], *(uint64 *) field);
			*(uint64 *) field = 0;
		}
	}
}

/*
 * A chain's carried columns of the shared table (chain.c) are set once per
 * build, by the first participant to ask: true for that one, which then
 * calls gpuhash_shared_carry_done.  The others wait until they are set.
 */
bool
gpuhash_shared_carry_begin(GpuJoinState *gs)
{
	GpuJoinShared *sh = gs->shared;
	bool		mine = false;

	ConditionVariablePrepareToSleep(&sh->cv);
	for (;;)
	{
		int			carry;

		SpinLockAcquire(&sh->mutex);
		carry = sh->carry;
		if (carry == CARRY_NONE)
		{
			sh->carry = CARRY_SETTING;
			mine = true;
		}
		SpinLockRelease(&sh->mutex);
		if (carry != CARRY_SETTING)
			break;
		ConditionVariableSleep(&sh->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	return mine;
}

/* The carried keys the shared inner side's readers made, if they did. */
bool
gpuhash_shared_carried(GpuJoinState *gs, const uint64 **keys, const uint8 **valid)
{
	return gs->shared != NULL &&
		gpuhash_shared_inner_carried(&gs->shared->inner, gs->css.ss.ps.state->es_query_dsa,
									 gs->n_inner, gpuhash_carried_columns(gs), keys, valid);
}

void
gpuhash_shared_carry_done(GpuJoinState *gs)
{
	GpuJoinShared *sh = gs->shared;

	/* the table has them now */
	gpuhash_shared_inner_drop_carried(&sh->inner, gs->css.ss.ps.state->es_query_dsa);
	SpinLockAcquire(&sh->mutex);
	sh->carry = CARRY_SET;
	SpinLockRelease(&sh->mutex);
	ConditionVariableBroadcast(&sh->cv);
}
