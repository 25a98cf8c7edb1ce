/*
 * agg_set_internal.h
 *		What resident groups' two sides share (host_agg_set.cpp,
 *		gpu_agg_set.cu, gpu_absent.cpp).  C++ only.
 */
#ifndef GPUHASH_AGG_SET_INTERNAL_H
#define GPUHASH_AGG_SET_INTERNAL_H

#include "gpuhash_agg_set.h"
#include "agg_internal.h"

#include <vector>

struct gh_agg_set
{
	int			device;			/* GPU ordinal, or GH_AGG_HOST */
	gh_page_scan scan;
	gh_agg_prog agg;
	uint8_t		in_type[GH_AGG_MAX_AGGS];	/* each aggregate's input type */
	size_t		max_bytes;		/* the cap (0: none) */
	uint64_t	cap;			/* groups the arrays hold */
	int			kw;				/* key words: gh_agg_key_words(&agg) */
	uint64_t	slots;			/* a power of two, at least twice cap */
	unsigned long long n_groups;
	size_t		bytes;			/* memory held on its device */
	/* the host twin's */
	std::vector<uint32_t> h_slot;
	std::vector<uint64_t> h_keys;
	std::vector<uint8_t> h_nulls;
	std::vector<gh_agg_state> h_states;
	/* a GPU's: one allocation (slots, keys, nulls, states, the count) */
	void	   *d_mem = nullptr;
	void	   *d_in = nullptr;		/* a merge's groups, grown on demand */
	size_t		d_in_bytes = 0;
	void	   *d_stream = nullptr;	/* its cudaStream_t */
};

/* Bytes a set of cap groups (and its slots) holds, keys of kw words. */
size_t		gh_agg_set_size(int naggs, int kw, uint64_t cap);

/*
 * Survivors copied back (keys of set->kw words, nulls, states of n groups, any order) into
 * out, sorted by (null mask, key), as gh_agg_set_finish answers them.
 */
gh_status	gh_agg_set_output(const gh_agg_set *set, const uint64_t *keys, const uint8_t *nulls,
							  const gh_agg_state *states, uint64_t n, gh_agg_groups *out);

/*
 * out made ready for n groups of the set's program (its arrays allocated),
 * and, once they are written in order, its count and fallback groups.
 */
gh_status	gh_agg_set_alloc_out(const gh_agg_set *set, uint64_t n, gh_agg_groups *out);
void		gh_agg_set_out_filled(const gh_agg_set *set, gh_agg_groups *out, uint64_t n);

/* gpu_agg_set.cu (GH_ERR_NO_GPU without CUDA): the same on the set's GPU;
 * grow: the arrays rebuilt for cap groups, the groups kept. */
gh_status	gh_gpu_agg_set_grow(gh_agg_set *set, uint64_t cap);
gh_status	gh_gpu_agg_set_merge(gh_agg_set *set, const gh_agg_groups *src);
gh_status	gh_gpu_agg_set_finish(gh_agg_set *set, const gh_agg_having *having,
								  gh_agg_groups *out, uint64_t *removed);
void		gh_gpu_agg_set_release(gh_agg_set *set);

#endif							/* GPUHASH_AGG_SET_INTERNAL_H */
