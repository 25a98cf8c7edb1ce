/*
 * build_driver.h
 *		The attempt loop of every scheme, written once for the host twin and
 *		the GPU: the scheme's policy (schemes/) fixes the geometry and
 *		draws each attempt's seeds, a "step" of the device does the work.
 *		Both devices thus draw the same seeds in the same order, stop at the
 *		same caps and fail with the same GH_ERR_BUILD_FAILED.
 *
 *		Scheme: view; label; max_attempts; init(&v, seed, u, lf): attempt-
 *		independent geometry and seeds (false: too large); draw(&v, seed, a,
 *		u, lf): attempt a's geometry and seeds (false: no further attempt);
 *		cells(v): what gh_table_info reports as cells.
 *
 *		Step: prepare(v): once, after init (scratch, attempt-independent
 *		work); cancelled(): asked before each attempt; attempt(v, &r): one
 *		try: r.placed, with the view pointing at the filled arrays, r.rounds
 *		and r.n_slots; or r.placed false to draw again.  Errors end the build.
 */
#ifndef GPUHASH_BUILD_DRIVER_H
#define GPUHASH_BUILD_DRIVER_H

#include "table_internal.h"

struct gh_attempt_result
{
	bool		placed;
	int			rounds;
	uint64_t	n_slots;
};

template <typename Scheme, typename Step>
gh_status
gh_build_attempts(gh_table *t, typename Scheme::view *out, Step &step, uint32_t u,
				  uint64_t seed, double lf)
{
	typename Scheme::view v;

	if (!Scheme::init(&v, seed, u, lf))
		return gh_error(GH_ERR_TOO_LARGE, "%s over %u keys at load %g needs too many buckets",
						Scheme::label, u, lf);

	gh_status	s = step.prepare(v);

	if (s != GH_OK)
		return s;
	for (int attempt = 0; attempt < Scheme::max_attempts; attempt++)
	{
		gh_attempt_result r = {false, 0, 0};

		if (!Scheme::draw(&v, seed, attempt, u, lf))
			break;
		if (step.cancelled())
			return gh_error(GH_ERR_CANCELLED, "build cancelled");
		s = step.attempt(v, &r);
		if (s != GH_OK)
			return s;
		if (!r.placed)
			continue;
		*out = v;
		t->seed = seed;
		t->attempts = attempt + 1;
		t->rounds = r.rounds;
		t->n_slots = r.n_slots;
		t->n_cells = Scheme::cells(v);
		return GH_OK;
	}
	return gh_error(GH_ERR_BUILD_FAILED, "%s placed no table for %u distinct keys in %d attempt%s",
					Scheme::label, u, Scheme::max_attempts, Scheme::max_attempts == 1 ? "" : "s");
}

#endif							/* GPUHASH_BUILD_DRIVER_H */
