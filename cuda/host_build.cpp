/*
 * host_build.cpp
 *		The host twin's build: the GPU pipeline's steps, one after another on
 *		the CPU, with the same seeds and hash functions, so that a table built
 *		here places every key where the GPU build places it.
 *
 *		sort (key, rowid) by key  ->  run-length encode  ->  the scheme's
 *		host builder over the distinct keys (scheme_ops.cpp: host_fks.cpp,
 *		host_gph.cpp, host_linear.cpp), whose attempts build_driver.h runs
 *
 *		A scheme with a sort seed (GPH) sorts by its mixed key
 *		fmix64(key ^ seed_key) instead of the key (schemes/gph.cuh): a
 *		bijection, so deduplication is unchanged, and the keys of each GPH
 *		region and cell come out contiguous.
 */
#include "host_build.h"

#include <stdlib.h>
#include <string.h>

#include <algorithm>

using namespace gh_host;

thread_local const gh_build_options *gh_host::build_opt;

namespace
{

/*
 * Stable LSD radix sort of (key - base) with rowids, 8 bits a pass over the
 * low `bits` bits: the same order as CUB's stable radix sort on the GPU.
 */
template <typename R>
gh_status
radix_sort(uint64_t *k, R *v, size_t n, int bits, uint64_t **k_out, R **v_out,
		   scratch &s)
{
	uint64_t   *k2 = (uint64_t *) s.get(n * sizeof(uint64_t));
	R		   *v2 = (R *) s.get(n * sizeof(R));

	if (!k2 || !v2)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory sorting %zu rows", n);
	for (int shift = 0; shift < bits; shift += 8)
	{
		size_t		count[257] = {0};

		if (cancelled())
			return cancel_error();
		for (size_t i = 0; i < n; i++)
		{
			if (cancelled_every(i + 1, ROW_POLL))
				return cancel_error();
			count[((k[i] >> shift) & 0xff) + 1]++;
		}
		/* all keys share this digit: the stable pass would be the identity */
		if (n > 0 && count[((k[0] >> shift) & 0xff) + 1] == n)
			continue;
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++)
		{
			size_t		pos = count[(k[i] >> shift) & 0xff]++;

			if (cancelled_every(i + 1, ROW_POLL))
				return cancel_error();
			k2[pos] = k[i];
			v2[pos] = v[i];
		}
		uint64_t   *tk = k;

		k = k2;
		k2 = tk;
		R		   *tv = v;

		v = v2;
		v2 = tv;
	}
	*k_out = k;
	*v_out = v;
	return GH_OK;
}

template <typename R>
gh_status
build_typed(gh_table *t, const gh_build_options *opt, const uint64_t *keys,
			const R *rowids, size_t n)
{
	double		t0 = gh_now_ms();
	scratch		s;
	uint64_t   *k = (uint64_t *) s.get(n * 8);
	R		   *v = (R *) s.get(n * sizeof(R));

	if (!k || !v)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory sorting %zu rows", n);

	/*
	 * A scheme with a sort seed (GPH) sorts by the mixed key
	 * gh_mix_key(seed_key, key), a bijection (equal mix = equal key), over
	 * all 64 bits: its cells and regions are then contiguous runs.  The
	 * others sort key - base on the bits of the key span only.
	 */
	const gh_scheme_ops *ops = gh_scheme_ops_of(opt->scheme);
	bool		mix = ops->sort_seed != NULL;
	uint64_t	seed = opt->seed ? opt->seed : GH_DEFAULT_SEED;
	uint64_t	seed_key = mix ? ops->sort_seed(seed) : 0;
	gh_key_span span = {0, 64};

	if (!mix)
	{
		uint64_t	umin = UINT64_MAX,
					umax = 0;
		int64_t		smin = INT64_MAX,
					smax = INT64_MIN;

		for (size_t i = 0; i < n; i++)
		{
			uint64_t	x = keys[i];

			if (cancelled_every(i + 1, ROW_POLL))
				return cancel_error();
			umin = x < umin ? x : umin;
			umax = x > umax ? x : umax;
			smin = (int64_t) x < smin ? (int64_t) x : smin;
			smax = (int64_t) x > smax ? (int64_t) x : smax;
		}
		span = gh_key_span_from(umin, umax, smin, smax);
	}
	for (size_t i = 0; i < n; i++)
	{
		if (cancelled_every(i + 1, ROW_POLL))
			return cancel_error();
		k[i] = mix ? gh_mix_key(seed_key, keys[i]) : keys[i] - span.base;
		v[i] = rowids ? rowids[i] : (R) i;
	}
	uint64_t   *ks;
	R		   *vs;

	gh_status	sst = radix_sort(k, v, n, span.bits, &ks, &vs, s);

	if (sst != GH_OK)
		return sst;

	/* run-length encode into distinct keys with (offset, count) */
	uint32_t	u = 0;

	for (size_t i = 0; i < n; i++)
	{
		if (cancelled_every(i + 1, ROW_POLL))
			return cancel_error();
		if (i == 0 || ks[i] != ks[i - 1])
			u++;
	}
	uint64_t   *dk = (uint64_t *) s.get((size_t) u * 8);
	uint32_t   *doff = (uint32_t *) s.get((size_t) u * 4);
	uint32_t   *dcnt = (uint32_t *) s.get((size_t) u * 4);

	if (!dk || !doff || !dcnt)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for %u distinct keys", u);
	for (size_t i = 0, d = 0; i < n; i++)
	{
		if (cancelled_every(i + 1, ROW_POLL))
			return cancel_error();
		if (i == 0 || ks[i] != ks[i - 1])
		{
			dk[d] = ks[i] + span.base;	/* mixed: the mixed key (base 0) */
			doff[d] = (uint32_t) i;
			dcnt[d] = 0;
			d++;
		}
		dcnt[d - 1]++;
	}

	R		   *rows = (R *) take(t, n * sizeof(R));

	if (!rows)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for %zu rowids", n);
	memcpy(rows, vs, n * sizeof(R));
	t->h_rowids = rows;
	t->n_distinct = u;

	double		t1 = gh_now_ms();
	double		lf = opt->load_factor > 0 ? opt->load_factor : 0.5;
	gh_status	st;

	if (cancelled())
		return cancel_error();

	gh_distinct d = {dk, doff, dcnt, u};

	st = ops->host_build(t, d, seed, lf);
	double		t2 = gh_now_ms();

	t->stats.build_sort_ms += t1 - t0;
	t->stats.build_hash_ms += t2 - t1;
	return st;
}

}								/* namespace */

gh_key_span
gh_key_span_from(uint64_t umin, uint64_t umax, int64_t smin, int64_t smax)
{
	gh_key_span s;
	uint64_t	ur = umax - umin;
	uint64_t	sr = (uint64_t) smax - (uint64_t) smin;
	uint64_t	r = ur <= sr ? ur : sr;

	s.base = ur <= sr ? umin : (uint64_t) smin;
	s.bits = 0;
	while (s.bits < 64 && (r >> s.bits) != 0)
		s.bits++;
	return s;
}

gh_status
gh_host_build(gh_table *t, const gh_build_options *opt, const uint64_t *keys,
			  const void *rowids, size_t n)
{
	gh_status	st;

	build_opt = opt;
	if (t->rowid_width == 4)
		st = build_typed<uint32_t>(t, opt, keys, (const uint32_t *) rowids, n);
	else
		st = build_typed<uint64_t>(t, opt, keys, (const uint64_t *) rowids, n);
	build_opt = NULL;
	return st;
}

void
gh_host_free(gh_table *t)
{
	free(t->h_rowids);
	free(t->h_rec);
	free(t->h_slots);
	free(t->h_cells);
	free(t->h_carried);
	free(t->h_carried_valid);
	t->h_carried = NULL;
	t->h_carried_valid = NULL;
	t->n_carried = 0;
	t->h_rowids = t->h_rec = NULL;
	t->h_slots = NULL;
	t->h_cells = NULL;
}
