/*-------------------------------------------------------------------------
 *
 * parallel.c
 *	  A parallel-aware GpuHashJoin: the inner side is read once and the
 *	  join table built once, in the GPU service; every participant of the
 *	  parallel plan probes it with its share of the (partial) outer side.
 *
 * Two ways to read the inner side, chosen by the planner:
 *
 * - one reader: the first participant to arrive runs the (complete) inner
 *	 plan, builds the table and publishes the rows; the others sleep on a
 *	 condition variable until the table is ready.
 * - all readers (a partial inner plan, as Parallel Hash reads it): every
 *	 participant that arrives while the inner side is being read takes its
 *	 share and publishes its keys and rows in the DSA, then waits at a
 *	 barrier; the one the barrier elects concatenates the keys, builds the
 *	 table and lays out the rows; a participant arriving later waits for the
 *	 table or finds it ready.  A participant that never read the inner side
 *	 finds nothing left to read: once one participant's partial scan is
 *	 exhausted, every row belongs to a participant attached to the barrier.
 *
 * Either way the kept inner columns are MinimalTuples in the query's DSA,
 * reached through one dsa_pointer per key-grouped position (NULL-key rows of
 * a right/full join after those), so a probe's range indexes them directly.
 * The table is built with the leader as its owner in the service (which
 * frees it when the leader's backend exits, at the latest).  Until the
 * builder publishes it, the builder frees it on error like any table of its
 * own; once published, the leader frees it when no participant can probe it
 * any more: when the query's DSM segment is detached (the workers have
 * finished: normal end, error or cancel alike), or at a rescan (the old
 * workers are gone).  Without a segment there are no workers: the leader
 * builds the table and keeps it as its own, so its node's cleanup frees it
 * on error too.  Counts of batches and outer rows add up across
 * participants for EXPLAIN ANALYZE.
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
#include "portability/instr_time.h"
#include "storage/barrier.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"

typedef enum SharedPhase
{
	SHARED_EMPTY,				/* no builder yet */
	SHARED_BUILDING,
	SHARED_READY
} SharedPhase;

/* Phases of the all-readers build barrier. */
#define PHASE_READ		0
#define PHASE_BUILD		1
#define PHASE_READY		2

/* One participant's share of a partial inner side. */
typedef struct InnerChunk
{
	uint64		n_keyed;		/* rows with a key, then n_null without */
	uint64		n_null;
	dsa_pointer keys;			/* uint64 per keyed row */
	dsa_pointer rows;			/* MinimalTuples, back to back */
	dsa_pointer offsets;		/* uint64 per row: its tuple in rows */
} InnerChunk;

typedef struct GpuJoinShared
{
	slock_t		mutex;
	SharedPhase phase;
	ConditionVariable cv;
	int			leader_pid;

	/* all readers: the barrier and the participants' shares */
	Barrier		build_barrier;
	int			max_chunks;
	int			n_chunks;
	dsa_pointer chunks;			/* InnerChunk[max_chunks] */

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
	dsa_pointer rows;			/* one reader: MinimalTuples, back to back */
	dsa_pointer rowptrs;		/* dsa_pointer per key-grouped position */
	dsa_pointer matched;		/* right/full: pg_atomic_uint32 per 32 rows */
	dsa_pointer kf;				/* the key filter's words, or invalid */
	uint64		kf_nwords;
	bool		table_live;		/* published and not freed yet */
	bool		in_dsm;			/* the segment's detach frees the table */
	bool		leader_detached;	/* that detach has run: a builder keeps
									 * its table (under mutex) */
	int			builds;
	int			probing;		/* participants probing now (under mutex) */
	bool		fill_claimed;	/* one has taken the unmatched inner rows */

	/* summed over participants */
	pg_atomic_uint64 batches;
	pg_atomic_uint64 outer_rows;
	pg_atomic_uint64 outer_filtered;
	pg_atomic_uint64 scan_pages;
	pg_atomic_uint64 scan_filtered;
	pg_atomic_uint64 read_us;
	pg_atomic_uint64 wait_us;
} GpuJoinShared;

/*
 * The node's DSM: the shared join state, then an absorbed Parallel Seq
 * Scan's block allocator (outer_scan.c), if any.
 */
#define SCAN_SPACE(coordinate) ((char *) (coordinate) + MAXALIGN(sizeof(GpuJoinShared)))

Size
gpuhash_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return MAXALIGN(sizeof(GpuJoinShared)) +
		gpuhash_outer_scan_estimate((GpuJoinState *) node);
}

static void
init_shared(GpuJoinShared *sh, int nworkers)
{
	SpinLockInit(&sh->mutex);
	ConditionVariableInit(&sh->cv);
	BarrierInit(&sh->build_barrier, 0);
	sh->phase = SHARED_EMPTY;
	sh->max_chunks = nworkers + 1;
	sh->n_chunks = 0;
	sh->chunks = sh->rows = sh->rowptrs = sh->matched = sh->kf = InvalidDsaPointer;
	sh->kf_nwords = 0;
	sh->probing = 0;
	sh->fill_claimed = false;
	sh->table_live = false;
	sh->leader_detached = false;
	pg_atomic_init_u64(&sh->batches, 0);
	pg_atomic_init_u64(&sh->outer_rows, 0);
	pg_atomic_init_u64(&sh->outer_filtered, 0);
	pg_atomic_init_u64(&sh->scan_pages, 0);
	pg_atomic_init_u64(&sh->scan_filtered, 0);
	pg_atomic_init_u64(&sh->read_us, 0);
	pg_atomic_init_u64(&sh->wait_us, 0);
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

void
gpuhash_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	GpuJoinShared *sh = (GpuJoinShared *) coordinate;

	memset(sh, 0, sizeof(*sh));
	init_shared(sh, pcxt->nworkers);
	sh->leader_pid = MyProcPid;
	/* without a segment (no workers can start) the leader keeps the table */
	sh->in_dsm = pcxt->seg != NULL;
	if (sh->in_dsm)
		on_dsm_detach(pcxt->seg, on_detach_free_table, PointerGetDatum(sh));
	gs->shared = sh;
	gpuhash_outer_scan_init_dsm(gs, SCAN_SPACE(coordinate));
}

static void
free_dsa(dsa_area *area, dsa_pointer *p)
{
	if (area && DsaPointerIsValid(*p))
		dsa_free(area, *p);
	*p = InvalidDsaPointer;
}

/* Frees the shared rows; the leader frees the table as its own. */
static void
release_shared(GpuJoinShared *sh, dsa_area *area)
{
	if (area && DsaPointerIsValid(sh->chunks))
	{
		InnerChunk *c = dsa_get_address(area, sh->chunks);

		for (int i = 0; i < sh->n_chunks; i++)
		{
			free_dsa(area, &c[i].keys);
			free_dsa(area, &c[i].rows);
			free_dsa(area, &c[i].offsets);
		}
	}
	free_dsa(area, &sh->chunks);
	free_dsa(area, &sh->rows);
	free_dsa(area, &sh->rowptrs);
	free_dsa(area, &sh->matched);
	free_dsa(area, &sh->kf);
}

/* Rescan of a parallel plan: the shared state starts over. */
void
gpuhash_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GpuJoinState *gs = (GpuJoinState *) node;
	GpuJoinShared *sh = (GpuJoinShared *) coordinate;
	int			builds = sh->builds;

	/* the old workers are gone: their table and rows can go */
	free_published_table(sh, false);
	release_shared(sh, node->ss.ps.state->es_query_dsa);
	init_shared(sh, pcxt->nworkers);
	sh->builds = builds;
	gs->shared = sh;
	gpuhash_outer_scan_reinit_dsm(gs, SCAN_SPACE(coordinate));
}

void
gpuhash_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	GpuJoinState *gs = (GpuJoinState *) node;

	gs->shared = (GpuJoinShared *) coordinate;
	gs->owns_table = false;		/* only while it builds, if it does */
	gpuhash_outer_scan_init_worker(gs, SCAN_SPACE(coordinate));
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
	gs->shared_rowptrs = NULL;
	gs->shared_matched = NULL;
	gs->kf_words = NULL;
	gs->kf_on = false;
	if (sh == NULL || sh->phase != SHARED_READY)
		return;
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
	gs->stats.outer_filtered = pg_atomic_read_u64(&sh->outer_filtered);
	gs->stats.scan_pages = pg_atomic_read_u64(&sh->scan_pages);
	gs->stats.scan_filtered = pg_atomic_read_u64(&sh->scan_filtered);
	gs->stats.read_ms = pg_atomic_read_u64(&sh->read_us) / 1000.0;
	gs->stats.wait_ms = pg_atomic_read_u64(&sh->wait_us) / 1000.0;
	gs->stats.in_service = true;
}

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
	 * From here on the shared state owns the table, not the builder; but
	 * without a segment nothing would free it on error (the shutdown does
	 * not run then), and the builder is the leader, alone: it keeps it.  A
	 * builder that finds the leader detached (the query is ending in error)
	 * keeps it too.
	 */
	SpinLockAcquire(&sh->mutex);
	sh->table = gs->table;
	handed = sh->in_dsm && !sh->leader_detached;
	sh->table_live = handed && gpuhash_table_exists(&gs->table);
	SpinLockRelease(&sh->mutex);
	gs->owns_table = !handed;
	if (handed)
		gpuhash_table_handed_over(&gs->table);
	sh->device = gs->device;
	sh->scheme = gs->scheme;
	sh->n_inner = gs->n_inner;
	sh->n_inner_all = gs->n_inner_all;
	sh->null_key_rows = gs->stats.null_key_rows;
	sh->distinct_keys = gs->stats.distinct_keys;
	sh->build_ms = gs->stats.build_ms;
	sh->gpu_bytes = gs->stats.gpu_bytes;
}

/* One reader: run the inner plan, build, publish in key-grouped order. */
static void
build_one_reader(GpuJoinState *gs, dsa_area *area)
{
	GpuJoinShared *sh = gs->shared;
	dsa_pointer offs;

	gpuhash_build_inner(gs);
	sh->rows = gpuhash_inner_publish(gs, area, &offs);
	if (DsaPointerIsValid(sh->rows))
	{
		uint64	   *o = dsa_get_address(area, offs);
		dsa_pointer *ptrs;

		sh->rowptrs = dsa_allocate_extended(area, sizeof(dsa_pointer) * gs->n_inner_all,
											DSA_ALLOC_HUGE);
		ptrs = dsa_get_address(area, sh->rowptrs);
		for (uint64 i = 0; i < gs->n_inner_all; i++)
			ptrs[i] = sh->rows + o[i];
		dsa_free(area, offs);
	}
	if (gs->fill_inner)
		sh->matched = gpuhash_inner_shared_matched(gs, area);
	if (gs->kf_words)
	{
		sh->kf = dsa_allocate_extended(area, sizeof(uint64) * gs->kf_nwords, DSA_ALLOC_HUGE);
		memcpy(dsa_get_address(area, sh->kf), gs->kf_words, sizeof(uint64) * gs->kf_nwords);
		sh->kf_nwords = gs->kf_nwords;
	}
	publish_table(gs);
}

/* All readers: this participant's share of the inner side goes to the DSA. */
static void
read_share(GpuJoinState *gs, dsa_area *area)
{
	GpuJoinShared *sh = gs->shared;
	InnerChunk	c;
	int			slot;

	gpuhash_read_inner(gs);
	memset(&c, 0, sizeof(c));
	c.n_keyed = gs->n_inner;
	c.n_null = gs->n_inner_all - gs->n_inner;
	c.keys = InvalidDsaPointer;
	if (c.n_keyed > 0)
	{
		c.keys = dsa_allocate_extended(area, sizeof(uint64) * c.n_keyed, DSA_ALLOC_HUGE);
		memcpy(dsa_get_address(area, c.keys), gs->inner_keys_arr, sizeof(uint64) * c.n_keyed);
	}
	c.rows = gpuhash_inner_publish(gs, area, &c.offsets);
	MemoryContextReset(gs->inner_cxt);

	SpinLockAcquire(&sh->mutex);
	slot = sh->n_chunks++;
	SpinLockRelease(&sh->mutex);
	if (slot >= sh->max_chunks)
		elog(ERROR, "gpuhash: more inner readers than parallel participants");
	((InnerChunk *) dsa_get_address(area, sh->chunks))[slot] = c;
	gs->stats.null_key_rows = c.n_null;
}

/*
 * All readers, elected by the barrier: concatenate the shares' keys, build
 * the table, and lay the rows out in its order (NULL-key rows last).
 */
static void
build_from_shares(GpuJoinState *gs, dsa_area *area)
{
	GpuJoinShared *sh = gs->shared;
	InnerChunk *chunks = dsa_get_address(area, sh->chunks);
	uint64		n_keyed = 0,
				n_null = 0,
				pos = 0;
	uint64	   *keys;
	dsa_pointer *local = NULL;	/* concatenation order -> row */
	dsa_pointer *ptrs = NULL;
	bool		have_rows = gs->n_inner_keep > 0;
	instr_time	t0,
				t1;

	INSTR_TIME_SET_CURRENT(t0);
	for (int i = 0; i < sh->n_chunks; i++)
	{
		n_keyed += chunks[i].n_keyed;
		n_null += chunks[i].n_null;
	}
	MemoryContextReset(gs->inner_cxt);
	keys = MemoryContextAllocHuge(gs->inner_cxt, sizeof(uint64) * Max(n_keyed, 1));
	if (have_rows)
		local = MemoryContextAllocHuge(gs->inner_cxt, sizeof(dsa_pointer) * Max(n_keyed, 1));
	for (int i = 0; i < sh->n_chunks; i++)
	{
		InnerChunk *c = &chunks[i];
		uint64	   *o = have_rows && DsaPointerIsValid(c->offsets) ?
			dsa_get_address(area, c->offsets) : NULL;

		if (c->n_keyed > 0)
			memcpy(keys + pos, dsa_get_address(area, c->keys), sizeof(uint64) * c->n_keyed);
		for (uint64 r = 0; o && r < c->n_keyed; r++)
			local[pos + r] = c->rows + o[r];
		pos += c->n_keyed;
	}

	gs->n_inner = n_keyed;
	gs->n_inner_all = n_keyed + n_null;
	gs->inner_keys_arr = keys;
	gs->inner_vals = NULL;
	if (have_rows && gs->n_inner_all > 0)
	{
		sh->rowptrs = dsa_allocate_extended(area, sizeof(dsa_pointer) * gs->n_inner_all,
											DSA_ALLOC_HUGE);
		ptrs = dsa_get_address(area, sh->rowptrs);
	}
	if (n_keyed > 0)
	{
		const uint32 *order = gpuhash_build_keys(gs, keys, n_keyed);

		for (uint64 i = 0; ptrs && i < n_keyed; i++)
			ptrs[i] = local[order[i]];
		if (gpuhash_keyfilter_wanted(gs))
		{
			sh->kf_nwords = gpuhash_keyfilter_words(n_keyed);
			sh->kf = dsa_allocate_extended(area, sizeof(uint64) * sh->kf_nwords, DSA_ALLOC_HUGE);
			gpuhash_keyfilter_fill(dsa_get_address(area, sh->kf), sh->kf_nwords, keys, n_keyed);
		}
	}
	/* the NULL-key rows of right/full joins, after the table's rows */
	pos = n_keyed;
	for (int i = 0; ptrs && i < sh->n_chunks; i++)
	{
		InnerChunk *c = &chunks[i];
		uint64	   *o = DsaPointerIsValid(c->offsets) ? dsa_get_address(area, c->offsets) : NULL;

		for (uint64 r = 0; o && r < c->n_null; r++)
			ptrs[pos++] = c->rows + o[c->n_keyed + r];
	}
	/* keys and offsets have served; rows stay */
	for (int i = 0; i < sh->n_chunks; i++)
	{
		free_dsa(area, &chunks[i].keys);
		free_dsa(area, &chunks[i].offsets);
	}
	if (gs->fill_inner)
		sh->matched = gpuhash_inner_shared_matched(gs, area);
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	gs->stats.build_ms += INSTR_TIME_GET_MILLISEC(t1);
	gs->stats.null_key_rows = n_null;
	gs->stats.inner_rows = n_keyed;
	publish_table(gs);
	MemoryContextReset(gs->inner_cxt);
	gs->inner_keys_arr = NULL;
}

/*
 * The table is ready: take it, and count in as a prober.  built: this
 * participant built it (publish_table decided whether it still owns it).
 */
static void
adopt(GpuJoinState *gs, dsa_area *area, bool built)
{
	GpuJoinShared *sh = gs->shared;

	gs->table = sh->table;
	gs->device = sh->device;
	gs->scheme = sh->scheme;
	gs->n_inner = sh->n_inner;
	gs->n_inner_all = sh->n_inner_all;
	/* the builder's own copies have served: everyone reads the shared rows */
	MemoryContextReset(gs->inner_cxt);
	gs->inner_vals = NULL;
	gs->inner_nulls = NULL;
	gs->inner_keys_arr = NULL;
	gs->shared_area = area;
	gs->shared_rowptrs = DsaPointerIsValid(sh->rowptrs) ?
		dsa_get_address(area, sh->rowptrs) : NULL;
	gs->shared_matched = DsaPointerIsValid(sh->matched) ?
		dsa_get_address(area, sh->matched) : NULL;
	if (!built)
		gs->owns_table = !sh->in_dsm;	/* else the shared state frees it */
	gs->kf_words = DsaPointerIsValid(sh->kf) ? dsa_get_address(area, sh->kf) : NULL;
	gs->kf_nwords = sh->kf_nwords;
	gs->kf_on = gs->kf_words != NULL;
	gs->kf_tested = gs->kf_passed = 0;
	gs->built = true;
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
	gs->table_owner_pid = sh->leader_pid;

	if (gs->info.parallel_inner)
	{
		int			phase = BarrierAttach(&sh->build_barrier);

		if (phase == PHASE_READ)
		{
			/* the chunk directory, made once by whoever comes first */
			SpinLockAcquire(&sh->mutex);
			if (!DsaPointerIsValid(sh->chunks))
				sh->chunks = dsa_allocate0(area, sizeof(InnerChunk) * sh->max_chunks);
			SpinLockRelease(&sh->mutex);
			read_share(gs, area);
			if (BarrierArriveAndWait(&sh->build_barrier, PG_WAIT_EXTENSION))
			{
				gs->owns_table = true;	/* until published */
				build_from_shares(gs, area);
				builder = true;
			}
			phase = PHASE_BUILD;
		}
		if (phase == PHASE_BUILD)
			BarrierArriveAndWait(&sh->build_barrier, PG_WAIT_EXTENSION);
		BarrierDetach(&sh->build_barrier);
		SpinLockAcquire(&sh->mutex);
		if (sh->phase != SHARED_READY)
			sh->builds++;
		sh->phase = SHARED_READY;
		sh->probing++;
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
		gs->owns_table = true;	/* until published */
		build_one_reader(gs, area);
		SpinLockAcquire(&sh->mutex);
		sh->builds++;
		sh->phase = SHARED_READY;
		sh->probing++;
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
		if (phase == SHARED_READY)
			sh->probing++;
		SpinLockRelease(&sh->mutex);
		if (phase == SHARED_READY)
			break;
		ConditionVariableSleep(&sh->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	adopt(gs, area, false);
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

/*
 * This participant's outer side is done: its counts of outer rows the key
 * filter let go, of the absorbed scan, and its times, into the sums.
 */
void
gpuhash_shared_count_filtered(GpuJoinState *gs)
{
	GpuJoinShared *sh = gs->shared;

	pg_atomic_fetch_add_u64(&sh->outer_filtered, gs->stats.outer_filtered);
	pg_atomic_fetch_add_u64(&sh->scan_pages, gs->stats.scan_pages);
	pg_atomic_fetch_add_u64(&sh->scan_filtered, gs->stats.scan_filtered);
	pg_atomic_fetch_add_u64(&sh->read_us, (uint64) (gs->stats.read_ms * 1000.0));
	pg_atomic_fetch_add_u64(&sh->wait_us, (uint64) (gs->stats.wait_ms * 1000.0));
	gs->stats.outer_filtered = gs->stats.scan_pages = gs->stats.scan_filtered = 0;
	gs->stats.read_ms = gs->stats.wait_ms = 0;
}
