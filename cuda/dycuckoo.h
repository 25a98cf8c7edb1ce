/*
 * dycuckoo.h
 *		DyCuckoo's incremental path, internal to cuda/ (core_test and the
 *		benchmark use it; gpuhash_table.h does not offer it): a further chunk
 *		of distinct keys, with their rowid ranges, inserted into a built
 *		DyCuckoo table that grows one subtable at a time instead of being
 *		rebuilt: doubling a subtable moves only its own keys.
 *
 *		The grow loop is written once (gh_dyc_grow below) and driven with a
 *		host twin "step" (host_dycuckoo.cpp) or a GPU one (gpu_dycuckoo.cu),
 *		as build_driver.h does for the static build:
 *
 *		present(): how many chunk keys the table holds already; upsize():
 *		double the smallest subtable (split conflict-free, the others keep
 *		their slots); insert(&failed): the chunk, failed = the items in hand
 *		when an insert ran out of evictions (each a chunk key or one it
 *		evicted: nothing is lost, they are only not in the table yet);
 *		reinsert(&failed): those items again.
 */
#ifndef GPUHASH_DYCUCKOO_H
#define GPUHASH_DYCUCKOO_H

#include "table_internal.h"

/*
 * Inserts n distinct keys with their ranges (host arrays) into DyCuckoo
 * table t.  Before, the smallest subtable is doubled until n_distinct + n
 * keys fill at most max_fill of the slots (<= 0: GH_DYC_DEFAULT_FILL, the
 * paper's beta); an insert that runs out of evictions doubles one more.
 * The ranges are the caller's: they index whatever rowid array it keeps,
 * and t->n_rows is not changed (t->n_distinct is).  A key the table
 * already holds is refused with GH_ERR_INVALID, the table unchanged (the
 * paper's upsert would leave one key with two ranges); keys repeated
 * within the chunk are not detected.  On any other error the table must be
 * freed.
 */
gh_status	gh_dyc_insert(gh_table *t, const uint64_t *keys, const uint32_t *off,
						  const uint32_t *cnt, uint32_t n, double max_fill);

/* The same for a GPU table with the chunk in device memory (the benchmark;
 * gpu_dycuckoo.cu, so only in a build with CUDA). */
gh_status	gh_dyc_insert_device(gh_table *t, const uint64_t *d_keys, const uint32_t *d_off,
								 const uint32_t *d_cnt, uint32_t n, double max_fill);

/* Evictions an insert may make before it gives up; tests lower it to
 * force the failure paths (a failed attempt, an extra upsize). */
extern int	gh_dyc_max_evict;

/* Both entry points' argument checks; *max_fill <= 0 becomes the default. */
gh_status	gh_dyc_check(const gh_table *t, const void *keys, const void *off, const void *cnt,
						 uint32_t n, double *max_fill);

/* The devices' halves (host_dycuckoo.cpp, gpu_dycuckoo.cu): host arrays. */
gh_status	gh_host_dyc_insert(gh_table *t, const uint64_t *keys, const uint32_t *off,
							   const uint32_t *cnt, uint32_t n, double max_fill);
gh_status	gh_gpu_dyc_insert(gh_table *t, const uint64_t *keys, const uint32_t *off,
							  const uint32_t *cnt, uint32_t n, double max_fill);

#define GH_DYC_TRY(expr) \
	do { \
		gh_status s_ = (expr); \
		if (s_ != GH_OK) \
			return s_; \
	} while (0)

/* Upsizes (beyond the fill bound) an insert may add before giving up. */
#define GH_DYC_MAX_EXTRA_UPSIZES 16

template <typename Step>
gh_status
gh_dyc_grow(gh_table *t, Step &step, uint32_t n, double max_fill)
{
	uint64_t	present = 0;
	uint64_t	want = t->n_distinct + n;

	if (n == 0)
		return GH_OK;
	GH_DYC_TRY(step.present(&present));
	if (present)
		return gh_error(GH_ERR_INVALID, "DyCuckoo insert: %llu of %u keys are in the table already",
						(unsigned long long) present, n);
	while ((double) want > max_fill * (double) gh_dyc_slots(t->dyc))
		GH_DYC_TRY(step.upsize());

	uint64_t	failed = 0;

	GH_DYC_TRY(step.insert(&failed));
	for (int extra = 0; failed > 0; extra++)
	{
		if (extra == GH_DYC_MAX_EXTRA_UPSIZES)
			return gh_error(GH_ERR_BUILD_FAILED,
							"DyCuckoo insert: %llu keys still unplaced after %d extra upsizes",
							(unsigned long long) failed, extra);
		GH_DYC_TRY(step.upsize());
		GH_DYC_TRY(step.reinsert(&failed));
	}
	t->n_distinct = want;
	return GH_OK;
}

#endif							/* GPUHASH_DYCUCKOO_H */
