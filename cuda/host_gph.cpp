/*
 * host_gph.cpp
 *		GPH on the host twin: every region placed in turn by the sequential
 *		definition that the GPU's warp-per-region kernel (gpu_gph.cu)
 *		reproduces, then the slots in key order; the same seeds
 *		(build_driver.h draws them), so cells and slots are bit-identical.
 */
#include "host_build.h"

#include <string.h>

using namespace gh_host;

namespace
{

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
place_region(const gh_gph_view &v, uint32_t r, const uint64_t *hk, uint32_t nk,
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
 * attempt has new placement seeds and more buckets (schemes/gph.cuh).
 */
struct gph_step
{
	gh_table   *t;
	gh_distinct d;
	scratch		s;
	uint32_t   *rstart = NULL;

				gph_step(gh_table *tab, const gh_distinct &keys) : t(tab), d(keys) {}

	/* cells, region boundaries; a cell of more than R*M keys fits under no seed */
	gh_status	prepare(const gh_gph_view &v)
	{
		const uint64_t *hk = d.keys;
		uint32_t	u = d.n;

		rstart = (uint32_t *) s.get(((size_t) v.n_regions + 1) * 4);
		t->h_cells = (uint8_t *) take(t, v.n_cells);	/* gh_free frees it on failure */
		if (!rstart || !t->h_cells)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory building GPH for %u keys", u);
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
		return GH_OK;
	}

	bool		cancelled()
	{
		return gh_host::cancelled();
	}

	gh_status	attempt(gh_gph_view &v, gh_attempt_result *res)
	{
		const uint64_t *hk = d.keys;
		uint8_t    *cells = t->h_cells;
		scratch		a;
		uint8_t    *fill = (uint8_t *) a.get((size_t) v.br + 8);

		if (!fill)
			return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for GPH placement");

		int			rounds = 0;

		for (uint32_t r = 0; r < v.n_regions; r++)
		{
			if (cancelled_every(r + 1, 0xf))
				return cancel_error();

			int			used = place_region(v, r, hk + rstart[r], rstart[r + 1] - rstart[r],
											fill, cells + ((size_t) r << v.cr_log2));

			if (used < 0)
				return GH_OK;	/* a cell fits nowhere: draw again */
			rounds = used > rounds ? used : rounds;
		}

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
				sl->off = d.off[i];
				sl->cnt = d.cnt[i];
			}
		}
		res->placed = true;
		res->rounds = rounds;
		res->n_slots = n_slots;
		return GH_OK;
	}
};

}								/* namespace */

gh_status
gh_host_build_gph(gh_table *t, const gh_distinct &d, uint64_t seed, double lf)
{
	gph_step	step(t, d);

	return gh_build_attempts<gh_gph_scheme>(t, &t->gph, step, d.n, seed, lf);
}
