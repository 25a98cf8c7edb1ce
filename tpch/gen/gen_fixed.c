/* REGION and NATION: fixed rows with generated comments. */
#include "dists.h"
#include "fields.h"
#include "tables.h"

int64_t gen_region(const scale_t *s, int64_t first, int64_t last)
{
	rng_t r;

	for (int64_t k = first; k < last; k++) {
		rng_row(&r, s->seed, T_REGION, (uint64_t)k);
		out_int(k);
		out_str(region_names[k]);
		out_text(&r, 31, 115);
		out_row_end();
	}
	return last - first;
}

int64_t gen_nation(const scale_t *s, int64_t first, int64_t last)
{
	rng_t r;

	for (int64_t k = first; k < last; k++) {
		rng_row(&r, s->seed, T_NATION, (uint64_t)k);
		out_int(k);
		out_str(nations[k].name);
		out_int(nations[k].region);
		out_text(&r, 31, 114);
		out_row_end();
	}
	return last - first;
}
