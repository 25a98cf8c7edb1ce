/*
 * agg_internal.h
 *		What partial aggregation's two sides share (host_agg.cpp,
 *		gpu_agg.cu, gpu_absent.cpp).  C++ only.
 */
#ifndef GPUHASH_AGG_INTERNAL_H
#define GPUHASH_AGG_INTERNAL_H

#include "gpuhash_agg.h"
#include "table_internal.h"
#include "agg_join.cuh"

#include <type_traits>
#include <vector>

/*
 * f(std::integral_constant<int, KW>) for key words kw (gh_agg_key_words:
 * 1, 2 or GH_AGG_KEY_WORDS): the templated fold, merge or set instance of
 * the program's keys, e.g. gh_agg_by_kw(kw, [&](auto k) { return
 * fold<decltype(k)::value>(...); }).
 */
template <typename F>
static inline auto
gh_agg_by_kw(int kw, F f)
{
	if (kw == 1)
		return f(std::integral_constant<int, 1>());
	if (kw == 2)
		return f(std::integral_constant<int, 2>());
	return f(std::integral_constant<int, GH_AGG_KEY_WORDS>());
}

/* A request's group table as the host holds it after the walk (the host
 * twin's own, or the GPU's copied back). */
struct gh_agg_host_table
{
	std::vector<uint32_t> ctrl;
	std::vector<uint64_t> keys;
	std::vector<uint8_t> nulls;
	std::vector<uint32_t> group;
	std::vector<gh_agg_state> states;	/* n_groups * naggs */
	uint64_t	slots = 0;
	uint64_t	n_groups = 0;
};

/*
 * A built dimension (gh_agg_dim_build): a linear-scheme table of the hash
 * core over the keys (rowid = position) and the rows' values and heap, all
 * on its device; view points at them there.
 */
struct gh_agg_dim
{
	int			device;			/* GPU ordinal, or GH_AGG_HOST */
	uint64_t	n;
	int			ninner;
	uint32_t	max_dup;		/* most rows of one key (1: a unique key) */
	size_t		bytes;			/* memory held on its device */
	gh_table   *table;			/* NULL when n is 0 */
	gh_agg_inval *h_vals;		/* the host twin's (malloc) */
	uint8_t    *h_heap;
	uint8_t    *h_matched = nullptr;	/* the host twin's n matched flags */
	void	   *d_mem = nullptr;	/* a GPU's: vals, then heap, then the
									 * n matched flags (zeroed) */
	gh_dim_view view;
	/* a star (gh_agg_dim_star): its parts, not its own (nparts 0: none) */
	int			nparts = 0;
	const gh_agg_dim *parts[GH_AGG_MAX_DIMS] = {};
	gh_star_view star;
};

/*
 * On the dimension's GPU: the values and heap copied to device memory of
 * at most budget bytes (0: any), the view's rowids and slots pointed at the
 * table's, max_dup found from its slots.  Released by gh_gpu_agg_dim_release
 * (the table is gh_free's).
 */
gh_status	gh_gpu_agg_dim_upload(gh_agg_dim *d, const gh_agg_inval *vals, const uint8_t *heap,
								  uint64_t heap_bytes, size_t budget);
void		gh_gpu_agg_dim_release(gh_agg_dim *d);
/* flags [pos, pos + n) of a GPU's dimension copied to out */
gh_status	gh_gpu_agg_dim_matched(const gh_agg_dim *d, uint64_t pos, uint64_t n, uint8_t *out);

/*
 * The most groups a request can have: max_groups, or its visible line
 * pointers times per_row (the most pairs a row gives: 1 without a join) if
 * fewer (they bound its rows).
 */
uint64_t	gh_agg_group_bound(const gh_page_ref *refs, uint32_t n_pages, uint64_t max_groups,
							   uint64_t per_row = 1);

/* One page of the host twin's walk over a join, folded into t: false if it
 * is refused (host_agg_join.cpp). */
bool		gh_agg_fold_page_join(const gh_page_scan *scan, const gh_agg_prog *agg,
								  const gh_agg_dim *dim, const uint8_t *page,
								  const gh_page_ref &ref, const uint16_t *visible,
								  gh_agg_table &t, gh_agg_stats *s);

/* A star's page walk and program check (host_agg_star.cpp). */
bool		gh_agg_fold_page_star(const gh_page_scan *scan, const gh_agg_prog *agg,
								  const gh_agg_dim *dim, const uint8_t *page,
								  const gh_page_ref &ref, const uint16_t *visible,
								  gh_agg_table &t, gh_agg_stats *s);
gh_status	gh_agg_star_check(const gh_page_scan *scan, const gh_agg_prog *agg);

/* Slots for a request of at most g groups: a power of two, at least
 * twice g, so that probes stay short. */
uint64_t	gh_agg_slots(uint64_t g);

/* A group's record in an answer: its key and null mask padded to 16 bytes
 * (16 for a narrow key), then its naggs states. */
GH_AGG_INLINE size_t
gh_agg_rec_head(int kw)
{
	return (8 * (size_t) kw + 1 + 15) & ~(size_t) 15;
}

/*
 * The GPU fold's device memory for a request (gpu_agg.cu): its inputs, the
 * answer (counts, refused flags, records), the group table of at most
 * bound groups, then the pages where they are copied.  One layout for the
 * fold and for the budget a request is sized by (gh_agg_fold_device_bytes).
 */
struct gh_agg_fold_layout
{
	size_t		i_scan,
				i_agg,
				i_refs,
				i_vis,
				in_bytes;		/* the inputs, copied in at once */
	size_t		o_cnt,
				o_ref,
				o_rec,
				head_bytes;		/* the answer's head, copied back first */
	size_t		o_ctrl,
				o_keys,
				o_nulls,
				o_group,
				o_st,
				o_pages,		/* the table; the pages from o_pages */
				total;			/* all of it, with the pages copied */
	size_t		rec;
	uint64_t	slots,
				first;			/* records in the first copy back */
};

void		gh_agg_fold_lay(uint32_t n_pages, uint32_t n_visible, uint64_t bound, int naggs,
							int kw, size_t page_bytes, gh_agg_fold_layout *l);

/* The request's groups (finished, sorted) folded into out; OUTPUT_FULL
 * past out->max_groups with out unchanged. */
gh_status	gh_agg_absorb(const gh_agg_host_table &t, const gh_page_scan *scan,
						  const gh_agg_prog *agg, gh_agg_groups *out);

/* gh_page_agg on GPU device (gpu_agg.cu; GH_ERR_NO_GPU without CUDA);
 * mapped: page_data read through its host mapping (gh_page_agg_mapped);
 * dim: the join's dimension (on device), or NULL. */
gh_status	gh_gpu_page_agg(int device, const gh_page_scan *scan, const gh_agg_prog *agg,
							const gh_agg_dim *dim, const gh_page_ref *refs, uint32_t n_pages,
							const uint8_t *page_data, size_t page_data_bytes,
							const uint16_t *visible, uint32_t n_visible, uint8_t *refused,
							gh_agg_groups *out, gh_agg_stats *stats, bool mapped);

#endif							/* GPUHASH_AGG_INTERNAL_H */
