/*-------------------------------------------------------------------------
 *
 * device_choice.c
 *	  The one place that decides where GPU joins run: the GPU or the host
 *	  twin, or not at all (auto mode without a usable GPU leaves joins to
 *	  PostgreSQL), and why no GPU is usable.
 *
 * With the GPU service running (gpuhash in shared_preload_libraries), join
 * tables live in the service and a backend never touches CUDA: it learns
 * about GPUs from the service.  Without it (LOAD 'gpuhash'), tables live in
 * the backend, and the first question about the GPU initializes the CUDA
 * runtime there, cached for the life of the backend.  Neither is ever
 * reached in the postmaster, which plans and executes nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"

#include "miscadmin.h"
#include "service.h"
#include "utils/memutils.h"

static int	gpu_state = -1;		/* -1 unknown, 0 unusable, 1 usable */
static char gpu_reason[512];
static char svc_reason[512];	/* apart: the service may come and go */

/*
 * Without the service: the first GPU of gpuhash.gpus that this machine has
 * (-1: none).  A backend's own tables use that one GPU; spreading tables
 * over several GPUs is the service's work.
 */
int
gpuhash_local_gpu(int present)
{
	if (gpuhash_gpu_list_n < 0)
		return present > 0 ? 0 : -1;
	for (int i = 0; i < gpuhash_gpu_list_n; i++)
		if (gpuhash_gpu_list[i] < present)
			return gpuhash_gpu_list[i];
	return -1;
}

bool
gpuhash_gpu_usable(const char **reason)
{
	if (gpuhash_service_ready())
	{
		int			n = gpuhash_service_gpu_count();

		if (reason && n > 0)
			*reason = NULL;
		else if (reason)
		{
			snprintf(svc_reason, sizeof(svc_reason), "the GPU service found no usable GPU: %s",
					 gpuhash_service_no_gpu_reason());
			*reason = svc_reason;
		}
		return n > 0;
	}
	if (gpu_state < 0)
	{
		int			n;

		Assert(IsUnderPostmaster || !IsPostmasterEnvironment);
		n = gh_gpu_count();
		if (gpuhash_local_gpu(n) >= 0)
			gpu_state = 1;
		else
		{
			gpu_state = 0;
			if (n == 0)		/* the core says why: no device, no driver, or no CUDA in this build */
				snprintf(gpu_reason, sizeof(gpu_reason), "%s", gh_last_error());
			else
				snprintf(gpu_reason, sizeof(gpu_reason),
						 "gpuhash.gpus is \"%s\" but only %d GPU(s) present",
						 gpuhash_gpus, n);
		}
	}
	if (reason)
		*reason = gpu_state == 1 ? NULL : gpu_reason;
	return gpu_state == 1;
}

/*
 * Where a GPU join runs now, and why not on the GPU (*reason, when asked):
 * the one answer the planner, the executor, EXPLAIN and gpuhash_info()
 * share.  Never raises an error.
 */
GpuhashWhere
gpuhash_effective_device(const char **reason)
{
	const char *why = NULL;
	GpuhashWhere w;

	if (gpuhash_device_mode == GPUHASH_DEVICE_HOST)
		w = GPUHASH_RUN_HOST;
	else if (gpuhash_gpu_usable(&why))
		w = GPUHASH_RUN_GPU;
	else
		w = gpuhash_device_mode == GPUHASH_DEVICE_GPU ? GPUHASH_RUN_ERROR : GPUHASH_RUN_NATIVE;
	if (reason)
		*reason = why;
	return w;
}

static void
no_gpu_error(const char *reason)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("gpuhash.device is \"gpu\" but no GPU is usable: %s", reason),
			 errhint("Set gpuhash.device to \"auto\" or \"host\".")));
}

/*
 * The device a new GPU join plan would use, or -1 when gpuhash should
 * leave the join to PostgreSQL (auto mode without a usable GPU).
 */
int
gpuhash_plan_device(void)
{
	const char *reason;

	switch (gpuhash_effective_device(&reason))
	{
		case GPUHASH_RUN_GPU:
			return GH_DEVICE_GPU;
		case GPUHASH_RUN_HOST:
			return GH_DEVICE_HOST;
		case GPUHASH_RUN_ERROR:
			no_gpu_error(reason);
			break;
		case GPUHASH_RUN_NATIVE:
			break;
	}
	return -1;
}

/*
 * The device an executing join uses.  A plan made earlier may outlive the
 * GPU's availability; in auto mode it then runs on the host twin.
 */
gh_device
gpuhash_exec_device(void)
{
	const char *reason;

	switch (gpuhash_effective_device(&reason))
	{
		case GPUHASH_RUN_GPU:
			return GH_DEVICE_GPU;
		case GPUHASH_RUN_ERROR:
			no_gpu_error(reason);
			break;
		case GPUHASH_RUN_HOST:
		case GPUHASH_RUN_NATIVE:
			break;
	}
	return GH_DEVICE_HOST;
}

/* GPU memory one join table may use (gpuhash.max_gpu_memory); 0: no limit. */
size_t
gpuhash_gpu_budget(void)
{
	return (size_t) gpuhash_max_gpu_memory_mb * 1024 * 1024;
}

void
gpuhash_build_options(gh_build_options *opt, gh_device device, int scheme)
{
	gh_default_options(opt);
	opt->device = device;
	opt->scheme = (gh_scheme) scheme;
	opt->load_factor = gpuhash_load_factor;
	opt->max_device_bytes = gpuhash_gpu_budget();
	/* the service places tables itself; a backend's own go to its GPU */
	opt->gpu_ordinal = device != GH_DEVICE_GPU || gpuhash_service_ready() ? -1 :
		gpuhash_local_gpu(gh_gpu_count());
}

