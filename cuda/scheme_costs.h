/*
 * scheme_costs.h
 *		Measured GPU costs of each scheme, for gpuhash.scheme = auto
 *		(scheme_choice.cpp): at each measured number of distinct keys, the
 *		build of a table over that many distinct keys (sort, dedup and the
 *		scheme's own part) and the time per lookup (50% hits, uniform).
 *
 *		bench/bench_core prints them after its grid (median of 5, ILP 2, L2
 *		persisting window off); they are pasted here.  The figures below:
 *		an H100 run of 2026-11-23 at commit 5e0f47a (its grid is in
 *		bench/history/journal-2026.md), at the default load factor 0.5 (which cuckoo
 *		reads as its fill 0.85; FKS and HashGraph take none).
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

/* sort + dedup per row beyond the distinct keys: the same for every scheme
 * (bench_core on the H100: 9.6 to 13.0 ms for 10^8 rows) */
#define GH_COST_SORT_NS_PER_ROW 0.13

static const gh_scheme_costs gh_measured_costs[] = {
	{GH_SCHEME_GPH, 6, {{16384, 0.3356, 0.2559}, {131072, 0.3591, 0.0564}, {1048576, 0.5154, 0.02824}, {10000000, 2.421, 0.03633}, {16777216, 4.072, 0.03755}, {100000000, 23.82, 0.04466}}},
	{GH_SCHEME_FKS, 6, {{16384, 0.31, 0.2275}, {131072, 0.3754, 0.04541}, {1048576, 0.5905, 0.02565}, {10000000, 5.396, 0.05248}, {16777216, 9.417, 0.06074}, {100000000, 59.63, 0.07308}}},
	{GH_SCHEME_LINEAR, 6, {{16384, 0.2105, 0.2793}, {131072, 0.264, 0.04492}, {1048576, 0.4169, 0.02866}, {10000000, 2.704, 0.03967}, {16777216, 5.131, 0.04212}, {100000000, 25.55, 0.04863}}},
	{GH_SCHEME_CUCKOO, 6, {{16384, 0.2568, 0.2539}, {131072, 0.3135, 0.05603}, {1048576, 0.4825, 0.03448}, {10000000, 3.163, 0.04647}, {16777216, 5.537, 0.04949}, {100000000, 35.39, 0.06517}}},
	{GH_SCHEME_HASHGRAPH, 6, {{16384, 0.2162, 0.2715}, {131072, 0.2645, 0.05212}, {1048576, 0.342, 0.02534}, {10000000, 1.533, 0.05791}, {16777216, 2.405, 0.06726}, {100000000, 13.25, 0.07825}}},
	{GH_SCHEME_DYCUCKOO, 6, {{16384, 0.2911, 0.3418}, {131072, 0.3437, 0.1121}, {1048576, 0.6845, 0.07161}, {10000000, 4.838, 0.07829}, {16777216, 8.173, 0.07937}, {100000000, 49.18, 0.08071}}},
};

/*
 * gh_scheme_estimates over another table of costs (bench_core checks the
 * choice with the costs it has just measured).
 */
int			gh_scheme_estimates_from(const gh_scheme_costs *costs, int n_costs, double rows,
									 double distinct, double probes,
									 gh_scheme_estimate est[GH_N_SCHEMES]);

#endif							/* GPUHASH_SCHEME_COSTS_H */
