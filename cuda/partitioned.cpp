/*
 * partitioned.cpp
 *		A table partitioned by key over several GPUs (gh_build_partitioned):
 *		for an inner side larger than one GPU's memory.  Part p holds the
 *		rows whose key has gh_part_of(key, n) == p; the parts are built and
 *		probed at once, one thread per part, each on its own GPU.  Ranges
 *		come back as a single table's would: a part's offsets are shifted by
 *		the rows of the parts before it, and the key-grouped row order is
 *		the parts' orders one after the other.
 */
#include "table_internal.h"
#include "hash.cuh"

#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdio.h>

namespace
{

template <typename F>
struct part_job
{
	F		   *fn;
	int			p;
};

template <typename F>
void *
run_part(void *arg)
{
	part_job<F> *j = (part_job<F> *) arg;

	(*j->fn) (j->p);
	return NULL;
}

/*
 * Runs fn(p) for every part, parts 1.. in threads of their own (a thread
 * that cannot start runs its part here, after part 0).
 */
template <typename F>
void
each_part(int n_parts, F fn)
{
	pthread_t	th[GH_MAX_PARTS];
	part_job<F> job[GH_MAX_PARTS];
	bool		started[GH_MAX_PARTS] = {};

	for (int p = 1; p < n_parts; p++)
	{
		job[p] = part_job<F>{&fn, p};
		started[p] = pthread_create(&th[p], NULL, run_part<F>, &job[p]) == 0;
	}
	fn(0);
	for (int p = 1; p < n_parts; p++)
		if (!started[p])
			fn(p);
	for (int p = 1; p < n_parts; p++)
		if (started[p])
			pthread_join(th[p], NULL);
}

/*
 * Groups n keys by part: order[] gets the positions of part 0's keys, then
 * part 1's..., and pkeys[] those keys in that order; start[p] is where part
 * p begins (start[n_parts] = n).
 */
void
split_by_part(const uint64_t *keys, size_t n, int n_parts, uint32_t *order,
			  uint64_t *pkeys, size_t start[GH_MAX_PARTS + 1])
{
	size_t		fill[GH_MAX_PARTS] = {};

	for (size_t i = 0; i < n; i++)
		fill[gh_part_of(keys[i], n_parts)]++;
	start[0] = 0;
	for (int p = 0; p < n_parts; p++)
		start[p + 1] = start[p] + fill[p];
	memcpy(fill, start, sizeof(size_t) * n_parts);
	for (size_t i = 0; i < n; i++)
	{
		size_t		j = fill[gh_part_of(keys[i], n_parts)]++;

		order[j] = (uint32_t) i;
		pkeys[j] = keys[i];
	}
}

}								/* namespace */

gh_status
gh_build_partitioned(const gh_build_options *opt, const int *ordinals, int n_parts,
					 const uint64_t *keys, size_t n, gh_table **out)
{
	double		t0 = gh_now_ms();
	size_t		start[GH_MAX_PARTS + 1];
	gh_status	st[GH_MAX_PARTS] = {};
	char		why[GH_MAX_PARTS][256];
	uint32_t   *order;
	uint64_t   *pkeys;
	gh_table   *t;

	if (!out)
		return gh_error(GH_ERR_INVALID, "no output pointer");
	*out = NULL;
	if (!opt || n_parts < 1 || n_parts > GH_MAX_PARTS || (n > 0 && !keys) ||
		(opt->device == GH_DEVICE_GPU && !ordinals))
		return gh_error(GH_ERR_INVALID, "invalid partitioned build arguments");
	if ((uint64_t) n > GH_MAX_ROWS)
		return gh_error(GH_ERR_TOO_LARGE, "%zu rows exceed the limit of %llu", n,
						(unsigned long long) GH_MAX_ROWS);

	t = (gh_table *) calloc(1, sizeof(gh_table));
	order = (uint32_t *) malloc((n ? n : 1) * sizeof(uint32_t));
	pkeys = (uint64_t *) malloc((n ? n : 1) * sizeof(uint64_t));
	if (t)
	{
		t->parts = (gh_table **) calloc(n_parts, sizeof(gh_table *));
		t->part_base = (uint64_t *) calloc(n_parts + 1, sizeof(uint64_t));
	}
	if (!t || !order || !pkeys || !t->parts || !t->part_base)
	{
		if (t)
		{
			free(t->parts);
			free(t->part_base);
		}
		free(t);
		free(order);
		free(pkeys);
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for a partitioned build");
	}
	t->device = opt->device;
	t->scheme = opt->scheme;
	t->n_rows = n;
	t->rowid_width = 4;
	t->ordinal = -1;
	t->n_parts = n_parts;

	/* each part's keys, with their positions in keys[] as rowids */
	split_by_part(keys, n, n_parts, order, pkeys, start);
	for (int p = 0; p <= n_parts; p++)
		t->part_base[p] = start[p];

	each_part(n_parts, [&](int p) {
		gh_build_options o = *opt;

		if (opt->device == GH_DEVICE_GPU)
			o.gpu_ordinal = ordinals[p];
		st[p] = gh_build(&o, pkeys + start[p], order + start[p], 4, start[p + 1] - start[p],
						 &t->parts[p]);
		if (st[p] != GH_OK)
			snprintf(why[p], sizeof(why[p]), "%s", gh_last_error());
	});
	free(order);
	free(pkeys);
	for (int p = 0; p < n_parts; p++)
		if (st[p] != GH_OK)
		{
			gh_status	s = st[p];

			gh_free(t);
			return gh_error(s, "part %d of %d%s: %s", p, n_parts,
							opt->device == GH_DEVICE_GPU ? " (a GPU's share)" : "", why[p]);
		}
	t->stats.build_ms = gh_now_ms() - t0;
	*out = t;
	return GH_OK;
}

gh_status
gh_part_probe(gh_table *t, const uint64_t *keys, size_t n,
			  gh_range *ranges, uint32_t *counts, uint64_t *total)
{
	int			np = t->n_parts;
	size_t		start[GH_MAX_PARTS + 1];
	gh_status	st[GH_MAX_PARTS] = {};
	uint64_t	tot[GH_MAX_PARTS] = {};
	char		why[GH_MAX_PARTS][256];
	double		t0 = gh_now_ms();
	uint32_t   *order = (uint32_t *) malloc((n ? n : 1) * sizeof(uint32_t));
	uint64_t   *pkeys = (uint64_t *) malloc((n ? n : 1) * sizeof(uint64_t));
	gh_range   *pr = (gh_range *) malloc((n ? n : 1) * sizeof(gh_range));

	if (!order || !pkeys || !pr)
	{
		free(order);
		free(pkeys);
		free(pr);
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for a partitioned probe");
	}
	split_by_part(keys, n, np, order, pkeys, start);

	each_part(np, [&](int p) {
		size_t		m = start[p + 1] - start[p];

		st[p] = m == 0 ? GH_OK :
			gh_probe_ranges(t->parts[p], pkeys + start[p], m, pr + start[p], &tot[p]);
		if (st[p] != GH_OK)
			snprintf(why[p], sizeof(why[p]), "%s", gh_last_error());
	});

	gh_status	s = GH_OK;

	for (int p = 0; p < np && s == GH_OK; p++)
		if (st[p] != GH_OK)
			s = gh_error(st[p], "part %d of %d: %s", p, np, why[p]);
	if (s == GH_OK)
	{
		uint64_t	sum = 0;

		for (int p = 0; p < np; p++)
		{
			sum += tot[p];
			for (size_t j = start[p]; j < start[p + 1]; j++)
			{
				if (ranges)
				{
					ranges[order[j]].offset = pr[j].offset + (uint32_t) t->part_base[p];
					ranges[order[j]].count = pr[j].count;
				}
				if (counts)
					counts[order[j]] = pr[j].count;
			}
		}
		if (total)
			*total = sum;
	}
	free(order);
	free(pkeys);
	free(pr);
	t->stats.probe_ms += gh_now_ms() - t0;
	t->stats.probe_batches++;
	t->stats.probe_keys += n;
	return s;
}

/* Emit through the ranges and the host row order: tests and benchmarks only. */
gh_status
gh_part_emit(gh_table *t, const uint64_t *keys, size_t n,
			 uint32_t *probe_index, void *rowids, uint64_t capacity, uint64_t *total)
{
	gh_range   *r = (gh_range *) malloc((n ? n : 1) * sizeof(gh_range));
	const uint32_t *order = (const uint32_t *) gh_part_rowids(t);
	uint64_t	sum = 0,
				w = 0;
	gh_status	s;

	if (!r)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for a partitioned emit");
	if (!order)
	{
		free(r);
		return GH_ERR_HOST_MEMORY;
	}
	s = gh_part_probe(t, keys, n, r, NULL, &sum);
	*total = sum;
	if (s == GH_OK && sum > capacity)
		s = gh_error(GH_ERR_OUTPUT_FULL, "%llu pairs exceed the capacity of %llu",
					 (unsigned long long) sum, (unsigned long long) capacity);
	for (size_t i = 0; s == GH_OK && i < n; i++)
		for (uint32_t k = 0; k < r[i].count; k++, w++)
		{
			if (probe_index)
				probe_index[w] = (uint32_t) i;
			if (rowids)
				((uint32_t *) rowids)[w] = order[r[i].offset + k];
		}
	free(r);
	return s;
}

const void *
gh_part_rowids(gh_table *t)
{
	if (t->h_rowids)
		return t->h_rowids;

	uint32_t   *all = (uint32_t *) malloc((t->n_rows ? t->n_rows : 1) * sizeof(uint32_t));

	if (!all)
	{
		gh_error(GH_ERR_HOST_MEMORY, "out of host memory for a partitioned table's row order");
		return NULL;
	}
	for (int p = 0; p < t->n_parts; p++)
	{
		const uint32_t *r = (const uint32_t *) gh_sorted_rowids(t->parts[p]);

		if (!r)
		{
			free(all);
			return NULL;
		}
		memcpy(all + t->part_base[p], r, t->parts[p]->n_rows * sizeof(uint32_t));
	}
	t->h_rowids = all;
	t->host_bytes += t->n_rows * sizeof(uint32_t);
	return all;
}

/* The parts' figures together; the build's and probes' times are wall times. */
void
gh_part_info(const gh_table *t, gh_table_info *info)
{
	gh_table_info pi;

	memset(info, 0, sizeof(*info));
	for (int p = 0; p < t->n_parts; p++)
	{
		gh_table_get_info(t->parts[p], &pi);
		if (p == 0)
		{
			info->seed = pi.seed;
			info->scheme = pi.scheme;
		}
		info->n_distinct += pi.n_distinct;
		info->attempts = pi.attempts > info->attempts ? pi.attempts : info->attempts;
		info->rounds = pi.rounds > info->rounds ? pi.rounds : info->rounds;
		info->slots += pi.slots;
		info->cells += pi.cells;
		info->device_bytes += pi.device_bytes;
		info->host_bytes += pi.host_bytes;
		info->build_sort_ms += pi.build_sort_ms;
		info->build_hash_ms += pi.build_hash_ms;
		info->transfer_ms += pi.transfer_ms;
	}
	info->device = t->device;
	info->n_rows = t->n_rows;
	info->rowid_width = 4;
	info->build_ms = t->stats.build_ms;
	info->probe_ms = t->stats.probe_ms;
	info->probe_batches = t->stats.probe_batches;
	info->probe_keys = t->stats.probe_keys;
	info->host_bytes += t->host_bytes;
	info->gpu_ordinal = -1;
	info->parts = t->n_parts;
}

/* Each part sound, and the bases agree with the parts. */
gh_status
gh_part_validate(gh_table *t)
{
	for (int p = 0; p < t->n_parts; p++)
	{
		gh_status	s = gh_validate(t->parts[p]);

		if (s != GH_OK)
			return s;
		if (t->part_base[p + 1] - t->part_base[p] != t->parts[p]->n_rows)
			return gh_error(GH_ERR_INVALID, "part %d holds %llu rows, its base says %llu", p,
							(unsigned long long) t->parts[p]->n_rows,
							(unsigned long long) (t->part_base[p + 1] - t->part_base[p]));
	}
	return GH_OK;
}

void
gh_part_free(gh_table *t)
{
	for (int p = 0; p < t->n_parts; p++)
		gh_free(t->parts[p]);
	free(t->parts);
	free(t->part_base);
	t->parts = NULL;
	t->part_base = NULL;
	t->n_parts = 0;
}
