/*-------------------------------------------------------------------------
 *
 * agg_join_par.c
 *	  GpuPreAgg over an inner join in a parallel query, its dimension shared
 *	  (agg_plan.h's GPUHASH_PREAGG_PRIV_SHARED_DIM): the inner plan is
 *	  partial, each participant runs its share of it, and all of them probe
 *	  one dimension, as a Parallel Hash shares one table.
 *
 * The node's DSM (after the heap scan's block allocator) holds the
 * coordination: a Barrier of three phases, as nodeHash.c's build barrier.
 *	COLLECT  each attached participant runs its share of the inner plan to
 *			 its end and appends its rows (packed key, minimal tuple) to
 *			 chunks in the query's DSA, linked under the spinlock, and makes
 *			 their dimension values (keys, values, by-reference data) into
 *			 one share of its own, so that no one participant deforms every
 *			 row while the others wait;
 *	BUILD	 the participant BarrierArriveAndWait elects builds the
 *			 dimension from every share in the GPU service, held by the
 *			 leader (gpuhash_svc_dim_build_parts), and publishes its id; where
 *			 the service does not take it, each participant builds its own
 *			 copy from the rows afterwards (a backend's dimension cannot be
 *			 shared); the values' shares go before anyone goes on;
 *	PROBE	 every participant walks its pages with that dimension; a
 *			 refused page's CPU join reads every chunk's rows.
 * Past work_mem x hash_mem_multiplier, where the node can walk its pages
 * again (an inner join of the plan's rows), COLLECT does
 * not fail: the participant that would pass the limit sets the overflow
 * flag, and from then on each participant writes its further rows to a
 * file of its own in the node's SharedFileSet.  The builder then builds
 * nothing (GAJ_DIM_BATCHES): every participant reads all the rows, the
 * chunks and every file, into batches of its own (agg_join_batches.c) and
 * walks again, a batch at a time, the blocks it was handed, as a
 * participant with a dimension of its own does.
 * A participant attaching late skips the phases that are over: at BUILD it
 * only waits for the builder, at PROBE it waits for nobody.  Every wait
 * comes before the participant's first row goes up, and the phase reaches
 * PROBE only when every attached participant has arrived, so no wait here
 * can meet a participant blocked on a full Gather queue.
 *
 * Who frees the dimension: the leader, whose segment outlives every
 * worker.  A detach callback on the parallel context's segment (registered
 * by the leader at InitializeDSM) frees it when Gather has shut the workers
 * down (ExecParallelCleanup) or the query failed (DestroyParallelContext);
 * a rescan frees it at ReInitializeDSM, after ExecReScanGather has waited
 * for the workers.  The service frees it at the leader's exit in any case.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join_pages.h"
#include "service_dim.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/barrier.h"
#include "storage/buffile.h"
#include "storage/dsm.h"
#include "storage/sharedfileset.h"
#include "storage/spin.h"

#include <fcntl.h>
#include "utils/memutils.h"

#define GAJ_PHASE_COLLECT	0
#define GAJ_PHASE_BUILD		1
#define GAJ_PHASE_PROBE		2

/* what the builder published */
#define GAJ_DIM_NONE	0		/* no dimension: the CPU joins every page */
#define GAJ_DIM_SERVICE 1		/* dim_id, in the service, the leader's */
#define GAJ_DIM_LOCAL	2		/* each participant builds its own copy */
#define GAJ_DIM_BATCHES 3		/* past the limit: each its own batches */

#define GAJ_CHUNK_BYTES ((Size) 1024 * 1024)

typedef struct GpuAggJoinShared
{
	Barrier		barrier;
	slock_t		mutex;
	int			leader_pid;
	dsa_pointer chunks;			/* under mutex: the first of the linked chunks */
	uint64		nrows;			/* under mutex: rows in them */
	dsa_pointer vshares;		/* under mutex: the rows' values, a share a
								 * participant (GpuAggPageShare) */
	uint64		vrows;			/* under mutex: rows in them */
	pg_atomic_uint64 bytes;		/* chunk bytes allocated, against the limit */
	int			dim_kind;		/* GAJ_DIM_*, set by the builder */
	uint64		dim_id;
	uint64		dim_bytes;
	bool		dim_on_host;
	/* a dimension from pages: every participant's walk, for EXPLAIN ANALYZE */
	pg_atomic_uint64 pages_walked;
	pg_atomic_uint32 walkers;
	/* past the limit: the rows after it, a file a participant */
	pg_atomic_uint32 overflow;
	int			nparticipants;
	dsm_handle	seg;
	SharedFileSet fileset;
} GpuAggJoinShared;

/* One chunk of collected rows: entries of a packed key and a minimal tuple. */
typedef struct GpuAggChunk
{
	dsa_pointer next;
	uint64		nrows;
	Size		used;			/* bytes of entries after the header */
	Size		size;
} GpuAggChunk;

static void publish_built(GpuPreAggState *as);

#define CHUNK_DATA(c)	((char *) (c) + MAXALIGN(sizeof(GpuAggChunk)))
#define ENTRY_BYTES(t)	MAXALIGN(sizeof(uint64) + (t)->t_len)

/* The chunks' rows in list order (chunk_rows_next), read where they lie. */
typedef struct ChunkRows
{
	GpuAggJoin *j;
	dsa_pointer next;			/* the chunk after the current one */
	GpuAggChunk *c;				/* the current chunk; NULL: none yet */
	uint64		i;				/* its next entry */
	char	   *e;
} ChunkRows;

static void
chunk_rows_begin(ChunkRows *it, GpuAggJoin *j)
{
	it->j = j;
	it->next = j->shared->chunks;
	it->c = NULL;
	it->i = 0;
	it->e = NULL;
}

/* The next row's key and tuple (in its chunk); false after the last. */
static bool
chunk_rows_next(ChunkRows *it, uint64 *key, MinimalTuple *tup)
{
	while (it->c == NULL || it->i >= it->c->nrows)
	{
		if (!DsaPointerIsValid(it->next))
			return false;
		it->c = dsa_get_address(it->j->dsa, it->next);
		it->next = it->c->next;
		it->i = 0;
		it->e = CHUNK_DATA(it->c);
		CHECK_FOR_INTERRUPTS();
	}
	memcpy(key, it->e, sizeof(uint64));
	*tup = (MinimalTuple) (it->e + sizeof(uint64));
	it->e += ENTRY_BYTES(*tup);
	it->i++;
	return true;
}

/*
 * A participant's rows in one piece, as the dimension's build takes them:
 * n keys, n x ncols values (by reference: offsets into this share's heap),
 * heap_len bytes of by-reference data.  Linked as the chunks are (next
 * first): a dimension from pages (agg_join_pages.c) in sh->chunks, the
 * values of the plan's rows beside their chunks in sh->vshares.
 */
typedef struct GpuAggPageShare
{
	dsa_pointer next;
	uint64		n;
	uint64		heap_len;
	int			ncols;
} GpuAggPageShare;

#define SHARE_KEYS(s)	((uint64 *) ((char *) (s) + MAXALIGN(sizeof(GpuAggPageShare))))
#define SHARE_VALS(s)	((gh_agg_inval *) (SHARE_KEYS(s) + (s)->n))
#define SHARE_HEAP(s)	((uint8 *) (SHARE_VALS(s) + (s)->n * (s)->ncols))

/* The join's part of the node's DSM, after the heap scan's. */
static GpuAggJoinShared *
shared_of(GpuPreAggState *as, void *space)
{
	return (GpuAggJoinShared *) ((char *) space + gpuhash_heap_scan_estimate(as->os));
}

static bool
uses_shared(GpuPreAggState *as)
{
	return as->join != NULL && as->join->shared_plan;
}

Size
gpuhash_agg_join_par_estimate(GpuPreAggState *as)
{
	return uses_shared(as) ? MAXALIGN(sizeof(GpuAggJoinShared)) : 0;
}

/* Frees the values' shares (the chunks hold the rows still). */
static void
free_value_shares(GpuAggJoinShared *sh, dsa_area *dsa)
{
	dsa_pointer dp = sh->vshares;

	while (dsa != NULL && DsaPointerIsValid(dp))
	{
		dsa_pointer next = ((GpuAggPageShare *) dsa_get_address(dsa, dp))->next;

		dsa_free(dsa, dp);
		dp = next;
	}
	sh->vshares = InvalidDsaPointer;
	sh->vrows = 0;
}

/* Frees the chunks and the service's dimension; the coordination anew. */
static void
reset_shared(GpuAggJoinShared *sh, dsa_area *dsa)
{
	dsa_pointer dp = sh->chunks;

	while (dsa != NULL && DsaPointerIsValid(dp))
	{
		dsa_pointer next = ((GpuAggChunk *) dsa_get_address(dsa, dp))->next;

		dsa_free(dsa, dp);
		dp = next;
	}
	free_value_shares(sh, dsa);
	if (sh->dim_kind == GAJ_DIM_SERVICE)
		gpuhash_svc_dim_free(sh->dim_id);
	BarrierInit(&sh->barrier, 0);
	sh->chunks = InvalidDsaPointer;
	sh->nrows = 0;
	SharedFileSetDeleteAll(&sh->fileset);
	pg_atomic_write_u32(&sh->overflow, 0);
	pg_atomic_write_u64(&sh->bytes, 0);
	pg_atomic_write_u64(&sh->pages_walked, 0);
	pg_atomic_write_u32(&sh->walkers, 0);
	sh->dim_kind = GAJ_DIM_NONE;
	sh->dim_id = 0;
	sh->dim_bytes = 0;
	sh->dim_on_host = false;
}

/*
 * The leader's segment goes: the workers are gone (Gather shut them down,
 * or the query failed and they were terminated), so the dimension goes
 * too.  Never throws.  The chunks go with the segment's DSA.
 */
static void
free_at_detach(dsm_segment *seg, Datum arg)
{
	GpuAggJoinShared *sh = (GpuAggJoinShared *) DatumGetPointer(arg);

	if (sh->dim_kind == GAJ_DIM_SERVICE)
		gpuhash_svc_dim_free(sh->dim_id);
	sh->dim_kind = GAJ_DIM_NONE;
	sh->dim_id = 0;
}

void
gpuhash_agg_join_par_init(GpuPreAggState *as, ParallelContext *pcxt, void *space)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinShared *sh;

	if (!uses_shared(as))
		return;
	sh = shared_of(as, space);
	memset(sh, 0, sizeof(*sh));
	SpinLockInit(&sh->mutex);
	pg_atomic_init_u64(&sh->bytes, 0);
	pg_atomic_init_u64(&sh->pages_walked, 0);
	pg_atomic_init_u32(&sh->walkers, 0);
	sh->leader_pid = MyProcPid;
	sh->chunks = InvalidDsaPointer;
	sh->vshares = InvalidDsaPointer;
	BarrierInit(&sh->barrier, 0);

	/* no DSA (the segment fell back to private memory): each on its own */
	j->dsa = as->css.ss.ps.state->es_query_dsa;
	j->shared = (j->dsa != NULL && pcxt->seg != NULL) ? sh : NULL;
	if (j->shared != NULL)
	{
		pg_atomic_init_u32(&sh->overflow, 0);
		sh->nparticipants = pcxt->nworkers + 1;
		sh->seg = dsm_segment_handle(pcxt->seg);
		SharedFileSetInit(&sh->fileset, pcxt->seg);
		on_dsm_detach(pcxt->seg, free_at_detach, PointerGetDatum(sh));
	}
}

/* A rescan: the workers are shut down (ExecReScanGather); all anew. */
void
gpuhash_agg_join_par_reinit(GpuPreAggState *as, void *space)
{
	GpuAggJoin *j = as->join;

	if (!uses_shared(as) || j->shared == NULL)
		return;
	reset_shared(j->shared, j->dsa);
}

void
gpuhash_agg_join_par_attach(GpuPreAggState *as, void *space)
{
	GpuAggJoin *j = as->join;

	if (!uses_shared(as))
		return;
	j->dsa = as->css.ss.ps.state->es_query_dsa;
	j->shared = j->dsa != NULL ? shared_of(as, space) : NULL;
	if (j->shared != NULL)
	{
		dsm_segment *seg = dsm_find_mapping(j->shared->seg);

		if (seg == NULL)
			elog(ERROR, "gpuhash: a GpuPreAgg worker found no parallel query segment");
		SharedFileSetAttach(&j->shared->fileset, seg);
	}
}

/* A filled chunk joins the list. */
static void
publish_chunk(GpuAggJoin *j, dsa_pointer dp, GpuAggChunk *c)
{
	GpuAggJoinShared *sh = j->shared;

	SpinLockAcquire(&sh->mutex);
	c->next = sh->chunks;
	sh->chunks = dp;
	sh->nrows += c->nrows;
	SpinLockRelease(&sh->mutex);
}

/* size more bytes of shared rows: all of them within work_mem x hash_mem_multiplier */
static void
charge_bytes(GpuAggJoinShared *sh, Size size)
{
	Size		limit = get_hash_memory_limit();

	if (pg_atomic_add_fetch_u64(&sh->bytes, size) > limit)
		gpuhash_agg_join_too_big(limit);
}

/*
 * size more bytes of shared rows where they stay within the limit (true);
 * false, and nothing charged, where they would pass it.
 */
static bool
try_charge(GpuAggJoinShared *sh, Size size)
{
	if (pg_atomic_add_fetch_u64(&sh->bytes, size) <= get_hash_memory_limit())
		return true;
	pg_atomic_sub_fetch_u64(&sh->bytes, size);
	return false;
}

/* This participant's file of the rows past the limit ("gaj" and its number). */
static void
file_name(char *name, int participant)
{
	snprintf(name, MAXPGPATH, "gaj%d", participant);
}

/*
 * n rows' keys, values (ncols a row) and by-reference data as one share:
 * the rows of a dimension from pages (counted in sh->chunks and nrows,
 * against the limit), or the values of the plan's rows beside their chunks
 * (values, in sh->vshares and vrows).  Those values replace the arrays the
 * builder would otherwise make of the rows in its own memory, and go as
 * soon as the dimension is built (build_shared): not charged, as those
 * were not.
 */
static void
publish_share(GpuAggJoin *j, bool values, const uint64 *keys, const gh_agg_inval *vals,
			  int ncols, StringInfo heap, uint64 n)
{
	GpuAggJoinShared *sh = j->shared;
	Size		size = MAXALIGN(sizeof(GpuAggPageShare)) + n * sizeof(uint64) +
		n * ncols * sizeof(gh_agg_inval) + heap->len;
	dsa_pointer dp;
	GpuAggPageShare *ps;

	if (!values)
		charge_bytes(sh, size);
	dp = dsa_allocate_extended(j->dsa, size, DSA_ALLOC_HUGE);
	ps = dsa_get_address(j->dsa, dp);
	ps->next = InvalidDsaPointer;
	ps->n = n;
	ps->heap_len = heap->len;
	ps->ncols = ncols;
	memcpy(SHARE_KEYS(ps), keys, sizeof(uint64) * n);
	memcpy(SHARE_VALS(ps), vals, sizeof(gh_agg_inval) * n * ncols);
	if (heap->len > 0)
		memcpy(SHARE_HEAP(ps), heap->data, heap->len);
	SpinLockAcquire(&sh->mutex);
	if (values)
	{
		ps->next = sh->vshares;
		sh->vshares = dp;
		sh->vrows += n;
	}
	else
	{
		ps->next = sh->chunks;
		sh->chunks = dp;
		sh->nrows += n;
	}
	SpinLockRelease(&sh->mutex);
}

/*
 * A dimension from pages: this participant walks the blocks the allocator
 * hands it (refused pages read by its CPU) and its rows go to the DSA in
 * one share.
 */
static void
walk_share(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinPages *jp = j->pages;
	GpuAggJoinShared *sh = j->shared;
	int			ncols = as->aprog->join.ninner;
	uint64		pages = jp->pages;

	gpuhash_agg_join_pages_walk(as);
	if (jp->pages > pages)
	{
		pg_atomic_add_fetch_u64(&sh->pages_walked, jp->pages - pages);
		pg_atomic_add_fetch_u32(&sh->walkers, 1);
	}
	if (jp->n > 0)
		publish_share(j, false, jp->keys, jp->vals, ncols, &jp->heap, jp->n);
	gpuhash_agg_join_pages_free_rows(as);
}

/*
 * The dimension of every participant's share (a dimension's pages walked,
 * or the values of the plan's rows), laid end to end (each share's
 * by-reference offsets moved past the heaps before it), as
 * gpuhash_agg_join_build_arrays builds: in the service held by owner_pid
 * (service), or in this backend (local).
 */
static bool
build_from_shares(GpuPreAggState *as, bool values, int owner_pid, bool service, bool local)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinShared *sh = j->shared;
	dsa_pointer head = values ? sh->vshares : sh->chunks;
	uint64		expect = values ? sh->vrows : sh->nrows;
	int			ncols = as->aprog->join.ninner;
	uint64		n = 0,
				heap_len = 0;
	uint64	   *keys;
	gh_agg_inval *vals;
	uint8	   *heap;
	bool		built;
	int			nshares = 0;
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	for (dsa_pointer dp = head; DsaPointerIsValid(dp);)
	{
		GpuAggPageShare *ps = dsa_get_address(j->dsa, dp);

		if (ps->ncols != ncols)
			elog(ERROR, "gpuhash: a shared dimension's share of %d columns, not %d", ps->ncols,
				 ncols);
		nshares++;
		n += ps->n;
		heap_len = TYPEALIGN(8, heap_len) + ps->heap_len;
		dp = ps->next;
	}
	if (n != expect)
		elog(ERROR, "gpuhash: the shared dimension's shares count " UINT64_FORMAT ", not "
			 UINT64_FORMAT, n, expect);
	j->ship_bytes = n * (sizeof(uint64) + sizeof(gh_agg_inval) * ncols) + heap_len;
	if (!values)
		j->pages->dim_rows = n;

	/*
	 * The service takes the shares from where they lie in the DSA, one
	 * after another: no copy of them all in this backend first.
	 */
	if (service)
	{
		GhDimPart  *parts = palloc(sizeof(GhDimPart) * Max(nshares, 1));
		int			p = 0;

		for (dsa_pointer dp = head; DsaPointerIsValid(dp); p++)
		{
			GpuAggPageShare *ps = dsa_get_address(j->dsa, dp);

			parts[p].keys = SHARE_KEYS(ps);
			parts[p].vals = SHARE_VALS(ps);
			parts[p].heap = SHARE_HEAP(ps);
			parts[p].n = ps->n;
			parts[p].heap_len = ps->heap_len;
			dp = ps->next;
		}
		j->values_ms += gpuhash_ms_since(t0);
		built = gpuhash_agg_join_build_parts(as, owner_pid, parts, nshares);
		pfree(parts);
		if (built || !local)
			return built;
		INSTR_TIME_SET_CURRENT(t0);
	}
	keys = palloc_extended(sizeof(uint64) * Max(n, 1), MCXT_ALLOC_HUGE);
	vals = palloc_extended(sizeof(gh_agg_inval) * Max(n, 1) * ncols, MCXT_ALLOC_HUGE);
	heap = palloc_extended(Max(heap_len, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	n = heap_len = 0;
	for (dsa_pointer dp = head; DsaPointerIsValid(dp);)
	{
		GpuAggPageShare *ps = dsa_get_address(j->dsa, dp);
		gh_agg_inval *v = vals + n * ncols;

		heap_len = TYPEALIGN(8, heap_len);
		memcpy(keys + n, SHARE_KEYS(ps), sizeof(uint64) * ps->n);
		memcpy(v, SHARE_VALS(ps), sizeof(gh_agg_inval) * ps->n * ncols);
		for (uint64 i = 0; i < ps->n * ncols; i++)
			if (!v[i].null && v[i].len > 0)
				v[i].bits += heap_len;
		if (ps->heap_len > 0)
			memcpy(heap + heap_len, SHARE_HEAP(ps), ps->heap_len);
		n += ps->n;
		heap_len += ps->heap_len;
		dp = ps->next;
		CHECK_FOR_INTERRUPTS();
	}
	j->values_ms += gpuhash_ms_since(t0);
	built = gpuhash_agg_join_build_arrays(as, owner_pid, false, local, keys, n, vals, heap,
										  heap_len);
	pfree(keys);
	pfree(vals);
	pfree(heap);
	return built;
}

/*
 * Are the values of the plan's rows made by the participants as they
 * collect them?  Where the dimension is built of them at all, and in any
 * order: an outer join's dimension follows the rows sorted first
 * (agg_join.c), so its builder makes them.
 */
static bool
values_by_participants(GpuPreAggState *as)
{
	return as->why_cpu == NULL && as->aprog != NULL && !as->join->preserve_inner;
}

/* Every row's values are in the participants' shares. */
static bool
values_complete(GpuPreAggState *as)
{
	GpuAggJoinShared *sh = as->join->shared;

	return values_by_participants(as) && sh->nrows > 0 && sh->vrows == sh->nrows &&
		pg_atomic_read_u32(&sh->overflow) == 0;
}

/* A participant's rows' values, made as they are collected. */
typedef struct ValueShare
{
	MemoryContext cxt;
	int			ncols;
	uint64		n;
	uint64		cap;
	uint64	   *keys;
	gh_agg_inval *vals;
	StringInfoData heap;
} ValueShare;

static void
value_share_add(GpuPreAggState *as, ValueShare *vs, uint64 key, MinimalTuple tup)
{
	if (vs->n == vs->cap)
	{
		MemoryContext old = MemoryContextSwitchTo(vs->cxt);

		vs->cap = vs->cap == 0 ? 4096 : vs->cap * 2;
		vs->keys = vs->keys == NULL ? palloc_extended(sizeof(uint64) * vs->cap, MCXT_ALLOC_HUGE) :
			repalloc_huge(vs->keys, sizeof(uint64) * vs->cap);
		vs->vals = vs->vals == NULL ?
			palloc_extended(sizeof(gh_agg_inval) * vs->cap * vs->ncols, MCXT_ALLOC_HUGE) :
			repalloc_huge(vs->vals, sizeof(gh_agg_inval) * vs->cap * vs->ncols);
		MemoryContextSwitchTo(old);
	}
	vs->keys[vs->n] = key;
	gpuhash_agg_join_row_values(as, tup, &vs->vals[vs->n * vs->ncols], &vs->heap);
	vs->n++;
}

/*
 * This participant's share of the inner plan, into chunks: rows with a
 * non-NULL key, and (values_by_participants) their dimension values into a
 * share of its own.  All the rows together within work_mem x
 * hash_mem_multiplier, as the plan promised.
 */
static void
collect_share(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinShared *sh = j->shared;
	ExprContext *econtext = as->css.ss.ps.ps_ExprContext;
	dsa_pointer cur_dp = InvalidDsaPointer;
	GpuAggChunk *cur = NULL;
	BufFile    *file = NULL;
	ValueShare	vs;
	MemoryContext old;
	instr_time	t0;

	/* where each participant can batch all the rows, past the limit is no error */
	bool		can_overflow = gpuhash_agg_join_rows_can_batch(as);
	bool		values = values_by_participants(as);

	if (j->pages != NULL && j->pages->shared)
	{
		walk_share(as);
		return;
	}
	INSTR_TIME_SET_CURRENT(t0);
	memset(&vs, 0, sizeof(vs));
	if (values)
	{
		vs.cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuPreAgg dimension values",
									   ALLOCSET_DEFAULT_SIZES);
		vs.ncols = as->aprog->join.ninner;
		old = MemoryContextSwitchTo(vs.cxt);
		initStringInfo(&vs.heap);
		MemoryContextSwitchTo(old);
	}
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(j->inner_ps);
		MinimalTuple mt;
		bool		should_free;
		uint64		key;
		Size		need;
		bool		ok;
		char	   *e;

		if (TupIsNull(slot))
			break;
		j->inner_rows++;
		econtext->ecxt_innertuple = slot;
		ok = gpuhash_agg_join_inner_key(j, econtext, &key);
		ResetExprContext(econtext);
		if (!ok)
		{
			/* a NULL key joins nothing; a preserved side keeps the row, here */
			gpuhash_agg_outer_keep_null(j, slot);
			continue;
		}
		mt = ExecFetchSlotMinimalTuple(slot, &should_free);
		need = ENTRY_BYTES(mt);
		if (file == NULL && (cur == NULL || cur->used + need > cur->size))
		{
			Size		size = Max(GAJ_CHUNK_BYTES, need);

			if (cur != NULL)
				publish_chunk(j, cur_dp, cur);
			cur = NULL;
			if (!can_overflow)
				charge_bytes(sh, size);
			else if (pg_atomic_read_u32(&sh->overflow) != 0 || !try_charge(sh, size))
			{
				/* the limit is passed: this participant's rows go to its file */
				char		name[MAXPGPATH];

				pg_atomic_write_u32(&sh->overflow, 1);
				file_name(name, ParallelWorkerNumber + 1);
				file = BufFileCreateFileSet(&sh->fileset.fs, name);
			}
		}
		if (file != NULL)
		{
			gpuhash_agg_join_write_row(file, key, mt);
			if (should_free)
				pfree(mt);
			CHECK_FOR_INTERRUPTS();
			continue;
		}
		if (cur == NULL)
		{
			Size		size = Max(GAJ_CHUNK_BYTES, need);

			cur_dp = dsa_allocate_extended(j->dsa, MAXALIGN(sizeof(GpuAggChunk)) + size,
										   DSA_ALLOC_HUGE);
			cur = dsa_get_address(j->dsa, cur_dp);
			cur->next = InvalidDsaPointer;
			cur->nrows = 0;
			cur->used = 0;
			cur->size = size;
		}
		e = CHUNK_DATA(cur) + cur->used;
		memcpy(e, &key, sizeof(uint64));
		memcpy(e + sizeof(uint64), mt, mt->t_len);
		cur->used += need;
		cur->nrows++;
		if (should_free)
			pfree(mt);
		/* past the limit (here or elsewhere) there are batches: no values */
		if (values && pg_atomic_read_u32(&sh->overflow) != 0)
		{
			values = false;
			MemoryContextReset(vs.cxt);
			vs.n = 0;
		}
		if (values)
			value_share_add(as, &vs, key, (MinimalTuple) (e + sizeof(uint64)));
		CHECK_FOR_INTERRUPTS();
	}
	if (cur != NULL)
		publish_chunk(j, cur_dp, cur);
	if (values)
	{
		ExecClearTuple(j->row_slot);
		if (vs.n > 0)
			publish_share(j, true, vs.keys, vs.vals, vs.ncols, &vs.heap, vs.n);
	}
	if (vs.cxt != NULL)
		MemoryContextDelete(vs.cxt);
	j->collect_ms += gpuhash_ms_since(t0);
	/* read-only for the others once COLLECT is over */
	if (file != NULL)
	{
		BufFileExportFileSet(file);
		BufFileClose(file);
	}
}

/*
 * GAJ_DIM_BATCHES: every participant's rows, the chunks' and every file's,
 * into this participant's own batches; its first batch becomes its own
 * dimension, and it walks the blocks it is handed once a batch.
 */
static void
load_batched(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinShared *sh = j->shared;
	Size		limit = get_hash_memory_limit();
	uint64		key;
	MinimalTuple tup,
				mt;
	ChunkRows	it;

	chunk_rows_begin(&it, j);
	while (chunk_rows_next(&it, &key, &mt))
	{
		tup = MemoryContextAlloc(j->rows_cxt, mt->t_len);
		memcpy(tup, mt, mt->t_len);
		gpuhash_agg_join_batch_tuple(j, key, tup, limit);
	}
	for (int p = 0; p < sh->nparticipants; p++)
	{
		char		name[MAXPGPATH];
		BufFile    *f;

		file_name(name, p);
		f = BufFileOpenFileSet(&sh->fileset.fs, name, O_RDONLY, true);
		if (f == NULL)
			continue;
		while (gpuhash_agg_join_read_row(f, j->rows_cxt, &key, &tup))
		{
			gpuhash_agg_join_batch_tuple(j, key, tup, limit);
			CHECK_FOR_INTERRUPTS();
		}
		BufFileClose(f);
	}
	j->shared_batched = true;
	j->rows_loaded = true;
	j->rows_sorted = false;
	/* the walks again read the blocks this participant is handed */
	if (j->batches != NULL)
		gpuhash_heap_scan_keep_blocks(as->os);
	if (as->why_cpu == NULL && as->aprog != NULL)
		(void) gpuhash_agg_join_build(as, MyProcPid, true, true);
}

/* Every participant's rows, pointing into the chunks (sorted at the CPU join's first need). */
void
gpuhash_agg_join_par_load(GpuAggJoin *j)
{
	GpuAggJoinShared *sh = j->shared;
	MemoryContext old;
	uint64		k = 0;
	uint64		key;
	MinimalTuple mt;
	ChunkRows	it;

	/* a dimension from pages: the table's rows at the CPU join's need */
	if (j->rows_loaded || sh == NULL || (j->pages != NULL && j->pages->shared))
		return;
	old = MemoryContextSwitchTo(j->rows_cxt);
	j->rows = palloc_extended(sizeof(GpuAggInnerRow) * Max(sh->nrows, 1), MCXT_ALLOC_HUGE);
	chunk_rows_begin(&it, j);
	for (; chunk_rows_next(&it, &key, &mt); k++)
	{
		if (k >= sh->nrows)
			continue;			/* counted: more rows than the count is an error below */
		j->rows[k].key = key;
		j->rows[k].tup = mt;
	}
	MemoryContextSwitchTo(old);
	if (k != sh->nrows)
		elog(ERROR, "gpuhash: the shared inner rows count " UINT64_FORMAT ", not " UINT64_FORMAT,
			 k, sh->nrows);
	j->nrows = j->cap = k;
	j->rows_sorted = false;
	j->rows_loaded = true;
	/* an outer join: every participant in the builder's order (agg_join.c) */
	if (j->preserve_inner)
		gpuhash_agg_join_sort(j);
}

/*
 * The elected participant: the one dimension, or word that there is none.
 * Whatever it publishes, the values' shares go before the others go on:
 * the service holds its copy of them, or no one builds from them (past the
 * limit each participant batches the rows, and where the service does not
 * take the dimension each builds its own of the rows, as before the
 * shares; that is rare and leaves no uncharged copy in the DSA).
 */
static void
build_shared(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinShared *sh = j->shared;

	sh->dim_kind = GAJ_DIM_NONE;
	if (pg_atomic_read_u32(&sh->overflow) != 0)
		sh->dim_kind = GAJ_DIM_BATCHES;
	else if (as->why_cpu == NULL && as->aprog != NULL)
		publish_built(as);
	free_value_shares(sh, j->dsa);
}

/* build_shared's dimension: in the service (GAJ_DIM_SERVICE), else GAJ_DIM_LOCAL. */
static void
publish_built(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinShared *sh = j->shared;
	bool		built;

	if (j->pages != NULL && j->pages->shared)
		built = build_from_shares(as, false, sh->leader_pid, true, false);
	else if (values_complete(as))
		built = build_from_shares(as, true, sh->leader_pid, true, false);
	else
	{
		gpuhash_agg_join_par_load(j);
		built = gpuhash_agg_join_build(as, sh->leader_pid, true, false);
	}
	if (built)
	{
		sh->dim_id = j->dim_id;
		sh->dim_bytes = j->dim_bytes;
		sh->dim_on_host = j->dim_where != NULL && strcmp(j->dim_where, "host") == 0;
		sh->dim_kind = GAJ_DIM_SERVICE;
		j->dim_shared = true;
	}
	else
		sh->dim_kind = GAJ_DIM_LOCAL;
}

/*
 * The protocol (the file's comment), at the participant's first fetch,
 * before any of its rows goes up.
 */
void
gpuhash_agg_join_par_collect(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	GpuAggJoinShared *sh = j->shared;
	instr_time	t0;
	int			phase;

	INSTR_TIME_SET_CURRENT(t0);
	/* from pages: every participant walks a share of the inner table's blocks */
	if (j->pages != NULL && gpuhash_agg_join_pages_active(as))
		j->pages->used = j->pages->shared = true;
	phase = BarrierAttach(&sh->barrier);
	if (phase == GAJ_PHASE_COLLECT)
	{
		collect_share(as);
		if (BarrierArriveAndWait(&sh->barrier, PG_WAIT_EXTENSION))
			build_shared(as);
		phase = GAJ_PHASE_BUILD;
	}
	if (phase == GAJ_PHASE_BUILD)
		(void) BarrierArriveAndWait(&sh->barrier, PG_WAIT_EXTENSION);
	BarrierDetach(&sh->barrier);
	j->collected = true;
	/* every walk is over (the barrier passed COLLECT): the totals are final */
	if (j->pages != NULL && j->pages->shared)
	{
		j->pages->all_pages += pg_atomic_read_u64(&sh->pages_walked);
		j->pages->walkers = pg_atomic_read_u32(&sh->walkers);
	}
	j->build_ms += gpuhash_ms_since(t0);

	switch (sh->dim_kind)
	{
		case GAJ_DIM_SERVICE:
			if (!j->dim_shared)
			{
				j->dim_id = sh->dim_id;
				j->dim_shared = true;
				j->dim_bytes = sh->dim_bytes;
				j->dim_where = sh->dim_on_host ? "host" : "gpu";
			}
			break;
		case GAJ_DIM_LOCAL:
			if (as->why_cpu == NULL && as->aprog != NULL && j->pages != NULL &&
				j->pages->shared)
				(void) build_from_shares(as, false, MyProcPid, false, true);
			else if (as->why_cpu == NULL && as->aprog != NULL)
			{
				gpuhash_agg_join_par_load(j);
				(void) gpuhash_agg_join_build(as, MyProcPid, false, true);
			}
			break;
		case GAJ_DIM_BATCHES:
			load_batched(as);
			break;
		default:
			if (as->why_cpu == NULL)
				as->why_cpu = "the join's shared dimension was not built";
			break;
	}
}
