/*
 * host_fks.cpp
 *		FKS on the host twin: the GPU build's steps (gpu_fks.cu) one after
 *		another, with the same seeds (build_driver.h draws them), so every
 *		key lands where the GPU puts it.
 */
#include "host_build.h"

#include <string.h>

#include <algorithm>

using namespace gh_host;

namespace
{

/*
 * The round of one FKS bucket: the first r < GH_FKS_MAX_ROUNDS whose level-2
 * constants map its n keys to n distinct slots of its n^2; -1 if none.
 * (The GPU finds the same per bucket; the paper's global round loop, where
 * only colliding buckets go on to the next round, gives the same too.)
 */
int
bucket_round(const gh_fks_view &v, const uint64_t *k, uint32_t n, uint32_t size, uint32_t *h)
{
	for (int r = 0; r < GH_FKS_MAX_ROUNDS; r++)
	{
		for (uint32_t j = 0; j < n; j++)
			h[j] = gh_reduce(gh_uhash32(v.l2[r], k[j]), size);
		bool		ok = true;

		if (n <= 16)
		{
			for (uint32_t j = 1; j < n && ok; j++)
				for (uint32_t m = 0; m < j && ok; m++)
					ok = h[m] != h[j];
		}
		else
		{
			std::sort(h, h + n);
			for (uint32_t j = 1; j < n && ok; j++)
				ok = h[j - 1] != h[j];
		}
		if (ok)
			return r;
	}
	return -1;
}

/* One attempt on the CPU: level 1, each bucket's round, records, slots. */
struct fks_step
{
	gh_table   *t;
	gh_distinct d;
	scratch		s;
	uint32_t   *bkt = NULL,
			   *cnt1 = NULL,
			   *kstart = NULL,
			   *h = NULL;
	uint64_t   *off1 = NULL,
			   *gk = NULL;
	uint8_t    *round_of = NULL;

				fks_step(gh_table *tab, const gh_distinct &keys) : t(tab), d(keys) {}

	gh_status	prepare(const gh_fks_view &v)
	{
		uint32_t	u = d.n,
					n1 = v.n1;

		bkt = (uint32_t *) s.get((size_t) u * 4);
		cnt1 = (uint32_t *) s.get((size_t) n1 * 4);
		off1 = (uint64_t *) s.get(((size_t) n1 + 1) * 8);
		kstart = (uint32_t *) s.get(((size_t) n1 + 1) * 4);
		round_of = (uint8_t *) s.get(n1);
		gk = (uint64_t *) s.get((size_t) u * 8);
		h = (uint32_t *) s.get((size_t) u * 4);
		if (!bkt || !cnt1 || !off1 || !kstart || !round_of || !gk || !h)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory building FKS level 1 for %u keys", u);
		return GH_OK;
	}

	bool		cancelled()
	{
		return gh_host::cancelled();
	}

	gh_status	attempt(gh_fks_view &v, gh_attempt_result *res)
	{
		const uint64_t *dk = d.keys;
		uint32_t	u = d.n,
					n1 = v.n1;

		memset(cnt1, 0, (size_t) n1 * 4);
		for (uint32_t i = 0; i < u; i++)
		{
			if (cancelled_every(i + 1, ROW_POLL))
				return cancel_error();
			bkt[i] = gh_fks_bucket(v, dk[i]);
			cnt1[bkt[i]]++;
		}
		uint64_t	space = 0;

		for (uint32_t b = 0; b < n1; b++)
		{
			off1[b] = space;
			space += (uint64_t) cnt1[b] * cnt1[b];
		}
		off1[n1] = space;
		if (!gh_fks_space_ok(space, n1))
			return GH_OK;		/* level 1 too uneven: redraw it */

		/* level 2: group the keys by bucket, then each bucket's round */
		kstart[0] = 0;
		for (uint32_t b = 0; b < n1; b++)
			kstart[b + 1] = kstart[b] + cnt1[b];
		memset(cnt1, 0, (size_t) n1 * 4);
		for (uint32_t i = 0; i < u; i++)
		{
			if (cancelled_every(i + 1, ROW_POLL))
				return cancel_error();
			gk[kstart[bkt[i]] + cnt1[bkt[i]]++] = dk[i];
		}

		int			rounds = 0;

		for (uint32_t b = 0; b < n1; b++)
		{
			uint32_t	n = cnt1[b];

			if (cancelled_every(b + 1, ROW_POLL))
				return cancel_error();
			int			r = n >= 2 ? bucket_round(v, gk + kstart[b], n,
												  (uint32_t) (off1[b + 1] - off1[b]), h) : 0;

			if (r < 0)
				return GH_OK;	/* a bucket beyond the round cap: new seeds */
			round_of[b] = (uint8_t) r;
			if (n >= 1 && r + 1 > rounds)
				rounds = r + 1;
		}

		/* records, then slots placed through the probe's own arithmetic */
		v.rec64 = gh_fks_rec64_for(space);

		void	   *rec = take(t, gh_fks_rec_bytes(v));
		gh_slot    *slots = (gh_slot *) take_zeroed(t, (space + 1) * sizeof(gh_slot));

		if (!rec || !slots)
		{
			free(rec);
			free(slots);
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for FKS table (%llu slots)",
							(unsigned long long) space);
		}
		/* the table holds them from here: gh_free frees them on failure */
		t->h_rec = rec;
		t->h_slots = slots;
		for (uint32_t b = 0; b <= n1; b++)
		{
			uint64_t	r = gh_fks_record(off1[b], b < n1 ? round_of[b] : 0, v.rec64);

			if (v.rec64)
				((uint64_t *) rec)[b] = r;
			else
				((uint32_t *) rec)[b] = (uint32_t) r;
		}
		v.rec = rec;
		v.slots = slots;
		for (uint32_t i = 0; i < u; i++)
		{
			gh_slot    *sl = &slots[gh_fks_slot(v, dk[i])];

			if (cancelled_every(i + 1, ROW_POLL))
				return cancel_error();
			sl->key = dk[i];
			sl->off = d.off[i];
			sl->cnt = d.cnt[i];
		}
		res->placed = true;
		res->rounds = rounds;
		res->n_slots = space + 1;
		return GH_OK;
	}
};

}								/* namespace */

gh_status
gh_host_build_fks(gh_table *t, const gh_distinct &d, uint64_t seed, double lf)
{
	fks_step	step(t, d);

	return gh_build_attempts<gh_fks_scheme>(t, &t->fks, step, d.n, seed, lf);
}
