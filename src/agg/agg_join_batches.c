/*-------------------------------------------------------------------------
 *
 * agg_join_batches.c
 *	  The aggregate over a join whose inner side outgrows work_mem x
 *	  hash_mem_multiplier at run time (its estimate fit): the inner rows in
 *	  batches, as a hash join's, and a pass over the outer pages a batch.
 *
 * The inner plan runs to its end before any outer page is walked (agg_join.c),
 * so every inner row is known before the walk.  As nodeHash.c does, past the
 * limit the rows go to nbatch batches by a hash of the packed key (not the
 * dimension's own), nbatch a power of two doubled while the batch in memory
 * is over the limit: the rows of the batch in memory stay there, every other
 * row is written once to its batch's temporary file, and a doubling moves
 * the rows of memory (and, as each later batch is read, of its file) whose
 * batch the new bit changes to a later one.  Batch 0 becomes the dimension;
 * when the walk of the outer pages is over, the next batch replaces it and
 * the pages are walked again.  An outer row whose key lies in another batch
 * finds no inner row in this one and folds nothing; it folds its pairs in
 * the pass of its own batch, so every pair is folded exactly once and the
 * groups add up across the passes.  Where a doubling cannot move the rows
 * in memory apart (one key's rows, or keys whose hashes agree), that batch
 * goes over the limit and the batches double no more, as a hash join's do
 * (nodeHash.c turns growEnabled off).
 *
 * Only where a pass can walk the same outer rows again: a serial node, or
 * a participant of a parallel plan with a dimension of its own (it walks
 * again the blocks it was handed in its first walk; where the participants
 * shared one, each reads all the rows into batches of its own,
 * agg_join_par.c), dimensions of the inner plans' rows (one being made from
 * pages gives them up and runs the plan, agg_join_pages.c; of a star, the
 * one that held the most when the limit was passed),
 * an inner join (an outer join's unmatched rows are per batch: not built).
 * With carried columns, each pass's groups go up at its end, while its
 * batch's rows are there to carry from (agg_join_carry.c).
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
	int			nbatch;			/* a power of two */
	int			cur;			/* the batch in memory (the dimension) */
	bool		growth_off;		/* a doubling could not move its rows apart */
	BufFile   **files;			/* the others' rows, in rows_cxt's parent;
								 * NULL until one is written */
} GpuAggJoinBatches;

/*
 * Can the node walk its outer rows again, a pass a batch?  A participant of
 * a parallel plan with a dimension of its own walks again the blocks it was
 * handed (heap_scan.c keeps them); its dimension holds every inner row, so
 * its passes fold each of its pairs once, whatever the others do.  Groups
 * resident in the service add up across the passes as in the backend: a
 * participant arrives at the end of the walks (agg_resident.c) after its
 * last pass, and the set is read only then.  So do owned groups
 * (agg_exchange.c): the rows a participant folds beside the set in any
 * pass go to the exchange, and the owners read set and exchange after the
 * last pass of every participant.
 */
bool
gpuhash_agg_join_can_batch(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;

	return gpuhash_agg_join_rows_can_batch(as) && (j->shared == NULL || j->shared_batched);
}

/*
 * The same whoever holds the rows: an inner join of the plan's rows (not
 * from pages).  A shared dimension's COLLECT asks this
 * before its rows are each participant's (agg_join_par.c).
 */
bool
gpuhash_agg_join_rows_can_batch(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;

	return gpuhash_agg_join_batchable(as) &&
		(j->pages == NULL || gpuhash_agg_join_pages_given_up(j));
}

/* A row to f: its packed key, then its minimal tuple. */
void
gpuhash_agg_join_write_row(BufFile *f, uint64 key, MinimalTuple tup)
{
	BufFileWrite(f, &key, sizeof(key));
	BufFileWrite(f, tup, tup->t_len);
}

/* The next row of f into cxt, or false at its end. */
bool
gpuhash_agg_join_read_row(BufFile *f, MemoryContext cxt, uint64 *key, MinimalTuple *tup)
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
				 errmsg("gpuhash: could not read from an inner side's temporary file")));
	t = MemoryContextAlloc(cxt, len);
	t->t_len = len;
	if (BufFileRead(f, (char *) t + sizeof(len), len - sizeof(len)) != len - sizeof(len))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("gpuhash: could not read from an inner side's temporary file")));
	*tup = t;
	return true;
}

static int
batch_of(uint64 key, int nbatch)
{
	return (int) (hash_bytes_uint32((uint32) (key ^ (key >> 32))) & (uint32) (nbatch - 1));
}

/* A row of batch i (not the one in memory) to its file. */
static void
to_file(GpuAggJoin *j, int i, uint64 key, MinimalTuple tup)
{
	GpuAggJoinBatches *b = j->batches;

	if (b->files[i] == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(MemoryContextGetParent(j->rows_cxt));

		b->files[i] = BufFileCreateTemp(false);
		MemoryContextSwitchTo(old);
	}
	gpuhash_agg_join_write_row(b->files[i], key, tup);
}

/*
 * Twice the batches: the rows in memory whose batch is now a later one go
 * to its file, their memory with them.  Where that moved none of them or
 * all (one key's rows, or keys whose hashes agree), no doubling will:
 * growth goes off, as nodeHash.c decides after a doubling, so the rows of
 * other keys still go to the batches made so far.
 */
static void
grow(GpuAggJoin *j)
{
	GpuAggJoinBatches *b = j->batches;
	uint64		kept = 0,
				before = j->nrows;

	if (b->nbatch >= (1 << 20))
	{
		b->growth_off = true;
		return;
	}
	b->nbatch *= 2;
	b->files = repalloc(b->files, sizeof(BufFile *) * b->nbatch);
	memset(b->files + b->nbatch / 2, 0, sizeof(BufFile *) * (b->nbatch / 2));
	for (uint64 r = 0; r < j->nrows; r++)
	{
		GpuAggInnerRow row = j->rows[r];
		int			i = batch_of(row.key, b->nbatch);

		if (i == b->cur)
			j->rows[kept++] = row;
		else
		{
			to_file(j, i, row.key, row.tup);
			j->bytes -= row.tup->t_len + sizeof(GpuAggInnerRow);
			pfree(row.tup);
		}
	}
	j->nrows = kept;
	j->inner_batches = b->nbatch;
	if (kept == 0 || kept == before)
		b->growth_off = true;
}

/* The batches doubled while the batch in memory is over limit and they may. */
static void
fit(GpuAggJoin *j, Size limit)
{
	while (j->bytes > limit && !j->batches->growth_off)
		grow(j);
}

/* A row of the batch in memory, kept there; the batches doubled past limit. */
static void
keep(GpuAggJoin *j, uint64 key, MinimalTuple tup, Size limit)
{
	gpuhash_agg_join_keep_tuple(j, key, tup, SIZE_MAX);
	fit(j, limit);
}

/*
 * The rows held passed limit: from here on they are in batches, batch 0 in
 * memory, each other row in its batch's file (batch_row).
 */
void
gpuhash_agg_join_batches_begin(GpuAggJoin *j, Size limit)
{
	MemoryContext old = MemoryContextSwitchTo(MemoryContextGetParent(j->rows_cxt));
	GpuAggJoinBatches *b = palloc0(sizeof(GpuAggJoinBatches));

	b->nbatch = 1;
	b->files = palloc0(sizeof(BufFile *));
	MemoryContextSwitchTo(old);
	j->batches = b;
	fit(j, limit);
}

/*
 * j's rows in memory within limit (as far as doublings split them), in
 * batches from here on if they were not
 * (a star's dimension, whose share of the limit shrinks as the others
 * grow, agg_star.c).
 */
void
gpuhash_agg_join_batches_fit(GpuAggJoin *j, Size limit)
{
	if (j->batches == NULL)
		gpuhash_agg_join_batches_begin(j, limit);
	fit(j, limit);
}

/* A further inner row, after batches_begin: kept, or to its batch's file. */
void
gpuhash_agg_join_batch_row(GpuAggJoin *j, uint64 key, TupleTableSlot *slot, Size limit)
{
	GpuAggJoinBatches *b = j->batches;
	int			i = batch_of(key, b->nbatch);

	if (i == b->cur)
		gpuhash_agg_join_keep_row(j, key, slot, SIZE_MAX);
	else
	{
		MinimalTuple tup = ExecCopySlotMinimalTuple(slot);

		to_file(j, i, key, tup);
		pfree(tup);
	}
	fit(j, limit);
}

/*
 * An inner row whose tuple is in rows_cxt already, within limit: kept, and
 * past the limit in batches, as collect_rows' rows are (a shared
 * dimension's rows read back by each participant, agg_join_par.c).
 */
void
gpuhash_agg_join_batch_tuple(GpuAggJoin *j, uint64 key, MinimalTuple tup, Size limit)
{
	GpuAggJoinBatches *b = j->batches;
	int			i;

	if (b == NULL)
	{
		gpuhash_agg_join_keep_tuple(j, key, tup, SIZE_MAX);
		if (j->bytes > limit)
			gpuhash_agg_join_batches_begin(j, limit);
		return;
	}
	i = batch_of(key, b->nbatch);
	if (i == b->cur)
		keep(j, key, tup, limit);
	else
	{
		to_file(j, i, key, tup);
		pfree(tup);
	}
}

/* The first later batch with a file, -1 if none. */
static int
next_with_rows(const GpuAggJoinBatches *b)
{
	for (int i = b->cur + 1; i < b->nbatch; i++)
		if (b->files[i] != NULL)
			return i;
	return -1;
}

/*
 * Is a batch with rows left to load?  Rows only move on to later batches,
 * and every earlier file has been read, so a later batch without a file
 * has no row: its pass over the outer pages (an inner join's, folding
 * nothing) is skipped, as nodeHashjoin.c skips an empty batch.
 */
bool
gpuhash_agg_join_more_batches(GpuAggJoin *j)
{
	return j->batches != NULL && next_with_rows(j->batches) >= 0;
}

/*
 * The next batch's rows as j's, within limit, the rows before and their
 * memory gone (more_batches said there is one).  A row written before the
 * batches last doubled may belong to a later batch now: it moves on to it.
 */
void
gpuhash_agg_join_load_next_batch(GpuAggJoin *j, Size limit)
{
	GpuAggJoinBatches *b = j->batches;
	BufFile    *f;
	int			next;
	uint64		key;
	MinimalTuple tup;

	MemoryContextReset(j->rows_cxt);
	j->rows = NULL;
	j->nrows = j->cap = 0;
	j->bytes = 0;
	j->rows_sorted = false;
	/* the next batch with rows (more_batches said there is one) */
	if ((next = next_with_rows(b)) < 0)
		elog(ERROR, "gpuhash: no inner batch with rows left to load");
	b->cur = next;
	f = b->files[b->cur];
	b->files[b->cur] = NULL;
	if (BufFileSeek(f, 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("gpuhash: could not rewind an inner batch's temporary file")));
	while (gpuhash_agg_join_read_row(f, j->rows_cxt, &key, &tup))
	{
		int			i = batch_of(key, b->nbatch);

		if (i == b->cur)
			keep(j, key, tup, limit);
		else
		{
			to_file(j, i, key, tup);
			pfree(tup);
		}
	}
	BufFileClose(f);
}

/* The temporary files closed: the node's end, a rescan, an error's cleanup. */
void
gpuhash_agg_join_batches_release(GpuAggJoin *j)
{
	GpuAggJoinBatches *b = j->batches;

	if (b == NULL)
		return;
	for (int i = 0; i < b->nbatch; i++)
		if (b->files[i] != NULL)
			BufFileClose(b->files[i]);
	if (b->files != NULL)
		pfree(b->files);
	pfree(b);
	j->batches = NULL;
}
