/* SUPPLIER (clause 4.2.3). */
#include "dists.h"
#include "fields.h"
#include "tables.h"

/*
 * About SF * 5 suppliers get "Customer ... Complaints" and as many
 * "Customer ... Recommends" written over part of their comment (Q16).
 */
static void out_supplier_comment(rng_t *r)
{
	char buf[128];
	int len;
	const char *t = text_pick(r, 25, 100, &len);
	int64_t pick = rng_range(r, 0, 9999);

	memcpy(buf, t, (size_t)len);
	if (pick < 10) {
		const char *what = pick < 5 ? "Complaints" : "Recommends";
		int gap = (int)rng_range(r, 0, 7);	/* len >= 25 leaves room */
		int pos = (int)rng_range(r, 0, len - (18 + gap));

		memcpy(buf + pos, "Customer", 8);
		memcpy(buf + pos + 8 + gap, what, 10);
	}
	out_mem(buf, len);
}

int64_t gen_supplier(const scale_t *s, int64_t first, int64_t last)
{
	rng_t r;

	for (int64_t i = first; i < last; i++) {
		int64_t key = i + 1;

		rng_row(&r, s->seed, T_SUPPLIER, (uint64_t)key);
		out_party(&r, "Supplier#", key);
		out_supplier_comment(&r);
		out_row_end();
		if ((i & (PROGRESS_EVERY - 1)) == 0)
			progress(i - first);
	}
	return last - first;
}
