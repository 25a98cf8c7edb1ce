/*-------------------------------------------------------------------------
 *
 * page_scan.h
 *	  The page path of an absorbed outer scan (issue 53): the CPU moves heap
 *	  pages, the page walker (cuda/gpuhash_page.h) deforms, filters, keys and
 *	  probes them and hands back match records.  gpu_qual.c compiles the
 *	  scan program, page_read.c reads the pages into a request, page_scan.c
 *	  turns the answer into a probe batch, service_page.c carries a request
 *	  to the GPU service.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_PAGE_SCAN_H
#define GPUHASH_PAGE_SCAN_H

#include "join_state.h"
#include "gpuhash_page.h"
#include "storage/bufpage.h"
#include "storage/itemid.h"

/* A scan program and what the CPU still evaluates (gpu_qual.c). */
typedef struct GpuPageProgram
{
	gh_page_scan *scan;			/* NULL: no page path (why says why) */
	const char *why;
	List	   *gpu_quals;		/* the clauses the walker runs, plan order */
	List	   *cpu_quals;		/* the rest, plan order, for ExecQual */
	bool		first_row_build;	/* the first of them a hashed subplan's
									 * test: run it once a row passes the
									 * walker (gpu_program.c) */
} GpuPageProgram;

extern void gpuhash_page_program(GpuPageProgram *prog, TupleDesc desc, Index scanrelid,
								 List *quals, const AttrNumber *key_attno,
								 const GpuKeyConv *conv, const int *width, int nkeys,
								 bool fill_outer);
extern void gpuhash_page_program_cols(GpuPageProgram *prog, TupleDesc desc, Index scanrelid,
									  List *quals, const AttrNumber *key_attno,
									  const GpuKeyConv *conv, const int *width, int nkeys,
									  bool fill_outer, const AttrNumber *extra, int nextra);

/*
 * The column of a Var of a join's inner side in an aggregation program
 * (GH_AGG_INNER_COL0 + j) and its walker type; -1: the program has none.
 */
typedef int (*GpuQualInnerCol) (const Var *v, void *arg, gh_col_type *type);

extern bool gpuhash_qual_compile_into(gh_page_scan *scan, TupleDesc desc, Index scanrelid,
									  List *clauses, GpuQualInnerCol inner_col,
									  void *inner_arg, gh_qinsn *insn, int16_t *ninsns,
									  int max_insns);
extern gh_col_type gpuhash_qual_col_type(Oid typid);

/*
 * Pins a probe batch holds at most (heap_scan.c), and so the pages a
 * request carries at most, but for a chain's bottom (below): a request
 * read in place is laid out for them (service_page.c, service_dim_pages.c,
 * service_agg.c).
 */
#define GPUHASH_MAX_BATCH_PINS 1024

/*
 * A chain's bottom that reads pages in place takes this many times the
 * listed tuples a request, and pins up to GPUHASH_MAX_REQ_PAGES pages a
 * batch within shared_buffers' share (gpuhash_page_chain_bottom); the
 * service lays a request read in place out for up to GPUHASH_MAX_REQ_PAGES.
 */
#define GPUHASH_CHAIN_REQ_SCALE 4
#define GPUHASH_MAX_REQ_PAGES (GPUHASH_MAX_BATCH_PINS * GPUHASH_CHAIN_REQ_SCALE)

/*
 * One request's pages, with the probe batch that emits its matches: the
 * pages pinned in the batch's pins[], their copies, visibility and answer.
 */
typedef struct GpuPageReq
{
	int			n_pages;
	int			cap_pages;
	uint32		cap_tuples;		/* > 0: the pages' visible lists together at
								 * most this long (a request read in place) */
	BlockNumber *blocks;
	uint64	   *lsns;			/* in place: each page's LSN under the share
								 * lock, for the page cache (0: not cached) */
	RelFileNode rnode;			/* the pages' relation, as the cache names it */
	gh_page_ref *refs;
	uint8	   *pages;			/* cap_pages x GH_PAGE_SIZE: a staging chunk's
								 * (the slot the batch's ticket holds), or
								 * local_pages */
	uint8	   *local_pages;
	bool		in_place;		/* the service reads the pages in the buffer
								 * pool: refs[].offset from BufferBlocks, every
								 * page with its visible list */
	ItemIdData *lps;			/* all-visible pages: the line pointers as
								 * seen under the lock, GH_PAGE_MAX_TUPLES
								 * a page (refused pages are read by them) */
	uint16	   *visible;
	uint32		n_visible;
	gh_page_match *matches;		/* cap_pages x GH_PAGE_MAX_TUPLES */
	size_t		n_matches;
	uint8	   *refused;
	gh_page_stats stats;
	bool		in_flight;		/* submitted to the service */
	bool		answered;		/* matches and refused[] are in */
	GhProbeTicket ticket;
} GpuPageReq;

/* The join's page path, set up once per node (page_scan.c). */
typedef struct GpuPagePath
{
	GpuPageProgram prog;
	ExprState  *cpu_qual;		/* prog.cpu_quals over the heap tuple slot */
	bool		serializable;	/* the tuple path then (predicate locks) */
	bool		subplan_run;	/* prog.first_row_build done */
	GpuPageReq	req[GPUHASH_PIPELINE_MAX];
	int			cap_pages;		/* pages a request takes */
	MemoryContext cxt;			/* the requests' memory */
	bool		chain_sized;	/* sized for a chain's bottom */
	int8		chain_reads;	/* a chain's bottom reads pages this scan: 1 or
								 * 0, fixed at its first batch; -1 before */
	int			rows_cap;		/* rows a batch of pages may have */
	int			cap_pages_in_place; /* pages and listed tuples a request */
	uint32		cap_tuples_in_place;	/* read in place takes */
	/* EXPLAIN ANALYZE */
	uint64		pages_all_visible;
	uint64		pages_checked;
	uint64		pages_refused;
	uint64		requests;
	uint64		in_service;		/* requests the service answered */
	uint64		matches;
	uint64		pages_stored;	/* walked from the GPU's page cache */
	uint64		pages_filled;	/* of them, copied into it on the way */
	double		page_ms;		/* reading pages: pins, locks, copies */
} GpuPagePath;

/* page_scan.c */
extern void gpuhash_page_setup(GpuJoinState *gs, SeqScan *plan, EState *estate);
extern bool gpuhash_page_chain_may_read(GpuJoinState *gs);
extern void gpuhash_page_chain_bottom(GpuJoinState *gs);
extern bool gpuhash_page_usable(GpuJoinState *gs);
extern bool gpuhash_page_fill(GpuJoinState *gs, GpuProbeBatch *b);
extern void gpuhash_page_submit(GpuJoinState *gs, GpuProbeBatch *b);
extern void gpuhash_page_wait(GpuJoinState *gs, GpuProbeBatch *b);
extern void gpuhash_page_restart(GpuJoinState *gs);
extern void gpuhash_page_abandon(GpuJoinState *gs, GpuProbeBatch *b);
extern void gpuhash_page_release(GpuJoinState *gs, GpuProbeBatch *b);
extern void gpuhash_page_explain(GpuJoinState *gs, struct ExplainState *es, List *context,
								 bool useprefix);
/* page_read.c: reading pages into a request, for any node (the join's sides, src/agg/) */
extern bool gpuhash_page_add(GpuHeapScan *os, GpuPagePath *pp, GpuPageReq *r, Buffer *pins,
							 int *n_pins, BlockNumber blk);
extern void gpuhash_page_read(GpuHeapScan *os, GpuPagePath *pp, GpuPageReq *r, Buffer *pins,
							  int *n_pins);
extern void gpuhash_page_req_alloc(GpuPageReq *r, int copied_pages, int max_pages,
								   Size max_tuples, bool matches);
extern void gpuhash_page_req_reset(GpuPageReq *r, bool in_place, int copied_pages,
								   int pages_in_place, uint32 tuples_in_place);
extern bool gpuhash_page_caps_in_place(int max_pins, int copied_pages, uint32 want_tuples,
									   int *pages, uint32 *tuples);

/* page_inner.c: the inner side's page path */
extern void gpuhash_page_inner_setup(GpuJoinState *gs, SeqScan *plan, EState *estate);
extern bool gpuhash_page_inner_usable(GpuJoinState *gs);
extern int	gpuhash_page_inner_next(GpuJoinState *gs, HeapTupleData **tups);
extern bool gpuhash_page_inner_keys_only(GpuJoinState *gs);
extern int	gpuhash_page_inner_next_keys(GpuJoinState *gs, const uint64 **keys);
extern void gpuhash_page_inner_release(GpuJoinState *gs, bool release_pins);
extern void gpuhash_page_inner_explain(GpuJoinState *gs, struct ExplainState *es,
									   List *context, bool useprefix);

/* heap_scan.c, for page_scan.c */
extern void gpuhash_heap_scan_start(GpuHeapScan *os);
extern BlockNumber gpuhash_heap_scan_next_block(GpuHeapScan *os);	/* at the end: done, pin gone */
extern bool gpuhash_heap_scan_tuple_passes(GpuHeapScan *os, ExprContext *econtext, HeapTuple t);
extern bool gpuhash_heap_qual_passes(GpuHeapScan *os, ExprState *qual, ExprContext *econtext,
									 HeapTuple t);
extern bool gpuhash_heap_qual_eval(GpuHeapScan *os, ExprState *qual, ExprContext *econtext,
								   HeapTuple t);

/* Heap tuple t: item off of page, block blk of relation relid, where it lies. */
static inline void
gpuhash_page_tuple(Page page, BlockNumber blk, OffsetNumber off, Oid relid, HeapTuple t)
{
	ItemId		lp = PageGetItemId(page, off);

	t->t_data = (HeapTupleHeader) PageGetItem(page, lp);
	t->t_len = ItemIdGetLength(lp);
	t->t_tableOid = relid;
	ItemPointerSet(&t->t_self, blk, off);
}

/* service_page.c: a page request through the GPU service */
extern uint32 gpuhash_service_page_capacity(void);
extern uint32 gpuhash_service_page_capacity_in_place(uint32 *tuples);
extern bool gpuhash_service_pages_in_place(void);
extern uint8 *gpuhash_svc_page_claim(GhRemoteTable *t, GhProbeTicket *tk);
extern bool gpuhash_svc_page_submit(GhRemoteTable *t, const gh_page_scan *scan,
									const GpuPageReq *req, GhProbeTicket *tk);
extern gh_status gpuhash_svc_page_wait(GhRemoteTable *t, GhProbeTicket *tk, GpuPageReq *req);
extern bool gpuhash_svc_page_notable(GhRemoteTable *t);

#endif							/* GPUHASH_PAGE_SCAN_H */
