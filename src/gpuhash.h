/*-------------------------------------------------------------------------
 *
 * gpuhash.h
 *	  Declarations shared by the gpuhash extension's C files.
 *
 * The planner (planner.c) offers a GpuHashJoin custom path for equi-joins
 * of every join type, on exact 64-bit keys or fingerprints (keys.c); the
 * executor (executor.c and the files join_state.h names) keeps the inner
 * side within work_mem, ships its keys to a join table built by the hash
 * core (cuda/gpuhash_table.h) on the device device_choice.c picks, and
 * probes the outer side in batches.  ARCHITECTURE.md draws the whole.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_H
#define GPUHASH_H

#include "postgres.h"

#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "portability/instr_time.h"

#include "gpuhash_table.h"

#define GPUHASH_NODE_NAME "GpuHashJoin"

/* Milliseconds since t0, which the caller set with INSTR_TIME_SET_CURRENT. */
static inline double
gpuhash_ms_since(instr_time t0)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, t0);
	return INSTR_TIME_GET_MILLISEC(now);
}

/*
 * Maps len bytes at p, written all over next, in one call rather than a
 * page fault a page (prefault.c); only a hint.
 */
extern bool gpuhash_prefault_on;
extern void gpuhash_prefault(void *p, Size len);
extern void gpuhash_prefault_large(void *p, Size len);

/* gpuhash.device */
typedef enum GpuHashDeviceMode
{
	GPUHASH_DEVICE_AUTO,		/* the GPU if usable, else PostgreSQL's own joins */
	GPUHASH_DEVICE_GPU,			/* the GPU; an unusable GPU is an error */
	GPUHASH_DEVICE_HOST			/* the host twin on the CPU */
} GpuHashDeviceMode;

/* settings (gpuhash.c) */
extern bool enable_gpuhashjoin;
extern int	gpuhash_device_mode;
extern int	gpuhash_scheme;	/* a gh_scheme, or GPUHASH_SCHEME_AUTO */
#define GPUHASH_SCHEME_AUTO (-1)
extern int	gpuhash_batch_rows;
extern int	gpuhash_max_gpu_memory_mb;
extern int	gpuhash_page_cache_mb;
/* gpuhash.gpus, parsed: CUDA device numbers, n -1 for all */
#define GPUHASH_MAX_GPUS 8
extern char *gpuhash_gpus;
extern int	gpuhash_gpu_list[GPUHASH_MAX_GPUS];
extern int	gpuhash_gpu_list_n;
extern int	gpuhash_host_partitions;
extern int	gpuhash_debug_fail_gpu;
extern bool gpuhash_debug_lose_gpu;
extern double gpuhash_load_factor;
extern double gpuhash_setup_cost;
extern double gpuhash_build_row_cost;
extern double gpuhash_kept_row_cost;
extern double gpuhash_kept_join_row_cost;
extern double gpuhash_match_row_cost;
/* the page path's (planner/page_price.c) */
extern double gpuhash_page_cpu_cost;
extern double gpuhash_page_row_cost;
extern double gpuhash_page_match_cost;
extern double gpuhash_min_gain;
extern double gpuhash_serial_inner_penalty;
extern double gpuhash_absorbed_page_cost;
extern int	gpuhash_max_inner_memory_kb;
extern int	gpuhash_fingerprint_bits;
extern bool gpuhash_outer_filter;
extern bool gpuhash_test_bypass_join_hook;
extern bool gpuhash_absorb_outer_scan;
extern bool gpuhash_absorb_inner_scan;
extern bool gpuhash_shared_inner_pages;
extern bool gpuhash_scan_filter_in_place;
extern bool gpuhash_page_scan;
/* gpuhash.page_inner: where the inner side's page walk may run (page_inner.c) */
typedef enum GpuhashPageInner
{
	GPUHASH_PAGE_INNER_OFF,
	GPUHASH_PAGE_INNER_GPU,		/* only where it walks on a service GPU */
	GPUHASH_PAGE_INNER_ALWAYS	/* on the host twin too (tests) */
} GpuhashPageInner;
extern int	gpuhash_page_inner;
extern bool gpuhash_page_inner_service;
extern bool gpuhash_page_inner_keys;
extern bool gpuhash_page_in_place;
extern bool gpuhash_chain_joins;
/* gpuhash.right_semi_anti: only, for tests, offers semi and anti joins no other GPU path */
#define GPUHASH_RIGHT_OFF 0
#define GPUHASH_RIGHT_ON 1
#define GPUHASH_RIGHT_ONLY 2
extern int	gpuhash_right_semi_anti;
extern bool gpuhash_gpu_aggregate;
extern bool gpuhash_gpu_aggregate_join;
extern bool gpuhash_dimension_pages;
extern bool gpuhash_preagg_shared_dim;

/*
 * How one side of one key column turns into 64 bits.  Integer-like types
 * widen (sign- or zero-extend) so that int2 = int8 matches as PostgreSQL's
 * cross-type operators do.
 */
typedef enum GpuKeyConv
{
	GPUKEY_INT16,				/* int2 */
	GPUKEY_INT32,				/* int4, date */
	GPUKEY_INT64,				/* int8, time, timestamp, timestamptz */
	GPUKEY_UINT32,				/* oid */
	GPUKEY_BOOL,
	GPUKEY_HASH					/* any hashable type: its extended hash */
} GpuKeyConv;

/*
 * One key column.  Exact keys (integer-like types) pack into one 64-bit key
 * that is the values themselves: a match is a match.  Otherwise every column
 * goes through its type's extended hash function (the operator's hash
 * opfamily, so cross-type operators hash compatibly) into a 64-bit
 * fingerprint, and every key clause is rechecked on the CPU after a match.
 */
typedef struct GpuKeySpec
{
	GpuKeyConv	outer_conv;
	GpuKeyConv	inner_conv;
	int			width;			/* bits this column takes in a packed key */
	Oid			outer_hashfn;	/* GPUKEY_HASH: extended hash of each side */
	Oid			inner_hashfn;
	Oid			collation;		/* the operator's input collation */
} GpuKeySpec;

/* keys.c */
extern bool gpuhash_key_spec_for_op(Oid opno, bool outer_is_left, GpuKeySpec *spec);
extern bool gpuhash_fingerprint_spec_for_op(Oid opno, Oid collation, bool outer_is_left,
											GpuKeySpec *spec);
extern bool gpuhash_conv_for_type(Oid typid, GpuKeyConv *conv);
extern int	gpuhash_conv_width(GpuKeyConv conv);

static inline uint64
gpuhash_encode_datum(Datum d, GpuKeyConv conv)
{
	switch (conv)
	{
		case GPUKEY_INT16:
			return (uint64) (int64) DatumGetInt16(d);
		case GPUKEY_INT32:
			return (uint64) (int64) DatumGetInt32(d);
		case GPUKEY_INT64:
			return (uint64) DatumGetInt64(d);
		case GPUKEY_UINT32:
			return (uint64) DatumGetObjectId(d);
		case GPUKEY_BOOL:
			return DatumGetBool(d) ? 1 : 0;
		case GPUKEY_HASH:
			break;				/* hashed by the executor */
	}
	return 0;
}

/* Appends a column's value to a packed key (one column: the value itself). */
static inline uint64
gpuhash_pack(uint64 key, uint64 value, int width, int nkeys)
{
	if (nkeys == 1)
		return value;
	return (key << width) | (value & (width >= 64 ? ~UINT64CONST(0) : ((UINT64CONST(1) << width) - 1)));
}

/* planner.c */
extern void gpuhash_planner_init(void);
extern const char *gpuhash_join_hook_state(void);
/* agg/agg_paths.c: the GPU aggregate's upper-path hook */
extern void gpuhash_agg_planner_init(void);

/* costs.c */
struct PlannerInfo;
struct CustomPath;
struct Path;
struct GpuPagePrice;
extern void gpuhash_cost_join(struct PlannerInfo *root, struct CustomPath *cpath,
							  struct Path *outer_path, struct Path *inner_path,
							  bool parallel_inner, bool outer_scan, bool inner_scan,
							  bool inner_share, List *quals, int nkeys, double rows,
							  double outer_match_frac, bool anti, bool chained,
							  const struct GpuPagePrice *page);
extern double gpuhash_parallel_divisor(struct Path *path);
extern Cost gpuhash_parallel_page_excess(struct Path *scan);
extern double gpuhash_table_rows(struct Path *inner_path, bool parallel_inner);
extern bool gpuhash_one_table(struct Path *outer_path, struct Path *inner_path,
							  bool parallel_aware, bool parallel_inner);
extern double gpuhash_inner_share(struct Path *outer_path, struct Path *inner_path);
extern Cost gpuhash_inner_share_charge(struct Path *outer, struct Path *inner);
struct RelOptInfo;
struct JoinPathExtraData;
extern bool gpuhash_key_filter_pays(struct PlannerInfo *root, struct RelOptInfo *outerrel,
									struct RelOptInfo *innerrel, JoinType jointype,
									struct JoinPathExtraData *extra, List *hash_rinfos);
extern bool gpuhash_estimate_untrusted(struct PlannerInfo *root, struct RelOptInfo *joinrel,
									   struct RelOptInfo *outerrel, struct RelOptInfo *innerrel,
									   JoinType jointype, struct JoinPathExtraData *extra,
									   List *hash_rinfos);
extern CustomScanMethods gpuhash_scan_methods;

/*
 * A semi or anti join with its sides swapped, which PostgreSQL 15 has no
 * JoinType for: the table is built of the join's preserved side and probed
 * by the other, whose rows only mark the table rows they match; a table
 * row comes out once after the probe, matched (semi) or not (anti).
 * Stored in GpuJoinPlanInfo.jointype beside core's JoinType values.
 */
#define GPUHASH_JOIN_RIGHT_SEMI 100
#define GPUHASH_JOIN_RIGHT_ANTI 101

/* Plan-time facts the executor reads back from custom_private. */
typedef struct GpuJoinPlanInfo
{
	int			n_outer_cols;	/* outer child's output columns */
	int			scheme;			/* gh_scheme */
	int			jointype;		/* JoinType: INNER, LEFT, FULL, RIGHT, SEMI,
								 * ANTI; or GPUHASH_JOIN_RIGHT_SEMI, _ANTI */
	bool		fingerprint;	/* keys are hashed: recheck after a match */
	bool		single_match;	/* an outer row matches at most one inner row */
	int			n_filter;		/* filter clauses, after the join filter */
	int			n_gate;			/* pseudoconstant quals, last in custom_exprs */
	bool		parallel_inner; /* parallel-aware: every participant reads
								 * a share of a partial inner plan */
	bool		outer_scan;		/* the outer Seq Scan is absorbed: the node
								 * reads its pages (heap_scan.c) */
	bool		inner_scan;		/* the inner Seq Scan likewise */
	bool		key_filter;		/* outer rows are expected to miss: a Bloom
								 * filter of the inner keys pays (keyfilter.c) */
	int			nkeys;
	GpuKeySpec *keys;
	/* gpuhash.scheme = auto: the planner's estimates it chose the scheme by */
	bool		scheme_auto;
	double		est_rows;		/* inner rows */
	double		est_distinct;	/* their distinct keys */
	double		est_probes;		/* outer rows probed in the table */
} GpuJoinPlanInfo;

extern const char *gpuhash_jointype_name(int jointype);

/* plan_info.c: the slots of the path's and plan's lists */
typedef enum GpuPathPrivate
{
	GPP_HASH_RINFOS,			/* the hash clauses */
	GPP_OTHER_RINFOS,			/* the join filter (with the recheck, if hashed) */
	GPP_OUTER_KEYS,				/* key expressions of each side */
	GPP_INNER_KEYS,
	GPP_PLAN_INFO,				/* gpuhash_form_private's list */
	GPP_PUSHED_RINFOS,			/* an outer join's WHERE clauses: a filter */
	GPP_N
} GpuPathPrivate;

typedef enum GpuPlanExprs
{
	GPE_OUTER_KEYS,
	GPE_INNER_KEYS,
	GPE_JOIN_QUAL,				/* decides a match */
	GPE_FILTER,					/* on joined rows */
	GPE_GATE,					/* pseudoconstant quals, once per scan */
	GPE_N
} GpuPlanExprs;

extern List *gpuhash_form_private(const GpuJoinPlanInfo *info);
extern void gpuhash_deform_private(List *priv, GpuJoinPlanInfo *info);
extern List *gpuhash_form_path_private(List *hash_rinfos, List *other_rinfos,
									   List *outer_keys, List *inner_keys,
									   const GpuJoinPlanInfo *info, List *pushed_rinfos);
extern List *gpuhash_path_private(List *priv, GpuPathPrivate slot);
extern List *gpuhash_form_exprs(GpuJoinPlanInfo *info, List *outer_keys, List *inner_keys,
								List *join_qual, List *filter, List *gate);
extern List *gpuhash_plan_exprs(List *custom_exprs, const GpuJoinPlanInfo *info,
								GpuPlanExprs which);

/* executor.c */
extern Node *gpuhash_create_scan_state(CustomScan *cscan);

/* explain.c */
extern void gpuhash_explain(CustomScanState *node, List *ancestors,
							struct ExplainState *es);

/*
 * A join table, wherever it lives: in this process (local), or in the GPU
 * service (remote).  join_table.c is the one place that knows which.
 */
typedef struct GhRemoteTable
{
	uint32		id;				/* 0: none */
	uint32		generation;		/* service generation that owns it */
	uint64		n_rows;
	gh_table_info info;
	uint64		probe_requests; /* requests its probes took (service_client.c) */
	double		ship_ms;		/* its build's keys sent to the service */
	char		note[192];		/* the build's placement, when the service had
								 * to move it (a GPU failed or was full) */
} GhRemoteTable;

/*
 * Where a backend's waits on the GPU service went, summed over the
 * requests it waited for (service_slots.c): handed over until the
 * service's main thread took it, until a worker thread took it, served,
 * and from the answer (or the wait's start, if later) until the backend
 * saw it.
 */
typedef struct GpuSvcTimes
{
	uint64		requests;
	double		queue_ms;
	double		thread_ms;
	double		serve_ms;
	double		seen_ms;
} GpuSvcTimes;

extern GpuSvcTimes gpuhash_svc_times;
extern void gpuhash_svc_times_since(GpuSvcTimes *into, const GpuSvcTimes *before);

/* A probe in flight in the service: its slot (-1: none), generation, keys. */
typedef struct GhProbeTicket
{
	int			slot;
	uint32		generation;
	uint64		n;
} GhProbeTicket;

/* A chain probe sent to the service and not yet waited for (service_client.c). */
typedef struct GhChainTicket
{
	void	   *slot;			/* NULL: none out */
	uint32		generation;
	uint64		n;				/* outer rows */
	int			n_levels;
	int			n_outer_cols;
	bool		has_valid;
	bool		answered;		/* sent and answered at once (another was out) */
} GhChainTicket;

/*
 * A build's keys: one array, or a parallel build's shares one after the
 * other (shared_inner.c), sent as they lie, without concatenating them.
 * gpuhash_keys_one() makes the one-array kind, which points into itself.
 */
typedef struct GpuKeyParts
{
	int			nparts;
	const uint64 *const *keys;
	const uint64 *n;
	uint64		total;
	const uint64 *one_keys;
	uint64		one_n;
} GpuKeyParts;

static inline void
gpuhash_keys_one(GpuKeyParts *kp, const uint64 *keys, uint64 n)
{
	kp->one_keys = keys;
	kp->one_n = n;
	kp->nparts = 1;
	kp->keys = &kp->one_keys;
	kp->n = &kp->one_n;
	kp->total = n;
}

typedef struct GpuTable
{
	gh_table   *local;
	bool		remote;
	GhRemoteTable svc;
} GpuTable;

/* join_table.c */
extern gh_status gpuhash_table_build(GpuTable *t, const gh_build_options *opt,
									 const GpuKeyParts *keys, int owner_pid);
extern const uint32 *gpuhash_table_rowids(GpuTable *t, MemoryContext cxt);
extern gh_status gpuhash_table_probe(GpuTable *t, const uint64 *keys, uint64 n,
									 gh_range *ranges);
extern gh_status gpuhash_table_set_carried(GpuTable *t, const uint64 *keys, const uint8 *valid,
										   int ncols);
extern gh_status gpuhash_table_chain_probe(GpuTable *const *tables, const gh_chain_level *levels,
										   int n_levels, const uint64 *outer_keys,
										   const uint8 *outer_valid, int n_outer_cols, uint64 n,
										   uint64 skip, uint32 *out_outer, uint32 *out_pos,
										   uint64 capacity, uint64 *total, uint64 *written,
										   double *level_ms);
extern gh_status gpuhash_table_chain_submit(GpuTable *const *tables, const gh_chain_level *levels,
											int n_levels, const uint64 *outer_keys,
											const uint8 *outer_valid, int n_outer_cols,
											uint64 n, uint64 skip, uint64 capacity,
											GhChainTicket *tk);
extern gh_status gpuhash_table_chain_wait(GhChainTicket *tk, uint32 *out_outer, uint32 *out_pos,
										  uint64 capacity, uint64 *total, uint64 *written,
										  double *level_ms);
extern void gpuhash_table_chain_abandon(GhChainTicket *tk);
extern void gpuhash_table_info(const GpuTable *t, gh_table_info *info);
extern bool gpuhash_table_exists(const GpuTable *t);
extern void gpuhash_table_free(GpuTable *t);
extern void gpuhash_table_handed_over(const GpuTable *t);

/* device_choice.c */
typedef enum GpuhashWhere
{
	GPUHASH_RUN_GPU,
	GPUHASH_RUN_HOST,			/* gpuhash.device = host */
	GPUHASH_RUN_NATIVE,			/* auto without a usable GPU: PostgreSQL's joins */
	GPUHASH_RUN_ERROR			/* gpu without a usable GPU */
} GpuhashWhere;

extern GpuhashWhere gpuhash_effective_device(const char **reason);
extern int	gpuhash_plan_device(void);
extern gh_device gpuhash_exec_device(void);
extern int	gpuhash_local_gpu(int present);
extern bool gpuhash_gpu_usable(const char **reason);
extern void gpuhash_build_options(gh_build_options *opt, gh_device device, int scheme);
extern size_t gpuhash_gpu_budget(void);

/* Per-join figures for EXPLAIN ANALYZE. */
/*
 * Where a table build's time goes (EXPLAIN ANALYZE VERBOSE): the keys sent
 * to the GPU service, then gh_build, of which the copy to the device, the
 * sort and the scheme's construction.
 */
typedef struct GpuTableTimes
{
	double		ship_ms;
	double		build_ms;
	double		copy_ms;
	double		sort_ms;
	double		hash_ms;
} GpuTableTimes;

typedef struct GpuJoinStats
{
	bool		built;
	gh_device	device;
	uint64		inner_rows;
	uint64		null_key_rows;	/* inner rows dropped for a NULL key */
	uint64		distinct_keys;
	uint64		batches;
	uint64		outer_rows;
	uint64		outer_filtered; /* outer rows the key filter let go */
	double		build_ms;
	double		probe_ms;
	double		transfer_ms;
	size_t		gpu_bytes;
	int			table_parts;	/* >1: the table was partitioned (GPUs) */
	int			fallbacks;		/* GPU failures answered by the host twin */
	bool		in_service;		/* the table lived in the GPU service */
	int			builds;			/* table builds (rescans with new inner params) */
	int			hash_batches;	/* work_mem batches (batch.c), 1: all in memory */
	uint64		spilled_rows;	/* rows written to batch files */
	size_t		mem_peak;		/* most memory the kept inner rows took */
	/* an absorbed outer scan (heap_scan.c), and where a batch's time goes */
	uint64		scan_pages;
	double		scan_page_ms;	/* of read_ms: heapam getting its pages */
	uint64		scan_filtered;	/* rows its quals removed */
	uint64		inner_scan_filtered;	/* an absorbed inner scan's */
	double		read_ms;		/* reading outer rows and their keys */
	double		wait_ms;		/* waiting for the probe (GPU or host twin) */
	double		table_ms;		/* of build_ms: the table itself (keys sent, built) */
	GpuTableTimes table_parts_ms;	/* of table_ms, where it went */
	double		filter_ms;		/* of build_ms: the key filter */
	uint64		probe_requests; /* service requests of the probes: more than
								 * batches when a batch exceeds a staging chunk */
	uint64		in_flight_sum;	/* batches in flight at each submit, summed */
	uint64		prefilled;		/* batches read past the ring during a
								 * parallel build (executor.c) */
	double		emit_ms;		/* EXPLAIN ANALYZE: forming and handing out rows */
	double		carry_ms;		/* chain.c: its rows' carried keys made and sent */
	double		start_ms;		/* starting a scan or hash batch: the first outer
								 * row, reading the inner side, the build or
								 * the wait for a parallel plan's (not emit) */
	double		inner_read_ms;	/* of start_ms: reading the inner rows */
	double		share_ms;		/* of start_ms, a parallel build over all
								 * readers: shares put in the DSA, rows laid
								 * out in table order (shared_inner.c) */
	double		build_wait_ms;	/* of start_ms: waiting at that build's
								 * barriers for the other participants */
	int			split_batches;	/* a parallel join split at run time: its
								 * shared batches; 0: not split */
	double		chain_ms;		/* a chain's level: its probe's time (chain.c) */
	GpuSvcTimes svc;			/* of wait_ms, where the service's requests went */
} GpuJoinStats;

/*
 * What a kept inner row costs beyond its columns: its key, its share of the
 * join table and of the keys in flight to it (batch.c's accounting).
 */
#define GPUHASH_ROW_OVERHEAD 48
#define GPUHASH_MAX_BATCHES (1 << 16)

/* batch.c */
extern size_t gpuhash_memory_limit(void);
extern double gpuhash_inner_bytes(double inner_rows, int inner_width);
extern int	gpuhash_initial_nbatch(double inner_rows, int inner_width);
extern bool gpuhash_split_expected(double inner_rows, int inner_width, double participants);

/* A hint to start loading p into the cache (no fault if p is bad). */
#if defined(__GNUC__) || defined(__clang__)
#define gpuhash_prefetch(p) __builtin_prefetch(p)
#else
#define gpuhash_prefetch(p) ((void) (p))
#endif

#endif							/* GPUHASH_H */
