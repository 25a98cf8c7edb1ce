/*-------------------------------------------------------------------------
 *
 * service_gpus.c
 *	  The GPU service's GPUs: those of gpuhash.gpus that the machine has,
 *	  how busy each is, which failed; where a table is built and where a
 *	  probe runs.
 *
 * A new table goes to the least busy GPU (requests running on it now, then
 * memory held), so concurrent queries spread over the GPUs.  A probe goes
 * to the least busy GPU that holds the table or may take a copy of it: a
 * table small beside a GPU's free memory is copied there the first time a
 * probe finds its own GPU busier, so the participants of a parallel query
 * (and a query's pipelined batches) probe on every GPU.  A GPU whose CUDA
 * call fails is left out for SVC_GPU_RETRY_SECS, and its work moves to the
 * others.  The "(registry lock)" functions are called with
 * service_worker.c's registry lock held; none calls PostgreSQL, since they
 * run in the service's threads.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "service_gpus.h"

#include <time.h>

/* A failed GPU is tried again after this long: most failures pass (an Xid) */
#define SVC_GPU_RETRY_SECS 60

static int	n_gpus = 0;
static time_t failed_at[SVC_MAX_GPUS];
static bool failure_logged[SVC_MAX_GPUS];

/*
 * At service start: the GPUs of gpuhash.gpus that exist, into
 * gpuhash_svc->gpu[] (gpu[g].ordinal is the CUDA device number).  Returns
 * their number; when 0, *why says why.
 */
int
svc_gpus_start(const char **why)
{
	int			present = gh_gpu_count();

	*why = present > 0 ? "" : gh_last_error();
	n_gpus = 0;
	memset(gpuhash_svc->gpu_use, 0, sizeof(gpuhash_svc->gpu_use));
	for (int i = 0; i < (gpuhash_gpu_list_n < 0 ? present : gpuhash_gpu_list_n) &&
		 n_gpus < SVC_MAX_GPUS; i++)
	{
		int			ordinal = gpuhash_gpu_list_n < 0 ? i : gpuhash_gpu_list[i];

		if (ordinal >= present)
		{
			ereport(LOG, (errmsg("gpuhash GPU service: gpuhash.gpus names GPU %d, but only %d present",
								 ordinal, present)));
			continue;
		}
		if (gh_gpu_get_info(ordinal, &gpuhash_svc->gpu[n_gpus]) != GH_OK)
		{
			ereport(LOG, (errmsg("gpuhash GPU service: GPU %d left out: %s", ordinal,
								 gh_last_error())));
			continue;
		}
		failed_at[n_gpus] = 0;
		failure_logged[n_gpus] = false;
		n_gpus++;
	}
	if (present > 0 && n_gpus == 0)
		*why = "none of the GPUs gpuhash.gpus names is present";
	return n_gpus;
}

int
svc_gpu_count(void)
{
	return n_gpus;
}

int
svc_gpu_ordinal(int g)
{
	return gpuhash_svc->gpu[g].ordinal;
}

/* (main thread) Free memory figures, and a LOG line for each new failure. */
void
svc_gpus_refresh(void)
{
	for (int g = 0; g < n_gpus; g++)
	{
		SvcGpuUse  *u = &gpuhash_svc->gpu_use[g];
		gh_gpu_info gi;

		if (gh_gpu_get_info(svc_gpu_ordinal(g), &gi) == GH_OK)
			gpuhash_svc->gpu[g].free_memory = gi.free_memory;
		if (u->failed && !failure_logged[g])
		{
			failure_logged[g] = true;
			ereport(LOG, (errmsg("gpuhash GPU service: GPU %d failed; its work moves to the other GPUs for %d s: %s",
								 svc_gpu_ordinal(g), SVC_GPU_RETRY_SECS, u->failure)));
		}
	}
}

/* (registry lock) May work go to GPU g?  A failure long past is forgiven. */
bool
svc_gpu_ok(int g)
{
	SvcGpuUse  *u = &gpuhash_svc->gpu_use[g];

	if (u->failed && time(NULL) - failed_at[g] >= SVC_GPU_RETRY_SECS)
	{
		u->failed = false;
		failure_logged[g] = false;
	}
	return !u->failed;
}

/* (registry lock) */
void
svc_gpu_failed(int g, const char *why)
{
	SvcGpuUse  *u = &gpuhash_svc->gpu_use[g];

	u->failed = true;
	failed_at[g] = time(NULL);
	strlcpy(u->failure, why, sizeof(u->failure));
}

/* (registry lock) A request starts (+1) or ends (-1) on GPU g. */
void
svc_gpu_busy(int g, int delta)
{
	gpuhash_svc->gpu_use[g].busy += delta;
	if (delta > 0)
		gpuhash_svc->gpu_use[g].requests++;
}

/* (registry lock) A table or copy of `bytes` comes (+1) to or goes (-1) from GPU g. */
void
svc_gpu_holds(int g, int delta, uint64 bytes)
{
	SvcGpuUse  *u = &gpuhash_svc->gpu_use[g];

	u->tables += delta;
	u->bytes = delta > 0 ? u->bytes + bytes : u->bytes - Min(bytes, u->bytes);
}

/* (registry lock) Is GPU a less busy than b (then holding less)? */
static bool
less_busy(int a, int b)
{
	SvcGpuUse  *ua = &gpuhash_svc->gpu_use[a],
			   *ub = &gpuhash_svc->gpu_use[b];

	return ua->busy != ub->busy ? ua->busy < ub->busy : ua->bytes < ub->bytes;
}

/*
 * (registry lock) The GPUs that may take a new table, least busy first:
 * a build tries them in turn.  Returns how many.
 */
int
svc_gpus_by_load(int order[SVC_MAX_GPUS])
{
	int			n = 0;

	for (int g = 0; g < n_gpus; g++)
	{
		int			i = n;

		if (!svc_gpu_ok(g))
			continue;
		while (i > 0 && less_busy(g, order[i - 1]))
		{
			order[i] = order[i - 1];
			i--;
		}
		order[i] = g;
		n++;
	}
	return n;
}

/*
 * (registry lock) Where a probe of a table built on GPU home runs: the
 * least busy GPU that holds it (has[g]) or may take a copy of `bytes`
 * (small beside its free memory, and within the table's budget); on a tie,
 * one that holds it, the home GPU first.  The home GPU even when it failed
 * and no other may take the work: the probe then fails there, and the
 * backend moves the join to the host twin.
 */
int
svc_gpu_for_probe(int home, const bool *has, uint64 bytes, uint64 budget)
{
	int			best = home;
	bool		best_ok = svc_gpu_ok(home);

	for (int g = 0; g < n_gpus; g++)
	{
		bool		may = has[g] ||
			((budget == 0 || bytes <= budget) &&
			 bytes <= gpuhash_svc->gpu[g].free_memory / 4);

		if (g == home || !may || !svc_gpu_ok(g))
			continue;
		if (!best_ok || less_busy(g, best) ||
			(!less_busy(best, g) && has[g] && !has[best]))
		{
			best = g;
			best_ok = true;
		}
	}
	return best;
}
