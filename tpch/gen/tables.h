/*
 * One generator per table. Each writes the rows of generation units
 * [first, last) (a unit is a row, except a part for PARTSUPP and an order
 * for LINEITEM) and returns the number of rows written.
 */
#ifndef TPCH_TABLES_H
#define TPCH_TABLES_H

#include <stdint.h>

#include "scale.h"

typedef int64_t (*gen_fn)(const scale_t *s, int64_t first, int64_t last);

int64_t gen_region(const scale_t *s, int64_t first, int64_t last);
int64_t gen_nation(const scale_t *s, int64_t first, int64_t last);
int64_t gen_supplier(const scale_t *s, int64_t first, int64_t last);
int64_t gen_customer(const scale_t *s, int64_t first, int64_t last);
int64_t gen_part(const scale_t *s, int64_t first, int64_t last);
int64_t gen_partsupp(const scale_t *s, int64_t first, int64_t last);
int64_t gen_orders(const scale_t *s, int64_t first, int64_t last);
int64_t gen_lineitem(const scale_t *s, int64_t first, int64_t last);

/* Progress callback, called now and then with the units done so far. */
void progress(int64_t units_done);

#define PROGRESS_EVERY 65536

#endif
