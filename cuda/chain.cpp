/*
 * chain.cpp
 *		Multi-level probes (gpuhash_table.h: gh_chain_probe and its windows,
 *		carried columns): argument checks, dispatch, and the host twin.  The
 *		GPU runs the same steps per level (gpu_chain.cu): gather each
 *		combination's key, look it up, count what each combination becomes
 *		by the level's kind, scan, and expand.  Both write the combinations
 *		in the same order.
 */
#include "table_internal.h"

#include <stdlib.h>
#include <string.h>


/* Position p of the table's key-grouped order: the rowid it was built with. */
static inline uint64_t
sorted_rowid(const gh_table *t, uint64_t p)
{
	return t->rowid_width == 4 ? ((const uint32_t *) t->h_rowids)[p]
		: ((const uint64_t *) t->h_rowids)[p];
}

/*
 * gh_set_carried and gh_set_carried_ordered: the cells by rowid, mapped to
 * key-grouped order here, or in that order already (ordered).  The new
 * columns are made apart, so that a refused call keeps the old ones.
 */
static gh_status
set_carried(gh_table *t, const uint64_t *keys, const uint8_t *valid, int ncols, bool ordered)
{
	if (!t || ncols < 0 || (ncols > 0 && t->n_rows > 0 && !keys))
		return gh_error(GH_ERR_INVALID, "invalid carried columns");
	if (t->n_parts > 0)
		return gh_error(GH_ERR_INVALID,
						"a table partitioned over GPUs carries no columns: a chain needs its tables on one GPU");
	if (t->device == GH_DEVICE_GPU)
		return gh_gpu_set_carried(t, keys, valid, ncols, ordered);

	size_t		cells = (size_t) ncols * t->n_rows;
	uint64_t   *k = (uint64_t *) malloc(cells ? cells * 8 : 1);
	uint8_t    *v = valid ? (uint8_t *) malloc(cells ? cells : 1) : NULL;

	if (!k || (valid && !v))
	{
		free(k);
		free(v);
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for carried columns");
	}
	if (ordered && cells > 0)
	{
		memcpy(k, keys, cells * 8);
		if (v)
			memcpy(v, valid, cells);
	}
	for (int c = 0; c < ncols && !ordered; c++)
		for (uint64_t p = 0; p < t->n_rows; p++)
		{
			uint64_t	r = sorted_rowid(t, p);

			if (r >= t->n_rows)
			{
				free(k);
				free(v);
				return gh_error(GH_ERR_INVALID, "carried columns need a table built with rowid = position");
			}
			k[c * t->n_rows + p] = keys[c * t->n_rows + r];
			if (v)
				v[c * t->n_rows + p] = valid[c * t->n_rows + r];
		}
	t->host_bytes -= (size_t) t->n_carried * t->n_rows * (t->h_carried_valid ? 9 : 8);
	t->host_bytes += cells * (v ? 9 : 8);
	free(t->h_carried);
	free(t->h_carried_valid);
	t->h_carried = k;
	t->h_carried_valid = v;
	t->n_carried = ncols;
	return GH_OK;
}

gh_status
gh_set_carried(gh_table *t, const uint64_t *keys, const uint8_t *valid, int ncols)
{
	return set_carried(t, keys, valid, ncols, false);
}

gh_status
gh_set_carried_ordered(gh_table *t, const uint64_t *keys, const uint8_t *valid, int ncols)
{
	return set_carried(t, keys, valid, ncols, true);
}

/*
 * What a probe of total combinations writes: with whole (gh_chain_probe)
 * all or, over capacity, none; else the window from skip.
 */
gh_status
gh_chain_window(uint64_t total, uint64_t skip, bool whole, uint64_t capacity, uint64_t *count)
{
	*count = 0;
	if (whole && total > capacity)
		return gh_error(GH_ERR_OUTPUT_FULL, "%llu combinations exceed the capacity of %llu",
						(unsigned long long) total, (unsigned long long) capacity);
	if (skip > total)
		return gh_error(GH_ERR_INVALID, "a chain probe window starts at %llu of %llu combinations",
						(unsigned long long) skip, (unsigned long long) total);
	*count = total - skip < capacity ? total - skip : capacity;
	return GH_OK;
}

/* A probe's arguments checked (both probes and a probe on a lane). */
static gh_status
chain_check(const gh_chain_level *levels, int n_levels, const uint64_t *outer_keys,
			int n_outer_cols, size_t n, const uint64_t *total)
{
	if (!levels || n_levels < 1 || !total || n_outer_cols < 1 || (n > 0 && !outer_keys))
		return gh_error(GH_ERR_INVALID, "invalid chain probe arguments");
	if (n_levels > GH_MAX_CHAIN_LEVELS)
		return gh_error(GH_ERR_INVALID, "a chain has at most %d levels", GH_MAX_CHAIN_LEVELS);
	if ((uint64_t) n >= UINT32_MAX)
		return gh_error(GH_ERR_TOO_LARGE, "a chain probe takes fewer than %u outer rows", UINT32_MAX);
	for (int l = 0; l < n_levels; l++)
	{
		const gh_chain_level *lv = &levels[l];

		if (!lv->table || lv->table->device != levels[0].table->device ||
			lv->kind < GH_LEVEL_INNER || lv->kind > GH_LEVEL_LEFT)
			return gh_error(GH_ERR_INVALID, "chain level %d: no table, another device, or a bad kind", l);
		if (lv->table->n_parts > 0 || lv->table->ordinal != levels[0].table->ordinal)
			return gh_error(GH_ERR_INVALID,
							"chain level %d: its table is partitioned over GPUs, or on another GPU than level 0's", l);
		if (lv->n_parts < 1 || lv->n_parts > GH_CHAIN_KEY_PARTS)
			return gh_error(GH_ERR_INVALID, "chain level %d: a key has 1 to %d parts", l,
							GH_CHAIN_KEY_PARTS);
		for (int q = 0; q < lv->n_parts; q++)
		{
			const gh_chain_key_part *kp = &lv->part[q];

			if (kp->from_level < 0 ? kp->column >= n_outer_cols || kp->column < 0
				: kp->from_level >= l || kp->column < 0 ||
				kp->column >= levels[kp->from_level].table->n_carried)
				return gh_error(GH_ERR_INVALID, "chain level %d: its key column does not exist", l);
			if (kp->from_level >= 0 && levels[kp->from_level].kind != GH_LEVEL_INNER &&
				levels[kp->from_level].kind != GH_LEVEL_LEFT)
				return gh_error(GH_ERR_INVALID, "chain level %d: level %d keeps no row to read a key from",
								l, kp->from_level);
		}
	}
	return GH_OK;
}

/* Both probes: the arguments checked, then the device's probe. */
static gh_status
chain_probe(const gh_chain_level *levels, int n_levels,
			const uint64_t *outer_keys, const uint8_t *outer_valid,
			int n_outer_cols, size_t n, uint64_t skip, bool whole,
			uint32_t *out_outer, uint32_t *out_pos,
			uint64_t capacity, uint64_t *total, uint64_t *written, double *level_ms)
{
	gh_status	st = chain_check(levels, n_levels, outer_keys, n_outer_cols, n, total);

	if (st != GH_OK)
		return st;
	if (levels[0].table->device == GH_DEVICE_GPU)
		return gh_gpu_chain_probe(levels, n_levels, outer_keys, outer_valid, n_outer_cols, n,
								  skip, whole, out_outer, out_pos, capacity, total, written,
								  level_ms, NULL, NULL);
	return gh_host_chain_probe(levels, n_levels, outer_keys, outer_valid, n, skip, whole,
							   out_outer, out_pos, capacity, total, written, level_ms);
}

gh_status
gh_chain_probe(const gh_chain_level *levels, int n_levels,
			   const uint64_t *outer_keys, const uint8_t *outer_valid,
			   int n_outer_cols, size_t n, uint32_t *out_outer, uint32_t *out_pos,
			   uint64_t capacity, uint64_t *total)
{
	uint64_t	written;

	return chain_probe(levels, n_levels, outer_keys, outer_valid, n_outer_cols, n, 0, true,
					   out_outer, out_pos, capacity, total, &written, NULL);
}

gh_status
gh_chain_probe_window(const gh_chain_level *levels, int n_levels,
					  const uint64_t *outer_keys, const uint8_t *outer_valid,
					  int n_outer_cols, size_t n, uint64_t skip,
					  uint32_t *out_outer, uint32_t *out_pos,
					  uint64_t capacity, uint64_t *total, uint64_t *written,
					  double *level_ms)
{
	if (!written)
		return gh_error(GH_ERR_INVALID, "invalid chain probe arguments");
	*written = 0;
	return chain_probe(levels, n_levels, outer_keys, outer_valid, n_outer_cols, n, skip, false,
					   out_outer, out_pos, capacity, total, written, level_ms);
}

gh_status
gh_chain_lane_take(gh_table *t, int n_levels, int n_outer_cols, size_t n, int has_valid,
				   gh_page_lane **lane)
{
	if (!lane)
		return gh_error(GH_ERR_INVALID, "invalid chain lane arguments");
	*lane = NULL;
	if (!t || t->device != GH_DEVICE_GPU || t->n_parts > 0)
		return GH_OK;
	if (n_levels < 1 || n_levels > GH_MAX_CHAIN_LEVELS || n_outer_cols < 1)
		return gh_error(GH_ERR_INVALID, "invalid chain lane arguments");
	return gh_gpu_chain_lane_take(t, n_levels, n_outer_cols, n, has_valid != 0, lane);
}

gh_status
gh_chain_probe_lane(gh_page_lane *lane, const gh_chain_level *levels, int n_levels,
					const uint64_t *outer_keys, const uint8_t *outer_valid,
					int n_outer_cols, size_t n, uint64_t skip,
					uint32_t *out_outer, uint32_t *out_pos,
					uint64_t capacity, uint64_t *total, uint64_t *written,
					double *level_ms, int *lane_short)
{
	bool		is_short = false;
	gh_status	st;

	if (lane_short)
		*lane_short = 0;
	if (!lane || !written)
		return gh_error(GH_ERR_INVALID, "invalid chain probe arguments");
	*written = 0;
	st = chain_check(levels, n_levels, outer_keys, n_outer_cols, n, total);
	if (st != GH_OK)
		return st;
	if (levels[0].table->device != GH_DEVICE_GPU)
		return gh_error(GH_ERR_INVALID, "a chain probe on a lane needs a GPU table");
	st = gh_gpu_chain_probe(levels, n_levels, outer_keys, outer_valid, n_outer_cols, n, skip,
							false, out_outer, out_pos, capacity, total, written, level_ms, lane,
							&is_short);
	if (lane_short)
		*lane_short = is_short;
	return st;
}

/*
 * Combinations, column-wise: outer row and one position per level.  A set
 * of them for the current level and one for the next.
 */
struct chain_set
{
	uint32_t   *outer = NULL;
	uint32_t   *pos = NULL;		/* n_levels x cap */
	uint64_t	cap = 0;
	uint64_t	n = 0;

	bool		reserve(uint64_t want, int n_levels)
	{
		free(outer);
		free(pos);
		cap = want ? want : 1;
		outer = (uint32_t *) malloc(cap * 4);
		pos = (uint32_t *) malloc(cap * 4 * (size_t) n_levels);
		return outer && pos;
	}
	~chain_set()
	{
		free(outer);
		free(pos);
	}
};

/* What a combination with cnt matches becomes at a level of this kind. */
static inline uint32_t
level_emits(gh_level_kind kind, uint32_t cnt)
{
	switch (kind)
	{
		case GH_LEVEL_INNER:
			return cnt;
		case GH_LEVEL_SEMI:
			return cnt > 0;
		case GH_LEVEL_ANTI:
			return cnt == 0;
		case GH_LEVEL_LEFT:
			break;
	}
	return cnt > 0 ? cnt : 1;
}

/* The host twin, level by level. */
gh_status
gh_host_chain_probe(const gh_chain_level *levels, int n_levels,
					const uint64_t *outer_keys, const uint8_t *outer_valid,
					size_t n, uint64_t skip, bool whole,
					uint32_t *out_outer, uint32_t *out_pos,
					uint64_t capacity, uint64_t *total, uint64_t *written,
					double *level_ms)
{
	chain_set	sets[2];
	chain_set  *cur = &sets[0],
			   *next = &sets[1];
	uint64_t   *keys = NULL;
	uint8_t    *ok = NULL;
	gh_range   *ranges = NULL;
	gh_status	st = GH_OK;

	if (!cur->reserve(n, n_levels))
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for a chain probe");
	for (size_t i = 0; i < n; i++)
		cur->outer[i] = (uint32_t) i;
	cur->n = n;
	for (int l = 0; l < n_levels && st == GH_OK; l++)
	{
		const gh_chain_level *lv = &levels[l];
		uint64_t	m = cur->n,
					sum = 0;
		double		t0 = gh_now_ms();

		free(keys);
		free(ok);
		free(ranges);
		keys = (uint64_t *) malloc(m ? m * 8 : 8);
		ok = (uint8_t *) malloc(m ? m : 1);
		ranges = (gh_range *) malloc(m ? m * sizeof(gh_range) : sizeof(gh_range));
		if (!keys || !ok || !ranges)
		{
			st = gh_error(GH_ERR_HOST_MEMORY, "out of host memory for a chain probe");
			break;
		}

		/* each combination's key, its parts OR'd: a NULL one gets an empty range below */
		for (uint64_t j = 0; j < m; j++)
		{
			keys[j] = 0;
			ok[j] = 1;
			for (int q = 0; q < lv->n_parts; q++)
			{
				const gh_chain_key_part *kp = &lv->part[q];

				if (kp->from_level < 0)
				{
					size_t		cell = (size_t) kp->column * n + cur->outer[j];

					keys[j] |= outer_keys[cell];
					ok[j] &= !outer_valid || outer_valid[cell];
				}
				else
				{
					const gh_table *src = levels[kp->from_level].table;
					uint32_t	p = cur->pos[(size_t) kp->from_level * cur->cap + j];
					size_t		cell = (size_t) kp->column * src->n_rows + p;

					keys[j] |= p == GH_NO_ROW ? 0 : src->h_carried[cell];
					ok[j] &= p != GH_NO_ROW && (!src->h_carried_valid || src->h_carried_valid[cell]);
				}
			}
			if (!ok[j])
				keys[j] = 0;
		}
		if (lv->table->n_rows == 0)
			memset(ranges, 0, m * sizeof(gh_range));
		else if (m > 0)
		{
			if ((st = gh_host_probe_ranges(lv->table, keys, m, ranges, NULL, NULL)) != GH_OK)
				break;
			lv->table->stats.probe_batches++;
			lv->table->stats.probe_keys += m;
		}
		for (uint64_t j = 0; j < m; j++)
		{
			if (!ok[j])
				ranges[j].count = 0;
			sum += level_emits(lv->kind, ranges[j].count);
		}

		/* what each combination becomes */
		if (sum > GH_CHAIN_MAX_COMBINATIONS || !next->reserve(sum, n_levels))
		{
			st = sum > GH_CHAIN_MAX_COMBINATIONS ?
				gh_error(GH_ERR_TOO_LARGE, "a chain level yields %llu combinations", (unsigned long long) sum) :
				gh_error(GH_ERR_HOST_MEMORY, "out of host memory for a chain probe");
			break;
		}
		next->n = 0;
		for (uint64_t j = 0; j < m; j++)
		{
			uint32_t	cnt = ranges[j].count;
			uint32_t	emit = level_emits(lv->kind, cnt);
			bool		rows = (lv->kind == GH_LEVEL_INNER || lv->kind == GH_LEVEL_LEFT) && cnt > 0;

			for (uint32_t k = 0; k < emit; k++, next->n++)
			{
				next->outer[next->n] = cur->outer[j];
				for (int q = 0; q < l; q++)
					next->pos[(size_t) q * next->cap + next->n] = cur->pos[(size_t) q * cur->cap + j];
				next->pos[(size_t) l * next->cap + next->n] = rows ? ranges[j].offset + k : GH_NO_ROW;
			}
		}
		chain_set  *tmp = cur;

		cur = next;
		next = tmp;
		if (level_ms)
			level_ms[l] += gh_now_ms() - t0;
	}
	free(keys);
	free(ok);
	free(ranges);
	if (st != GH_OK)
		return st;
	*total = cur->n;
	if ((st = gh_chain_window(cur->n, skip, whole, capacity, written)) != GH_OK)
		return st;
	if (*written > 0)
	{
		memcpy(out_outer, cur->outer + skip, *written * 4);
		for (int l = 0; l < n_levels; l++)
			memcpy(out_pos + (size_t) l * capacity, cur->pos + (size_t) l * cur->cap + skip,
				   *written * 4);
	}
	return GH_OK;
}
