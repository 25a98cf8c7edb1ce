/*
 * host_dycuckoo.cpp
 *		DyCuckoo on the host twin: keys inserted one after another with the
 *		GPU kernel's walk (gpu_dycuckoo.cu), subtables doubled by the same
 *		split; and the incremental path (dycuckoo.h): its host step and the
 *		entry point that picks the device.  The GPU inserts concurrently, so
 *		its layout may differ from this one; lookups agree.
 *
 *		An insert's walk: the first bucket of its pair, then the second;
 *		both full, it evicts slot gh_dyc_victim(key, chain) of the second and
 *		walks on with the evicted item, which tries only its other table
 *		(the one it came from is full).  After gh_dyc_max_evict evictions
 *		the item in hand is handed back (a static attempt fails, the
 *		incremental path upsizes and tries it again): never dropped.
 */
#include "dycuckoo.h"
#include "host_build.h"

#include <string.h>

using namespace gh_host;

int			gh_dyc_max_evict = GH_DYC_MAX_EVICT;

namespace
{

/* One insert's walk; false: *item (now the one in hand) is left over. */
bool
insert_one(gh_slot *slots, const gh_dyc_view &v, gh_slot *item, int max_evict)
{
	uint32_t	tgt,
				alt;
	bool		fresh = true;

	gh_dyc_choices(v, item->key, &tgt, &alt);
	for (uint32_t chain = 0;;)
	{
		gh_slot    *b = slots + gh_dyc_bucket(v, tgt, item->key) * GH_DYC_B;

		for (int i = 0; i < GH_DYC_B; i++)
			if (b[i].cnt == 0)
			{
				b[i] = *item;
				return true;
			}
		if (fresh)
		{
			fresh = false;
			tgt = alt;
			continue;
		}
		if ((int) chain >= max_evict)
			return false;

		uint32_t	vs = gh_dyc_victim(item->key, chain);
		gh_slot		out = b[vs];

		b[vs] = *item;
		*item = out;
		tgt = gh_dyc_other(v, item->key, tgt);
		chain++;
	}
}

/* Static build: one attempt inserts every key into fresh zeroed slots. */
struct dyc_step
{
	gh_table   *t;
	gh_distinct d;
	size_t		held = 0;		/* bytes of t->h_slots from a failed attempt */

	gh_status	prepare(const gh_dyc_view &)
	{
		return GH_OK;
	}

	bool		cancelled()
	{
		return gh_host::cancelled();
	}

	gh_status	attempt(gh_dyc_view &v, gh_attempt_result *res)
	{
		uint64_t	ns = gh_dyc_slots(v);

		free(t->h_slots);
		t->h_slots = NULL;
		t->host_bytes -= held;
		held = 0;

		/* the table holds it from here: gh_free frees it on failure */
		gh_slot    *slots = (gh_slot *) take_zeroed(t, ns * sizeof(gh_slot));

		if (!slots)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for DyCuckoo table (%llu slots)",
							(unsigned long long) ns);
		t->h_slots = slots;
		held = ns * sizeof(gh_slot);
		v.slots = slots;
		for (uint32_t i = 0; i < d.n; i++)
		{
			gh_slot		item;

			if (cancelled_every(i + 1, ROW_POLL))
				return cancel_error();
			item.key = d.keys[i];
			item.off = d.off[i];
			item.cnt = d.cnt[i];
			if (!insert_one(slots, v, &item, gh_dyc_max_evict))
				return GH_OK;	/* out of evictions: a bigger table, new seeds */
		}
		res->placed = true;
		res->rounds = 1;
		res->n_slots = ns;
		return GH_OK;
	}
};

/*
 * Doubles the smallest subtable: the tables before it keep their slots,
 * those after it move up by its old size, and its bucket loc splits into
 * loc and loc + old size by the next hash bit, each item at its slot index
 * (a new bucket receives from one old bucket only: no conflicts).
 */
gh_status
host_upsize(gh_table *t)
{
	gh_dyc_view v = t->dyc,
				nv = v;

	if (!gh_dyc_upsize_geometry(&nv))
		return gh_error(GH_ERR_TOO_LARGE, "DyCuckoo table cannot grow beyond %llu slots",
						(unsigned long long) gh_dyc_slots(v));

	uint32_t	j = v.n_big;
	uint64_t	half = (uint64_t) 1 << v.log2;
	uint64_t	os_n = gh_dyc_slots(v),
				ns_n = gh_dyc_slots(nv);
	uint64_t	bj = gh_dyc_base(v, j) * GH_DYC_B;	/* the same in nv */
	const gh_slot *os = v.slots;
	gh_slot    *ns = (gh_slot *) take_zeroed(t, ns_n * sizeof(gh_slot));

	if (!ns)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory growing DyCuckoo to %llu slots",
						(unsigned long long) ns_n);
	memcpy(ns, os, bj * sizeof(gh_slot));
	if (j + 1 < GH_DYC_D)
	{
		uint64_t	from = gh_dyc_base(v, j + 1) * GH_DYC_B;

		memcpy(ns + gh_dyc_base(nv, j + 1) * GH_DYC_B, os + from, (os_n - from) * sizeof(gh_slot));
	}
	for (uint64_t q = 0; q < half * GH_DYC_B; q++)
	{
		const gh_slot &s = os[bj + q];

		if (s.cnt == 0)
			continue;
		uint64_t	hi = (gh_dyc_hash(v, j, s.key) >> v.log2) & 1;

		ns[bj + q + hi * half * GH_DYC_B] = s;
	}
	free(t->h_slots);
	t->host_bytes -= os_n * sizeof(gh_slot);
	t->h_slots = ns;
	nv.slots = ns;
	t->dyc = nv;
	t->n_slots = ns_n;
	t->rounds++;
	return GH_OK;
}

/* The incremental path's host step (dycuckoo.h). */
struct host_grow
{
	gh_table   *t;
	const uint64_t *keys;
	const uint32_t *off;
	const uint32_t *cnt;
	uint32_t	n;
	scratch		s;
	gh_slot    *left = NULL;	/* the items handed back */

	gh_status	present(uint64_t *p)
	{
		for (uint32_t i = 0; i < n; i++)
			*p += gh_dyc_lookup(t->dyc, keys[i]).cnt != 0;
		return GH_OK;
	}

	gh_status	upsize()
	{
		return host_upsize(t);
	}

	gh_status	insert(uint64_t *failed)
	{
		left = (gh_slot *) s.get((size_t) n * sizeof(gh_slot));
		if (!left)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory inserting %u keys", n);
		*failed = 0;
		for (uint32_t i = 0; i < n; i++)
		{
			gh_slot		item;

			item.key = keys[i];
			item.off = off[i];
			item.cnt = cnt[i];
			if (!insert_one(t->h_slots, t->dyc, &item, gh_dyc_max_evict))
				left[(*failed)++] = item;
		}
		return GH_OK;
	}

	/* in place: the i-th item handed back again lands at or before i */
	gh_status	reinsert(uint64_t *failed)
	{
		uint64_t	m = *failed;

		*failed = 0;
		for (uint64_t i = 0; i < m; i++)
		{
			gh_slot		item = left[i];

			if (!insert_one(t->h_slots, t->dyc, &item, gh_dyc_max_evict))
				left[(*failed)++] = item;
		}
		return GH_OK;
	}
};

}								/* namespace */

gh_status
gh_host_build_dycuckoo(gh_table *t, const gh_distinct &d, uint64_t seed, double lf)
{
	dyc_step	step = {t, d};

	return gh_build_attempts<gh_dyc_scheme>(t, &t->dyc, step, d.n, seed, lf);
}

gh_status
gh_host_dyc_insert(gh_table *t, const uint64_t *keys, const uint32_t *off, const uint32_t *cnt,
				   uint32_t n, double max_fill)
{
	host_grow	step;

	step.t = t;
	step.keys = keys;
	step.off = off;
	step.cnt = cnt;
	step.n = n;
	return gh_dyc_grow(t, step, n, max_fill);
}

gh_status
gh_dyc_check(const gh_table *t, const void *keys, const void *off, const void *cnt, uint32_t n,
			 double *max_fill)
{
	if (!t || t->scheme != GH_SCHEME_DYCUCKOO || (n > 0 && (!keys || !off || !cnt)))
		return gh_error(GH_ERR_INVALID, "DyCuckoo insert: invalid arguments");
	if (*max_fill <= 0)
		*max_fill = GH_DYC_DEFAULT_FILL;
	if (*max_fill > 0.95)
		return gh_error(GH_ERR_INVALID, "DyCuckoo insert: fill bound %g outside (0, 0.95]", *max_fill);
	if (t->n_distinct + n > UINT32_MAX)
		return gh_error(GH_ERR_TOO_LARGE, "DyCuckoo insert: more than %u distinct keys", UINT32_MAX);
	return GH_OK;
}

gh_status
gh_dyc_insert(gh_table *t, const uint64_t *keys, const uint32_t *off, const uint32_t *cnt,
			  uint32_t n, double max_fill)
{
	gh_status	s = gh_dyc_check(t, keys, off, cnt, n, &max_fill);

	if (s != GH_OK)
		return s;

	double		t0 = gh_now_ms();

	s = t->device == GH_DEVICE_GPU ? gh_gpu_dyc_insert(t, keys, off, cnt, n, max_fill)
		: gh_host_dyc_insert(t, keys, off, cnt, n, max_fill);

	double		ms = gh_now_ms() - t0;

	t->stats.build_hash_ms += ms;
	t->stats.build_ms += ms;
	return s;
}
