/*
 * scheme_choice.cpp
 *		gpuhash.scheme = auto: the scheme with the least estimated build +
 *		probe time, from the measured costs of scheme_costs.h.  The GPH
 *		paper's point: a cheaper build wins when few probes follow it, a
 *		faster lookup when many do.
 *
 *		The same figures serve the host twin, which stands in for the GPU:
 *		a plan then chooses as it would on the GPU, and EXPLAIN reads the
 *		same on both.
 */
#include "scheme_costs.h"
#include "scheme_ops.h"

#include <algorithm>
#include <math.h>

namespace
{

/*
 * Log-log interpolation between the measured points; below the first, its
 * figures (a build's fixed launches dominate there); beyond the last, the
 * build grows with the keys and a lookup costs what it did.
 */
void
interpolate(const gh_scheme_costs &c, double d, double *build_ms, double *probe_ns)
{
	const gh_cost_point *p = c.p;
	const int	last = c.n - 1;

	if (d <= p[0].distinct)
	{
		*build_ms = p[0].build_ms;
		*probe_ns = p[0].probe_ns;
		return;
	}
	if (d >= p[last].distinct)
	{
		*build_ms = p[last].build_ms * d / p[last].distinct;
		*probe_ns = p[last].probe_ns;
		return;
	}
	int			i = 0;

	while (d > p[i + 1].distinct)
		i++;
	double		f = log(d / p[i].distinct) / log(p[i + 1].distinct / p[i].distinct);

	*build_ms = exp(log(p[i].build_ms) + f * log(p[i + 1].build_ms / p[i].build_ms));
	*probe_ns = exp(log(p[i].probe_ns) + f * log(p[i + 1].probe_ns / p[i].probe_ns));
}

}								/* namespace */

int
gh_scheme_estimates_from(const gh_scheme_costs *costs, int n_costs, double rows,
						 double distinct, double probes, gh_scheme_estimate est[GH_N_SCHEMES])
{
	int			n = 0;

	distinct = std::max(distinct, 1.0);
	rows = std::max(rows, distinct);
	probes = std::max(probes, 0.0);
	for (int k = 0; k < n_costs; k++)
	{
		const gh_scheme_costs &c = costs[k];
		double		build_ms,
					probe_ns;

		if (gh_scheme_ops_of(c.scheme) == NULL || c.n < 1 || n == GH_N_SCHEMES)
			continue;			/* not in this build, or not measured */
		interpolate(c, distinct, &build_ms, &probe_ns);
		est[n].scheme = c.scheme;
		est[n].build_ms = build_ms + (rows - distinct) * GH_COST_SORT_NS_PER_ROW * 1e-6;
		est[n].probe_ms = probes * probe_ns * 1e-6;
		n++;
	}
	std::stable_sort(est, est + n, [](const gh_scheme_estimate &a, const gh_scheme_estimate &b) {
		return a.build_ms + a.probe_ms < b.build_ms + b.probe_ms;
	});
	return n;
}

int
gh_scheme_estimates(double rows, double distinct, double probes,
					gh_scheme_estimate est[GH_N_SCHEMES])
{
	return gh_scheme_estimates_from(gh_measured_costs,
									sizeof(gh_measured_costs) / sizeof(gh_measured_costs[0]),
									rows, distinct, probes, est);
}

gh_scheme
gh_scheme_auto(double rows, double distinct, double probes)
{
	gh_scheme_estimate est[GH_N_SCHEMES];

	return gh_scheme_estimates(rows, distinct, probes, est) > 0 ? est[0].scheme : GH_SCHEME_GPH;
}
