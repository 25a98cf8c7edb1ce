/*-------------------------------------------------------------------------
 *
 * service_internal.h
 *	  What the GPU service's three files share: the request slots and the
 *	  free queue in shared memory.  service_shmem.c sets them up,
 *	  service_client.c is a backend's side, service_worker.c the service's.
 *	  Others include service.h only.
 *
 * The service is a background worker that creates the CUDA context once,
 * page-locks a staging area in shared memory once, owns every join
 * table's device memory, and serves backends' requests.
 *
 * Why: a CUDA context costs hundreds of milliseconds per process and
 * pinning memory is slow; a service pays both once for the cluster, and
 * keys and ranges cross PCIe from pinned memory.
 *
 * Protocol.  Shared memory holds SVC_SLOTS request slots, each owning a
 * fixed chunk of the staging area.  A backend claims a free slot (atomic
 * FREE -> CLAIMED), writes its request and data, marks it SUBMITTED, sets
 * the service's latch and sleeps on its own latch (cancel and
 * statement_timeout are honoured: a waiting backend that errors out marks
 * the slot ABANDONED and the service discards the result).  The service
 * answers DONE and sets the backend's latch.  A build is BEGIN (rows),
 * APPEND (key chunks), FINISH (options); its key-grouped row order comes
 * back by ROWIDS chunks; probes go one chunk at a time, answered in place.
 * A chain's carried columns (issue 14) are CARRY_BEGIN (columns; a buffer
 * in the service), CARRY_APPEND (a column's keys, then validity bytes) and
 * CARRY_FINISH; a chain probe is one CHAIN request: level descriptors,
 * outer keys and validity bytes in, a window of combinations out behind
 * them (chain_layout below), run under every level's table lock.
 * A dimension of an aggregate over a join (service_dim.c) is a registry
 * entry of its own kind: DIM_BEGIN (rows, columns, heap bytes), DIM_APPEND
 * (a byte range of its keys, values or heap) and DIM_FINISH (device,
 * budget: gh_agg_dim_build); a PAGE_AGG request names it by dim_id.
 * Resident groups (service_groups.c) are an entry of a third kind:
 * SET_BEGIN (the programs; a set on a GPU or the host twin, capped), PAGE_AGG
 * requests that name it by set_id merge their groups into it rather than
 * answer them, and SET_FINISH reads it back a chunk at a time.
 * Frees need no slot: table ids go through a lock-free queue, so error
 * cleanup can free tables, and dimensions alike.
 *
 * Nothing of a statement outlives it: a backend that gives up a request or
 * frees a table waits (boundedly, never throwing, so error cleanup and exit
 * can do it) until the service has dropped the request's slot and the
 * table.  The service cancels a host build whose requester gave up, and
 * acknowledges a free once the table is destroyed (after the last request
 * running on it).  A backend that exits inside a request (a parallel worker
 * terminated by its leader's error) gives it up from an exit callback.
 * Tables of backends that exit without that are freed by a sweep; a service
 * that exits takes its tables with it and the next one starts a new
 * generation, so stale table ids fail cleanly.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_SERVICE_INTERNAL_H
#define GPUHASH_SERVICE_INTERNAL_H

#include "gpuhash.h"
#include "service.h"
#include "gpuhash_agg_set.h"

#include "port/atomics.h"

#include <time.h>

#define SVC_SLOTS 64

/*
 * Probes in flight (a pipelined join submits one batch and fills the next
 * before it waits) hold their slots until their owner waits on them, which
 * may be after it has asked for other slots.  They may hold at most half of
 * the slots, so that requests that are waited on at once always find one.
 */
#define SVC_ASYNC_SLOTS (SVC_SLOTS / 2)
#define SVC_FREE_QUEUE 1024
#define SVC_MAX_GPUS 8

/*
 * A free queue entry: the table id in the low 32 bits, the requester's
 * pgprocno + 1 above it (whose latch the acknowledgement sets), and TAKEN
 * once the service holds it; 0 when empty.  The service empties an entry
 * when the table is gone: that is the requester's acknowledgement.
 */
#define FREE_TAKEN		(UINT64CONST(1) << 63)
#define FREE_ID(v)		((uint32) (v))
#define FREE_PROCNO(v)	((int) (((v) & ~FREE_TAKEN) >> 32) - 1)

typedef enum SlotState
{
	SLOT_FREE = 0,
	SLOT_CLAIMED,
	SLOT_SUBMITTED,
	SLOT_RUNNING,				/* taken by a service thread */
	SLOT_DONE,
	SLOT_ABANDONED,				/* given up before it ran: the main thread drops it */
	SLOT_ABANDONED_RUNNING		/* given up while it ran: its thread drops it */
} SlotState;

typedef enum RequestType
{
	REQ_BUILD_BEGIN,
	REQ_BUILD_APPEND,
	REQ_BUILD_FINISH,
	REQ_ROWIDS,
	REQ_PROBE,
	REQ_CARRY_BEGIN,
	REQ_CARRY_APPEND,
	REQ_CARRY_FINISH,
	REQ_CHAIN,
	REQ_PAGE_PROBE,				/* heap pages in, match records out (service_page.c) */
	REQ_PAGE_AGG,				/* heap pages in, groups out (service_agg.c) */
	REQ_DIM_BEGIN,				/* a dimension (service_dim.c) */
	REQ_DIM_APPEND,
	REQ_DIM_FINISH,
	REQ_SET_BEGIN,				/* resident groups (service_groups.c) */
	REQ_SET_FINISH,
	REQ_DIM_MATCHED,			/* its matched flags back (service_dim_matched.c) */
	REQ_DIM_PAGES				/* a dimension's rows from heap pages
								 * (service_dim_pages.c) */
} RequestType;

/* DIM_APPEND's part: which of a dimension's arrays the chunk fills */
#define SVC_DIM_KEYS	0
#define SVC_DIM_VALS	1
#define SVC_DIM_HEAP	2

static inline bool
svc_dim_request(RequestType type)
{
	return type == REQ_DIM_BEGIN || type == REQ_DIM_APPEND || type == REQ_DIM_FINISH ||
		type == REQ_DIM_MATCHED;
}

typedef struct SvcSlot
{
	pg_atomic_uint32 state;
	pg_atomic_uint32 pins_going;	/* the owner's abort stopped waiting for
									 * the answer: its pins may go first */
	RequestType type;
	int			owner_pid;		/* the claimant's, once its claim wrote it; 0
								 * in a free slot */
	int			owner_procno;
	uint32		table_id;
	int			table_owner;	/* BEGIN: whose exit frees the table */
	uint64		n;				/* rows (BEGIN) or items in the chunk */
	uint64		pos;			/* first row of an APPEND / ROWIDS chunk */
	gh_build_options opt;
	/* carried columns and chain probes */
	int			ncols;			/* CARRY_BEGIN: carried columns; CHAIN: outer
								 * key columns */
	int			column;			/* CARRY_APPEND: the chunk's column */
	int			n_levels;		/* CHAIN */
	bool		has_valid;		/* CARRY_BEGIN, CHAIN: validity bytes come too */
	bool		in_place;		/* PAGE_PROBE: pages read in the buffer pool */
	Oid			page_spc;		/* PAGE_PROBE in place: the relation's */
	Oid			page_db;		/* RelFileNode, which the page cache */
	Oid			page_rel;		/* keys by (InvalidOid: none) */
	uint64		skip;			/* CHAIN: the window's first combination */
	uint64		capacity;		/* CHAIN: the caller's room; answered: the
								 * window's stride in the chunk */
	uint64		total;			/* CHAIN answer: all combinations */
	uint64		written;		/* CHAIN answer: combinations in the chunk */
	double		level_ms[GH_MAX_CHAIN_LEVELS];	/* CHAIN answer: each level's time */
	/* dimensions (service_dim.c) */
	uint32		dim_id;			/* PAGE_AGG: its dimension (0: none) */
	bool		dim_gone;		/* PAGE_AGG answer: dim_id names none */
	int			ninner;			/* DIM_BEGIN: columns */
	uint64		heap_bytes;		/* DIM_BEGIN: by-reference bytes */
	/* resident groups (service_groups.c) */
	uint32		set_id;			/* PAGE_AGG: the set its groups go into (0:
								 * none); SET_FINISH: the set */
	bool		set_apply;		/* SET_FINISH: the HAVING terms may drop groups */
	int			host_parts;		/* gpuhash.host_partitions (tests) */
	int			fail_gpu;		/* gpuhash.debug_fail_gpu (tests) */
	bool		lose_gpu;		/* gpuhash.debug_lose_gpu (tests) */
	/*
	 * When the request was handed over, taken by the main thread, taken by
	 * a worker thread and answered (CLOCK_MONOTONIC, ns; 0: not yet): the
	 * backend adds the steps to its service times (GpuSvcTimes).
	 */
	int64		t_submit;
	int64		t_dispatch;
	int64		t_start;
	int64		t_done;
	gh_status	status;
	char		err[256];
	char		note[192];		/* BUILD_FINISH: the build moved (a GPU failed
								 * or was full) */
	gh_table_info info;
} SvcSlot;

/*
 * Frees a slot, whoever does (its owner, the service's sweep or discard, a
 * new service).  The owner goes first: a claim's CAS that sees the slot
 * free then sees no owner, and the sweep, which frees only a claimed slot
 * whose owner is gone, never takes one whose claimant has not yet written
 * itself in for the slot's earlier owner.  The barrier also keeps the
 * freeing side's reads of the chunk before another backend can claim it.
 */
static inline void
svc_free_slot(SvcSlot *s)
{
	s->owner_pid = 0;
	pg_memory_barrier();
	pg_atomic_write_u32(&s->state, SLOT_FREE);
}

/*
 * What the service does on each of its GPUs, for gpuhash_info(): written
 * under the service's registry lock, read without it.
 */
typedef struct SvcGpuUse
{
	int			tables;			/* tables, copies of tables and dimensions on it */
	uint64		bytes;			/* their device memory */
	int			busy;			/* requests running on it now */
	uint64		requests;		/* requests it served */
	bool		failed;			/* left out after a CUDA failure */
	char		failure[160];
} SvcGpuUse;

/* A chain level as REQ_CHAIN's chunk carries it. */
typedef struct SvcChainLevel
{
	uint32		table_id;
	int32		kind;			/* gh_level_kind */
	int32		n_parts;
	gh_chain_key_part part[GH_CHAIN_KEY_PARTS];
} SvcChainLevel;

/*
 * REQ_CHAIN's chunk: n_levels SvcChainLevel, 8-aligned the outer keys (ncols x n,
 * column by column), their validity bytes (has_valid); then, 8-aligned,
 * the answer: outer rows [stride], positions [n_levels x stride], with
 * stride the caller's capacity or what fits, the lesser.
 */
typedef struct SvcChainLayout
{
	Size		keys;			/* offsets in the chunk */
	Size		valid;
	Size		out;
	uint64		room;			/* combinations that fit behind the input */
} SvcChainLayout;

/* False when the input does not fit with room for one combination. */
static inline bool
chain_layout(uint64 chunk_bytes, int n_levels, int ncols, uint64 n, bool has_valid,
			 SvcChainLayout *lay)
{
	uint64		cells = (uint64) ncols * n;

	if (n_levels < 1 || n_levels > GH_MAX_CHAIN_LEVELS || ncols < 1 ||
		n >= chunk_bytes || cells >= chunk_bytes)
		return false;
	/* the levels take 44 bytes each: the keys after them start 8-aligned */
	lay->keys = TYPEALIGN(sizeof(uint64), sizeof(SvcChainLevel) * n_levels);
	lay->valid = lay->keys + cells * sizeof(uint64);
	lay->out = TYPEALIGN(sizeof(uint64), lay->valid + (has_valid ? cells : 0));
	if (lay->out >= chunk_bytes)
		return false;
	lay->room = (chunk_bytes - lay->out) / (sizeof(uint32) * (1 + n_levels));
	return lay->room > 0;
}

typedef struct SvcShared
{
	pg_atomic_uint32 ready;
	pg_atomic_uint32 generation;
	int			pid;
	int			procno;
	int			gpus;
	char		no_gpu_reason[256];	/* why gpus is 0 (gh_last_error()) */
	bool		pinned;
	bool		staging_mapped; /* pinned and mapped for the GPUs */
	bool		pool_in_place;	/* page requests may name buffers: the pool
								 * is mapped for the GPUs (or none is used) */
	gh_gpu_info gpu[SVC_MAX_GPUS];	/* the service's GPUs (gpuhash.gpus) */
	SvcGpuUse	gpu_use[SVC_MAX_GPUS];
	int			driver_version;
	int			runtime_version;
	uint64		staging_bytes;
	uint64		chunk_bytes;
	pg_atomic_uint64 requests;
	int			tables_alive;
	int			dims_alive;		/* dimensions (service_dim.c) */
	uint64		device_bytes;
	pg_atomic_uint64 free_queue[SVC_FREE_QUEUE];	/* see FREE_TAKEN */
	pg_atomic_uint32 async_held;	/* slots held by probes in flight (below) */
	SvcSlot		slots[SVC_SLOTS];
} SvcShared;

/* service_shmem.c's startup hook attaches them, before any fork */
extern SvcShared *gpuhash_svc;
extern char *gpuhash_staging;

/* The clock of a slot's t_* times: one for every process of the machine. */
static inline int64
svc_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A slot's fixed part of the staging area. */
static inline char *
chunk_of(SvcSlot *s)
{
	return gpuhash_staging +
		(Size) (s - gpuhash_svc->slots) * gpuhash_svc->chunk_bytes;
}

/*
 * In a service thread: was the request it runs given up meanwhile (a
 * cancel, an error, an abort past its wait)?  Nobody wants its answer,
 * and a page request's pins may have gone with its requester.
 */
static inline bool
svc_given_up(SvcSlot *s)
{
	return pg_atomic_read_u32(&s->state) == SLOT_ABANDONED_RUNNING;
}

/*
 * May the request's walk keep copies of its pages in the page cache?  Not
 * where its owner gave it up or stopped waiting while its pins went (the
 * buffers may hold other pages by then).  Read after the walk's copies are
 * complete; the owner marks the slot before its pins go.
 */
static inline bool
svc_keeps_copies(SvcSlot *s)
{
	pg_memory_barrier();
	return !svc_given_up(s) && pg_atomic_read_u32(&s->pins_going) == 0;
}

/* service_client.c: requests in flight, for service_page.c */
extern SvcSlot *gpuhash_svc_async_claim(GhRemoteTable *t);
extern void gpuhash_svc_async_hold(SvcSlot *s, GhRemoteTable *t, GhProbeTicket *tk);
extern void gpuhash_svc_async_submit(SvcSlot *s, GhRemoteTable *t, GhProbeTicket *tk);
extern gh_status gpuhash_svc_async_wait(GhProbeTicket *tk, SvcSlot **sp);
extern gh_status gpuhash_svc_async_release(SvcSlot *s, GhProbeTicket *tk, gh_status st);

/* service_page.c: REQ_PAGE_PROBE on a table, in a service thread */
extern gh_status gpuhash_svc_serve_page(SvcSlot *s, gh_table *table);

/* service_agg.c: REQ_PAGE_AGG, in a service thread */
extern gh_status gpuhash_svc_serve_agg(SvcSlot *s);
/* service_page.c: what a page request's walk reads, and on which device */
struct SvcPageTag;
struct GpuPageReq;
extern void svc_page_tags_write(SvcSlot *s, struct SvcPageTag *tags,
								const struct GpuPageReq *req);
extern bool svc_request_pages(SvcSlot *s, const char *chunk, Size pages_off,
							  const uint8 **pages, size_t *pages_bytes);
extern int	svc_request_device(SvcSlot *s);

/*
 * REQ_SET_FINISH's chunk: a gh_agg_having, then from SET_ANSWER_OFF the
 * groups answered: keys (kw words each) | null masks | states, each part
 * 64-aligned, room for set_answer_room groups.
 */
#define SET_ANSWER_OFF	TYPEALIGN(64, sizeof(gh_agg_having))
static inline uint64
set_answer_room(uint64 chunk_bytes, int naggs, int kw)
{
	uint64		per = sizeof(uint64) * kw + 1 + sizeof(gh_agg_state) * (uint64) naggs;

	return chunk_bytes > SET_ANSWER_OFF + 256 + per ?
		(chunk_bytes - SET_ANSWER_OFF - 256) / per : 0;
}

/* service_dim_pages.c: REQ_DIM_PAGES, in a service thread */
extern gh_status gpuhash_svc_serve_dim_pages(SvcSlot *s);

#endif							/* GPUHASH_SERVICE_INTERNAL_H */
