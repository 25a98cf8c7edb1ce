/* Table sizes for a scale factor and the spec's key formulas. */
#ifndef TPCH_SCALE_H
#define TPCH_SCALE_H

#include <stdint.h>

/* Per-table stream ids for rng_row(). */
enum {
	T_REGION = 1,
	T_NATION,
	T_SUPPLIER,
	T_CUSTOMER,
	T_PART,
	T_PARTSUPP,
	T_ORDERS,
};

typedef struct {
	double sf;
	uint64_t seed;
	int64_t n_supplier;
	int64_t n_part;
	int64_t n_customer;
	int64_t n_orders;
	int64_t n_clerks;
} scale_t;

/* Returns 0, or -1 when the scale factor is too small for distinct keys. */
int scale_init(scale_t *s, double sf, uint64_t seed);

/* Orders use 8 of every 32 keys: index 0..7 -> 1..8, 8..15 -> 33..40, ... */
static inline int64_t order_key(int64_t idx)
{
	return (idx / 8) * 32 + idx % 8 + 1;
}

/* P_RETAILPRICE in hundredths: (90000 + (key/10) % 20001 + 100 * (key % 1000)) / 100. */
static inline int64_t retail_cents(int64_t partkey)
{
	return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

/* Supplier number i (0..3) of a part, used by both PARTSUPP and LINEITEM. */
int64_t ps_suppkey(const scale_t *s, int64_t partkey, int i);

#endif
