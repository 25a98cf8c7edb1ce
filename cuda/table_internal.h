/*
 * table_internal.h
 *		What a gh_table holds, shared by the API layer (table.cpp), the host
 *		twin (host_build.cpp, host_probe.cpp) and the GPU side (gpu_*.cu).
 *		C++ only; never included by the extension's C code.
 */
#ifndef GPUHASH_TABLE_INTERNAL_H
#define GPUHASH_TABLE_INTERNAL_H

#include "gpuhash_table.h"
#include "gpuhash_page.h"
#include "schemes/cuckoo.cuh"
#include "schemes/fks.cuh"
#include "schemes/gph.cuh"
#include "schemes/hashgraph.cuh"
#include "schemes/linear.cuh"
#include "schemes/dycuckoo.cuh"

#include <stdarg.h>

struct gh_gpu_state;			/* gpu_table.cu */

struct gh_table
{
	gh_device	device;
	gh_scheme	scheme;
	uint64_t	n_rows;
	uint64_t	n_distinct;
	int			rowid_width;
	uint64_t	seed;
	int			attempts;
	int			rounds;
	uint64_t	n_slots;
	uint64_t	n_cells;

	/* Views: host pointers for the host twin, device pointers on the GPU. */
	gh_fks_view fks;
	gh_gph_view gph;
	gh_lin_view lin;
	gh_hg_view	hg;
	gh_dyc_view dyc;
	gh_cuckoo_view cuckoo;

	/* Host twin storage (NULL on the GPU except rowids, filled lazily). */
	void	   *h_rowids;		/* n_rows values, grouped by key */
	void	   *h_rec;			/* FKS level 1, HashGraph offsets */
	gh_slot    *h_slots;
	uint8_t    *h_cells;		/* GPH */
	size_t		host_bytes;

	/* gh_set_carried's columns, in key-grouped order (host twin) */
	int			n_carried;
	uint64_t   *h_carried;		/* n_carried x n_rows */
	uint8_t    *h_carried_valid;	/* the same, or NULL: all valid */

	gh_gpu_state *gpu;			/* NULL for the host twin */
	int			ordinal;		/* the GPU it lives on; -1: the host twin */

	/* a partitioned table (partitioned.cpp): its parts, no view of its own */
	int			n_parts;		/* 0: a single table */
	gh_table  **parts;
	uint64_t   *part_base;		/* rows of the parts before part p */

	gh_table_info stats;		/* timings accumulate here */
};

/* Records an error for gh_last_error() and returns status. */
gh_status	gh_error(gh_status status, const char *fmt,...)
#if defined(__GNUC__)
			__attribute__((format(printf, 2, 3)))
#endif
			;

/* Host twin (host_build.cpp / host_probe.cpp). */
gh_status	gh_host_build(gh_table *t, const gh_build_options *opt,
						  const uint64_t *keys, const void *rowids, size_t n);
gh_status	gh_host_probe_ranges(gh_table *t, const uint64_t *keys, size_t n,
								 gh_range *ranges, uint32_t *counts, uint64_t *total);
gh_status	gh_host_emit(gh_table *t, const uint64_t *keys, size_t n,
						 uint32_t *probe_index, void *rowids,
						 uint64_t capacity, uint64_t *total);
void		gh_host_free(gh_table *t);

/*
 * Chains (chain.cpp, gpu_chain.cu): the host twin and the GPU.  The probes
 * write the window [skip, skip + capacity) of the combinations, or with
 * whole, all of them or (over capacity) none; ordered: the carried cells
 * come in key-grouped order, else by rowid.
 */
gh_status	gh_host_chain_probe(const gh_chain_level *levels, int n_levels,
								const uint64_t *outer_keys, const uint8_t *outer_valid,
								size_t n, uint64_t skip, bool whole,
								uint32_t *out_outer, uint32_t *out_pos,
								uint64_t capacity, uint64_t *total, uint64_t *written,
								double *level_ms);
/* How many of total combinations a probe writes from skip, or why none. */
gh_status	gh_chain_window(uint64_t total, uint64_t skip, bool whole, uint64_t capacity,
							uint64_t *count);
gh_status	gh_gpu_set_carried(gh_table *t, const uint64_t *keys, const uint8_t *valid, int ncols,
							   bool ordered);
/* lane NULL: on the tables' streams, under the caller's locks (gpu_chain.cu) */
gh_status	gh_gpu_chain_probe(const gh_chain_level *levels, int n_levels,
							   const uint64_t *outer_keys, const uint8_t *outer_valid,
							   int n_outer_cols, size_t n, uint64_t skip, bool whole,
							   uint32_t *out_outer, uint32_t *out_pos,
							   uint64_t capacity, uint64_t *total, uint64_t *written,
							   double *level_ms, gh_page_lane *lane, bool *lane_short);
gh_status	gh_gpu_chain_lane_take(gh_table *t, int n_levels, int n_outer_cols, size_t n,
								   bool has_valid, gh_page_lane **lane);

/* Partitioned tables (partitioned.cpp): what table.cpp hands them. */
gh_status	gh_part_probe(gh_table *t, const uint64_t *keys, size_t n,
						  gh_range *ranges, uint32_t *counts, uint64_t *total);
gh_status	gh_part_emit(gh_table *t, const uint64_t *keys, size_t n,
						 uint32_t *probe_index, void *rowids,
						 uint64_t capacity, uint64_t *total);
const void *gh_part_rowids(gh_table *t);
void		gh_part_info(const gh_table *t, gh_table_info *info);
gh_status	gh_part_validate(gh_table *t);
void		gh_part_free(gh_table *t);

/* Key-range analysis shared by both builders: sort (key - base) on the low
 * `bits` bits only, exact because every key lies in [base, base + 2^bits). */
struct gh_key_span
{
	uint64_t	base;
	int			bits;
};

gh_key_span gh_key_span_from(uint64_t umin, uint64_t umax, int64_t smin, int64_t smax);

/* Validation of a table whose views point at host memory (validate.cpp);
 * a GPU table is validated on a copy bound to host copies of its arrays. */
gh_status	gh_validate_host(const gh_table *t);

/*
 * Emit every (probe index, inner rowid) pair, grouped by probe index in
 * ascending order.  *total is set to the number of pairs; when it exceeds
 * capacity nothing is written and GH_ERR_OUTPUT_FULL is returned
 * (table.cpp).
 *
 * For the unit tests only, so not in gpuhash_table.h: the extension's
 * probe answers with ranges and the node reads the kept rows itself, and
 * the multi-level probe (gh_chain_probe) forms its combinations level by
 * level from ranges.
 */
gh_status	gh_probe_emit(gh_table *t, const uint64_t *keys, size_t n,
						  uint32_t *probe_index, void *rowids,
						  uint64_t capacity, uint64_t *total);

/* GPU side (gpu_table.cu). */
gh_status	gh_gpu_build(gh_table *t, const gh_build_options *opt,
						 const uint64_t *keys, const void *rowids, size_t n);
gh_status	gh_gpu_probe_ranges(gh_table *t, const uint64_t *keys, size_t n,
								gh_range *ranges, uint32_t *counts, uint64_t *total);
gh_status	gh_gpu_emit(gh_table *t, const uint64_t *keys, size_t n,
						uint32_t *probe_index, void *rowids,
						uint64_t capacity, uint64_t *total);
gh_status	gh_gpu_fetch_rowids(gh_table *t);
gh_status	gh_gpu_stage_begin(gh_table *t, const gh_build_options *opt);
gh_status	gh_gpu_stage_put(gh_table *t, size_t pos, const uint64_t *keys, size_t n);
gh_status	gh_gpu_stage_get(gh_table *t, uint64_t *keys);
gh_status	gh_gpu_stage_build(gh_table *t, const gh_build_options *opt);
gh_status	gh_gpu_replicate(const gh_table *src, int ordinal, size_t budget, gh_table *t);
gh_status	gh_gpu_validate(gh_table *t);
void		gh_gpu_free(gh_table *t);

/*
 * The cuckoo probe the GPU runs (gpu_cuckoo.cu): GH_CUCKOO_PROBE_AUTO by
 * the table's size, or one of the two kernels forced (tests, benchmarks).
 */
enum
{
	GH_CUCKOO_PROBE_AUTO = 0,
	GH_CUCKOO_PROBE_THREAD,		/* a thread per key */
	GH_CUCKOO_PROBE_GROUP		/* a 4-lane group per key */
};
extern int	gh_cuckoo_probe;

double		gh_now_ms(void);

/*
 * Digest of the parts of a layout that do not depend on thread order (FKS
 * records and slots, GPH cell bytes and slots; 0 for linear probing, whose
 * GPU layout depends on insertion order).  Tests use it to prove that the
 * GPU and the host twin build the same table.
 */
uint64_t	gh_layout_digest(gh_table *t);
uint64_t	gh_digest_bytes(uint64_t h, const void *p, size_t n);
uint64_t	gh_gpu_layout_digest(gh_table *t);

/*
 * A size rounded up to 256 bytes: where each part of one allocation that a
 * request's or a set's arrays share begins (cudaMalloc's own alignment).
 */
static inline size_t
gh_align256(size_t x)
{
	return (x + 255) & ~(size_t) 255;
}

#endif							/* GPUHASH_TABLE_INTERNAL_H */
