/*-------------------------------------------------------------------------
 *
 * service_worker.c
 *	  The GPU service process: the worker threads that serve requests
 *	  (builds in service_build.c, probes and chains in service_probe.c,
 *	  dimensions in service_dim_serve.c, the table registry in
 *	  service_registry.c), the sweep of frees and of
 *	  exited backends' tables, and gpuhash_service_main().
 *
 * The main thread takes submitted requests and hands them to a few worker
 * threads (gpuhash.service_threads): requests on distinct tables run at
 * once, each table on its own CUDA stream, so one large build does not hold
 * up other sessions; requests on one table take turns.  The service runs
 * the GPU when it has one and the host twin otherwise, so the request path
 * is exercised everywhere.  It touches no PostgreSQL data:
 * a CUDA failure is a status code returned to the requester, never an
 * ERROR or a crash of the service.  The protocol is described in
 * service_internal.h.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "service_gpus.h"
#include "worker_internal.h"
#include "gpuhash_page.h"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

/* Allocations from this size on are mmapped, so freeing returns them. */
#define SVC_MMAP_THRESHOLD (1024 * 1024)

PGDLLEXPORT void gpuhash_service_main(Datum arg);

static volatile sig_atomic_t got_sigterm = false;

static int	take_submitted(void);

/* Jobs: slots taken by the main thread, served by the worker threads. */
static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_cond = PTHREAD_COND_INITIALIZER;
static int	jobs[SVC_SLOTS];
static int	jobs_head = 0,
			jobs_count = 0,
			jobs_running = 0;	/* taken by a worker thread, not yet answered */

static void
svc_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	got_sigterm = true;
	SetLatch(MyLatch);
	errno = save_errno;
}


/*
 * Serves one request (in a worker thread: no PostgreSQL calls here beyond
 * atomics).  Requests on distinct tables run at once on their own streams;
 * requests on one table (a parallel plan's participants) take turns.
 */
static gh_status
serve(SvcSlot *s)
{
	SvcTable   *t;
	gh_status	st;

	/*
	 * A test's lost context: on a GPU a real fault (a kernel's illegal
	 * address), on the host twin its status; this request fails, the
	 * service restarts.
	 */
	if (s->lose_gpu)
	{
		if (svc_gpu_count() > 0)
			(void) gh_gpu_inject_fault(svc_gpu_ordinal(0));
		gh_note_gpu_lost();
		return svc_fail(s, GH_ERR_CUDA, svc_gpu_count() > 0 ? gh_last_error() :
						"a lost GPU context injected by gpuhash.debug_lose_gpu");
	}
	if (s->type == REQ_BUILD_BEGIN)
		return svc_begin_build(s);
	if (s->type == REQ_DIM_BEGIN)
		return svc_begin_dim(s);
	if (s->type == REQ_CHAIN)
		return svc_serve_chain(s);

	if (s->type == REQ_PAGE_AGG)
		return gpuhash_svc_serve_agg(s);
	if (s->type == REQ_SET_BEGIN)
		return svc_begin_set(s);
	if (s->type == REQ_SET_FINISH)
		return svc_serve_set_finish(s);
	if (s->type == REQ_DIM_PAGES)
		return gpuhash_svc_serve_dim_pages(s);
	/* a page walk with no table (an inner scan's: page_inner.c) */
	if (s->type == REQ_PAGE_PROBE && s->table_id == 0)
		return gpuhash_svc_serve_page(s, NULL);

	pthread_mutex_lock(&svc_registry);
	t = svc_use_table(s->table_id);
	pthread_mutex_unlock(&svc_registry);
	if (t == NULL)
		return svc_fail(s, GH_ERR_INVALID, "unknown join table (freed, or of an earlier service)");

	/* a dimension takes its own requests only, and a table none of them */
	if (t->is_set)
		st = svc_fail(s, GH_ERR_INVALID, "GPU service: a table's request on resident groups");
	else if (t->is_dim != svc_dim_request(s->type))
		st = svc_fail(s, GH_ERR_INVALID, "GPU service: a request for a join table on a dimension, or the reverse");
	else if (s->type == REQ_PROBE)
		st = svc_serve_probe(s, t);
	else if (s->type == REQ_PAGE_PROBE)
		st = svc_serve_table_page(s, t);	/* on the table itself: service_page.c */
	else
	{
		pthread_mutex_lock(&t->lock);
		/* given up while it waited for the table: nobody wants the answer */
		if (pg_atomic_read_u32(&s->state) == SLOT_ABANDONED_RUNNING)
			st = svc_fail(s, GH_ERR_INVALID, "request given up");
		else if (t->is_dim)
			st = svc_serve_dim(s, t);
		else
			st = svc_serve_on_table(s, t);
		pthread_mutex_unlock(&t->lock);
	}

	pthread_mutex_lock(&svc_registry);
	svc_unuse_table(t);
	svc_publish_locked();
	pthread_mutex_unlock(&svc_registry);
	return st;
}

/*
 * After an abandoned request: drop what it was building, a table or a
 * dimension (table_id is 0 for a BEGIN that made nothing; carried columns that were coming go too);
 * free the slot and tell the requester, who waits for that.
 */
static void
discard(SvcSlot *s)
{
	int			procno = s->owner_procno;

	if (s->type == REQ_BUILD_BEGIN || s->type == REQ_BUILD_APPEND ||
		s->type == REQ_BUILD_FINISH || svc_dim_request(s->type) || s->type == REQ_SET_BEGIN)
		(void) svc_drop_table_id(s->table_id);
	else if (s->type == REQ_CARRY_BEGIN || s->type == REQ_CARRY_APPEND ||
			 s->type == REQ_CARRY_FINISH)
		svc_drop_carry_id(s->table_id);
	svc_free_slot(s);
	SetLatch(&GetPGProcByNumber(procno)->procLatch);
}

static void *
service_thread(void *arg)
{
	int			next = -1;

	for (;;)
	{
		SvcSlot    *s;
		uint32		expected = SLOT_RUNNING;

		if (next >= 0)
			s = &gpuhash_svc->slots[next];	/* counted as running already */
		else
		{
			pthread_mutex_lock(&jobs_lock);
			while (jobs_count == 0)
				pthread_cond_wait(&jobs_cond, &jobs_lock);
			s = &gpuhash_svc->slots[jobs[jobs_head]];
			jobs_head = (jobs_head + 1) % SVC_SLOTS;
			jobs_count--;
			jobs_running++;
			pthread_mutex_unlock(&jobs_lock);
		}

		pg_read_barrier();
		s->t_start = svc_clock_ns();
		s->status = serve(s);
		s->t_done = svc_clock_ns();
		pg_write_barrier();
		pg_atomic_fetch_add_u64(&gpuhash_svc->requests, 1);
		if (pg_atomic_compare_exchange_u32(&s->state, &expected, SLOT_DONE))
			SetLatch(&GetPGProcByNumber(s->owner_procno)->procLatch);
		else
			discard(s);			/* abandoned while it ran */

		/*
		 * The queue first, then a slot the main thread has not taken yet,
		 * taken under the lock and counted as running before it goes: a
		 * stop for a lost GPU waits for the requests the threads hold.
		 */
		pthread_mutex_lock(&jobs_lock);
		jobs_running--;
		next = jobs_count > 0 || !pg_atomic_read_u32(&gpuhash_svc->ready) ? -1 :
			take_submitted();
		if (next >= 0)
			jobs_running++;
		pthread_mutex_unlock(&jobs_lock);
	}
	return NULL;
}

/*
 * A GPU's context is lost (gh_gpu_lost): no new request is served, the
 * backends waiting give theirs up as for a service that is gone, and the
 * requests the threads are serving, which fail at once on a lost context,
 * are let finish (up to a few seconds) before the process exits.  The
 * postmaster then starts a new service, with new contexts; nothing else
 * restarts.
 */
static void
stop_for_lost_gpu(void)
{
	ereport(LOG, (errmsg("gpuhash GPU service: a GPU's context was lost; restarting the service"),
				  errdetail("Requests in flight fail; joins go on once the service is back.")));
	pg_atomic_write_u32(&gpuhash_svc->ready, 0);
	for (int i = 0; i < 50; i++)
	{
		int			running;

		pthread_mutex_lock(&jobs_lock);
		running = jobs_running + jobs_count;
		jobs_count = 0;			/* queued, never to be served */
		pthread_mutex_unlock(&jobs_lock);
		if (running == 0)
			break;
		pg_usleep(100 * 1000L);
	}
}

/* Starts the worker threads with every signal blocked: signals are the main
 * thread's business. */
static void
start_threads(void)
{
	sigset_t	all,
				old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < gpuhash_service_threads; i++)
	{
		pthread_t	th;

		if (pthread_create(&th, NULL, service_thread, NULL) != 0)
			ereport(FATAL, (errmsg("gpuhash GPU service: could not start a thread")));
		pthread_detach(th);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Frees queued tables, and everything of backends that are gone. */
static void
sweep(bool check_owners)
{
	for (int i = 0; i < SVC_FREE_QUEUE; i++)
	{
		uint64		v = pg_atomic_read_u64(&gpuhash_svc->free_queue[i]);

		if (v == 0 || (v & FREE_TAKEN) ||
			!pg_atomic_compare_exchange_u64(&gpuhash_svc->free_queue[i], &v, v | FREE_TAKEN))
			continue;

		/*
		 * Destroying the table (now, or when its last request ends)
		 * acknowledges the free; a table gone already is acknowledged here.
		 */
		if (!svc_drop_table_id(FREE_ID(v)))
			svc_ack_free(i, v | FREE_TAKEN);
	}
	if (!check_owners)
		return;
	svc_drop_orphans();
	for (int i = 0; i < SVC_SLOTS; i++)
	{
		SvcSlot    *s = &gpuhash_svc->slots[i];
		uint32		st = pg_atomic_read_u32(&s->state);
		int			pid;

		if (st != SLOT_CLAIMED && st != SLOT_DONE)
			continue;
		/* the owner of this state: 0 while a claim has not written it yet */
		pg_read_barrier();
		pid = s->owner_pid;
		if (pid != 0 && !svc_owner_alive(pid))
			svc_free_slot(s);
	}
}

/*
 * Takes submitted slot s for a worker thread (SUBMITTED -> RUNNING), the
 * main thread or a worker alike; false when it is not submitted or another
 * took it first.
 */
static bool
claim_submitted(SvcSlot *s)
{
	uint32		expected = SLOT_SUBMITTED;

	if (pg_atomic_read_u32(&s->state) != SLOT_SUBMITTED ||
		!pg_atomic_compare_exchange_u32(&s->state, &expected, SLOT_RUNNING))
		return false;
	s->t_dispatch = svc_clock_ns();
	return true;
}

/*
 * A worker thread's next request without the main thread: a slot submitted
 * meanwhile (-1: none).  Under load a thread so goes from one request to
 * the next without waiting for the main thread's wakeup by the backend's
 * latch.
 */
static int
take_submitted(void)
{
	for (int k = 0; k < SVC_SLOTS; k++)
		if (claim_submitted(&gpuhash_svc->slots[k]))
			return k;
	return -1;
}

/* The main thread hands submitted requests to the worker threads. */
static void
dispatch(void)
{
	for (int k = 0; k < SVC_SLOTS; k++)
	{
		SvcSlot    *s = &gpuhash_svc->slots[k];

		if (pg_atomic_read_u32(&s->state) == SLOT_ABANDONED)
		{
			discard(s);			/* abandoned before it ran */
			continue;
		}
		if (!claim_submitted(s))
			continue;
		pthread_mutex_lock(&jobs_lock);
		jobs[(jobs_head + jobs_count) % SVC_SLOTS] = k;
		jobs_count++;
		pthread_cond_signal(&jobs_cond);
		pthread_mutex_unlock(&jobs_lock);
	}
	sweep(false);
	svc_publish_stats();
}

static void
service_exit(int code, Datum arg)
{
	pg_atomic_write_u32(&gpuhash_svc->ready, 0);
}

void
gpuhash_service_main(Datum arg)
{
	TimestampTz last_sweep = GetCurrentTimestamp();
	const char *why;
	int			n;

	pqsignal(SIGTERM, svc_sigterm);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();

	/*
	 * Keys, host twin tables and their build scratch are large and come and
	 * go with queries.  glibc's sliding mmap threshold would soon keep them
	 * in the threads' arenas, which hold on to freed memory: a fixed
	 * threshold maps each large block alone and unmaps it when freed.
	 */
	if (mallopt(M_MMAP_THRESHOLD, SVC_MMAP_THRESHOLD) != 1)
		ereport(LOG, (errmsg("gpuhash GPU service: could not set the malloc mmap threshold")));

	/* a new generation: whatever an earlier service held is gone */
	for (int i = 0; i < SVC_SLOTS; i++)
		svc_free_slot(&gpuhash_svc->slots[i]);
	for (int i = 0; i < SVC_FREE_QUEUE; i++)
		pg_atomic_write_u64(&gpuhash_svc->free_queue[i], 0);
	gpuhash_svc->tables_alive = 0;
	gpuhash_svc->dims_alive = 0;
	gpuhash_svc->device_bytes = 0;

	/* the CUDA contexts are created here, once, never in the postmaster */
	n = svc_gpus_start(&why);
	gpuhash_svc->gpus = n;
	strlcpy(gpuhash_svc->no_gpu_reason, why, sizeof(gpuhash_svc->no_gpu_reason));
	gh_cuda_versions(&gpuhash_svc->driver_version, &gpuhash_svc->runtime_version);
	/*
	 * Mapped as well where it may be: a page request joined to a dimension
	 * on a GPU (gh_page_agg_join_mapped) reads the pages copied into its
	 * chunk where they lie.
	 */
	gpuhash_svc->staging_mapped = n > 0 &&
		gh_page_register_host(gpuhash_staging, gpuhash_svc->staging_bytes) == GH_OK;
	gpuhash_svc->pinned = gpuhash_svc->staging_mapped || (n > 0 &&
		gh_host_register(gpuhash_staging, gpuhash_svc->staging_bytes) == GH_OK);
	if (n > 0 && !gpuhash_svc->pinned)
		ereport(LOG, (errmsg("gpuhash GPU service: staging memory not page-locked: %s",
							 gh_last_error())));

	/*
	 * The buffer pool, for page requests that name buffers instead of
	 * carrying pages: forked from the postmaster, the service has it at
	 * every backend's address.  The host twin reads it there as it is; the
	 * GPUs through a mapping.  Without one (memory-lock limits) pages are
	 * copied, as before.
	 */
	gpuhash_svc->pool_in_place = n == 0 ||
		gh_page_register_host(BufferBlocks, (size_t) NBuffers * BLCKSZ) == GH_OK;
	if (!gpuhash_svc->pool_in_place)
		ereport(LOG, (errmsg("gpuhash GPU service: buffer pool not mapped for the GPUs, page requests copy their pages: %s",
							 gh_last_error())));

	gpuhash_svc->pid = MyProcPid;
	gpuhash_svc->procno = MyProc->pgprocno;
	on_shmem_exit(service_exit, (Datum) 0);
	start_threads();
	pg_atomic_fetch_add_u32(&gpuhash_svc->generation, 1);
	pg_write_barrier();
	pg_atomic_write_u32(&gpuhash_svc->ready, 1);
	ereport(LOG, (errmsg("gpuhash GPU service ready: %d GPU(s)%s, %d MB staging%s, %d threads%s", n,
						 n > 0 ? "" : " (host twin)", gpuhash_staging_memory_mb,
						 gpuhash_svc->pinned ? " page-locked" : "", gpuhash_service_threads,
						 gpuhash_svc->pool_in_place ? ", pages read in place" : "")));

	while (!got_sigterm)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1000,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		if (gh_gpu_lost())
		{
			stop_for_lost_gpu();
			break;
		}
		dispatch();

		/* the smaller blocks left in the arenas, once no table is alive */
		if (svc_freed_since_trim && gpuhash_svc->tables_alive == 0)
		{
			svc_freed_since_trim = false;
			(void) malloc_trim(0);
		}
		if (TimestampDifferenceExceeds(last_sweep, GetCurrentTimestamp(), 1000))
		{
			sweep(true);
			svc_page_cache_trim();
			svc_publish_stats();
			svc_gpus_refresh();
			last_sweep = GetCurrentTimestamp();
		}
	}
	/* status 1: the postmaster restarts the service unless it is shutting down */
	proc_exit(1);
}
