/*
 * validate.cpp
 *		Checks the invariants of a built table on host copies of its arrays:
 *		every occupied slot sits where the scheme's locate function looks for
 *		its key, a probe of that key returns this very slot (so no key is
 *		stored twice), no GPH bucket holds more than M keys, and the ranges
 *		of the occupied slots tile [0, n_rows) exactly, one per distinct key.
 */
#include "table_internal.h"

#include <stdlib.h>

static int
cmp_range(const void *a, const void *b)
{
	const gh_range *x = (const gh_range *) a;
	const gh_range *y = (const gh_range *) b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

gh_status
gh_validate_views(const gh_table *t, const gh_fks_view *fks,
				  const gh_gph_view *gph, const gh_lin_view *lin)
{
	const gh_slot *slots;
	uint64_t	n_slots = t->n_slots;

	switch (t->scheme)
	{
		case GH_SCHEME_FKS:
			slots = fks->slots;
			break;
		case GH_SCHEME_GPH:
			slots = gph->slots;
			break;
		default:
			slots = lin->slots;
	}

	gh_range   *rg = (gh_range *) malloc((t->n_distinct + 1) * sizeof(gh_range));
	uint64_t	used = 0;

	if (!rg)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory validating");

	for (uint64_t i = 0; i < n_slots; i++)
	{
		const gh_slot *s = &slots[i];
		gh_hit		h;
		bool		placed;

		if (s->cnt == 0)
			continue;
		switch (t->scheme)
		{
			case GH_SCHEME_FKS:
				placed = gh_fks_slot(*fks, s->key) == i;
				h = gh_fks_lookup(*fks, s->key);
				break;
			case GH_SCHEME_GPH:
				placed = gh_gph_locate(*gph, s->key) == i / GH_GPH_M;
				h = gh_gph_lookup(*gph, s->key);
				break;
			default:
				placed = true;	/* checked through the lookup below */
				h = gh_lin_lookup(*lin, s->key);
		}
		if (!placed || h.off != s->off || h.cnt != s->cnt)
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
