/*-------------------------------------------------------------------------
 *
 * batch.c
 *	  Hash batches of a GpuHashJoin, as nodeHash.c makes them: when the
 *	  inner rows a join keeps outgrow its memory limit (work_mem x
 *	  hash_mem_multiplier, as PostgreSQL's own hash join), inner and outer
 *	  rows are split by key hash into nbatch batches.  Batch 0 stays in
 *	  memory; the rows of the others go to temporary files, and each batch
 *	  is then built and probed on its own.
 *
 *	  A spilled row is its 64-bit key, a flag word and the MinimalTuple of
 *	  the columns the join keeps of that side (none for count(*)).  A row
 *	  without a key (a right/full join's inner row with a NULL key, which
 *	  matches nothing but must come out once) carries a made-up key that
 *	  only places it in a batch.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "storage/buffile.h"
#include "utils/memutils.h"

/* flags of a spilled row */
#define SPILL_NOKEY	0x1

typedef struct SpillHeader
{
	uint64		key;
	uint32		flags;
	uint32		len;			/* MinimalTuple bytes that follow; 0: none */
} SpillHeader;

/*
 * A key's hash for placing it in a batch.  The table hashes the key with
 * the build's seed; a different mix here keeps a batch's keys spread over
 * the table.
 */
static inline uint64
batch_hash(uint64 key)
{
	uint64		h = key;

	h ^= h >> 33;
	h *= UINT64CONST(0xc4ceb9fe1a85ec53);
	h ^= h >> 29;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 32;
	return h;
}

/* The hash batch of a key: bits 20 and up of its hash. */
int
gpuhash_batch_of(uint64 key, int nbatch)
{
	if (nbatch <= 1)
		return 0;
	return (int) ((batch_hash(key) >> 20) & (uint64) (nbatch - 1));
}

/*
 * The shared batch of a key in a split parallel join (parallel_split.c):
 * bits 44 and up, apart from those of the hash batches a participant may
 * split its batch into further (at most GPUHASH_MAX_BATCHES, bits 20-35).
 */
int
gpuhash_split_batch_of(uint64 key, int nbatch)
{
	if (nbatch <= 1)
		return 0;
	return (int) ((batch_hash(key) >> 44) & (uint64) (nbatch - 1));
}

/*
 * The memory one join keeps: work_mem x hash_mem_multiplier, as a hash
 * join's.  The accounting charges each kept inner row its columns, its key
 * and its share of the join table, in the backend or in the GPU service.
 */
size_t
gpuhash_memory_limit(void)
{
	return get_hash_memory_limit();
}

/* What the planner expects rows of this width to take when kept. */
double
gpuhash_inner_bytes(double inner_rows, int inner_width)
{
	return Max(inner_rows, 1.0) * (MAXALIGN(inner_width) + GPUHASH_ROW_OVERHEAD);
}

/*
 * Will a parallel-aware join split into shared batches (parallel_split.c)?
 * The planner's estimate of the inner side against what its participants
 * (the outer side's parallel divisor) may keep together.
 */
bool
gpuhash_split_expected(double inner_rows, int inner_width, double participants)
{
	return gpuhash_inner_bytes(inner_rows, inner_width) >
		(double) gpuhash_memory_limit() * (participants + 1.0);
}

/* The first nbatch: the planner's estimate of the inner side over the limit. */
int
gpuhash_initial_nbatch(double inner_rows, int inner_width)
{
	double		bytes = gpuhash_inner_bytes(inner_rows, inner_width);
	double		limit = (double) gpuhash_memory_limit();
	int			nbatch = 1;

	while (nbatch < GPUHASH_MAX_BATCHES && bytes > limit * nbatch)
		nbatch <<= 1;
	return nbatch;
}

/* Room for nbatch files on each side. */
void
gpuhash_batch_files_grow(GpuJoinState *gs, int nbatch)
{
	MemoryContext old = MemoryContextSwitchTo(gs->cxt);

	if (gs->hb.inner_files == NULL)
	{
		gs->hb.inner_files = palloc0(sizeof(BufFile *) * nbatch);
		gs->hb.outer_files = palloc0(sizeof(BufFile *) * nbatch);
	}
	else if (nbatch > gs->hb.files_cap)
	{
		gs->hb.inner_files = repalloc(gs->hb.inner_files, sizeof(BufFile *) * nbatch);
		gs->hb.outer_files = repalloc(gs->hb.outer_files, sizeof(BufFile *) * nbatch);
		memset(gs->hb.inner_files + gs->hb.files_cap, 0, sizeof(BufFile *) * (nbatch - gs->hb.files_cap));
		memset(gs->hb.outer_files + gs->hb.files_cap, 0, sizeof(BufFile *) * (nbatch - gs->hb.files_cap));
	}
	gs->hb.files_cap = Max(gs->hb.files_cap, nbatch);
	MemoryContextSwitchTo(old);
}

/* Closes every batch file (end, rescan). */
void
gpuhash_batch_files_close(GpuJoinState *gs)
{
	for (int b = 0; b < gs->hb.files_cap; b++)
	{
		if (gs->hb.inner_files[b])
			BufFileClose(gs->hb.inner_files[b]);
		if (gs->hb.outer_files[b])
			BufFileClose(gs->hb.outer_files[b]);
		gs->hb.inner_files[b] = gs->hb.outer_files[b] = NULL;
	}
}

/*
 * Appends a row to *file, creating it first.  The files live as long as
 * the join (its memory context) and are removed at transaction end at the
 * latest, as every temporary file.
 */
void
gpuhash_spill_write(GpuJoinState *gs, BufFile **file, uint64 key, bool nokey,
					MinimalTuple tup)
{
	SpillHeader h;

	if (*file == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(gs->cxt);

		*file = BufFileCreateTemp(false);
		MemoryContextSwitchTo(old);
	}
	h.key = key;
	h.flags = nokey ? SPILL_NOKEY : 0;
	h.len = tup ? tup->t_len : 0;
	BufFileWrite(*file, &h, sizeof(h));
	if (tup)
		BufFileWrite(*file, tup, tup->t_len);
	gs->stats.spilled_rows++;
}

/*
 * The next row of a batch file, its tuple (if any) palloc'd in cxt; false
 * at the end of the file.
 */
bool
gpuhash_spill_read(BufFile *file, uint64 *key, bool *nokey, MinimalTuple *tup,
				   MemoryContext cxt)
{
	SpillHeader h;
	size_t		n;

	n = BufFileRead(file, &h, sizeof(h));
	if (n == 0)
		return false;
	if (n != sizeof(h))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("gpuhash: could not read from a hash batch file: read only %zu of %zu bytes",
						n, sizeof(h))));
	*key = h.key;
	*nokey = (h.flags & SPILL_NOKEY) != 0;
	*tup = NULL;
	if (h.len > 0)
	{
		*tup = MemoryContextAlloc(cxt, h.len);
		n = BufFileRead(file, *tup, h.len);
		if (n != h.len)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("gpuhash: could not read from a hash batch file: read only %zu of %u bytes",
							n, h.len)));
	}
	return true;
}

/* Back to the start of a batch file, to read it. */
void
gpuhash_spill_rewind(BufFile *file)
{
	if (BufFileSeek(file, 0, 0L, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("gpuhash: could not rewind a hash batch file")));
}

/*
 * The node's hash batches, set up with it.  Within work_mem x
 * hash_mem_multiplier, as a hash join: start with the batches the
 * planner's estimate calls for, split further when the real inner side
 * outgrows it.  A parallel-aware plan that gets its DSM shares one table
 * instead, or splits into shared batches (parallel.c turns this off); one
 * run without a parallel context is serial.
 */
void
gpuhash_batches_begin(GpuJoinState *gs, EState *estate)
{
	if (gs->inner_desc)
		gs->hb.inner_spill_slot = ExecInitExtraTupleSlot(estate, gs->inner_desc,
														 &TTSOpsMinimalTuple);
	gs->hb.spill_cxt = AllocSetContextCreate(gs->cxt, "GpuHashJoin spill",
											 ALLOCSET_DEFAULT_SIZES);
	gs->hb.can_batch = true;
	gs->hb.mem_limit = gpuhash_memory_limit();
	gs->nbatch = gpuhash_initial_nbatch(gs->inner_plan->plan_rows, gs->inner_plan->plan_width);
	gs->hb.grow_enabled = true;
	gpuhash_batch_files_grow(gs, gs->nbatch);
}

/* One batch, never more: a parallel-aware join's participants share. */
void
gpuhash_batches_off(GpuJoinState *gs)
{
	gs->hb.can_batch = false;
	gs->hb.grow_enabled = false;
	gs->nbatch = 1;
	gs->curbatch = 0;
}

/* One batch, free to split further: a split parallel join's shared batch. */
void
gpuhash_batches_serial(GpuJoinState *gs)
{
	gs->hb.can_batch = true;
	gs->hb.grow_enabled = true;
	gs->nbatch = 1;
	gs->curbatch = 0;
}

/* A rescan that rebuilds: from batch 0 again, its files gone. */
void
gpuhash_batches_rescan(GpuJoinState *gs)
{
	gpuhash_batch_files_close(gs);
	gs->curbatch = 0;
	gs->hb.grow_enabled = gs->hb.can_batch;
}

/* The next hash batch becomes the current one; the last one's files go. */
void
gpuhash_batches_advance(GpuJoinState *gs)
{
	int			prev = gs->curbatch++;

	if (gs->hb.inner_files[prev])
		BufFileClose(gs->hb.inner_files[prev]);
	if (gs->hb.outer_files[prev])
		BufFileClose(gs->hb.outer_files[prev]);
	gs->hb.inner_files[prev] = gs->hb.outer_files[prev] = NULL;
}

/* The current batch's inner rows are read: batch 0's with this many batches. */
void
gpuhash_batches_inner_start(GpuJoinState *gs)
{
	if (gs->curbatch == 0)
		gs->hb.nbatch_original = gs->nbatch;
}

/* Batch 0's outer rows are read next, and spilled for this many batches. */
void
gpuhash_batches_outer_start(GpuJoinState *gs)
{
	gs->hb.nbatch_outstart = gs->nbatch;
}

/*
 * Doubles the batches, when they may still grow (at most
 * GPUHASH_MAX_BATCHES); false when they may not.
 */
bool
gpuhash_batches_double(GpuJoinState *gs)
{
	if (!gs->hb.grow_enabled)
		return false;
	if (gs->nbatch >= GPUHASH_MAX_BATCHES)
	{
		gs->hb.grow_enabled = false;
		return false;
	}
	gs->nbatch *= 2;
	gpuhash_batch_files_grow(gs, gs->nbatch);
	gs->stats.hash_batches = Max(gs->stats.hash_batches, gs->nbatch);
	return true;
}

/* A split that moved all rows or none will not help: batches stop growing. */
void
gpuhash_batches_stop_growing(GpuJoinState *gs)
{
	gs->hb.grow_enabled = false;
}
