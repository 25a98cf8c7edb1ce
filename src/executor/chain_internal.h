/*-------------------------------------------------------------------------
 *
 * chain_internal.h
 *	  A chain's state, shared by its three files: chain.c (which levels a
 *	  chain takes at ExecInit, the start of a scan, EXPLAIN), chain_probe.c
 *	  (outer batches, probe requests and the chain's state machine) and
 *	  chain_rows.c (forming the combinations' rows).  Nothing outside them
 *	  sees a GpuChain's fields.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_CHAIN_INTERNAL_H
#define GPUHASH_CHAIN_INTERNAL_H

#include "gpuhash.h"
#include "join_state.h"

typedef enum ChainPhase
{
	CH_START,					/* a scan starts: tables, fused or not */
	CH_UNFUSED,					/* the nodes run one by one this scan */
	CH_NEXT_BATCH,				/* the bottom's next outer batch */
	CH_REQUEST,					/* the next part of the batch probed */
	CH_EMIT,					/* its combinations formed into rows */
	CH_DONE
} ChainPhase;

typedef struct ChainLevel
{
	GpuJoinState *gs;
	gh_level_kind kind;
	/*
	 * The key, in parts by source: part q's key columns (mask: bit i for
	 * key column i) come from the outer rows (from_level -1, the chain's
	 * outer key column `column`) or from a lower level's rows (its carried
	 * column `column`).  More than one part only for exact keys, which pack
	 * so that the parts OR together (gh_chain_level).
	 */
	int			n_parts;
	gh_chain_key_part part[GH_CHAIN_KEY_PARTS];
	uint32		part_mask[GH_CHAIN_KEY_PARTS];
	int		   *src;			/* per key column, the source's kept column index
								 * (outer rows: bottom's outer_keep, or with its
								 * rows in pages, a heap column) */
	/* the key parts of upper levels this level's inner rows carry */
	int			n_carry;
	int			carry_for[GH_MAX_CHAIN_LEVELS];
	uint32		carry_mask[GH_MAX_CHAIN_LEVELS];
	uint64		carried_version;	/* the table they were set for (serial:
									 * its table_version) */
	/* the row formed last at this level, for the combination's prefix */
	bool		row_ok;
	TupleTableSlot *row;
	double		rows_out;		/* rows formed, not yet counted (EXPLAIN) */
} ChainLevel;

typedef struct GpuChain
{
	int			n;
	ChainLevel	lv[GH_MAX_CHAIN_LEVELS];
	gh_chain_level levels[GH_MAX_CHAIN_LEVELS];
	GpuTable   *tables[GH_MAX_CHAIN_LEVELS];
	/* columns of the outer keys: 0 the bottom's own key, then upper levels' parts */
	int			n_outer_cols;
	int			outer_col_level[GH_MAX_CHAIN_LEVELS];
	uint32		outer_col_mask[GH_MAX_CHAIN_LEVELS];

	ChainPhase	phase;
	const char *unfused_why;	/* the last scan that ran unfused: why */
	MemoryContext cxt;

	/* the batch: outer keys, column c at c * batch_cap */
	GpuProbeBatch *b;
	int			batch_cap;
	uint64	   *okeys;
	uint8	   *ovalid;
	/* a request: rows [lo, hi) of the batch, combinations [skip, skip + written) */
	int			req_rows;		/* rows a request takes at most */
	int			req_n;			/* ... and now: fewer where rows fan out */
	uint64	   *req_keys;
	uint8	   *req_valid;
	int			lo;
	int			hi;
	uint64		skip;
	uint64		total;
	uint64		written;
	uint64		cur;
	uint64		cap;			/* combinations a request returns at most */
	uint32	   *out_outer;
	uint32	   *out_pos;
	bool		read_ahead;		/* the bottom's next pages read while a
								 * request of this batch ran */
	/* the combination formed last */
	int64		last_outer;
	uint32		last_pos[GH_MAX_CHAIN_LEVELS];

	/* EXPLAIN ANALYZE */
	uint64		requests;
	uint64		combinations;
	uint64		fused_scans;
} GpuChain;

/* chain.c */
extern void gpuhash_chain_start(GpuChain *ch);

/* chain_rows.c */
extern TupleTableSlot *gpuhash_chain_emit(GpuChain *ch);
extern void gpuhash_chain_count_rows(GpuChain *ch, bool run);

#endif							/* GPUHASH_CHAIN_INTERNAL_H */
