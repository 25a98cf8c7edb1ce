/* Cardinalities (clause 4.2.5) and the PARTSUPP supplier formula (4.2.3). */
#include <math.h>

#include "scale.h"

static int64_t scaled(double sf, double base)
{
	int64_t n = llround(sf * base);

	return n < 1 ? 1 : n;
}

int scale_init(scale_t *s, double sf, uint64_t seed)
{
	s->sf = sf;
	s->seed = seed;
	s->n_supplier = scaled(sf, 10000);
	s->n_part = scaled(sf, 200000);
	s->n_customer = scaled(sf, 150000);
	s->n_orders = scaled(sf, 1500000);
	s->n_clerks = scaled(sf, 1000);
	/* Four distinct suppliers per part and customers not divisible by 3. */
	return s->n_supplier < 4 || s->n_customer < 2 ? -1 : 0;
}

static int64_t ps_formula(int64_t S, int64_t partkey, int i)
{
	return (partkey + i * (S / 4 + (partkey - 1) / S)) % S + 1;
}

/*
 * The spec's formula gives four distinct suppliers at the usual scale
 * factors; at some tiny ones two can coincide, and then we step to the next
 * unused supplier so that (ps_partkey, ps_suppkey) stays a key.
 */
int64_t ps_suppkey(const scale_t *s, int64_t partkey, int i)
{
	int64_t S = s->n_supplier, prev[4];

	for (int j = 0; j <= i; j++) {
		int64_t v = ps_formula(S, partkey, j);

		for (int k = 0; k < j; k++) {
			if (prev[k] == v) {
				v = v % S + 1;
				k = -1;	/* recheck against all earlier ones */
			}
		}
		prev[j] = v;
	}
	return prev[i];
}
