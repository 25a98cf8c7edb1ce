/* CUSTOMER (clause 4.2.3). */
#include "dists.h"
#include "fields.h"
#include "tables.h"

int64_t gen_customer(const scale_t *s, int64_t first, int64_t last)
{
	rng_t r;

	for (int64_t i = first; i < last; i++) {
		int64_t key = i + 1;

		rng_row(&r, s->seed, T_CUSTOMER, (uint64_t)key);
		out_party(&r, "Customer#", key);
		out_str(segments[rng_range(&r, 0, 4)]);
		out_text(&r, 29, 116);
		out_row_end();
		if ((i & (PROGRESS_EVERY - 1)) == 0)
			progress(i - first);
	}
	return last - first;
}
