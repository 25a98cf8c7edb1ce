/*
 * host_build.cpp
 *		The host twin's build: the GPU pipeline's steps, one after another on
 *		the CPU, with the same seeds and hash functions, so that a table built
 *		here places every key where the GPU build places it.
 *
 *		sort (key, rowid) by key  ->  run-length encode  ->  scheme over the
 *		distinct keys (FKS rounds / GPH region placement / linear inserts)
 *
 *		GPH sorts by its mixed key fmix64(key ^ seed_key) instead of the key
 *		(see hash.cuh): a bijection, so deduplication is unchanged, and the
 *		keys of each GPH region and cell come out contiguous.
 */
#include "table_internal.h"

#include <stdlib.h>
#include <string.h>

#include <algorithm>

namespace
{

/*
 * The running build's options (a build runs on one thread), for its cancel
 * callback: asked at each step and every so many iterations of the long
 * loops, so that an unwanted build stops within milliseconds.
 */
thread_local const gh_build_options *build_opt;

bool
cancelled()
{
	return build_opt && build_opt->cancelled && build_opt->cancelled(build_opt->cancel_arg);
}

/* cancelled(), asked at every (mask + 1)th iteration only */
inline bool
cancelled_every(size_t i, size_t mask)
{
	return (i & mask) == 0 && cancelled();
}

#define ROW_POLL ((size_t) (1 << 16) - 1)	/* rows between polls */

gh_status
cancel_error()
{
	return gh_error(GH_ERR_CANCELLED, "build cancelled");
}

/* malloc that records what the table holds */
void *
take(gh_table *t, size_t bytes)
{
	void	   *p = malloc(bytes ? bytes : 1);

	if (p)
		t->host_bytes += bytes;
	return p;
}

/*
 * The same, zeroed.  calloc knows fresh pages are zero already: a large
 * slot array costs no memset pass, and its pages are touched only by the
 * (cancellable) loop that fills it.
 */
void *
take_zeroed(gh_table *t, size_t bytes)
{
	void	   *p = calloc(bytes ? bytes : 1, 1);

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

/* ---------------------------------------------------------------- FKS */

/*
 * The round of one FKS bucket: the first r < GH_FKS_MAX_ROUNDS whose level-2
 * constants map its n keys to n distinct slots of its n^2; -1 if none.
 * (The GPU finds the same per bucket; the paper's global round loop, where
 * only colliding buckets go on to the next round, gives the same too.)
 */
int
fks_bucket_round(const gh_fks_view &v, const uint64_t *k, uint32_t n, uint32_t size,
				 uint32_t *h)
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

gh_status
fks_build(gh_table *t, const uint64_t *dk, const uint32_t *doff,
		  const uint32_t *dcnt, uint32_t u, uint64_t seed)
{
	uint32_t	n1 = u ? u : 1;
	scratch		s;
	uint32_t   *bkt = (uint32_t *) s.get((size_t) u * 4);
	uint32_t   *cnt1 = (uint32_t *) s.get((size_t) n1 * 4);
	uint64_t   *off1 = (uint64_t *) s.get(((size_t) n1 + 1) * 8);
	uint32_t   *kstart = (uint32_t *) s.get(((size_t) n1 + 1) * 4);
	uint8_t    *round_of = (uint8_t *) s.get(n1);
	uint64_t   *gk = (uint64_t *) s.get((size_t) u * 8);
	uint32_t   *h = (uint32_t *) s.get((size_t) u * 4);

	if (!bkt || !cnt1 || !off1 || !kstart || !round_of || !gk || !h)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory building FKS level 1 for %u keys", u);

	gh_fks_view v;

	memset(&v, 0, sizeof(v));
	v.n1 = n1;
	for (int attempt = 0; attempt < GH_MAX_ATTEMPTS; attempt++)
	{
		uint64_t	st = gh_attempt_seed(seed, attempt);

		if (cancelled())
			return cancel_error();
		v.l1 = gh_uhash_draw(&st);
		for (int r = 0; r < GH_FKS_MAX_ROUNDS; r++)
			v.l2[r] = gh_uhash_draw(&st);

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
		if (space > (uint64_t) GH_FKS_MAX_SPACE * n1)
			continue;			/* level 1 too uneven: redraw it */

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
		bool		failed = false;

		for (uint32_t b = 0; b < n1 && !failed; b++)
		{
			uint32_t	n = cnt1[b];

			if (cancelled_every(b + 1, ROW_POLL))
				return cancel_error();
			int			r = n >= 2 ? fks_bucket_round(v, gk + kstart[b], n,
													  (uint32_t) (off1[b + 1] - off1[b]), h) : 0;

			failed = r < 0;
			round_of[b] = (uint8_t) (r > 0 ? r : 0);
			if (n >= 1 && r + 1 > rounds)
				rounds = r + 1;
		}
		if (failed)
			continue;			/* a bucket beyond the round cap: new seeds */

		/* records, then slots placed through the probe's own arithmetic */
		bool		rec64 = space + 1 > GH_FKS_REC32_MAX_OFF;
		size_t		rec_bytes = ((size_t) n1 + 1) * (rec64 ? 8 : 4);
		void	   *rec = take(t, rec_bytes);
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
			uint32_t	r = b < n1 ? round_of[b] : 0;

			if (rec64)
				((uint64_t *) rec)[b] = (off1[b] << GH_FKS_REC64_SHIFT) | r;
			else
				((uint32_t *) rec)[b] = (uint32_t) ((off1[b] << GH_FKS_REC32_SHIFT) | r);
		}
		v.rec = rec;
		v.rec64 = rec64;
		v.slots = slots;
		for (uint32_t i = 0; i < u; i++)
		{
			gh_slot    *sl = &slots[gh_fks_slot(v, dk[i])];

			if (cancelled_every(i + 1, ROW_POLL))
				return cancel_error();

			sl->key = dk[i];
			sl->off = doff[i];
			sl->cnt = dcnt[i];
		}
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

/* Packed 8-byte loads and stores of a group's fill counters (little-endian,
 * as on the GPU: byte x is bucket x of the group). */
inline uint64_t
load8(const uint8_t *p)
{
	uint64_t	w;

	memcpy(&w, p, 8);
	return w;
}

inline void
store8(uint8_t *p, uint64_t w)
{
	memcpy(p, &w, 8);
}

/*
 * Places the cells of region r, the sequential definition that the GPU's
 * warp-per-region kernel (gpu_gph.cu) reproduces: cells by size descending,
 * ties by cell id; each takes the first byte 0..255 under which no bucket
 * of its group exceeds M keys.  hk are the region's keys (sorted), fill its
 * br counters (zeroed here), cb its cell bytes.  Returns the largest byte
 * used + 1 (0 for an empty region), or -1 when some cell fits nowhere.
 */
int
gph_place_region(const gh_gph_view &v, uint32_t r, const uint64_t *hk, uint32_t nk,
				 uint8_t *fill, uint8_t *cb)
{
	const uint32_t cr = 1U << v.cr_log2;
	const uint32_t c0 = r << v.cr_log2;
	uint32_t	start[GH_GPH_REGION_MAX + 1];
	uint32_t	size[GH_GPH_REGION_MAX];
	uint32_t	maxs = 0;
	int			used = 0;

	memset(size, 0, sizeof(size));
	for (uint32_t i = 0; i < nk; i++)
		size[gh_gph_cell(v, hk[i]) - c0]++;
	start[0] = 0;
	for (uint32_t c = 0; c < cr; c++)
	{
		start[c + 1] = start[c] + size[c];
		maxs = size[c] > maxs ? size[c] : maxs;
	}
	if (maxs > GH_GPH_MAX_CELL)
		return -1;
	memset(fill, 0, v.br);
	memset(cb, 0, cr);

	for (uint32_t s = maxs; s >= 1; s--)
	{
		for (uint32_t c = 0; c < cr; c++)
		{
			if (size[c] != s)
				continue;

			const uint64_t *k = hk + start[c];
			uint32_t	hc = gh_gph_cell_hash(v, c0 + c);
			uint64_t	cnt[GH_GPH_PHI],
						F[GH_GPH_PHI];
			uint32_t	grp[GH_GPH_PHI];
			int			byte = -1;

			for (int b = 0; b < (int) GH_GPH_CANDIDATES && byte < 0; b++)
			{
				uint32_t	phi = b & (GH_GPH_PHI - 1),
							d = b >> 5;

				if (d == 0)
				{
					/* first visit of phi: its split and its group's fills */
					cnt[phi] = 0;
					for (uint32_t q = 0; q < s; q++)
						cnt[phi] += 1ULL << (8 * gh_gph_vbucket(v, k[q], phi));
					grp[phi] = gh_gph_group(v, hc, phi);
					F[phi] = load8(fill + grp[phi]);
				}
				uint64_t	w = F[phi] + gh_gph_rotate(cnt[phi], d);

				if (GH_GPH_BYTES_LE4(cnt[phi]) && GH_GPH_BYTES_LE4(w))
				{
					store8(fill + grp[phi], w);
					byte = b;
				}
			}
			if (byte < 0)
				return -1;
			cb[c] = (uint8_t) byte;
			used = byte + 1 > used ? byte + 1 : used;
		}
	}
	return used;
}

/*
 * hk: the distinct keys' mixed values, ascending (the build sorted rows by
 * them), with their rowid ranges.  Regions and cells are fixed by u; each
 * attempt redraws the placement seeds and grows the buckets.
 */
gh_status
gph_build(gh_table *t, const uint64_t *hk, const uint32_t *doff,
		  const uint32_t *dcnt, uint32_t u, uint64_t seed, double lf)
{
	gh_gph_view v;

	memset(&v, 0, sizeof(v));
	if (!gh_gph_geometry(u, lf, 0, &v))
		return gh_error(GH_ERR_TOO_LARGE, "GPH over %u keys at load %g needs too many buckets", u, lf);
	v.seed_key = gh_gph_key_seed(seed);

	scratch		s;
	uint32_t   *rstart = (uint32_t *) s.get(((size_t) v.n_regions + 1) * 4);
	uint8_t    *cells = (uint8_t *) take(t, v.n_cells);

	if (!rstart || !cells)
	{
		free(cells);
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory building GPH for %u keys", u);
	}
	t->h_cells = cells;

	/* region boundaries; a cell of more than R*M keys fits under no seed */
	for (uint64_t i = 0, r = 0; i <= u; i++)
	{
		uint32_t	ri = i < u ? gh_gph_cell(v, hk[i]) >> v.cr_log2 : v.n_regions;

		if (cancelled_every(i + 1, ROW_POLL))
			return cancel_error();
		while (r <= ri)
			rstart[r++] = (uint32_t) i;
		if (i + GH_GPH_MAX_CELL < u &&
			gh_gph_cell(v, hk[i]) == gh_gph_cell(v, hk[i + GH_GPH_MAX_CELL]))
			return gh_error(GH_ERR_BUILD_FAILED,
							"GPH: a cell holds more than %d of %u keys (seed_key collision)",
							GH_GPH_MAX_CELL, u);
	}

	for (int attempt = 0; attempt < GH_MAX_ATTEMPTS; attempt++)
	{
		uint64_t	st = gh_attempt_seed(seed, attempt);

		if (!gh_gph_geometry(u, lf, attempt, &v))
			break;
		if (cancelled())
			return cancel_error();
		v.seed_cell = (uint32_t) gh_splitmix64(&st);
		v.seed_vb = (uint32_t) gh_splitmix64(&st);

		scratch		a;
		uint8_t    *fill = (uint8_t *) a.get((size_t) v.br + 8);

		if (!fill)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for GPH placement");

		int			rounds = 0;
		bool		failed = false;

		for (uint32_t r = 0; r < v.n_regions && !failed; r++)
		{
			if (cancelled_every(r + 1, 0xf))
				return cancel_error();

			int			used = gph_place_region(v, r, hk + rstart[r], rstart[r + 1] - rstart[r],
												fill, cells + ((size_t) r << v.cr_log2));

			failed = used < 0;
			rounds = used > rounds ? used : rounds;
		}
		if (failed)
			continue;

		/* slots: keys in index order, each at its bucket's next free slot */
		uint64_t	n_slots = (uint64_t) v.n_buckets * GH_GPH_M;
		gh_slot    *slots = (gh_slot *) take_zeroed(t, n_slots * sizeof(gh_slot));

		if (!slots)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for GPH table (%u buckets)", v.n_buckets);
		t->h_slots = slots;		/* gh_free frees it on failure */
		v.cells = cells;
		v.slots = slots;
		for (uint32_t r = 0; r < v.n_regions; r++)
		{
			if (cancelled_every(r + 1, 0xf))
				return cancel_error();
			memset(fill, 0, v.br);
			for (uint32_t i = rstart[r]; i < rstart[r + 1]; i++)
			{
				uint32_t	c = gh_gph_cell(v, hk[i]);
				uint32_t	b = gh_gph_bucket(v, hk[i], c, cells[c]);
				gh_slot    *sl = &slots[(uint64_t) b * GH_GPH_M + fill[b - r * v.br]++];

				sl->key = gh_gph_unmix(v, hk[i]);
				sl->off = doff[i];
				sl->cnt = dcnt[i];
			}
		}
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
	gh_slot    *slots = (gh_slot *) take_zeroed(t, cap * sizeof(gh_slot));

	if (!slots)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for linear table (%llu slots)",
						(unsigned long long) cap);

	gh_lin_view v;
	uint64_t	st = gh_attempt_seed(seed, 0);

	v.slots = slots;
	v.mask = cap - 1;
	v.seed = gh_splitmix64(&st);
	for (uint32_t i = 0; i < u; i++)
	{
		uint64_t	j = gh_lin_home(v, dk[i]);

		if (cancelled_every(i + 1, ROW_POLL))
		{
			free(slots);
			return cancel_error();
		}

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

	/*
	 * GPH sorts by the mixed key hk = fmix64(key ^ seed_key), a bijection
	 * (equal hk = equal key), over all 64 bits: its cells and regions are
	 * then contiguous runs.  FKS and linear sort key - base on the bits of
	 * the key span only.
	 */
	bool		gph = opt->scheme == GH_SCHEME_GPH;
	uint64_t	seed = opt->seed ? opt->seed : GH_DEFAULT_SEED;
	uint64_t	seed_key = gh_gph_key_seed(seed);
	gh_key_span span = {0, 64};

	if (!gph)
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
		k[i] = gph ? gh_gph_mix_seeded(seed_key, keys[i]) : keys[i] - span.base;
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
			dk[d] = ks[i] + span.base;	/* GPH: hk itself (base 0) */
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
	t->h_rowids = t->h_rec = NULL;
	t->h_slots = NULL;
	t->h_cells = NULL;
}
