/*
 * gpuhash_table.h
 *		The C interface to gpuhash's join hash tables.
 *
 * A join table is built from the inner side of an equi-join given as
 * (64-bit key, rowid) pairs.  Duplicate keys are the normal case: the pairs
 * are sorted by key, run-length encoded into distinct keys, and a static
 * hash (GPH, FKS or plain linear probing) is built over the distinct keys
 * only.  Every distinct key maps to a range [offset, offset + count) of the
 * table's key-grouped rowid array, so a probe answers with a range and a
 * join emits pairs by count -> exclusive scan -> write.
 *
 * The same algorithms run on a GPU or on the CPU (the "host twin"); both
 * share their hash functions and slot arithmetic (hash.cuh), so they give
 * the same answers.  Nothing here needs PostgreSQL and no CUDA type appears
 * in this header.  Functions are not thread-safe for one table; distinct
 * tables may be used from distinct threads.
 */
#ifndef GPUHASH_TABLE_H
#define GPUHASH_TABLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

typedef enum gh_device
{
	GH_DEVICE_HOST = 0,			/* the host twin, on the CPU */
	GH_DEVICE_GPU = 1
} gh_device;

typedef enum gh_scheme
{
	GH_SCHEME_GPH = 0,			/* one bucket read per probe */
	GH_SCHEME_FKS = 1,			/* two-level perfect hash, two reads */
	GH_SCHEME_LINEAR = 2,		/* open addressing, the in-project baseline */
	GH_SCHEME_CUCKOO = 3,		/* bucketed cuckoo (seed 001) */
	GH_SCHEME_HASHGRAPH = 4,	/* CSR buckets of sorted keys (seed 002) */
	GH_SCHEME_DYCUCKOO = 5		/* DyCuckoo's cuckoo subtables (seed 004) */
} gh_scheme;

#define GH_N_SCHEMES 6

typedef enum gh_status
{
	GH_OK = 0,
	GH_ERR_INVALID,				/* bad argument */
	GH_ERR_HOST_MEMORY,			/* host allocation failed */
	GH_ERR_GPU_MEMORY,			/* device allocation failed or over budget */
	GH_ERR_NO_GPU,				/* no usable GPU */
	GH_ERR_CUDA,				/* any other CUDA failure */
	GH_ERR_BUILD_FAILED,		/* retry budget of the scheme exhausted */
	GH_ERR_OUTPUT_FULL,			/* emit: more pairs than the given capacity */
	GH_ERR_TOO_LARGE,			/* more rows than the table can index */
	GH_ERR_CANCELLED			/* the build's cancel callback said stop */
} gh_status;

/* Largest number of inner rows a table accepts (ranges are 32-bit). */
#define GH_MAX_ROWS ((uint64_t) UINT32_MAX)

typedef struct gh_build_options
{
	gh_device	device;
	gh_scheme	scheme;
	uint64_t	seed;			/* 0 picks the fixed default seed */
	double		load_factor;	/* GPH and linear; 0 picks 0.5; cuckoo:
								 * its fill if above 0.5, else 0.85 */
	size_t		max_device_bytes;	/* GPU memory budget; 0 = no limit */
	int			gpu_ordinal;	/* which GPU; < 0 picks device 0 */

	/*
	 * Asked before a build and between the steps of a host twin build (a
	 * GPU build is short); nonzero stops it with GH_ERR_CANCELLED, so that
	 * a build nobody waits for any more does not run to its end.  NULL:
	 * never asked.  A pointer into the calling process: set it there.
	 */
	int			(*cancelled) (void *arg);
	void	   *cancel_arg;
} gh_build_options;

/* Fills *opt with the defaults: host device, GPH, load factor 0.5. */
void		gh_default_options(gh_build_options *opt);

/* What a built table is and what it cost. */
typedef struct gh_table_info
{
	gh_device	device;
	gh_scheme	scheme;
	uint64_t	n_rows;			/* inner rows given to gh_build */
	uint64_t	n_distinct;		/* distinct keys */
	int			rowid_width;	/* 4 or 8 bytes */
	uint64_t	seed;			/* seed of the successful attempt */
	int			attempts;		/* build attempts (1 = no redraw) */
	int			rounds;			/* FKS level-2 rounds / GPH placement rounds /
								 * HashGraph's longest bucket */
	uint64_t	slots;			/* hash slots (all schemes) */
	uint64_t	cells;			/* GPH cells / FKS level-1 / HashGraph buckets */
	size_t		device_bytes;	/* GPU memory held by the table */
	size_t		host_bytes;		/* host memory held by the table */
	/* accumulated timings in milliseconds */
	double		build_ms;		/* whole build, transfers included */
	double		build_sort_ms;	/* sort + run-length encode */
	double		build_hash_ms;	/* scheme construction */
	double		probe_ms;		/* probe kernels / loops */
	double		transfer_ms;	/* host <-> device copies during probes */
	uint64_t	probe_batches;
	uint64_t	probe_keys;
	int			gpu_ordinal;	/* the GPU a table lives on; -1: the host
								 * twin, or partitioned over several */
	int			parts;			/* 1, or the parts of a partitioned table */
} gh_table_info;

/* Per probe: matches are rowids[offset .. offset + count - 1]. */
typedef struct gh_range
{
	uint32_t	offset;
	uint32_t	count;
} gh_range;

typedef struct gh_table gh_table;

/*
 * Build a table from n (key, rowid) pairs.  rowids points to n values of
 * rowid_width (4 or 8) bytes, or is NULL for rowid = position (width 4 or 8
 * still chooses the output width).  On success *out holds the table; on
 * failure *out is NULL and gh_last_error() says why.
 */
gh_status	gh_build(const gh_build_options *opt,
					 const uint64_t *keys, const void *rowids, int rowid_width,
					 size_t n, gh_table **out);

/*
 * A GPU build whose n keys come in pieces (the GPU service's staging
 * chunks), rowid = position, width 4: each piece goes straight to device
 * memory, charged to opt's budget, and the table is built there from them,
 * with no host copy of the keys.  Until gh_build_staged_finish succeeds the
 * table answers nothing but gh_build_staged_keys (the keys back, for a
 * build that must move elsewhere) and gh_free.
 */
gh_status	gh_build_staged_begin(const gh_build_options *opt, size_t n, gh_table **out);
gh_status	gh_build_staged_put(gh_table *t, size_t pos, const uint64_t *keys, size_t n);
gh_status	gh_build_staged_finish(gh_table *t, const gh_build_options *opt);
gh_status	gh_build_staged_keys(gh_table *t, uint64_t *keys);

/* counts[i] = number of inner rows whose key equals keys[i]; *total = sum. */
gh_status	gh_probe_count(gh_table *t, const uint64_t *keys, size_t n,
						   uint32_t *counts, uint64_t *total);

/* ranges[i] = the rowid range of keys[i] in gh_sorted_rowids(). */
gh_status	gh_probe_ranges(gh_table *t, const uint64_t *keys, size_t n,
							gh_range *ranges, uint64_t *total);

/*
 * Multi-level probe: a chain of join tables probed in one call, level by
 * level, without the intermediate combinations leaving the device.  Each
 * level's key comes from a column of the outer keys or from a key column
 * carried by an earlier level's inner rows (a snowflake: lineitem -> orders
 * -> customer -> nation).  A combination is an outer row and, per level so
 * far, a position in that level's key-grouped row order (the order
 * gh_probe_ranges' ranges index), or GH_NO_ROW.
 *
 *   inner: one combination per match; none without a match
 *   semi:  the combination once if any row matches (position GH_NO_ROW)
 *   anti:  the combination if none matches (position GH_NO_ROW)
 *   left:  one per match; without a match, once with GH_NO_ROW
 *
 * A level's key may also be put together from up to GH_CHAIN_KEY_PARTS
 * parts of different sources (lineitem -> orders -> customer -> supplier
 * keyed by l_suppkey and c_nationkey): the key is the bitwise OR of its
 * parts' cells, each packed with the other parts' bits zero (exact keys
 * only; a fingerprint does not split so).
 *
 * A key with a part that is NULL (not valid), or read from a level whose
 * position is GH_NO_ROW, matches nothing.  Other join clauses are the
 * caller's.
 */
#define GH_NO_ROW UINT32_MAX

typedef enum gh_level_kind
{
	GH_LEVEL_INNER = 0,
	GH_LEVEL_SEMI,
	GH_LEVEL_ANTI,
	GH_LEVEL_LEFT
} gh_level_kind;

/* Most levels a chain has (the GPU service's chain request carries them). */
#define GH_MAX_CHAIN_LEVELS 8
/*
 * The most combinations a chain probe holds at any level: over it the probe
 * is GH_ERR_TOO_LARGE, and its caller asks for fewer outer rows at once.
 * The bound keeps a request's memory (about 4 bytes per level and
 * combination, twice) within a few hundred MB, on the GPU and in the
 * service alike.
 */
#define GH_CHAIN_MAX_COMBINATIONS (UINT64_C(1) << 25)

#define GH_CHAIN_KEY_PARTS 4

typedef struct gh_chain_key_part
{
	int			from_level;		/* -1: outer key column `column`; else an
								 * earlier level's carried column `column` */
	int			column;
} gh_chain_key_part;

typedef struct gh_chain_level
{
	gh_table   *table;
	gh_level_kind kind;
	int			n_parts;		/* 1 to GH_CHAIN_KEY_PARTS */
	gh_chain_key_part part[GH_CHAIN_KEY_PARTS];
} gh_chain_level;

/*
 * Gives a table ncols key columns carried by its inner rows, for later
 * levels of a chain to read: keys[c * n_rows + r] and valid[c * n_rows + r]
 * (valid NULL: none is NULL) for the row built with rowid r.  The table
 * must have been built with rowids NULL (rowid = position).  Replaces any
 * columns given before.
 */
gh_status	gh_set_carried(gh_table *t, const uint64_t *keys, const uint8_t *valid, int ncols);

/*
 * The same, with the cells given in the table's key-grouped order:
 * keys[c * n_rows + p] for position p of gh_sorted_rowids() (the order
 * probe ranges and chain positions index).  No rowid is looked at, so the
 * table may have been built with any rowids.  A refused call keeps the
 * columns given before.
 */
gh_status	gh_set_carried_ordered(gh_table *t, const uint64_t *keys, const uint8_t *valid,
								   int ncols);

/*
 * Probes n outer rows through the chain of 1 to GH_MAX_CHAIN_LEVELS levels:
 * outer_keys[c * n + i] (valid as above, may be NULL) for n_outer_cols
 * columns.  All tables must live on one device.  Writes the final
 * combinations, grouped by outer row in ascending order, then by each
 * level's position: out_outer[j] and out_pos[l * capacity + j].  *total is
 * their number; over capacity, nothing is written and GH_ERR_OUTPUT_FULL is
 * returned.
 */
gh_status	gh_chain_probe(const gh_chain_level *levels, int n_levels,
						   const uint64_t *outer_keys, const uint8_t *outer_valid,
						   int n_outer_cols, size_t n,
						   uint32_t *out_outer, uint32_t *out_pos,
						   uint64_t capacity, uint64_t *total);

/*
 * The same probe, its answer read in windows: of the whole ordered list of
 * combinations (gh_chain_probe's order), entries [skip, skip + capacity)
 * are written, fewer at its end: out_outer[j], out_pos[l * capacity + j].
 * *total is the list's length, *written how many were written.  Never
 * GH_ERR_OUTPUT_FULL; skip > *total is GH_ERR_INVALID.  Each call probes
 * the whole chain again: a caller reads the list by skip += *written.
 * level_ms (NULL: not timed) gets each level's time added, in ms: on the
 * GPU its kernels' time between CUDA events (gather, lookup, count, scan,
 * expand), on the host twin the level's loop.
 */
gh_status	gh_chain_probe_window(const gh_chain_level *levels, int n_levels,
								  const uint64_t *outer_keys, const uint8_t *outer_valid,
								  int n_outer_cols, size_t n, uint64_t skip,
								  uint32_t *out_outer, uint32_t *out_pos,
								  uint64_t capacity, uint64_t *total, uint64_t *written,
								  double *level_ms);

/*
 * Several GPUs.  A table partitioned over n parts holds, in part p, the
 * inner rows whose key has gh_part_of(key, n) == p (hash.cuh), built on
 * GPU ordinals[p] (or on the host, device GH_DEVICE_HOST: the host twin
 * runs the same split, for tests).  It answers every call a single table
 * does, with the same ranges: a probe splits its keys by the same
 * function, probes each part on its GPU at once, and adds to each range
 * the rows of the parts before it; its key-grouped row order is the
 * parts' orders one after the other.  Each part has its own budget
 * (opt->max_device_bytes).  Rowids are positions (width 4).  A chain
 * needs its tables on one GPU, so a partitioned table carries no columns.
 */
#define GH_MAX_PARTS 8

gh_status	gh_build_partitioned(const gh_build_options *opt, const int *ordinals, int n_parts,
								 const uint64_t *keys, size_t n, gh_table **out);

/*
 * A copy of a GPU table (its carried columns too) on GPU `ordinal`, within
 * max_device_bytes (0: no limit); the copy answers as the original does.
 * Only reads the original, so the original may be probed meanwhile from
 * another thread.  A partitioned or host table is GH_ERR_INVALID.
 */
gh_status	gh_replicate(const gh_table *t, int ordinal, size_t max_device_bytes,
						 gh_table **out);

/*
 * The table's rowids grouped by key (n_rows values of rowid_width bytes) in
 * host memory; the ranges of gh_probe_ranges index into it.  NULL on error.
 */
const void *gh_sorted_rowids(gh_table *t);

void		gh_table_get_info(const gh_table *t, gh_table_info *info);

/* Frees all host and device memory of the table; NULL is a no-op. */
void		gh_free(gh_table *t);

/* Checks a built table's invariants (slot placement, ranges); GH_OK if sound. */
gh_status	gh_validate(gh_table *t);

/* Text of the last error in this thread. */
const char *gh_last_error(void);

/*
 * gpuhash.scheme = auto (scheme_choice.cpp): each scheme's estimated GPU
 * time to build a table over `rows` keys of which `distinct` differ and
 * to look up `probes` keys, from bench_core's measurements
 * (scheme_costs.h).  est[] gets the schemes this build has, cheapest
 * first; the return value is how many.
 */
typedef struct gh_scheme_estimate
{
	gh_scheme	scheme;
	double		build_ms;
	double		probe_ms;
} gh_scheme_estimate;

int			gh_scheme_estimates(double rows, double distinct, double probes,
								gh_scheme_estimate est[GH_N_SCHEMES]);
/* The cheapest of them (GPH when nothing is known). */
gh_scheme	gh_scheme_auto(double rows, double distinct, double probes);

const char *gh_scheme_name(gh_scheme s);
const char *gh_device_name(gh_device d);
const char *gh_status_name(gh_status s);

/* GPU discovery; safe to call where no driver or GPU exists. */
typedef struct gh_gpu_info
{
	int			ordinal;
	char		name[256];
	size_t		total_memory;
	size_t		free_memory;
	int			cc_major;
	int			cc_minor;
	int			multiprocessors;
	size_t		l2_bytes;
} gh_gpu_info;

/*
 * Number of usable GPUs (0 when none or no driver, or in a build without
 * CUDA); when 0, gh_last_error() says why.
 */
int			gh_gpu_count(void);
gh_status	gh_gpu_get_info(int ordinal, gh_gpu_info *info);
/* CUDA driver and runtime versions as 1000*major + 10*minor; 0 if unknown. */
void		gh_cuda_versions(int *driver, int *runtime);

/*
 * Device memory freed by tables stays cached in the process (the
 * stream-ordered allocator's pool) for the next build; this hands it back
 * to the driver (e.g. when a backend goes idle).  Safe without a GPU.
 */
void		gh_gpu_trim(int ordinal);

/*
 * Page-locks host memory for fast copies (cudaHostRegister), for memory
 * that lives long (the GPU service's staging area).  GH_OK, or an error
 * when there is no GPU or the memory cannot be locked.
 */
gh_status	gh_host_register(void *ptr, size_t bytes);

/* Sets the text gh_last_error() returns (for callers relaying errors). */
void		gh_set_last_error(const char *text);

/*
 * Has a CUDA call of this process met an error that leaves its GPU's
 * context unusable (an illegal address, a device-side assert, a launch
 * failure: every later call on that context fails the same way)?  Only a
 * new process gets a new context, so the GPU service restarts when it sees
 * this (service_worker.c).  gh_cuda_error notes it; gh_note_gpu_lost is
 * also the service's test injection (gpuhash.debug_lose_gpu).
 */
int			gh_gpu_lost(void);
void		gh_note_gpu_lost(void);

/*
 * For tests: a kernel on GPU ordinal writes to an illegal address, as a
 * faulty kernel would; the error comes back as any CUDA error does (and is
 * noted: gh_gpu_lost).  GH_ERR_NO_GPU without a GPU.
 */
gh_status	gh_gpu_inject_fault(int ordinal);

#ifdef __cplusplus
}
#endif

#endif							/* GPUHASH_TABLE_H */
