/*
 * scheme_costs.h
 *		Measured GPU costs of each scheme, for gpuhash.scheme = auto
 *		(scheme_choice.cpp): at each measured number of distinct keys, the
 *		build of a table over that many distinct keys (sort, dedup and the
 *		scheme's own part) and the time per lookup (50% hits, uniform).
 *
 *		Printed by `bench/bench_core --model` (median of 5, ILP 2, L2
 *		persisting window off) and pasted here; bench/RESULTS.md has the run.
 *		Source of the figures below: the H100 run of bench/RESULTS.md
 *		section 2 (commit 4f1b2e8).
 */
#ifndef GPUHASH_SCHEME_COSTS_H
#define GPUHASH_SCHEME_COSTS_H

#include "gpuhash_table.h"

struct gh_cost_point
{
	double		distinct;
	double		build_ms;
	double		probe_ns;		/* per lookup */
};

#define GH_MAX_COST_POINTS 8

struct gh_scheme_costs
{
	gh_scheme	scheme;
	int			n;
	gh_cost_point p[GH_MAX_COST_POINTS];	/* ascending distinct */
};

/* sort + dedup per row beyond the distinct keys: the same for every scheme */
#define GH_COST_SORT_NS_PER_ROW 0.13

static const gh_scheme_costs gh_measured_costs[] = {
	{GH_SCHEME_GPH, 4, {{1048576, 0.51, 0.0286}, {1e7, 2.33, 0.0366}, {16777216, 4.09, 0.0375}, {1e8, 22.83, 0.0444}}},
	{GH_SCHEME_FKS, 4, {{1048576, 0.62, 0.0262}, {1e7, 5.45, 0.0526}, {16777216, 9.50, 0.0608}, {1e8, 59.73, 0.0731}}},
	{GH_SCHEME_LINEAR, 4, {{1048576, 0.43, 0.0291}, {1e7, 2.73, 0.0403}, {16777216, 5.20, 0.0421}, {1e8, 25.48, 0.0484}}},
};

/*
 * gh_scheme_estimates over another table of costs (bench_core checks the
 * choice with the costs it has just measured).
 */
int			gh_scheme_estimates_from(const gh_scheme_costs *costs, int n_costs, double rows,
									 double distinct, double probes,
									 gh_scheme_estimate est[GH_N_SCHEMES]);

#endif							/* GPUHASH_SCHEME_COSTS_H */
