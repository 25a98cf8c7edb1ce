/*-------------------------------------------------------------------------
 *
 * service_shmem.c
 *	  The GPU service's shared memory: the request slots and the staging
 *	  area, set up at server start; the worker's registration; and the
 *	  status that gpuhash_info() and the planner read.
 *
 * The settings these sizes come from are registered in gpuhash.c with the
 * others.  The protocol is described in service_internal.h.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"

#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"

SvcShared  *gpuhash_svc = NULL;
char	   *gpuhash_staging = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static Size
staging_size(void)
{
	return (Size) gpuhash_staging_memory_mb * 1024 * 1024;
}

static void
svc_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(SvcShared)));
	/* staging, plus a page to align it for page-locking */
	RequestAddinShmemSpace(staging_size() + 4096);
}

static void
svc_shmem_startup(void)
{
	bool		found;
	char	   *raw;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	gpuhash_svc = ShmemInitStruct("gpuhash service", sizeof(SvcShared), &found);
	if (!found)
	{
		memset(gpuhash_svc, 0, sizeof(SvcShared));
		pg_atomic_init_u32(&gpuhash_svc->ready, 0);
		pg_atomic_init_u32(&gpuhash_svc->generation, 0);
		pg_atomic_init_u64(&gpuhash_svc->requests, 0);
		pg_atomic_init_u32(&gpuhash_svc->async_held, 0);
		for (int i = 0; i < SVC_FREE_QUEUE; i++)
			pg_atomic_init_u64(&gpuhash_svc->free_queue[i], 0);
		for (int i = 0; i < SVC_SLOTS; i++)
		{
			pg_atomic_init_u32(&gpuhash_svc->slots[i].state, SLOT_FREE);
			pg_atomic_init_u32(&gpuhash_svc->slots[i].pins_going, 0);
		}
		gpuhash_svc->staging_bytes = staging_size();
		/* whole cache lines per slot */
		gpuhash_svc->chunk_bytes = (staging_size() / SVC_SLOTS) & ~(uint64) 127;
	}
	raw = ShmemInitStruct("gpuhash staging", staging_size() + 4096, &found);
	gpuhash_staging = (char *) TYPEALIGN(4096, raw);
	LWLockRelease(AddinShmemInitLock);
}

void
gpuhash_service_register(void)
{
	BackgroundWorker worker;

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = svc_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = svc_shmem_startup;

	memset(&worker, 0, sizeof(worker));
	snprintf(worker.bgw_name, BGW_MAXLEN, "gpuhash GPU service");
	snprintf(worker.bgw_type, BGW_MAXLEN, "gpuhash GPU service");
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = 1;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpuhash");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "gpuhash_service_main");
	RegisterBackgroundWorker(&worker);
}

bool
gpuhash_service_ready(void)
{
	return gpuhash_svc != NULL && gpuhash_use_service &&
		pg_atomic_read_u32(&gpuhash_svc->ready) != 0;
}

int
gpuhash_service_gpu_count(void)
{
	return gpuhash_svc ? gpuhash_svc->gpus : 0;
}

/* Why the service found no GPU (the hash core's words); "" when it found some. */
const char *
gpuhash_service_no_gpu_reason(void)
{
	return gpuhash_svc ? gpuhash_svc->no_gpu_reason : "";
}

void
gpuhash_service_status(GhServiceStatus *st)
{
	memset(st, 0, sizeof(*st));
	if (gpuhash_svc == NULL)
		return;
	st->running = pg_atomic_read_u32(&gpuhash_svc->ready) != 0;
	st->pid = gpuhash_svc->pid;
	st->gpus = gpuhash_svc->gpus;
	st->pinned = gpuhash_svc->pinned;
	st->pool_in_place = gpuhash_svc->pool_in_place;
	st->staging_bytes = gpuhash_svc->staging_bytes;
	for (int i = 0; i < SVC_SLOTS; i++)
		if (pg_atomic_read_u32(&gpuhash_svc->slots[i].state) != SLOT_FREE)
			st->staging_in_use += gpuhash_svc->chunk_bytes;
	st->tables_alive = gpuhash_svc->tables_alive;
	st->dims_alive = gpuhash_svc->dims_alive;
	st->device_bytes = gpuhash_svc->device_bytes;
	st->requests_served = pg_atomic_read_u64(&gpuhash_svc->requests);
}

/* GPU facts as the service saw them; false when not running. */
bool
gpuhash_service_gpu_info(int i, gh_gpu_info *info, int *driver, int *runtime)
{
	if (gpuhash_svc == NULL || pg_atomic_read_u32(&gpuhash_svc->ready) == 0 ||
		i >= gpuhash_svc->gpus)
		return false;
	*info = gpuhash_svc->gpu[i];
	*driver = gpuhash_svc->driver_version;
	*runtime = gpuhash_svc->runtime_version;
	return true;
}

/* What the service does on its GPU i (gpuhash_info()); false when not running. */
bool
gpuhash_service_gpu_use(int i, GhGpuUse *use)
{
	SvcGpuUse  *u;

	if (gpuhash_svc == NULL || pg_atomic_read_u32(&gpuhash_svc->ready) == 0 ||
		i >= gpuhash_svc->gpus)
		return false;
	u = &gpuhash_svc->gpu_use[i];
	use->tables = u->tables;
	use->bytes = u->bytes;
	use->requests = u->requests;
	use->failed = u->failed;
	strlcpy(use->failure, u->failure, sizeof(use->failure));
	return true;
}
