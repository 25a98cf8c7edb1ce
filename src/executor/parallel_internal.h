/*-------------------------------------------------------------------------
 *
 * parallel_internal.h
 *	  The shared state of a parallel-aware GpuHashJoin, between its DSM,
 *	  counters and carried columns (parallel.c) and its shared build
 *	  (parallel_build.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_PARALLEL_INTERNAL_H
#define GPUHASH_PARALLEL_INTERNAL_H

#include "join_state.h"

#include "storage/barrier.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"

typedef enum SharedPhase
{
	SHARED_EMPTY,				/* no builder yet */
	SHARED_BUILDING,
	SHARED_READY,
	SHARED_SPLIT				/* no shared table: split (parallel_split.c) */
} SharedPhase;

/* Phases of the all-readers build barrier. */
#define PHASE_READ		0		/* each reads its share, keeping it */
#define PHASE_SHARE		1		/* each puts its share in the DSA, or its batches */
#define PHASE_BUILD		2		/* the elected one builds, the others prefill */
#define PHASE_LAYOUT	3		/* each lays out blocks of the rows in table order */
#define PHASE_FINISH	4		/* the builder finishes and publishes */
#define PHASE_READY		5

/* A chain's carried columns of a shared table (chain.c), set once per build. */
#define CARRY_NONE		0
#define CARRY_SETTING	1
#define CARRY_SET		2

/*
 * A participant's figures that the shared state sums: each adds its own when
 * its outer side is done (gpuhash_shared_add_counts), and the shutdown reads
 * the sums back for EXPLAIN.  Counts are added as they are, times in
 * microseconds.
 */
typedef struct SummedStat
{
	size_t		offset;			/* in GpuJoinStats */
	bool		is_ms;			/* a double of milliseconds, else a uint64 */
} SummedStat;

#define SUM_COUNT(f)	{offsetof(GpuJoinStats, f), false}
#define SUM_MS(f)		{offsetof(GpuJoinStats, f), true}

static const SummedStat summed_stats[] = {
	SUM_COUNT(outer_filtered), SUM_COUNT(scan_pages), SUM_MS(scan_page_ms),
	SUM_COUNT(scan_filtered), SUM_COUNT(inner_scan_filtered),
	SUM_MS(read_ms), SUM_MS(wait_ms), SUM_MS(emit_ms), SUM_MS(start_ms),
	SUM_MS(inner_read_ms), SUM_MS(carry_ms), SUM_MS(share_ms), SUM_MS(build_wait_ms),
	SUM_COUNT(in_flight_sum), SUM_COUNT(prefilled), SUM_COUNT(probe_requests),
	SUM_COUNT(svc.requests), SUM_MS(svc.queue_ms), SUM_MS(svc.thread_ms),
	SUM_MS(svc.serve_ms), SUM_MS(svc.seen_ms)
};

#define N_SUMMED lengthof(summed_stats)

typedef struct GpuJoinShared
{
	slock_t		mutex;
	SharedPhase phase;
	ConditionVariable cv;
	int			leader_pid;

	/* all readers: the barrier the participants' shares wait at */
	Barrier		build_barrier;

	/* the table, once ready */
	GpuTable	table;
	gh_device	device;
	int			scheme;
	uint64		n_inner;
	uint64		n_inner_all;	/* with right/full's NULL-key rows */
	uint64		null_key_rows;
	uint64		distinct_keys;
	double		build_ms;
	double		table_ms;
	GpuTableTimes table_parts_ms;
	double		filter_ms;
	size_t		gpu_bytes;
	int			table_parts;
	SharedInner inner;			/* the kept rows in the DSA (shared_inner.c) */
	bool		table_live;		/* published and not freed yet */
	pg_atomic_uint32 published;	/* the table of this scan is built */
	pg_atomic_uint32 built;		/* its build from the shares is done: the
								 * others stop prefilling and come on */
	bool		in_dsm;			/* a segment: workers, shared state; else serial */
	bool		leader_detached;	/* that detach has run: a builder keeps
									 * its table (under mutex) */
	int			builds;
	int			probing;		/* participants in the join, their outer side
								 * not done (under mutex) */
	bool		fill_claimed;	/* one has taken the unmatched inner rows */
	pg_atomic_uint64 fill_next;	/* a right semi/anti join's shared fill: the
								 * next chunk of table rows to claim */
	int			carry;			/* a chain's carried columns (chain.c): CARRY_* */

	/* an inner side too large for all participants: split (parallel_split.c) */
	GpuSplitShared split;
	dsm_handle	seg_handle;		/* the segment, for workers' file set attach */

	/* summed over participants: per batch, and summed_stats */
	pg_atomic_uint64 batches;
	pg_atomic_uint64 outer_rows;
	pg_atomic_uint64 sums[N_SUMMED];
} GpuJoinShared;

#endif							/* GPUHASH_PARALLEL_INTERNAL_H */
