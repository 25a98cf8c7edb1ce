/*
 * validate.cpp
 *		Checks the invariants of a built table on host copies of its arrays:
 *		every occupied slot sits where the scheme's locate function looks for
 *		its key, a probe of that key returns this very slot (so no key is
 *		stored twice), no GPH bucket holds more than M keys, and the ranges
 *		of the occupied slots tile [0, n_rows) exactly, one per distinct key.
 */
#include "scheme_ops.h"

#include <stdlib.h>

static int
cmp_range(const void *a, const void *b)
{
	const gh_range *x = (const gh_range *) a;
	const gh_range *y = (const gh_range *) b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

gh_status
gh_validate_host(const gh_table *t)
{
	const gh_scheme_ops *ops = gh_scheme_ops_of(t->scheme);
	gh_array	a[GH_MAX_ARRAYS];
	int			na = ops->arrays(t, a);
	const gh_slot *slots = (const gh_slot *) a[na - 1].p;	/* the slots come last */
	uint64_t	n_slots = t->n_slots;

	gh_range   *rg = (gh_range *) malloc((t->n_distinct + 1) * sizeof(gh_range));
	uint64_t	used = 0;

	if (!rg)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory validating");

	for (uint64_t i = 0; i < n_slots; i++)
	{
		const gh_slot *s = &slots[i];

		if (s->cnt == 0)
			continue;
		if (!ops->slot_ok(t, i, *s))
		{
			free(rg);
			return gh_error(GH_ERR_BUILD_FAILED,
							"slot %llu: key %llu is not where a probe finds it",
							(unsigned long long) i, (unsigned long long) s->key);
		}
		if (used == t->n_distinct)
		{
			free(rg);
			return gh_error(GH_ERR_BUILD_FAILED, "more occupied slots than distinct keys");
		}
		rg[used].offset = s->off;
		rg[used].count = s->cnt;
		used++;
	}
	if (used != t->n_distinct)
	{
		free(rg);
		return gh_error(GH_ERR_BUILD_FAILED, "%llu occupied slots for %llu distinct keys",
						(unsigned long long) used, (unsigned long long) t->n_distinct);
	}
	qsort(rg, used, sizeof(gh_range), cmp_range);

	uint64_t	next = 0;

	for (uint64_t i = 0; i < used; i++)
	{
		if (rg[i].offset != next)
		{
			free(rg);
			return gh_error(GH_ERR_BUILD_FAILED, "rowid ranges do not tile: gap or overlap at %llu",
							(unsigned long long) next);
		}
		next += rg[i].count;
	}
	free(rg);
	if (next != t->n_rows)
		return gh_error(GH_ERR_BUILD_FAILED, "ranges cover %llu of %llu rows",
						(unsigned long long) next, (unsigned long long) t->n_rows);
	return GH_OK;
}
