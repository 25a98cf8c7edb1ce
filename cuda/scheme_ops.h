/*
 * scheme_ops.h
 *		The table of scheme operations (scheme_ops.cpp): what the build
 *		pipelines, the probes, validation and the digests need of a scheme,
 *		so that none of them switches on gh_scheme.  A new scheme brings its
 *		header (schemes/), its builders (host_*.cpp, gpu_*.cu) and one row.
 */
#ifndef GPUHASH_SCHEME_OPS_H
#define GPUHASH_SCHEME_OPS_H

#include "table_internal.h"

struct CUstream_st;				/* cudaStream_t, without the CUDA headers */

/*
 * The distinct keys a scheme is built over, in host memory for the host
 * twin and device memory for the GPU: ascending in the build's sort order,
 * each with its range [off, off + cnt) of the key-grouped rowids.  For a
 * scheme with a sort_seed, keys are the mixed keys (the sort's order).
 */
struct gh_distinct
{
	const uint64_t *keys;
	const uint32_t *off;
	const uint32_t *cnt;
	uint32_t	n;
};

/* One array of a built table, as its view holds it (host or device). */
struct gh_array
{
	const void *p;
	size_t		bytes;
};

#define GH_MAX_ARRAYS 2

typedef gh_status (*gh_scheme_build_fn) (gh_table *t, const gh_distinct &d, uint64_t seed,
										 double load_factor);

struct gh_scheme_ops
{
	gh_scheme	scheme;
	const char *name;			/* gh_scheme_name() */

	/*
	 * NULL: the pipelines sort (key - base) over the keys' span.  Else they
	 * sort by gh_mix_key(sort_seed(seed), key), a bijection, and hand the
	 * builder the mixed keys.
	 */
	uint64_t	(*sort_seed) (uint64_t seed);

	/* Over the distinct keys; fill the view, arrays, seed, attempts... */
	gh_scheme_build_fn host_build;
	gh_scheme_build_fn gpu_build;	/* NULL in a build without CUDA */

	/* Host twin probe of n keys: ranges and/or counts, *total = sum. */
	gh_status	(*host_probe) (const gh_table *t, const uint64_t *keys, size_t n,
							   gh_range *ranges, uint32_t *counts, uint64_t *total);
	/* Launches the lookup kernel over device keys on stream st (NULL without CUDA). */
	gh_status	(*gpu_lookup) (gh_table *t, CUstream_st *st, const uint64_t *d_keys, size_t n,
							   gh_range *d_ranges, uint32_t *d_counts);

	/*
	 * The table's arrays, the slots last (t->n_slots of them), as its view
	 * points at them; bind points the view at copies of them instead.
	 * Validation walks them, digests hash them in this order.
	 */
	int			(*arrays) (const gh_table *t, gh_array a[GH_MAX_ARRAYS]);
	void		(*bind) (gh_table *t, void *const p[GH_MAX_ARRAYS]);

	/* Validation: slot i holds s where a probe of s.key looks and finds it. */
	bool		(*slot_ok) (const gh_table *t, uint64_t i, const gh_slot &s);

	/* The layout does not depend on thread order (digests compare it). */
	bool		layout_fixed;
};

/* The row of s; NULL for a value that is no scheme. */
const gh_scheme_ops *gh_scheme_ops_of(gh_scheme s);

#endif							/* GPUHASH_SCHEME_OPS_H */
