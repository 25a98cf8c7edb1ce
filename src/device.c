/*-------------------------------------------------------------------------
 *
 * device.c
 *	  The one place that knows where a join's table lives: the GPU (through
 *	  the CUDA runtime inside this backend) or the host twin.
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

bool
gpuhash_gpu_usable(const char **reason)
{
	if (gpuhash_service_ready())
	{
		int			n = gpuhash_service_gpu_count();

		if (reason && n > gpuhash_gpu_ordinal)
			*reason = NULL;
		else if (reason)
		{
			if (n == 0)
				snprintf(svc_reason, sizeof(svc_reason), "the GPU service found no usable GPU: %s",
						 gpuhash_service_no_gpu_reason());
			else
				snprintf(svc_reason, sizeof(svc_reason),
						 "gpuhash.gpu_ordinal is %d but the GPU service has only %d GPU(s)",
						 gpuhash_gpu_ordinal, n);
			*reason = svc_reason;
		}
		return n > gpuhash_gpu_ordinal;
	}
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
			if (n == 0)		/* the core says why: no device, no driver, or no CUDA in this build */
				snprintf(gpu_reason, sizeof(gpu_reason), "%s", gh_last_error());
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

/* ---------------------------------------------------------------------
 * Join tables: in the GPU service when it runs, else in this process
 * --------------------------------------------------------------------- */

/* owner_pid: the backend whose exit frees a service table (0: this one) */
gh_status
gpuhash_table_build(GpuTable *t, const gh_build_options *opt, const uint64 *keys, uint64 n,
					int owner_pid)
{
	memset(t, 0, sizeof(*t));
	if (gpuhash_service_ready())
	{
		t->remote = true;
		return gpuhash_svc_build(opt, keys, n, owner_pid, &t->svc);
	}
	return gh_build(opt, keys, NULL, 4, n, &t->local);
}

/* The table's key-grouped row order; remote tables' order lands in cxt. */
const uint32 *
gpuhash_table_rowids(GpuTable *t, MemoryContext cxt)
{
	uint32	   *rows;

	if (!t->remote)
		return gh_sorted_rowids(t->local);
	rows = MemoryContextAllocHuge(cxt, sizeof(uint32) * Max(t->svc.n_rows, 1));
	if (gpuhash_svc_rowids(&t->svc, rows) != GH_OK)
	{
		pfree(rows);
		return NULL;
	}
	return rows;
}

gh_status
gpuhash_table_probe(GpuTable *t, const uint64 *keys, uint64 n, gh_range *ranges)
{
	uint64		total;

	if (t->remote)
		return gpuhash_svc_probe(&t->svc, keys, n, ranges);
	return gh_probe_ranges(t->local, keys, n, ranges, &total);
}

void
gpuhash_table_info(const GpuTable *t, gh_table_info *info)
{
	if (t->remote)
		*info = t->svc.info;
	else if (t->local)
		gh_table_get_info(t->local, info);
	else
		memset(info, 0, sizeof(*info));
}

bool
gpuhash_table_exists(const GpuTable *t)
{
	return t->remote ? t->svc.id != 0 : t->local != NULL;
}

/*
 * Frees the table; never waits and never fails, so error cleanup can call
 * it.  A local GPU table's memory goes back to the device, not just to
 * this backend's allocation pool, so others can use it.
 */
void
gpuhash_table_free(GpuTable *t)
{
	if (t->remote)
		gpuhash_svc_free(&t->svc);
	else if (t->local)
	{
		gh_table_info info;

		gh_table_get_info(t->local, &info);
		gh_free(t->local);
		if (info.device == GH_DEVICE_GPU)
			gh_gpu_trim(gpuhash_gpu_ordinal);
	}
	memset(t, 0, sizeof(*t));
}
