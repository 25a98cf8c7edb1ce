/*-------------------------------------------------------------------------
 *
 * device.c
 *	  The one place that knows where a join's table lives: the GPU (through
 *	  the CUDA runtime inside this backend) or the host twin.
 *
 * The first question about the GPU in a backend initializes the CUDA
 * runtime there; the answer is cached for the life of the backend.  This
 * is never reached in the postmaster, which plans and executes nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"

#include "miscadmin.h"

static int	gpu_state = -1;		/* -1 unknown, 0 unusable, 1 usable */
static char gpu_reason[512];

bool
gpuhash_gpu_usable(const char **reason)
{
	if (gpu_state < 0)
	{
		int			n;

		Assert(IsUnderPostmaster || !IsPostmasterEnvironment);
		n = gh_gpu_count();
		if (n > gpuhash_gpu_ordinal)
			gpu_state = 1;
		else
		{
			gpu_state = 0;
			if (n == 0)
				snprintf(gpu_reason, sizeof(gpu_reason), "no CUDA device or driver found");
			else
				snprintf(gpu_reason, sizeof(gpu_reason),
						 "gpuhash.gpu_ordinal is %d but only %d GPU(s) present",
						 gpuhash_gpu_ordinal, n);
		}
	}
	if (reason)
		*reason = gpu_state == 1 ? NULL : gpu_reason;
	return gpu_state == 1;
}

/*
 * The device a new GPU join plan would use, or -1 when gpuhash should
 * leave the join to PostgreSQL (auto mode without a usable GPU).
 */
int
gpuhash_plan_device(void)
{
	const char *reason;

	switch (gpuhash_device_mode)
	{
		case GPUHASH_DEVICE_HOST:
			return GH_DEVICE_HOST;
		case GPUHASH_DEVICE_GPU:
			if (!gpuhash_gpu_usable(&reason))
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("gpuhash.device is \"gpu\" but no GPU is usable: %s", reason),
						 errhint("Set gpuhash.device to \"auto\" or \"host\".")));
			return GH_DEVICE_GPU;
		default:
			return gpuhash_gpu_usable(NULL) ? GH_DEVICE_GPU : -1;
	}
}

/*
 * The device an executing join uses.  A plan made earlier may outlive the
 * GPU's availability; in auto mode it then runs on the host twin.
 */
gh_device
gpuhash_exec_device(void)
{
	int			d = gpuhash_device_mode == GPUHASH_DEVICE_AUTO && !gpuhash_gpu_usable(NULL)
		? GH_DEVICE_HOST : gpuhash_plan_device();

	return d < 0 ? GH_DEVICE_HOST : (gh_device) d;
}

void
gpuhash_build_options(gh_build_options *opt, gh_device device, int scheme)
{
	gh_default_options(opt);
	opt->device = device;
	opt->scheme = (gh_scheme) scheme;
	opt->load_factor = gpuhash_load_factor;
	opt->max_device_bytes = (size_t) gpuhash_max_gpu_memory_mb * 1024 * 1024;
	opt->gpu_ordinal = gpuhash_gpu_ordinal;
}
