/*
 * host_build.cpp
 *		The host twin's build: the GPU pipeline's steps, one after another on
 *		the CPU, with the same seeds and hash functions, so that a table built
 *		here places every key where the GPU build places it.
 *
 *		sort (key, rowid) by key  ->  run-length encode  ->  scheme over the
 *		distinct keys (FKS rounds / GPH placement rounds / linear inserts)
 */
#include "table_internal.h"

#include <stdlib.h>
#include <string.h>

namespace
{

/* malloc that records what the table holds */
void *
take(gh_table *t, size_t bytes)
{
	void	   *p = malloc(bytes ? bytes : 1);

	if (p)
		t->host_bytes += bytes;
	return p;
}

/* Scratch arrays freed on every exit path. */
struct scratch
{
	void	   *p[16];
	int			n = 0;

	void	   *get(size_t bytes, bool zero = false)
	{
		void	   *q = zero ? calloc(bytes ? bytes : 1, 1) : malloc(bytes ? bytes : 1);

		if (q)
			p[n++] = q;
		return q;
	}
	~scratch()
	{
		for (int i = 0; i < n; i++)
			free(p[i]);
	}
};

/*
 * Stable LSD radix sort of (key - base) with rowids, 8 bits a pass over the
 * low `bits` bits: the same order as CUB's stable radix sort on the GPU.
 */
template <typename R>
bool
radix_sort(uint64_t *k, R *v, size_t n, int bits, uint64_t **k_out, R **v_out,
		   scratch &s)
{
	uint64_t   *k2 = (uint64_t *) s.get(n * sizeof(uint64_t));
	R		   *v2 = (R *) s.get(n * sizeof(R));

	if (!k2 || !v2)
		return false;
	for (int shift = 0; shift < bits; shift += 8)
	{
		size_t		count[257] = {0};

		for (size_t i = 0; i < n; i++)
			count[((k[i] >> shift) & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++)
		{
			size_t		pos = count[(k[i] >> shift) & 0xff]++;

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
	return true;
}

/* ---------------------------------------------------------------- FKS */

gh_status
fks_build(gh_table *t, const uint64_t *dk, const uint32_t *doff,
		  const uint32_t *dcnt, uint32_t u, uint64_t seed)
{
	uint32_t	n1 = u ? u : 1;
	scratch		s;
	uint32_t   *bkt = (uint32_t *) s.get((size_t) u * 4);
	uint32_t   *cnt1 = (uint32_t *) s.get((size_t) n1 * 4);
	uint64_t   *off1 = (uint64_t *) s.get(((size_t) n1 + 1) * 8);
	uint8_t    *round_of = (uint8_t *) s.get(n1);
	uint8_t    *collided = (uint8_t *) s.get(n1);
	uint32_t   *act = (uint32_t *) s.get((size_t) u * 4);
	uint64_t   *slot = (uint64_t *) s.get((size_t) u * 8);

	if (!bkt || !cnt1 || !off1 || !round_of || !collided || !act || !slot)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory building FKS level 1 for %u keys", u);

	gh_fks_view v;

	memset(&v, 0, sizeof(v));
	v.n1 = n1;
	for (int attempt = 0; attempt < GH_MAX_ATTEMPTS; attempt++)
	{
		uint64_t	st = gh_attempt_seed(seed, attempt);

		v.l1 = gh_uhash_draw(&st);
		for (int r = 0; r < GH_FKS_MAX_ROUNDS; r++)
			v.l2[r] = gh_uhash_draw(&st);

		memset(cnt1, 0, (size_t) n1 * 4);
		for (uint32_t i = 0; i < u; i++)
		{
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
		if (space > (uint64_t) GH_FKS_MAX_SPACE * n1)
			continue;			/* level 1 too uneven: redraw it */

		uint32_t   *hist = (uint32_t *) calloc(space + 1, 4);

		if (!hist)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for FKS level 2 (%llu slots)",
							(unsigned long long) space);
		memset(round_of, 0, n1);
		for (uint32_t i = 0; i < u; i++)
			act[i] = i;
		uint32_t	n_act = u;
		int			rounds = 0;

		for (int r = 0; r < GH_FKS_MAX_ROUNDS && n_act > 0; r++)
		{
			rounds = r + 1;
			for (uint32_t a = 0; a < n_act; a++)
			{
				uint32_t	i = act[a],
							b = bkt[i];
				uint32_t	size = (uint32_t) (off1[b + 1] - off1[b]);

				slot[i] = off1[b] + gh_reduce(gh_uhash32(v.l2[r], dk[i]), size);
				hist[slot[i]]++;
				collided[b] = 0;
			}
			for (uint32_t a = 0; a < n_act; a++)
			{
				uint32_t	i = act[a];

				if (hist[slot[i]] > 1)
					collided[bkt[i]] = 1;
			}
			uint32_t	n_next = 0;

			for (uint32_t a = 0; a < n_act; a++)
			{
				uint32_t	i = act[a],
							b = bkt[i];

				if (collided[b])
				{
					hist[slot[i]] = 0;
					act[n_next++] = i;
				}
				else
					round_of[b] = (uint8_t) r;
			}
			n_act = n_next;
		}
		free(hist);
		if (n_act > 0)
			continue;			/* round cap hit: new seeds for everything */

		/* records, then slots placed through the probe's own arithmetic */
		bool		rec64 = space + 1 > GH_FKS_REC32_MAX_OFF;
		size_t		rec_bytes = ((size_t) n1 + 1) * (rec64 ? 8 : 4);
		void	   *rec = take(t, rec_bytes);
		gh_slot    *slots = (gh_slot *) take(t, (space + 1) * sizeof(gh_slot));

		if (!rec || !slots)
		{
			free(rec);
			free(slots);
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for FKS table (%llu slots)",
							(unsigned long long) space);
		}
		for (uint32_t b = 0; b <= n1; b++)
		{
			uint32_t	r = b < n1 ? round_of[b] : 0;

			if (rec64)
				((uint64_t *) rec)[b] = (off1[b] << GH_FKS_REC64_SHIFT) | r;
			else
				((uint32_t *) rec)[b] = (uint32_t) ((off1[b] << GH_FKS_REC32_SHIFT) | r);
		}
		memset(slots, 0, (space + 1) * sizeof(gh_slot));
		v.rec = rec;
		v.rec64 = rec64;
		v.slots = slots;
		for (uint32_t i = 0; i < u; i++)
		{
			gh_slot    *sl = &slots[gh_fks_slot(v, dk[i])];

			sl->key = dk[i];
			sl->off = doff[i];
			sl->cnt = dcnt[i];
		}
		t->h_rec = rec;
		t->h_slots = slots;
		t->fks = v;
		t->seed = seed;
		t->attempts = attempt + 1;
		t->rounds = rounds;
		t->n_slots = space + 1;
		t->n_cells = n1;
		return GH_OK;
	}
	return gh_error(GH_ERR_BUILD_FAILED,
					"FKS build failed after %d seed attempts on %u distinct keys", GH_MAX_ATTEMPTS, u);
}

/* ---------------------------------------------------------------- GPH */

/*
 * Cells are placed largest first, in size classes, each class by rounds:
 * every unplaced cell of the class proposes its current byte; a bucket whose
 * committed fill plus this round's demand exceeds M rejects all proposers;
 * rejected cells advance to the next byte.  The outcome depends on no
 * thread order, so the GPU computes the same cell bytes.
 */
gh_status
gph_build(gh_table *t, const uint64_t *dk, const uint32_t *doff,
		  const uint32_t *dcnt, uint32_t u, uint64_t seed, double lf)
{
	scratch		s;
	uint64_t   *hk = (uint64_t *) s.get((size_t) u * 8);
	uint32_t   *cell = (uint32_t *) s.get((size_t) u * 4);
	uint32_t   *bkt = (uint32_t *) s.get((size_t) u * 4);
	uint32_t   *act = (uint32_t *) s.get((size_t) u * 4);

	if (!hk || !cell || !bkt || !act)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory building GPH for %u keys", u);

	for (int attempt = 0; attempt < GH_MAX_ATTEMPTS; attempt++)
	{
		gh_gph_view v;
		uint64_t	st = gh_attempt_seed(seed, attempt);

		memset(&v, 0, sizeof(v));
		v.n_cells = gh_gph_cells_for(u);
		v.n_buckets = gh_gph_buckets_for(u, lf, attempt);
		v.seed_key = gh_splitmix64(&st);
		v.seed_bucket = gh_splitmix64(&st);
		v.seed_vb = (uint32_t) gh_splitmix64(&st);

		scratch		a;
		uint8_t    *state = (uint8_t *) a.get(v.n_cells, true);
		uint8_t    *reject = (uint8_t *) a.get(v.n_cells, true);
		uint16_t   *csize = (uint16_t *) a.get((size_t) v.n_cells * 2, true);
		uint8_t    *fill = (uint8_t *) a.get(v.n_buckets, true);
		uint32_t   *demand = (uint32_t *) a.get((size_t) v.n_buckets * 4, true);

		if (!state || !reject || !csize || !fill || !demand)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for GPH cells (%u buckets)", v.n_buckets);

		for (uint32_t i = 0; i < u; i++)
		{
			hk[i] = gh_gph_mix(v, dk[i]);
			cell[i] = gh_gph_cell(v, hk[i]);
			if (csize[cell[i]] < UINT16_MAX)
				csize[cell[i]]++;
		}

		bool		failed = false;
		int			rounds = 0;

		for (int cls = 0; cls < GH_GPH_SIZE_CLASSES && !failed; cls++)
		{
			uint32_t	n_act = 0;

			for (uint32_t i = 0; i < u; i++)
				if (gh_gph_size_class(csize[cell[i]]) == cls)
					act[n_act++] = i;
			while (n_act > 0)
			{
				rounds++;
				for (uint32_t q = 0; q < n_act; q++)
				{
					uint32_t	i = act[q];

					bkt[i] = gh_gph_bucket(v, hk[i], cell[i], state[cell[i]]);
					demand[bkt[i]]++;
				}
				for (uint32_t q = 0; q < n_act; q++)
				{
					uint32_t	i = act[q];

					if (fill[bkt[i]] + demand[bkt[i]] > GH_GPH_M)
						reject[cell[i]] = 1;
				}
				uint32_t	n_next = 0;

				for (uint32_t q = 0; q < n_act; q++)
				{
					uint32_t	i = act[q];

					demand[bkt[i]] = 0;
					if (reject[cell[i]])
						act[n_next++] = i;
					else
						fill[bkt[i]]++;
				}
				for (uint32_t q = 0; q < n_next; q++)
				{
					uint32_t	c = cell[act[q]];

					if (!reject[c])
						continue;
					reject[c] = 0;
					if (state[c] == GH_GPH_CANDIDATES - 1)
						failed = true;
					else
						state[c]++;
				}
				n_act = failed ? 0 : n_next;
			}
		}
		if (failed)
			continue;

		uint64_t	n_slots = (uint64_t) v.n_buckets * GH_GPH_M;
		uint8_t    *cells = (uint8_t *) take(t, v.n_cells);
		gh_slot    *slots = (gh_slot *) take(t, n_slots * sizeof(gh_slot));

		if (!cells || !slots)
		{
			free(cells);
			free(slots);
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for GPH table (%u buckets)", v.n_buckets);
		}
		memcpy(cells, state, v.n_cells);
		memset(slots, 0, n_slots * sizeof(gh_slot));
		memset(fill, 0, v.n_buckets);
		v.cells = cells;
		v.slots = slots;
		for (uint32_t i = 0; i < u; i++)
		{
			uint32_t	b = gh_gph_locate(v, dk[i]);
			gh_slot    *sl = &slots[(uint64_t) b * GH_GPH_M + fill[b]++];

			sl->key = dk[i];
			sl->off = doff[i];
			sl->cnt = dcnt[i];
		}
		t->h_cells = cells;
		t->h_slots = slots;
		t->gph = v;
		t->seed = seed;
		t->attempts = attempt + 1;
		t->rounds = rounds;
		t->n_slots = n_slots;
		t->n_cells = v.n_cells;
		return GH_OK;
	}
	return gh_error(GH_ERR_BUILD_FAILED,
					"GPH build failed after %d attempts on %u distinct keys", GH_MAX_ATTEMPTS, u);
}

/* ------------------------------------------------------------- linear */

gh_status
lin_build(gh_table *t, const uint64_t *dk, const uint32_t *doff,
		  const uint32_t *dcnt, uint32_t u, uint64_t seed, double lf)
{
	uint64_t	cap = gh_lin_capacity_for(u, lf);
	gh_slot    *slots = (gh_slot *) take(t, cap * sizeof(gh_slot));

	if (!slots)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for linear table (%llu slots)",
						(unsigned long long) cap);
	memset(slots, 0, cap * sizeof(gh_slot));

	gh_lin_view v;
	uint64_t	st = gh_attempt_seed(seed, 0);

	v.slots = slots;
	v.mask = cap - 1;
	v.seed = gh_splitmix64(&st);
	for (uint32_t i = 0; i < u; i++)
	{
		uint64_t	j = gh_lin_home(v, dk[i]);

		while (slots[j].cnt != 0)
			j = (j + 1) & v.mask;
		slots[j].key = dk[i];
		slots[j].off = doff[i];
		slots[j].cnt = dcnt[i];
	}
	t->h_slots = slots;
	t->lin = v;
	t->seed = seed;
	t->attempts = 1;
	t->rounds = 1;
	t->n_slots = cap;
	t->n_cells = 0;
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

	/* the key span decides how many radix passes are needed */
	uint64_t	umin = UINT64_MAX,
				umax = 0;
	int64_t		smin = INT64_MAX,
				smax = INT64_MIN;

	for (size_t i = 0; i < n; i++)
	{
		uint64_t	x = keys[i];

		umin = x < umin ? x : umin;
		umax = x > umax ? x : umax;
		smin = (int64_t) x < smin ? (int64_t) x : smin;
		smax = (int64_t) x > smax ? (int64_t) x : smax;
	}
	gh_key_span span = gh_key_span_from(umin, umax, smin, smax);

	for (size_t i = 0; i < n; i++)
	{
		k[i] = keys[i] - span.base;
		v[i] = rowids ? rowids[i] : (R) i;
	}
	uint64_t   *ks;
	R		   *vs;

	if (!radix_sort(k, v, n, span.bits, &ks, &vs, s))
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory sorting %zu rows", n);

	/* run-length encode into distinct keys with (offset, count) */
	uint32_t	u = 0;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || ks[i] != ks[i - 1])
			u++;
	uint64_t   *dk = (uint64_t *) s.get((size_t) u * 8);
	uint32_t   *doff = (uint32_t *) s.get((size_t) u * 4);
	uint32_t   *dcnt = (uint32_t *) s.get((size_t) u * 4);

	if (!dk || !doff || !dcnt)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for %u distinct keys", u);
	for (size_t i = 0, d = 0; i < n; i++)
	{
		if (i == 0 || ks[i] != ks[i - 1])
		{
			dk[d] = ks[i] + span.base;
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
	uint64_t	seed = opt->seed ? opt->seed : GH_DEFAULT_SEED;
	double		lf = opt->load_factor > 0 ? opt->load_factor : 0.5;
	gh_status	st;

	switch (opt->scheme)
	{
		case GH_SCHEME_FKS:
			st = fks_build(t, dk, doff, dcnt, u, seed);
			break;
		case GH_SCHEME_GPH:
			st = gph_build(t, dk, doff, dcnt, u, seed, lf);
			break;
		case GH_SCHEME_LINEAR:
			st = lin_build(t, dk, doff, dcnt, u, seed, lf);
			break;
		default:
			st = gh_error(GH_ERR_INVALID, "unknown scheme %d", (int) opt->scheme);
	}
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
	if (t->rowid_width == 4)
		return build_typed<uint32_t>(t, opt, keys, (const uint32_t *) rowids, n);
	return build_typed<uint64_t>(t, opt, keys, (const uint64_t *) rowids, n);
}

void
gh_host_free(gh_table *t)
{
	free(t->h_rowids);
	free(t->h_rec);
	free(t->h_slots);
	free(t->h_cells);
	t->h_rowids = t->h_rec = NULL;
	t->h_slots = NULL;
	t->h_cells = NULL;
}
