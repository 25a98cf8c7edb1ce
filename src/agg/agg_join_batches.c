/*-------------------------------------------------------------------------
 *
 * agg_join_batches.c
 *	  The aggregate over a join whose inner side outgrows work_mem x
 *	  hash_mem_multiplier at run time (its estimate fit): the inner rows in
 *	  batches, as a hash join's, and a pass over the outer pages a batch.
 *
 * The inner plan runs to its end before any outer page is walked (agg_join.c),
 * so every inner row is known before the walk.  Past the limit the rows held
 * and the rest go to one temporary file; at its end they are split into
 * nbatch files by a hash of the packed key (not the dimension's own), nbatch
 * the power of two that gives each batch a share within the limit.  Batch 0
 * becomes the dimension; when the walk of the outer pages is over, the next
 * batch replaces it and the pages are walked again.  An outer row whose key
 * lies in another batch finds no inner row in this one and folds nothing;
 * it folds its pairs in the pass of its own batch, so every pair is folded
 * exactly once and the groups add up across the passes.  A batch beyond the
 * limit by itself (one key's rows) is the error it was.
 *
 * Only where a pass can walk the same outer rows again: a serial node (a
 * participant of a parallel plan is handed its blocks as it goes), one
 * dimension of the inner plan's rows (not a star, not made from pages), an
 * inner join (an outer join's unmatched rows are per batch: not built), and
 * groups folded in the backend (not resident on the device, not owned).
 * Elsewhere the limit raises the error as before.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join.h"

#include "common/hashfn.h"
#include "storage/buffile.h"
#include "utils/memutils.h"

typedef struct GpuAggJoinBatches
{
	BufFile    *spill;			/* every row, before the split */
	int			nbatch;
	int			cur;			/* the batch that is the dimension now */
	BufFile   **files;			/* a batch's rows, in rows_cxt's parent */
	uint64		rows;			/* written to spill */
	Size		bytes;
} GpuAggJoinBatches;

/* Can the node walk its outer rows again, a pass a batch? */
bool
gpuhash_agg_join_can_batch(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;

	return !as->css.ss.ps.plan->parallel_aware && j->ndims <= 1 && !j->preserve_inner &&
		j->pages == NULL && j->shared == NULL && as->res == NULL && as->exch == NULL;
}

static void
write_row(BufFile *f, uint64 key, MinimalTuple tup)
{
	BufFileWrite(f, &key, sizeof(key));
	BufFileWrite(f, tup, tup->t_len);
}

/* The next row of f into cxt, or false at its end. */
static bool
read_row(BufFile *f, MemoryContext cxt, uint64 *key, MinimalTuple *tup)
{
	size_t		n;
	uint32		len;
	MinimalTuple t;

	n = BufFileRead(f, key, sizeof(*key));
	if (n == 0)
		return false;
	if (n != sizeof(*key) || BufFileRead(f, &len, sizeof(len)) != sizeof(len))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("gpuhash: could not read from an inner batch's temporary file")));
	t = MemoryContextAlloc(cxt, len);
	t->t_len = len;
	if (BufFileRead(f, (char *) t + sizeof(len), len - sizeof(len)) != len - sizeof(len))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("gpuhash: could not read from an inner batch's temporary file")));
	*tup = t;
	return true;
}

/*
 * The rows held go to the spill file, and the memory they took with them;
 * every further row of the inner plan goes there too (spill_row).
 */
void
gpuhash_agg_join_spill_begin(GpuAggJoin *j)
{
	MemoryContext old = MemoryContextSwitchTo(MemoryContextGetParent(j->rows_cxt));
	GpuAggJoinBatches *b = palloc0(sizeof(GpuAggJoinBatches));

	b->spill = BufFileCreateTemp(false);
	MemoryContextSwitchTo(old);
	for (uint64 r = 0; r < j->nrows; r++)
		write_row(b->spill, j->rows[r].key, j->rows[r].tup);
	b->rows = j->nrows;
	b->bytes = j->bytes;
	j->batches = b;
	MemoryContextReset(j->rows_cxt);
	j->rows = NULL;
	j->nrows = j->cap = 0;
	j->bytes = 0;
}

/* A further inner row, after spill_begin. */
void
gpuhash_agg_join_spill_row(GpuAggJoin *j, uint64 key, TupleTableSlot *slot)
{
	GpuAggJoinBatches *b = j->batches;
	MinimalTuple tup = ExecCopySlotMinimalTuple(slot);

	write_row(b->spill, key, tup);
	b->rows++;
	b->bytes += tup->t_len + sizeof(GpuAggInnerRow);
	pfree(tup);
}

static int
batch_of(uint64 key, int nbatch)
{
	return (int) (hash_bytes_uint32((uint32) (key ^ (key >> 32))) & (uint32) (nbatch - 1));
}

/* Batch i's rows become the node's rows, within limit. */
static void
load_batch(GpuAggJoin *j, int i, Size limit)
{
	GpuAggJoinBatches *b = j->batches;
	uint64		key;
	MinimalTuple tup;

	if (BufFileSeek(b->files[i], 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("gpuhash: could not rewind an inner batch's temporary file")));
	while (read_row(b->files[i], j->rows_cxt, &key, &tup))
		gpuhash_agg_join_keep_tuple(j, key, tup, limit);
	BufFileClose(b->files[i]);
	b->files[i] = NULL;
	b->cur = i;
	j->rows_sorted = false;
}

/*
 * The inner plan is over: the spilled rows split into batches, each within
 * limit where its keys allow, and batch 0 loaded as the node's rows.
 */
void
gpuhash_agg_join_batches_split(GpuAggJoin *j, Size limit)
{
	GpuAggJoinBatches *b = j->batches;
	MemoryContext old;
	uint64		key;
	MinimalTuple tup;
	int			nbatch = 2;

	while ((double) b->bytes / nbatch > (double) limit * 0.75 && nbatch < (1 << 20))
		nbatch *= 2;
	old = MemoryContextSwitchTo(MemoryContextGetParent(j->rows_cxt));
	b->nbatch = nbatch;
	j->inner_batches = nbatch;
	b->files = palloc0(sizeof(BufFile *) * nbatch);
	for (int i = 0; i < nbatch; i++)
		b->files[i] = BufFileCreateTemp(false);
	MemoryContextSwitchTo(old);
	if (BufFileSeek(b->spill, 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("gpuhash: could not rewind the inner side's temporary file")));
	while (read_row(b->spill, j->rows_cxt, &key, &tup))
	{
		write_row(b->files[batch_of(key, nbatch)], key, tup);
		pfree(tup);
	}
	BufFileClose(b->spill);
	b->spill = NULL;
	load_batch(j, 0, limit);
}

/* Is a batch left to load? */
bool
gpuhash_agg_join_more_batches(GpuAggJoin *j)
{
	return j->batches != NULL && j->batches->cur + 1 < j->batches->nbatch;
}

/*
 * The next batch's rows as j's, within limit, the rows before and their
 * memory gone (more_batches said there is one).
 */
void
gpuhash_agg_join_load_next_batch(GpuAggJoin *j, Size limit)
{
	GpuAggJoinBatches *b = j->batches;

	MemoryContextReset(j->rows_cxt);
	j->rows = NULL;
	j->nrows = j->cap = 0;
	j->bytes = 0;
	load_batch(j, b->cur + 1, limit);
}

/* The temporary files closed: the node's end, a rescan, an error's cleanup. */
void
gpuhash_agg_join_batches_release(GpuAggJoin *j)
{
	GpuAggJoinBatches *b = j->batches;

	if (b == NULL)
		return;
	if (b->spill != NULL)
		BufFileClose(b->spill);
	for (int i = 0; i < b->nbatch; i++)
		if (b->files[i] != NULL)
			BufFileClose(b->files[i]);
	if (b->files != NULL)
		pfree(b->files);
	pfree(b);
	j->batches = NULL;
}
