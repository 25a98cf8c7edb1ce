/*-------------------------------------------------------------------------
 *
 * worker_internal.h
 *	  Between the files of the GPU service process: the threads and the
 *	  sweep (service_worker.c) call builds (service_build.c) and probes
 *	  (service_probe.c), and all three the table registry
 *	  (service_registry.c), which calls none of them; a join table's page
 *	  walks (service_page.c) take its locks as probes do.  Not for backends.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_WORKER_INTERNAL_H
#define GPUHASH_WORKER_INTERNAL_H

#include "service_internal.h"
#include "service_gpus.h"
#include "service_layout.h"
#include "gpuhash_agg.h"

#include <pthread.h>

typedef struct SvcTable
{
	uint32		id;
	int			owner_pid;
	gh_table   *table;
	/* while being built: the keys on GPU staged_gpu, or else here */
	gh_table   *staged;
	int			staged_gpu;
	uint64	   *keys;
	uint64		n_rows;
	uint64		filled;
	/* carried columns while they come (CARRY_BEGIN to FINISH), key-grouped */
	uint64	   *carry_keys;		/* NULL: none coming */
	uint8	   *carry_valid;	/* NULL: all valid */
	int			carry_ncols;
	uint64		carry_filled;	/* cells received */
	pthread_mutex_t lock;		/* its build, row order and carried columns,
								 * and making copies: one at a time */
	int			users;			/* requests running on it (registry lock) */

	/*
	 * Where it lives.  home: the GPU it was built on (-1: the host twin, or
	 * partitioned over GPUs); copy[g]: the table on GPU g, copy[home] being
	 * table itself.  A probe runs on one copy, holding its copy_lock (the
	 * host or partitioned table: copy_lock[0]); copies are made under lock
	 * and their copy_lock, set and dropped under the registry lock too.
	 * Lock order: lock, then copy locks by GPU; tables by id.  The registry
	 * lock comes last, and is never held while waiting for another.
	 */
	int			home;
	gh_table   *copy[SVC_MAX_GPUS];
	pthread_mutex_t copy_lock[SVC_MAX_GPUS];
	uint64		on_gpu[SVC_MAX_GPUS];	/* bytes it keeps on each GPU (its table,
										 * a copy or a part; 0: none), as
										 * counted in gpu_use */
	uint64		budget;			/* the build's GPU memory budget, for copies */
	gh_table_info probes;		/* the probes' figures over all copies
								 * (registry lock) */
	bool		doomed;			/* freed while in use: the last user drops it */

	/*
	 * Chain probes reading one of its copies on a lane, its copy lock let go
	 * (service_probe.c): raised under that lock before it is let go, lowered
	 * when the probe is done.  CARRY_FINISH, which drops the copies and
	 * replaces the carried columns under every copy lock, waits until none
	 * is left; under those locks no new one comes.
	 */
	pg_atomic_uint32 lane_readers;

	/*
	 * A dimension (service_dim_serve.c) instead of a join table: keys (n_rows)
	 * and filled as a build's, the values and heap as they come (DIM_APPEND),
	 * then dim on GPU home (-1: the host twin).  Only DIM_* and PAGE_AGG
	 * requests take it; no other request takes a table that is one.
	 */
	bool		is_dim;
	gh_agg_dim *dim;
	int			dim_ninner;
	gh_agg_inval *dim_vals;		/* n_rows * dim_ninner */
	uint8	   *dim_heap;
	uint64		dim_heap_bytes;
	uint64		dim_vals_filled;	/* bytes received */
	uint64		dim_heap_filled;
	bool		carry_dropped;	/* (registry lock) a CARRY_* request was
								 * given up while the table was in use: its
								 * last user frees the carried columns */

	/*
	 * Resident groups (service_groups_serve.c) instead of a join table: the
	 * set, on GPU home (-1: the host twin), merged into by PAGE_AGG requests
	 * under lock; its finish's answer kept for the chunks that read it.
	 */
	bool		is_set;
	gh_agg_set *set;
	bool		set_incomplete;	/* a request's groups did not go in */
	gh_agg_groups *set_out;		/* the finish's groups (NULL: not finished) */
	uint64		set_removed;	/* groups the HAVING terms dropped */
} SvcTable;


/* The registry's lock (service_registry.c): taken last and held briefly. */
extern pthread_mutex_t svc_registry;

/* service_registry.c */
extern volatile bool svc_freed_since_trim;	/* memory to give back */
extern gh_status svc_fail(SvcSlot *s, gh_status st, const char *msg);
extern void svc_publish_locked(void);
extern void svc_publish_stats(void);
extern void svc_count_on_gpu(SvcTable *t, int g, uint64 bytes);
extern void svc_uncount_on_gpu(SvcTable *t, int g);
extern bool svc_gpu_fault(gh_status st);
extern void svc_ack_free(int i, uint64 taken);
extern void svc_free_carry(SvcTable *t);
extern void svc_free_dim_parts(SvcTable *t);
extern SvcTable *svc_use_table(uint32 id);
extern void svc_unuse_table(SvcTable *t);
extern void svc_drop_carry_id(uint32 id);
extern bool svc_drop_table_id(uint32 id);
extern gh_status svc_begin_build(SvcSlot *s);
extern gh_status svc_serve_table_page(SvcSlot *s, SvcTable *t);

/* service_page_cache.c: a page request's pages in the device's page cache */
typedef struct SvcPageCacheHold
{
	struct PageCache *cache;	/* NULL: nothing held */
	gh_page_ref *refs;			/* the request's refs, by address */
	gh_page_fill *fills;
	uint32		n_fills;
	int32	   *held;			/* entries read or filled by the walk */
	uint32		n_held;
	uint64		stored;			/* pages the walk reads from the cache */
} SvcPageCacheHold;

extern bool svc_page_cache_begin(SvcSlot *s, int ordinal, const gh_page_ref *refs,
								 const SvcPageTag *tags, uint32 n, SvcPageCacheHold *h);
extern gh_status svc_page_cache_fill(SvcSlot *s, int ordinal, const SvcPageTag *tags,
									 const gh_page_ref **refs, const uint8 **pages,
									 size_t *pages_bytes, SvcPageCacheHold *h);
extern void svc_page_cache_end(SvcPageCacheHold *h, bool ok);
extern void svc_page_cache_trim(void);
extern gh_status svc_register_table(SvcSlot *s, SvcTable *t);
extern SvcTable *svc_new_table(SvcSlot *s);
extern void svc_unmade_table(SvcTable *t);
extern bool svc_owner_alive(int pid);
extern void svc_drop_orphans(void);

/* service_build.c */
extern gh_status svc_serve_on_table(SvcSlot *s, SvcTable *t);
extern bool svc_injected(SvcSlot *s, int g);
extern gh_status svc_injected_failure(void);

/* service_registry.c: a set's parts freed with its entry */
extern void svc_free_set_parts(SvcTable *t);

/* service_dim_serve.c */
extern gh_status svc_begin_dim(SvcSlot *s);
extern gh_status svc_serve_dim(SvcSlot *s, SvcTable *t);
extern gh_status svc_serve_dim_matched(SvcSlot *s, SvcTable *t);
extern SvcTable *svc_use_dim(SvcSlot *s);
extern void svc_unuse_dim(SvcTable *t);

/* service_dim_star.c: a request's star of dimensions */
extern gh_agg_dim *svc_star_use(SvcSlot *s, const gh_agg_prog *agg, SvcTable *first,
								SvcTable **pinned);
extern void svc_star_unuse(gh_agg_dim *star, SvcTable **pinned, int n);

/* service_groups_serve.c */
extern gh_status svc_begin_set(SvcSlot *s);
extern gh_status svc_serve_set_finish(SvcSlot *s);
extern SvcTable *svc_use_set(SvcSlot *s);
extern bool svc_set_take(SvcTable *t, gh_agg_groups *g);
extern void svc_unuse_set(SvcTable *t);

/* service_probe.c */
extern gh_status svc_serve_probe(SvcSlot *s, SvcTable *t);
extern gh_status svc_serve_chain(SvcSlot *s);

#endif							/* GPUHASH_WORKER_INTERNAL_H */
