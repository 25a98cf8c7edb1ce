/*
 * host_probe.cpp
 *		The host twin's probes: each scheme's lookup (schemes/) in a
 *		loop (scheme_ops.cpp), and emit as count -> exclusive scan -> write.
 */
#include "scheme_ops.h"

#include <stdlib.h>
#include <string.h>

gh_status
gh_host_probe_ranges(gh_table *t, const uint64_t *keys, size_t n,
					 gh_range *ranges, uint32_t *counts, uint64_t *total)
{
	return gh_scheme_ops_of(t->scheme)->host_probe(t, keys, n, ranges, counts, total);
}

template <typename R>
static void
emit_typed(const R *rows, const gh_range *rg, size_t n, uint32_t *probe_index,
		   R *out)
{
	uint64_t	pos = 0;

	for (size_t i = 0; i < n; i++)
	{
		for (uint32_t j = 0; j < rg[i].count; j++, pos++)
		{
			if (probe_index)
				probe_index[pos] = (uint32_t) i;
			if (out)
				out[pos] = rows[rg[i].offset + j];
		}
	}
}

gh_status
gh_host_emit(gh_table *t, const uint64_t *keys, size_t n,
			 uint32_t *probe_index, void *rowids, uint64_t capacity,
			 uint64_t *total)
{
	gh_range   *rg = (gh_range *) malloc(n ? n * sizeof(gh_range) : 1);
	uint64_t	sum;

	if (!rg)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory probing %zu keys", n);
	gh_host_probe_ranges(t, keys, n, rg, NULL, &sum);
	*total = sum;
	if (sum > capacity)
	{
		free(rg);
		return gh_error(GH_ERR_OUTPUT_FULL, "%llu pairs exceed the capacity of %llu",
						(unsigned long long) sum, (unsigned long long) capacity);
	}
	if (t->rowid_width == 4)
		emit_typed((const uint32_t *) t->h_rowids, rg, n, probe_index, (uint32_t *) rowids);
	else
		emit_typed((const uint64_t *) t->h_rowids, rg, n, probe_index, (uint64_t *) rowids);
	free(rg);
	return GH_OK;
}
