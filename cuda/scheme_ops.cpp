/*
 * scheme_ops.cpp
 *		The table of scheme operations (scheme_ops.h), one row per scheme,
 *		with the few lines that tie a scheme's view to the table: its arrays,
 *		its host probe loop, its validation check.  The builders and the GPU
 *		lookups live in the scheme's own files.
 */
#include "scheme_ops.h"

/* A build without nvcc (HAVE_NVCC=no) has no GPU entry points; gpu_absent.cpp
 * refuses every GPU table before a row's GPU entries could be reached. */
#ifdef GH_NO_CUDA
#define GPU_ONLY(f) nullptr
#else
#define GPU_ONLY(f) f
#endif

namespace
{

/* The host twin's probe loop, inlined per scheme. */
template <typename View, gh_hit (*Lookup) (const View &, uint64_t), View gh_table::*Field>
gh_status
host_probe(const gh_table *t, const uint64_t *keys, size_t n, gh_range *ranges,
		   uint32_t *counts, uint64_t *total)
{
	const View &v = t->*Field;
	uint64_t	sum = 0;

	for (size_t i = 0; i < n; i++)
	{
		gh_hit		h = Lookup(v, keys[i]);

		if (ranges)
		{
			ranges[i].offset = h.off;
			ranges[i].count = h.cnt;
		}
		if (counts)
			counts[i] = h.cnt;
		sum += h.cnt;
	}
	if (total)
		*total = sum;
	return GH_OK;
}

gh_array
slot_array(const gh_table *t, const gh_slot *slots)
{
	return gh_array{slots, t->n_slots * sizeof(gh_slot)};
}

}								/* namespace */

/* ---------------------------------------------------------------- GPH */

gh_status	gh_host_build_gph(gh_table *t, const gh_distinct &d, uint64_t seed, double lf);
gh_status	gh_gpu_build_gph(gh_table *t, const gh_distinct &d, uint64_t seed, double lf);
gh_status	gh_gpu_lookup_gph(gh_table *t, CUstream_st *st, const uint64_t *d_keys, size_t n,
							  gh_range *d_ranges, uint32_t *d_counts);

namespace
{

int
gph_arrays(const gh_table *t, gh_array a[GH_MAX_ARRAYS])
{
	a[0] = gh_array{t->gph.cells, t->gph.n_cells};
	a[1] = slot_array(t, t->gph.slots);
	return 2;
}

void
gph_bind(gh_table *t, void *const p[GH_MAX_ARRAYS])
{
	t->gph.cells = (const uint8_t *) p[0];
	t->gph.slots = (const gh_slot *) p[1];
}

bool
gph_slot_ok(const gh_table *t, uint64_t i, const gh_slot &s)
{
	gh_hit		h = gh_gph_lookup(t->gph, s.key);

	return gh_gph_locate(t->gph, s.key) == i / GH_GPH_M && h.off == s.off && h.cnt == s.cnt;
}

uint64_t
gph_sort_seed(uint64_t seed)
{
	return gh_gph_key_seed(seed);
}

}								/* namespace */

/* ---------------------------------------------------------------- FKS */

gh_status	gh_host_build_fks(gh_table *t, const gh_distinct &d, uint64_t seed, double lf);
gh_status	gh_gpu_build_fks(gh_table *t, const gh_distinct &d, uint64_t seed, double lf);
gh_status	gh_gpu_lookup_fks(gh_table *t, CUstream_st *st, const uint64_t *d_keys, size_t n,
							  gh_range *d_ranges, uint32_t *d_counts);

namespace
{

int
fks_arrays(const gh_table *t, gh_array a[GH_MAX_ARRAYS])
{
	a[0] = gh_array{t->fks.rec, gh_fks_rec_bytes(t->fks)};
	a[1] = slot_array(t, t->fks.slots);
	return 2;
}

void
fks_bind(gh_table *t, void *const p[GH_MAX_ARRAYS])
{
	t->fks.rec = p[0];
	t->fks.slots = (const gh_slot *) p[1];
}

bool
fks_slot_ok(const gh_table *t, uint64_t i, const gh_slot &s)
{
	gh_hit		h = gh_fks_lookup(t->fks, s.key);

	return gh_fks_slot(t->fks, s.key) == i && h.off == s.off && h.cnt == s.cnt;
}

}								/* namespace */

/* ---------------------------------------------------------- HashGraph */

gh_status	gh_host_build_hashgraph(gh_table *t, const gh_distinct &d, uint64_t seed, double lf);
gh_status	gh_gpu_build_hashgraph(gh_table *t, const gh_distinct &d, uint64_t seed, double lf);
gh_status	gh_gpu_lookup_hashgraph(gh_table *t, CUstream_st *st, const uint64_t *d_keys, size_t n,
									gh_range *d_ranges, uint32_t *d_counts);

namespace
{

int
hg_arrays(const gh_table *t, gh_array a[GH_MAX_ARRAYS])
{
	a[0] = gh_array{t->hg.offs, gh_hg_offs_bytes(t->hg)};
	a[1] = slot_array(t, t->hg.slots);
	return 2;
}

void
hg_bind(gh_table *t, void *const p[GH_MAX_ARRAYS])
{
	t->hg.offs = (const uint32_t *) p[0];
	t->hg.slots = (const gh_slot *) p[1];
}

/* slot i lies in its key's bucket, and a probe of the key finds it */
bool
hg_slot_ok(const gh_table *t, uint64_t i, const gh_slot &s)
{
	uint32_t	b = gh_hg_bucket(t->hg, s.key);
	gh_hit		h = gh_hg_lookup(t->hg, s.key);

	return t->hg.offs[b] <= i && i < t->hg.offs[b + 1] && h.off == s.off && h.cnt == s.cnt;
}

uint64_t
hg_sort_seed(uint64_t seed)
{
	return gh_hg_key_seed(seed);
}

}								/* namespace */

/* ------------------------------------------------------------- linear */

gh_status	gh_host_build_linear(gh_table *t, const gh_distinct &d, uint64_t seed, double lf);
gh_status	gh_gpu_build_linear(gh_table *t, const gh_distinct &d, uint64_t seed, double lf);
gh_status	gh_gpu_lookup_linear(gh_table *t, CUstream_st *st, const uint64_t *d_keys, size_t n,
								 gh_range *d_ranges, uint32_t *d_counts);

namespace
{

int
lin_arrays(const gh_table *t, gh_array a[GH_MAX_ARRAYS])
{
	a[0] = slot_array(t, t->lin.slots);
	return 1;
}

void
lin_bind(gh_table *t, void *const p[GH_MAX_ARRAYS])
{
	t->lin.slots = (const gh_slot *) p[0];
}

/* a probe walks from the key's home to its slot: the lookup checks both */
bool
lin_slot_ok(const gh_table *t, uint64_t, const gh_slot &s)
{
	gh_hit		h = gh_lin_lookup(t->lin, s.key);

	return h.off == s.off && h.cnt == s.cnt;
}

}								/* namespace */

/* ----------------------------------------------------------- DyCuckoo */

gh_status	gh_host_build_dycuckoo(gh_table *t, const gh_distinct &d, uint64_t seed, double lf);
gh_status	gh_gpu_build_dycuckoo(gh_table *t, const gh_distinct &d, uint64_t seed, double lf);
gh_status	gh_gpu_lookup_dycuckoo(gh_table *t, CUstream_st *st, const uint64_t *d_keys, size_t n,
								   gh_range *d_ranges, uint32_t *d_counts);

namespace
{

int
dyc_arrays(const gh_table *t, gh_array a[GH_MAX_ARRAYS])
{
	a[0] = slot_array(t, t->dyc.slots);
	return 1;
}

void
dyc_bind(gh_table *t, void *const p[GH_MAX_ARRAYS])
{
	t->dyc.slots = (const gh_slot *) p[0];
}

/* in one of the key's two buckets, and the one a probe finds */
bool
dyc_slot_ok(const gh_table *t, uint64_t i, const gh_slot &s)
{
	uint32_t	f,
				sc;
	gh_hit		h = gh_dyc_lookup(t->dyc, s.key);

	gh_dyc_choices(t->dyc, s.key, &f, &sc);
	return (i / GH_DYC_B == gh_dyc_bucket(t->dyc, f, s.key) ||
			i / GH_DYC_B == gh_dyc_bucket(t->dyc, sc, s.key)) &&
		h.off == s.off && h.cnt == s.cnt;
}

}								/* namespace */

/* ------------------------------------------------------------- cuckoo */

gh_status	gh_host_build_cuckoo(gh_table *t, const gh_distinct &d, uint64_t seed, double lf);
gh_status	gh_gpu_build_cuckoo(gh_table *t, const gh_distinct &d, uint64_t seed, double lf);
gh_status	gh_gpu_lookup_cuckoo(gh_table *t, CUstream_st *st, const uint64_t *d_keys, size_t n,
								 gh_range *d_ranges, uint32_t *d_counts);

namespace
{

int
cuckoo_arrays(const gh_table *t, gh_array a[GH_MAX_ARRAYS])
{
	a[0] = slot_array(t, t->cuckoo.slots);
	return 1;
}

void
cuckoo_bind(gh_table *t, void *const p[GH_MAX_ARRAYS])
{
	t->cuckoo.slots = (const gh_slot *) p[0];
}

/* in one of the key's buckets, or in the stash's used part; and found */
bool
cuckoo_slot_ok(const gh_table *t, uint64_t i, const gh_slot &s)
{
	const gh_cuckoo_view &v = t->cuckoo;
	uint64_t	nbs = (uint64_t) v.n_buckets * GH_CUCKOO_B;
	gh_hit		h = gh_cuckoo_lookup(v, s.key);

	if (i < nbs ? gh_cuckoo_choice_of(v, s.key, (uint32_t) (i / GH_CUCKOO_B)) == GH_CUCKOO_H
		: i - nbs >= v.n_stash)
		return false;
	return h.off == s.off && h.cnt == s.cnt;
}

/* ---------------------------------------------------------------- the table */

/* one row per scheme, in any order */
constexpr gh_scheme_ops ops[] = {
	{
		GH_SCHEME_GPH, "gph", gph_sort_seed, gh_host_build_gph, GPU_ONLY(gh_gpu_build_gph),
		host_probe<gh_gph_view, gh_gph_lookup, &gh_table::gph>, GPU_ONLY(gh_gpu_lookup_gph),
		gph_arrays, gph_bind, gph_slot_ok, true
	},
	{
		GH_SCHEME_FKS, "fks", nullptr, gh_host_build_fks, GPU_ONLY(gh_gpu_build_fks),
		host_probe<gh_fks_view, gh_fks_lookup, &gh_table::fks>, GPU_ONLY(gh_gpu_lookup_fks),
		fks_arrays, fks_bind, fks_slot_ok, true
	},
	/* the GPU inserts concurrently: its layout depends on thread order */
	{
		GH_SCHEME_LINEAR, "linear", nullptr, gh_host_build_linear, GPU_ONLY(gh_gpu_build_linear),
		host_probe<gh_lin_view, gh_lin_lookup, &gh_table::lin>, GPU_ONLY(gh_gpu_lookup_linear),
		lin_arrays, lin_bind, lin_slot_ok, false
	},
	{
		GH_SCHEME_HASHGRAPH, "hashgraph", hg_sort_seed, gh_host_build_hashgraph,
		GPU_ONLY(gh_gpu_build_hashgraph),
		host_probe<gh_hg_view, gh_hg_lookup, &gh_table::hg>, GPU_ONLY(gh_gpu_lookup_hashgraph),
		hg_arrays, hg_bind, hg_slot_ok, true
	},
	/* the GPU inserts concurrently (locked buckets): thread-order layout */
	{
		GH_SCHEME_DYCUCKOO, "dycuckoo", nullptr, gh_host_build_dycuckoo, GPU_ONLY(gh_gpu_build_dycuckoo),
		host_probe<gh_dyc_view, gh_dyc_lookup, &gh_table::dyc>, GPU_ONLY(gh_gpu_lookup_dycuckoo),
		dyc_arrays, dyc_bind, dyc_slot_ok, false
	},
	/* the GPU inserts concurrently: its layout depends on thread order */
	{
		GH_SCHEME_CUCKOO, "cuckoo", nullptr, gh_host_build_cuckoo, GPU_ONLY(gh_gpu_build_cuckoo),
		host_probe<gh_cuckoo_view, gh_cuckoo_lookup, &gh_table::cuckoo>, GPU_ONLY(gh_gpu_lookup_cuckoo),
		cuckoo_arrays, cuckoo_bind, cuckoo_slot_ok, false
	},
};

}								/* namespace */

const gh_scheme_ops *
gh_scheme_ops_of(gh_scheme s)
{
	for (const gh_scheme_ops &o : ops)
		if (o.scheme == s)
			return &o;
	return NULL;
}
