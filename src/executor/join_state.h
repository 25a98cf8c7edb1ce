/*-------------------------------------------------------------------------
 *
 * join_state.h
 *	  The executor state of a GpuHashJoin, shared by the files of the node.
 *	  Each part has one owner that sets it (ARCHITECTURE.md, "The node's
 *	  state by owner"; scripts/state_owners.py counts what bypasses one):
 *	  the key filter (kf, keyfilter.c), the hash batches (hb, batch.c), the
 *	  state machine (step, executor.c), the inner store, the join table,
 *	  the probe pipeline, the chain and parallel coordination.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_JOIN_STATE_H
#define GPUHASH_JOIN_STATE_H

#include "gpuhash.h"

#include "access/htup.h"
#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "access/parallel.h"
#include "nodes/plannodes.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"
#include "storage/buffile.h"
#include "port/atomics.h"
#include "storage/barrier.h"
#include "storage/condition_variable.h"
#include "storage/sharedfileset.h"
#include "storage/spin.h"
#include "utils/dsa.h"

struct GpuJoinShared;
struct GpuChain;
struct GpuSplit;

typedef struct GpuKeyEval
{
	ExprState  *state;			/* NULL when the key is a plain column */
	AttrNumber	attno;			/* the column, when plain */
	FmgrInfo	hashfn;			/* fingerprint keys: the side's extended hash */
} GpuKeyEval;

/*
 * Where the node is in its join: exec_gpu_join (executor.c) takes one step
 * of this state machine per turn, as ExecHashJoinImpl does.
 *
 *   BUILD -> NEED_BATCH -> NEXT_OUTER -> SCAN_RANGE -> (FILL_OUTER) -> NEXT_OUTER ...
 *   NEED_BATCH, outer side done -> (FILL_INNER) -> NEW_BATCH -> NEED_BATCH ... -> DONE
 *   A parallel join split at run time (parallel_split.c):
 *   BUILD -> SPLIT_OUTER -> NEXT_SPLIT -> NEED_BATCH ... -> NEXT_SPLIT ... -> DONE
 */
typedef enum GpuJoinPhase
{
	GJ_BUILD,					/* a scan starts: gate, first outer row, table */
	GJ_NEED_BATCH,				/* read and probe the next outer batch */
	GJ_NEXT_OUTER,				/* the batch's next outer row */
	GJ_SCAN_RANGE,				/* that row against its inner range */
	GJ_FILL_OUTER,				/* left/full/anti: the row had no match */
	GJ_FILL_INNER,				/* right/full: the unmatched inner rows */
	GJ_NEW_BATCH,				/* on to the next hash batch (batch.c) */
	GJ_SPLIT_OUTER,				/* split: the outer rows to the shared batches */
	GJ_NEXT_SPLIT,				/* split: claim and build a shared batch */
	GJ_DONE
} GpuJoinPhase;

/* A side's Seq Scan, absorbed into the join (heap_scan.c). */
typedef enum GpuScanNext
{
	OS_TUPLE,					/* a tuple that passed the scan's quals */
	OS_BATCH_FULL,				/* the batch holds all the pins it may */
	OS_END
} GpuScanNext;

/* An absorbed scan's quals evaluated in place (scan_filter.c) */
typedef struct GpuScanFilter GpuScanFilter;

typedef struct GpuHeapScan
{
	Relation	rel;
	TupleDesc	desc;			/* the relation's */
	Snapshot	snapshot;
	bool		parallel;		/* a Parallel Seq Scan: blocks from the DSM */
	struct TableScanDescData *scan;	/* heapam, page mode */
	GpuScanFilter *filter;		/* the quals' leading clauses, in place */
	ExprState  *qual;			/* the others, over slot */
	List	   *qual_list;		/* ... as a list (gpuhash_heap_qual_share) */
	TupleTableSlot *slot;		/* a tuple for quals and late deforming */
	AttrNumber *attno;			/* the plan's column j: this column */
	int		   *heap_keep;		/* the side's keep[k]'s column, 0-based */
	bool		keep_rows;		/* outer: the join emits its columns: pin pages */
	int			max_pins;		/* pages one probe batch may pin */
	bool		page_pinned;	/* the filling batch pinned the current page */
	BlockNumber next_block;		/* serial: the next block to read */
	bool		started;
	bool		done;
	int			index;			/* next visible tuple of the current page */
	int			ntuples;
	HeapTupleData tup;			/* the tuple handed out last */
	bool		pending;		/* ... to be handed out again */
	int			max_keep;		/* columns to deform for the kept ones */
	/*
	 * One exact key that is a plain column after fixed-width columns only:
	 * its offset in a tuple without NULLs, read with no call per tuple
	 * (gpuhash_heap_key_fast); -1 where there is none.
	 */
	int			fast_key_off;
	AttrNumber	fast_key_attno;
	int16		fast_key_len;
	bool		fast_key_byval;
	GpuKeyConv	fast_key_conv;
	int64		slot_row;		/* the batch row slot holds, deformed; or -1 */
	bool		stop_at_page_end;	/* the page path reads on (page_scan.c) */
	struct GpuProbeBatch *filling;	/* the batch that takes tuples' pins */
	/* a participant's blocks kept, to walk them again (heap_scan.c) */
	BlockNumber *walked;
	uint64		nwalked;
	uint64		walked_cap;
	uint64		replay_pos;
	bool		recording;
	bool		replaying;
	/* EXPLAIN ANALYZE */
	uint64		pages;
	uint64		filtered;
	bool		timed;			/* EXPLAIN ANALYZE with timing: page_ms kept */
	double		page_ms;		/* getting pages: pins, visibility (heapam) */
} GpuHeapScan;

/*
 * The kept inner rows of a parallel-aware join, in the query's DSA
 * (shared_inner.c), inside the shared state of parallel.c.
 */
typedef struct SharedInner
{
	int			max_chunks;
	int			n_chunks;		/* (under the shared state's lock) */
	dsa_pointer chunks;			/* all readers: a share per participant */
	dsa_pointer rows;			/* one reader: MinimalTuples, back to back */
	dsa_pointer rowptrs;		/* dsa_pointer per key-grouped position */
	dsa_pointer matched;		/* right/full: pg_atomic_uint32 per 32 rows */
	dsa_pointer kf;				/* the key filter's words, or invalid */
	uint64		kf_nwords;
	dsa_pointer carried;		/* a chain's carried keys in table order:
								 * uint64 per column and row, then a valid
								 * byte each (chain.c), or invalid */
	/* the rows laid out in table order by all participants (shared_inner.c) */
	dsa_pointer order;			/* uint32 per keyed row: its row in the shares */
	uint64		layout_n;		/* positions to lay out; 0: none */
	int			layout_m;		/* carried columns among them */
	pg_atomic_uint64 layout_next;	/* the next position not yet claimed */
	pg_atomic_uint64 kf_fill_next;	/* the next share key (in share order)
									 * not yet added to kf */
} SharedInner;

/*
 * A parallel-aware join whose inner side outgrew the memory of all its
 * participants at run time is split (parallel_split.c): inner and outer
 * rows go by key hash to shared batch files, and each batch is then joined
 * whole by one participant.  This part lives in parallel.c's shared state.
 */
typedef struct GpuSplitShared
{
	SharedFileSet fileset;		/* the batches' files, deleted at the last detach */
	int			participants;	/* planned: the workers and the leader */
	size_t		mem_limit;		/* the kept inner rows of all participants */
	pg_atomic_uint64 inner_bytes;	/* ... as reported so far */
	pg_atomic_uint32 state;		/* SPLIT_NONE, SPLIT_STARTING, SPLIT_READY */
	ConditionVariable cv;		/* SPLIT_READY reached */
	int			nbatch;			/* set before SPLIT_READY */
	dsa_pointer stores;			/* SharedTuplestores: nbatch inner, nbatch outer */
	dsa_pointer counts;			/* pg_atomic_uint64 rows written to each */
	Barrier		barrier;		/* outer rows written by all, then batches joined */
	pg_atomic_uint32 next_batch;	/* the next batch to claim */
	/* summed over participants for EXPLAIN ANALYZE (under mutex) */
	slock_t		mutex;
	GpuJoinStats sums;
} GpuSplitShared;

/*
 * One probe batch: up to batch_cap outer rows of the current hash batch,
 * their keys and, once probed, their ranges.  The node keeps
 * GPUHASH_PIPELINE of them: while one is emitted, the next is probed.  A
 * chain's bottom that reads pages keeps one more (GPUHASH_PIPELINE_MAX),
 * read while the chain's request for the batch before it runs
 * (chain_probe.c), so that two walks are in flight while the CPU waits.
 */
#define GPUHASH_PIPELINE 2
#define GPUHASH_PIPELINE_MAX 3

/* Batches a participant may read past the ring during a parallel build */
#define GPUHASH_MAX_PREFILL 64

typedef enum GpuBatchState
{
	PB_FREE,					/* nothing in it */
	PB_PREFILLED,				/* rows read before the table was built */
	PB_FILLED,					/* rows, not probed yet */
	PB_IN_FLIGHT,				/* its probe submitted to the service */
	PB_READY					/* ranges in: being emitted */
} GpuBatchState;

typedef struct GpuProbeBatch
{
	GpuBatchState state;
	MemoryContext cxt;			/* rows read back from a batch file, copies */
	Datum	   *vals;			/* batch_cap x n_outer_keep */
	bool	   *nulls;
	HeapTupleData *tups;		/* absorbed scan: the rows, in pinned pages */
	uint64	   *keys;
	bool	   *nokey;			/* a NULL key: no match (kept to fill outer) */
	gh_range   *ranges;
	int			room;			/* rows tups (where set), keys, nokey and ranges hold */
	int			n;
	bool		any_key;
	Buffer	   *pins;			/* absorbed scan: the pages of its rows */
	int			n_pins;
	GhProbeTicket ticket;		/* PB_IN_FLIGHT */
	struct GpuPageReq *preq;	/* filled from pages (page_scan.c); or NULL */
} GpuProbeBatch;

/*
 * The Bloom filter of the table's keys (keyfilter.c owns it: the other
 * files set it through keyfilter.h's functions).
 */
typedef struct GpuKeyFilter
{
	uint64	   *words;			/* NULL: none */
	uint64		nwords;
	uint64		tested;			/* outer keys tested in this scan */
	uint64		passed;			/* ... and let through */
} GpuKeyFilter;

/*
 * Where the state machine is (executor.c owns it, with the scan's start and
 * end in scan_start.c): the phase, and the outer row being emitted.
 */
typedef struct GpuJoinStep
{
	GpuJoinPhase phase;
	int			cur;			/* current outer row in the batch */
	uint32		cur_match;		/* next match of that row */
	bool		cur_matched;	/* that row passed the join filter once */
	uint64		fill_pos;		/* next inner row of GJ_FILL_INNER */
	uint64		fill_end;		/* ... and the end of the rows it fills: all,
								 * or a claimed chunk of a shared fill */
	bool		fill_shared;	/* the participants fill chunks of the table */
} GpuJoinStep;

/* Hash batches of a serial join (batch.c owns them). */
typedef struct GpuHashBatches
{
	bool		can_batch;		/* serial plans only */
	int			nbatch_original;	/* nbatch when batch 0's inner rows began */
	int			nbatch_outstart;	/* nbatch when its outer rows began */
	bool		grow_enabled;	/* splitting still moves rows */
	size_t		mem_limit;		/* bytes the kept inner rows may take */
	BufFile   **inner_files;	/* per batch; NULL: no row */
	BufFile   **outer_files;
	int			files_cap;
	TupleTableSlot *inner_spill_slot;	/* a spilled inner row, read back */
	MemoryContext spill_cxt;	/* the spilled row being read back */
} GpuHashBatches;

typedef struct GpuJoinState
{
	CustomScanState css;

	GpuJoinPlanInfo info;
	PlanState  *outer_ps;		/* NULL when the outer scan is absorbed */
	GpuHeapScan *oscan;			/* ... into this; NULL otherwise */
	PlanState  *inner_ps;		/* NULL when the inner scan is absorbed */
	GpuHeapScan *iscan;			/* ... into this; NULL otherwise */
	Plan	   *inner_plan;		/* the inner plan, run or absorbed */
	int			n_outer_cols;	/* columns of each side in the scan tuple */
	int			n_inner_cols;
	/* the columns the join filter and target list read: only these are kept */
	int		   *outer_keep;
	int			n_outer_keep;
	int		   *inner_keep;
	int			n_inner_keep;
	GpuKeyEval *outer_keys;
	GpuKeyEval *inner_keys;
	bool		outer_keys_plain;	/* every outer key a plain column */
	bool		inner_keys_plain;
	ExprState  *qual;			/* join filter: decides a match; or NULL */
	ExprState  *filter;			/* on joined rows (outer joins' WHERE); or NULL */
	ExprContext *key_econtext;	/* per-row key evaluation */
	Bitmapset  *inner_key_params;	/* PARAM_EXEC ids the inner keys read */
	ExprState  *gate;			/* pseudoconstant quals: once per scan; or NULL */
	bool		forms_no_rows;	/* nothing reads a joined row's columns */
	bool		bare_matches;	/* ... and no unmatched row comes out */
	TupleTableSlot *first_outer;	/* read before the build; NULL: none */
	uint64		fp_mask;		/* fingerprint bits kept (gpuhash.fingerprint_bits) */
	bool		fill_outer;		/* left, full, anti: unmatched outer rows come out */
	bool		fill_inner;		/* right, full: unmatched inner rows come out;
								 * right semi, right anti: inner rows come out
								 * after the probe */
	bool		marks_only;		/* right semi, anti: a match marks its inner
								 * row, and no row comes out of the probe */
	bool		fill_matched;	/* right semi: the matched inner rows come
								 * out, not the unmatched */

	MemoryContext cxt;			/* everything below; freed by its callback */
	MemoryContextCallback cleanup;

	/*
	 * Inner side, rows in the table's key-grouped order once built: each
	 * kept row's columns as one MinimalTuple of inner_desc (NULL where no
	 * column is kept), formed once as the row is read, in blocks of
	 * inner_cxt (inner_store.c's).
	 */
	MemoryContext inner_cxt;
	MinimalTuple *inner_tups;	/* n_inner_all of them */
	struct GpuRowBlock *row_blocks;	/* where they lie, the newest first */
	uint64	   *inner_keys_arr;
	uint64		n_inner;		/* rows in the table */
	uint64		n_inner_all;	/* and after them, right/full's NULL-key rows */
	uint64		inner_cap;
	uint32	   *matched;		/* right/full: a bit per inner row (serial) */
	/* Bloom filter of the table's keys: keyfilter.c's, set through it */
	GpuKeyFilter kf;
	bool		kf_on;			/* still worth checking for this scan (in kf
								 * once heap_scan.c, which reads it, moves) */
	pg_atomic_uint32 *shared_matched;	/* the same, shared by a parallel plan */
	GpuTable	table;
	gh_device	device;
	int			scheme;			/* the table's scheme (the plan's, or a fallback) */
	bool		built;

	/* outer probe batches: a ring of pb_depth, pb_head the oldest not emitted yet */
	GpuProbeBatch pb[GPUHASH_PIPELINE_MAX];
	int			pb_depth;		/* GPUHASH_PIPELINE, or a chain's bottom's more */
	int			pb_head;
	int			pb_count;		/* filled or in flight, after pb_head */
	GpuProbeBatch *cb;			/* the batch being emitted, or NULL */
	int			batch_cap;

	/*
	 * Keys read on while another participant built the shared table, past
	 * the ring (probe_pipeline.c): batches that go into the ring, oldest first,
	 * before any new row is read.
	 */
	GpuProbeBatch *prefill;
	int			n_prefill;
	int			prefill_head;	/* the next one into the ring */
	MemoryContext prefill_cxt;
	bool		outer_done;
	GpuJoinStep step;			/* the state machine's (executor.c) */

	GpuJoinStats stats;

	/*
	 * Hash batches (batch.c's, set through its functions): rows of batches
	 * other than curbatch wait in temporary files.  nbatch and curbatch stay
	 * here while page_scan.c and page_inner.c read them.
	 */
	GpuHashBatches hb;
	int			nbatch;			/* a power of two */
	int			curbatch;
	size_t		mem_used;		/* bytes the kept inner rows take (inner store) */
	TupleDesc	outer_desc;		/* the kept outer columns (spilled rows) */
	int		   *ident_keep;		/* 0, 1, 2, ...: a spilled row's columns */
	Datum	   *spill_vals;		/* one row's kept columns, to spill it (rows.c) */
	bool	   *spill_nulls;
	uint64		null_seq;		/* places NULL-key inner rows in batches */
	/* right/full: inner rows with a NULL key, while the inner side is read */
	MinimalTuple *nk_tups;
	uint64	   *nk_keys;
	uint64		n_nk;
	uint64		nk_cap;

	/*
	 * Parallel-aware plans (parallel.c): one participant builds the table
	 * in the GPU service and publishes the kept inner rows in the query's
	 * DSA; all participants probe it with their share of the outer side.
	 */
	struct GpuJoinShared *shared;	/* in DSM; NULL when not parallel-aware */
	bool		owns_table;		/* frees the table (not a parallel worker) */
	int			table_owner_pid;	/* the service owner of a built table; 0: us */
	TupleDesc	inner_desc;		/* the kept inner columns */
	dsa_area   *shared_area;	/* the query's DSA */
	dsa_pointer *shared_rowptrs;	/* per key-grouped position, its MinimalTuple */
	Datum	   *row_vals;		/* one deformed inner row */
	bool	   *row_nulls;

	/*
	 * A stack of GpuHashJoins run as one multi-level probe (chain.c): the
	 * top node holds the chain; the levels below it are members, whose
	 * outer side (above the bottom) is the level below, never pulled
	 * through ExecProcNode while the chain runs fused.
	 */
	struct GpuChain *chain;		/* the top of a chain; NULL otherwise */
	bool		chain_member;	/* a level below the top of a chain */
	bool		outer_is_level; /* outer_ps is this chain's level below */
	bool		no_prefill;		/* a parallel build must not read the outer side */
	uint64		table_version;	/* tables freed: a chain's carried columns are stale */
	struct GpuChain *carrier;	/* a level whose inner rows carry upper */
	int			carrier_level;	/* levels' keys: its chain and level */

	/*
	 * A parallel-aware join split into shared batches at run time
	 * (parallel_split.c): split_shared is in the DSM; split, this
	 * participant's part, once the split has begun.
	 */
	GpuSplitShared *split_shared;	/* NULL: not parallel-aware */
	struct GpuSplit *split;		/* NULL: not split (yet) */
	size_t		split_reported; /* of mem_used, added to the shared sum */

	/* the absorbed outer scan's page path (page_scan.c); NULL: none */
	struct GpuPagePath *page;
	/* the absorbed inner scan's page path (page_inner.c); NULL: none */
	struct GpuPageInner *ipage;
} GpuJoinState;


/*
 * Do the participants of a parallel plan share this join's table?  Not
 * once the join has split into batches that each participant joins alone.
 */
static inline bool
gpuhash_shares_table(const GpuJoinState *gs)
{
	return gs->shared != NULL && gs->split == NULL;
}

/* node_setup.c */
extern void gpuhash_begin_join(CustomScanState *node, EState *estate, int eflags);

/* executor.c: the node's methods */
extern const CustomExecMethods gpuhash_exec_methods;
extern void gpuhash_step_begin(GpuJoinState *gs);

/* Is this plan state a GpuHashJoin's? */
static inline bool
gpuhash_is_join_state(PlanState *ps)
{
	return ps != NULL && IsA(ps, CustomScanState) &&
		((CustomScanState *) ps)->methods == &gpuhash_exec_methods;
}

/* scan_start.c */
extern GpuJoinPhase gpuhash_start_scan(GpuJoinState *gs);
extern void gpuhash_end_probe(GpuJoinState *gs);
extern void gpuhash_step_set_phase(GpuJoinState *gs, GpuJoinPhase phase);

/* probe_pipeline.c */
extern void gpuhash_probe_begin(GpuJoinState *gs);
extern void gpuhash_probe_deepen(GpuJoinState *gs);
extern void gpuhash_prefill_batches(GpuJoinState *gs);
extern GpuProbeBatch *gpuhash_next_filled_batch(GpuJoinState *gs);
extern void gpuhash_fill_ahead(GpuJoinState *gs);
extern void gpuhash_probe_batch_back(GpuJoinState *gs, GpuProbeBatch *b);
extern void gpuhash_batch_emitted(GpuJoinState *gs);

/* scan_tuple.c */
extern void gpuhash_store_row(GpuJoinState *gs, int64 outer_row, int64 inner);
extern void gpuhash_store_row_from(GpuJoinState *gs, TupleTableSlot *outer, int64 inner);
extern bool gpuhash_batch_rows_in_pages(GpuJoinState *gs);

/* chain.c; step and rescan in chain_probe.c */
extern void gpuhash_chain_init(GpuJoinState *top);
extern bool gpuhash_chain_step(GpuJoinState *top, TupleTableSlot **out);
extern void gpuhash_chain_rescan(GpuJoinState *top);
extern void gpuhash_chain_explain(GpuJoinState *gs, struct ExplainState *es);

/* chain_carry.c */
extern int	gpuhash_carried_columns(GpuJoinState *gs);
extern void gpuhash_carried_keys(GpuJoinState *gs, const MinimalTuple *tups, uint64 n,
								 uint64 *keys, uint8 *valid, uint64 ld);

/* rows.c */
extern void gpuhash_rows_begin(GpuJoinState *gs, int nmax);
extern bool gpuhash_datums_key(GpuJoinState *gs, const Datum *values, const bool *isnull,
							   uint32 mask, uint64 *key);
extern bool gpuhash_row_key(GpuJoinState *gs, TupleTableSlot *slot, GpuKeyEval *keys,
							bool outer, uint64 *key);
extern int	gpuhash_keep_extent(const int *keep, int nkeep);
extern bool gpuhash_heap_key(GpuJoinState *gs, GpuHeapScan *scan, bool outer, HeapTuple tup,
							 uint64 *key);
extern void gpuhash_copy_row(TupleTableSlot *slot, const int *keep, int nkeep, Datum *vals,
							 bool *nulls, MemoryContext cxt);
extern MinimalTuple gpuhash_form_kept_tuple(GpuJoinState *gs, TupleTableSlot *slot,
											const int *keep, int nkeep, TupleDesc desc);

/* inner_store.c */
extern void gpuhash_inner_begin(GpuJoinState *gs);
extern void gpuhash_inner_matched_clear(GpuJoinState *gs);
extern void gpuhash_inner_adopt(GpuJoinState *gs, uint64 n_inner, uint64 n_inner_all);
extern void gpuhash_read_inner_rows(GpuJoinState *gs);
extern void gpuhash_finish_inner(GpuJoinState *gs);
extern void gpuhash_increase_batches(GpuJoinState *gs);
extern void gpuhash_inner_split(GpuJoinState *gs);
extern void gpuhash_inner_split_done(GpuJoinState *gs);
extern void gpuhash_inner_forget(GpuJoinState *gs);
extern void gpuhash_reorder_inner(GpuJoinState *gs, const uint32 *order);
extern void gpuhash_inner_row(GpuJoinState *gs, uint64 row, const Datum **iv, const bool **in);
extern void gpuhash_inner_deform(GpuJoinState *gs, MinimalTuple mt, Datum *vals, bool *nulls);
extern void gpuhash_inner_reset_memory(GpuJoinState *gs);
extern dsa_pointer gpuhash_inner_publish(GpuJoinState *gs, dsa_area *area, dsa_pointer *offsets_out);
extern dsa_pointer gpuhash_inner_shared_matched(GpuJoinState *gs, dsa_area *area);

/* shared_inner.c */
extern void gpuhash_shared_inner_init(SharedInner *si, int max_chunks);
extern void gpuhash_shared_inner_directory(SharedInner *si, dsa_area *area);
extern void gpuhash_shared_inner_put_share(GpuJoinState *gs, SharedInner *si, dsa_area *area,
										   int slot);
extern void gpuhash_shared_inner_build_from_shares(GpuJoinState *gs, SharedInner *si,
												   dsa_area *area);
extern void gpuhash_shared_inner_layout(GpuJoinState *gs, SharedInner *si, dsa_area *area);
extern void gpuhash_shared_inner_finish(GpuJoinState *gs, SharedInner *si, dsa_area *area);
extern void gpuhash_shared_inner_build_one(GpuJoinState *gs, SharedInner *si, dsa_area *area);
extern uint64 gpuhash_shared_inner_keyed(SharedInner *si, dsa_area *area);
extern void gpuhash_shared_inner_attach(GpuJoinState *gs, SharedInner *si, dsa_area *area);
extern void gpuhash_shared_inner_detach(GpuJoinState *gs);
extern void gpuhash_shared_inner_release(SharedInner *si, dsa_area *area);
extern bool gpuhash_shared_inner_carried(SharedInner *si, dsa_area *area, uint64 n, int m,
										 const uint64 **keys, const uint8 **valid);
extern void gpuhash_shared_inner_drop_carried(SharedInner *si, dsa_area *area);

/* join_table.c */
extern void gpuhash_table_set_built(GpuJoinState *gs, bool built);
extern void gpuhash_table_adopt(GpuJoinState *gs, const GpuTable *table, gh_device device,
								int scheme);
extern void gpuhash_free_table(GpuJoinState *gs);
extern const uint32 *gpuhash_build_keys(GpuJoinState *gs, const GpuKeyParts *keys);
extern void gpuhash_build_inner(GpuJoinState *gs);
extern void gpuhash_probe_submit(GpuJoinState *gs, GpuProbeBatch *b);
extern void gpuhash_probe_wait(GpuJoinState *gs, GpuProbeBatch *b);
extern void gpuhash_probe_abandon(GpuJoinState *gs, GpuProbeBatch *b);

/* batch.c */
extern void gpuhash_batches_begin(GpuJoinState *gs, EState *estate);
extern void gpuhash_batches_off(GpuJoinState *gs);
extern void gpuhash_batches_serial(GpuJoinState *gs);
extern void gpuhash_batches_rescan(GpuJoinState *gs);
extern void gpuhash_batches_advance(GpuJoinState *gs);
extern void gpuhash_batches_inner_start(GpuJoinState *gs);
extern void gpuhash_batches_outer_start(GpuJoinState *gs);
extern bool gpuhash_batches_double(GpuJoinState *gs);
extern void gpuhash_batches_stop_growing(GpuJoinState *gs);
extern int	gpuhash_batch_of(uint64 key, int nbatch);
extern int	gpuhash_split_batch_of(uint64 key, int nbatch);
extern void gpuhash_batch_files_grow(GpuJoinState *gs, int nbatch);
extern void gpuhash_batch_files_close(GpuJoinState *gs);
extern void gpuhash_spill_write(GpuJoinState *gs, BufFile **file, uint64 key, bool nokey,
								MinimalTuple tup);
extern bool gpuhash_spill_read(BufFile *file, uint64 *key, bool *nokey, MinimalTuple *tup,
							   MemoryContext cxt);
extern void gpuhash_spill_rewind(BufFile *file);

/* heap_scan.c */
extern int	gpuhash_batch_pins(int most, int depth);
extern GpuHeapScan *gpuhash_heap_scan_begin(GpuJoinState *gs, SeqScan *plan, EState *estate,
											int eflags);
extern ExprState *gpuhash_heap_qual_init(List *quals, PlanState *ps, TupleDesc desc);
extern bool gpuhash_heap_qual_share(GpuHeapScan *os, List *quals, PlanState *ps,
									ExprState **qual);
extern GpuHeapScan *gpuhash_heap_scan_open(PlanState *ps, Index scanrelid, List *qual,
											 List *tlist, bool parallel, EState *estate,
											 int eflags);
extern GpuScanNext gpuhash_heap_scan_next(GpuHeapScan *os, ExprContext *econtext,
										  HeapTuple *tup);
extern GpuScanNext gpuhash_heap_scan_fill_keys(GpuJoinState *gs, GpuHeapScan *os,
											   struct GpuProbeBatch *b, int cap);
extern int	gpuhash_heap_scan_page(GpuHeapScan *os, HeapTupleData *tups);
extern void gpuhash_heap_scan_fill(GpuHeapScan *os, GpuProbeBatch *b);
extern void gpuhash_heap_scan_keep_tuple(GpuHeapScan *os);
extern void gpuhash_heap_scan_batch_reset(GpuHeapScan *os, GpuProbeBatch *b);
extern void gpuhash_heap_scan_push_back(GpuHeapScan *os);
extern void gpuhash_heap_scan_slot_clear(GpuHeapScan *os);
extern void gpuhash_heap_scan_take_figures(GpuHeapScan *os, uint64 *pages, double *page_ms,
										   uint64 *filtered);
extern void gpuhash_heap_scan_rescan(GpuHeapScan *os);
extern void gpuhash_heap_scan_keep_blocks(GpuHeapScan *os);
extern void gpuhash_heap_scan_walk_again(GpuHeapScan *os);
extern void gpuhash_heap_scan_end(GpuHeapScan *os);

/* scan_filter.c */
extern GpuScanFilter *gpuhash_scan_filter_compile(List *quals, Index scanrelid, TupleDesc desc,
												  List **rest);
extern bool gpuhash_scan_filter_pass(const GpuScanFilter *f, HeapTupleHeader th, TupleDesc desc);
extern int	gpuhash_scan_filter_clauses(const GpuScanFilter *f);
extern Size gpuhash_heap_scan_estimate(GpuHeapScan *os);
extern void gpuhash_heap_scan_init_dsm(GpuHeapScan *os, void *space);
extern void gpuhash_heap_scan_reinit_dsm(GpuHeapScan *os, void *space);
extern void gpuhash_heap_scan_init_worker(GpuHeapScan *os, void *space);

extern void gpuhash_heap_fast_key_setup(GpuJoinState *gs, GpuHeapScan *scan, bool outer);

/*
 * The key of a heap tuple of an absorbed scan, as gpuhash_heap_key gives
 * it, read in place where the scan has a fast key.  The call and its
 * general loop were 29 ns a row of a parallel count(*) join on the H100
 * (perf); read in place, the page loop's samples
 * against heapgetpage's fell from 4.3 to 2.5 on the build machine.
 */
static inline bool
gpuhash_heap_key_fast(GpuJoinState *gs, GpuHeapScan *scan, bool outer, HeapTuple tup,
					  uint64 *key)
{
	HeapTupleHeader th = tup->t_data;

	if (scan->fast_key_off >= 0 && !HeapTupleHasNulls(tup) &&
		HeapTupleHeaderGetNatts(th) >= scan->fast_key_attno)
	{
		Datum		d = fetch_att((char *) th + th->t_hoff + scan->fast_key_off,
								  scan->fast_key_byval, scan->fast_key_len);

		*key = gpuhash_encode_datum(d, scan->fast_key_conv);
		return true;
	}
	return gpuhash_heap_key(gs, scan, outer, tup, key);
}

/* parallel.c */
extern Size gpuhash_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
extern void gpuhash_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
extern void gpuhash_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
extern void gpuhash_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate);
extern void gpuhash_shutdown(CustomScanState *node);
extern bool gpuhash_shared_table_published(GpuJoinState *gs);
extern void gpuhash_shared_count_batch(GpuJoinState *gs, uint64 outer_rows);
extern bool gpuhash_shared_probe_done(GpuJoinState *gs, bool *shared_fill);
extern bool gpuhash_shared_fill_claim(GpuJoinState *gs, uint64 *start, uint64 *end);
extern void gpuhash_shared_add_counts(GpuJoinState *gs);
extern bool gpuhash_shared_carry_begin(GpuJoinState *gs);
extern void gpuhash_shared_carry_done(GpuJoinState *gs);
extern bool gpuhash_shared_carried(GpuJoinState *gs, const uint64 **keys, const uint8 **valid);

/* parallel_build.c */
extern void gpuhash_shared_build(GpuJoinState *gs);

/* parallel_split.c */
extern void gpuhash_split_shared_init(GpuSplitShared *ss, int participants);
extern void gpuhash_split_shared_reset(GpuSplitShared *ss, dsa_area *area);
extern bool gpuhash_split_wanted(GpuJoinState *gs);
extern void gpuhash_split_inner_restart(GpuJoinState *gs);
extern bool gpuhash_split_is_on(GpuJoinState *gs);
extern void gpuhash_split_begin(GpuJoinState *gs);
extern bool gpuhash_split_writing(GpuJoinState *gs);
extern void gpuhash_split_put_inner(GpuJoinState *gs, MinimalTuple tup, uint64 key, bool nokey);
extern void gpuhash_split_inner_done(GpuJoinState *gs);
extern bool gpuhash_split_outer_begin(GpuJoinState *gs);
extern void gpuhash_split_put_outer(GpuJoinState *gs, MinimalTuple tup, uint64 key, bool nokey);
extern void gpuhash_split_outer_done(GpuJoinState *gs);
extern bool gpuhash_split_next_batch(GpuJoinState *gs);
extern void gpuhash_split_batch_built(GpuJoinState *gs);
extern bool gpuhash_split_next_inner(GpuJoinState *gs, TupleTableSlot **slot, uint64 *key,
									 bool *nokey);
extern bool gpuhash_split_next_outer(GpuJoinState *gs, MemoryContext cxt, MinimalTuple *tup,
									 uint64 *key, bool *nokey);
extern bool gpuhash_split_joining(GpuJoinState *gs);
extern void gpuhash_split_close(GpuJoinState *gs);
extern void gpuhash_split_forget(GpuJoinState *gs);
extern void gpuhash_split_stats(GpuSplitShared *ss, GpuJoinStats *st);

/* The row's key goes into probe batch b (its columns or tuple already did). */
static inline void
gpuhash_batch_add_key(GpuProbeBatch *b, uint64 key, bool nokey)
{
	b->nokey[b->n] = nokey;
	b->keys[b->n++] = nokey ? 0 : key;
	b->any_key |= !nokey;
}

#include "keyfilter.h"
#include "inner/inner_store.h"
#include "join_table.h"

#endif							/* GPUHASH_JOIN_STATE_H */
