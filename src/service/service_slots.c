/*-------------------------------------------------------------------------
 *
 * service_slots.c
 *	  A backend's request slots of the GPU service: claimed, submitted and
 *	  waited on, released, or given up (a cancelled request, an exiting
 *	  backend) and then waited for, boundedly and without throwing, until
 *	  the service has dropped them; frees waited for the same way.  The
 *	  requests themselves are in service_client.c.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "client_internal.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/pg_bitutils.h"
#include "portability/instr_time.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/timestamp.h"

/*
 * How long a backend waits for the service to drop what it gave up or
 * freed.  Normally milliseconds (a cancelled host build stops at its next
 * poll); the limit only guards against a wedged service, whose sweep then
 * frees the rest.
 */
#define SVC_SETTLE_MS 5000

/*
 * What this backend has handed back and waits for the service to drop:
 * slots of requests it gave up, and free queue entries not yet emptied.
 * A backend frees one table at a time and waits, so a few entries do.
 */
#define MAX_PENDING_FREES 8

static uint64 abandoned_slots = 0;	/* bit i: slot i given up */
static int	n_pending_frees = 0;
static struct
{
	int			index;
	uint64		value;
}			pending_frees[MAX_PENDING_FREES];
static uint32 pending_generation;

/* A request sent and not answered yet, for giving it up at an error or exit. */
typedef struct Outstanding
{
	SvcSlot    *slot;			/* NULL: none */
	uint32		generation;
} Outstanding;

/*
 * The request svc_submit() waits on; and the one svc_submit_nowait() sent
 * and svc_wait() waits on (a chain's, which reads its next pages
 * meanwhile): one at a time, in a slot claimed as svc_submit's are, so
 * that it takes none of the slots probes in flight may hold.
 */
static Outstanding inflight;
static Outstanding nowait;

/* Probes in flight (gpuhash_svc_probe_submit): bit i, slot i, and its service */
static uint64 async_slots = 0;
static uint32 async_generation[SVC_SLOTS];
static bool exit_callback_set = false;

static void backend_exit(int code, Datum arg);
static void xact_abort(XactEvent event, void *arg);
static void subxact_abort(SubXactEvent event, SubTransactionId mySubid,
						  SubTransactionId parentSubid, void *arg);

static void
wake_service(void)
{
	if (pg_atomic_read_u32(&gpuhash_svc->ready))
		SetLatch(&GetPGProcByNumber(gpuhash_svc->procno)->procLatch);
}

/* A free slot, claimed; NULL when all are taken. */
static SvcSlot *
try_claim_slot(void)
{
	if (!exit_callback_set)
	{
		before_shmem_exit(backend_exit, (Datum) 0);
		RegisterXactCallback(xact_abort, NULL);
		RegisterSubXactCallback(subxact_abort, NULL);
		exit_callback_set = true;
	}
	for (int i = 0; i < SVC_SLOTS; i++)
	{
		uint32		expected = SLOT_FREE;
		SvcSlot    *s = &gpuhash_svc->slots[i];

		if (pg_atomic_compare_exchange_u32(&s->state, &expected, SLOT_CLAIMED))
		{
			s->owner_pid = MyProcPid;
			s->owner_procno = MyProc->pgprocno;
			s->host_parts = gpuhash_host_partitions;
			s->fail_gpu = gpuhash_debug_fail_gpu;
			s->lose_gpu = gpuhash_debug_lose_gpu;
			s->note[0] = '\0';
			s->t_submit = s->t_dispatch = s->t_start = s->t_done = 0;
			pg_atomic_write_u32(&s->pins_going, 0);
			return s;
		}
	}
	return NULL;
}

/* A free slot, claimed; NULL when all are taken (the caller goes elsewhere). */
SvcSlot *
svc_try_claim_slot(void)
{
	return try_claim_slot();
}

SvcSlot *
svc_claim_slot(void)
{
	SvcSlot    *s;

	/* every slot busy: wait for one, interruptibly */
	while ((s = try_claim_slot()) == NULL)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	return s;
}

/* True while the service that took our requests and frees still runs. */
static bool
same_service(uint32 generation)
{
	return pg_atomic_read_u32(&gpuhash_svc->ready) != 0 &&
		pg_atomic_read_u32(&gpuhash_svc->generation) == generation;
}

/*
 * Is the slot we claimed under this service generation still ours?  A
 * service that restarted reset every slot (while not ready, before its new
 * generation), and another backend may have claimed this one since.
 */
static bool
slot_ours(SvcSlot *s, uint32 generation)
{
	return same_service(generation) && s->owner_pid == MyProcPid;
}

/* Frees a slot claimed under generation, unless a restarted service took it. */
static void
release_slot(SvcSlot *s, uint32 generation)
{
	if (slot_ours(s, generation))
		svc_free_slot(s);
}

/*
 * After a request loop: the slot is ours to free unless the service still
 * holds it (a request abandoned while running is dropped by the service).
 */
gh_status
svc_release_if_ours(SvcSlot *s, uint32 generation, gh_status st)
{
	uint32		state = pg_atomic_read_u32(&s->state);

	if (state == SLOT_DONE || state == SLOT_CLAIMED)
		release_slot(s, generation);
	return st;
}

gh_status
svc_service_gone(void)
{
	gh_set_last_error("the gpuhash GPU service exited; its join tables are gone");
	return GH_ERR_CUDA;
}

/* The first call starts the clock; true once SVC_SETTLE_MS have passed since. */
static bool
waited_out(TimestampTz *start)
{
	if (*start == 0)
	{
		*start = GetCurrentTimestamp();
		return false;
	}
	return TimestampDifferenceExceeds(*start, GetCurrentTimestamp(), SVC_SETTLE_MS);
}

/*
 * Sleeps up to ms or until the latch is set, without processing
 * interrupts; false if the postmaster died.  The latch is reset, as every
 * latch wait in PostgreSQL rechecks its own condition.
 */
static bool
nap(long ms)
{
	if (WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_POSTMASTER_DEATH, ms,
				  PG_WAIT_EXTENSION) & WL_POSTMASTER_DEATH)
		return false;
	ResetLatch(MyLatch);
	return true;
}

/*
 * Waits until the service has dropped every request this backend gave up
 * and destroyed every table it freed, so that nothing of a cancelled or
 * finished statement stays in the service after it returns.  Never throws
 * and never processes interrupts: error cleanup and exit callbacks call
 * it.
 */
static void
settle(void)
{
	TimestampTz start = 0;

	for (;;)
	{
		bool		busy = false;

		if (abandoned_slots == 0 && n_pending_frees == 0)
			return;
		if (!same_service(pending_generation))
			break;				/* its slots were reset and its tables went with it */
		for (int i = 0; i < SVC_SLOTS; i++)
		{
			SvcSlot    *s = &gpuhash_svc->slots[i];
			uint32		st;

			if ((abandoned_slots & (UINT64CONST(1) << i)) == 0)
				continue;
			st = pg_atomic_read_u32(&s->state);
			if ((st == SLOT_ABANDONED || st == SLOT_ABANDONED_RUNNING) &&
				s->owner_pid == MyProcPid)
				busy = true;
			else
				abandoned_slots &= ~(UINT64CONST(1) << i);
		}
		for (int i = n_pending_frees - 1; i >= 0; i--)
		{
			int			k = pending_frees[i].index;
			uint64		v = pg_atomic_read_u64(&gpuhash_svc->free_queue[k]);

			if ((v & ~FREE_TAKEN) == pending_frees[i].value)
				busy = true;
			else
				pending_frees[i] = pending_frees[--n_pending_frees];
		}
		if (!busy)
			return;
		if (waited_out(&start))
		{
			ereport(LOG,
					(errmsg("gpuhash: the GPU service did not drop %d request(s) and %d table(s) of this backend within %d ms",
							pg_popcount64(abandoned_slots),
							n_pending_frees, SVC_SETTLE_MS),
					 errdetail("Its sweep frees them when this backend exits.")));
			break;
		}
		if (!nap(10))
			break;
	}
	abandoned_slots = 0;
	n_pending_frees = 0;
}

/*
 * Gives up a submitted request: the service drops it and whatever it was
 * building.  A request answered meanwhile is ours to clean up.
 */
static void
abandon_slot(SvcSlot *s, uint32 generation)
{
	uint32		expected = SLOT_SUBMITTED;
	bool		given_up;

	if (!same_service(generation))
		return;
	given_up = pg_atomic_compare_exchange_u32(&s->state, &expected, SLOT_ABANDONED);
	if (!given_up && expected == SLOT_RUNNING)
		given_up = pg_atomic_compare_exchange_u32(&s->state, &expected,
												  SLOT_ABANDONED_RUNNING);
	if (given_up)
	{
		if (pending_generation != generation)
			abandoned_slots = 0;
		pending_generation = generation;
		abandoned_slots |= UINT64CONST(1) << (s - gpuhash_svc->slots);
		wake_service();
		return;
	}
	if (expected == SLOT_DONE)
	{
		/* a table or dimension that the request made is freed like any other */
		if (s->table_id != 0 &&
			(s->type == REQ_BUILD_BEGIN || s->type == REQ_BUILD_APPEND ||
			 s->type == REQ_BUILD_FINISH || svc_dim_request(s->type) ||
			 s->type == REQ_SET_BEGIN))
		{
			GhRemoteTable t = {0};

			t.id = s->table_id;
			t.generation = generation;
			release_slot(s, generation);
			gpuhash_svc_free(&t);
		}
		else
			release_slot(s, generation);
	}
	else if (expected == SLOT_CLAIMED)
	{
		/* held for a request being written (service_page.c): never sent */
		release_slot(s, generation);
	}
}

/* Gives up the outstanding request o, if any. */
static void
abandon_outstanding(Outstanding *o)
{
	SvcSlot    *s = o->slot;

	o->slot = NULL;
	if (s != NULL)
		abandon_slot(s, o->generation);
}

/* A probe in flight is no longer ours to wait on. */
static void
async_forget(int i)
{
	async_slots &= ~(UINT64CONST(1) << i);
	pg_atomic_fetch_sub_u32(&gpuhash_svc->async_held, 1);
}

/* Gives up every probe in flight (an exit). */
static void
abandon_async(void)
{
	while (async_slots != 0)
	{
		int			i = pg_rightmost_one_pos64(async_slots);

		async_forget(i);
		abandon_slot(&gpuhash_svc->slots[i], async_generation[i]);
	}
}

/*
 * Until every probe this backend has in flight is answered, its service
 * gone, or SVC_SETTLE_MS passed.  An aborting transaction or
 * subtransaction calls this before its resource owner lets buffer pins
 * go, so that no walk still reads a page in place after its pin went (and
 * the page cache never keeps a copy of a buffer reused meanwhile).  A
 * node gives its requests up when its memory goes, which for a query run
 * through SPI is only after the pins (SPI resets its executor memory
 * after the resource owner).  Waiting, not giving up: a cursor opened
 * outside an aborting subtransaction keeps its answers.  Past the wait the
 * requests still out are marked (pins_going), so that their walks keep no
 * copy of buffers their pins may no longer hold.  Never throws.
 */
static void
await_async(void)
{
	TimestampTz start = 0;

	while (async_slots != 0)
	{
		uint64		busy = 0;

		for (uint64 m = async_slots; m != 0; m &= m - 1)
		{
			int			i = pg_rightmost_one_pos64(m);
			SvcSlot    *s = &gpuhash_svc->slots[i];
			uint32		st = pg_atomic_read_u32(&s->state);

			if ((st == SLOT_SUBMITTED || st == SLOT_RUNNING) && s->owner_pid == MyProcPid &&
				same_service(async_generation[i]))
				busy |= UINT64CONST(1) << i;
		}
		if (busy == 0)
			return;
		if (waited_out(&start))
		{
			/* the pins go next: no copy of these requests' pages is kept */
			for (uint64 m = busy; m != 0; m &= m - 1)
				pg_atomic_write_u32(&gpuhash_svc->slots[pg_rightmost_one_pos64(m)].pins_going, 1);
			pg_memory_barrier();
			ereport(LOG,
					(errmsg("gpuhash: the GPU service did not answer the requests of an aborting transaction within %d ms",
							SVC_SETTLE_MS)));
			return;
		}
		if (!nap(1))
			return;
	}
}

/* Before an aborting transaction's resource owner releases its pins. */
static void
xact_abort(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		await_async();
}

/* Before an aborting subtransaction's resource owner releases its pins. */
static void
subxact_abort(SubXactEvent event, SubTransactionId mySubid,
			  SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		await_async();
}

/* A backend leaving inside a request (FATAL skips PG_CATCH) gives it up. */
static void
backend_exit(int code, Datum arg)
{
	if (gpuhash_svc == NULL)
		return;
	abandon_outstanding(&inflight);
	abandon_outstanding(&nowait);
	abandon_async();
	settle();
}

GpuSvcTimes gpuhash_svc_times;

/* An answered request's steps (service_internal.h's t_*) into gpuhash_svc_times. */
static void
note_times(SvcSlot *s, int64 began)
{
	int64		now = svc_clock_ns();

	pg_read_barrier();
	if (pg_atomic_read_u32(&s->state) != SLOT_DONE || s->t_submit == 0 ||
		s->t_dispatch < s->t_submit || s->t_start < s->t_dispatch || s->t_done < s->t_start)
		return;
	gpuhash_svc_times.requests++;
	gpuhash_svc_times.queue_ms += (s->t_dispatch - s->t_submit) / 1e6;
	gpuhash_svc_times.thread_ms += (s->t_start - s->t_dispatch) / 1e6;
	gpuhash_svc_times.serve_ms += (s->t_done - s->t_start) / 1e6;
	gpuhash_svc_times.seen_ms += (now - Max(s->t_done, began)) / 1e6;
}

/* The requests answered since `before`, added into `into`. */
void
gpuhash_svc_times_since(GpuSvcTimes *into, const GpuSvcTimes *before)
{
	into->requests += gpuhash_svc_times.requests - before->requests;
	into->queue_ms += gpuhash_svc_times.queue_ms - before->queue_ms;
	into->thread_ms += gpuhash_svc_times.thread_ms - before->thread_ms;
	into->serve_ms += gpuhash_svc_times.serve_ms - before->serve_ms;
	into->seen_ms += gpuhash_svc_times.seen_ms - before->seen_ms;
}

/*
 * Sleeps until the service answers the submitted slot, or is gone.  A
 * cancel or timeout throws: the caller gives the request up.
 */
static void
wait_answer(SvcSlot *s, uint32 generation)
{
	int64		began = svc_clock_ns();

	for (;;)
	{
		if (pg_atomic_read_u32(&s->state) == SLOT_DONE)
			break;
		if (pg_atomic_read_u32(&gpuhash_svc->ready) == 0 ||
			pg_atomic_read_u32(&gpuhash_svc->generation) != generation)
			break;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 100,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	note_times(s, began);
}

/*
 * The answer's status, its error message made the last error; after a
 * service that died, which reset every slot, the slot's answer may be
 * another backend's.
 */
static gh_status
answer_status(SvcSlot *s, uint32 generation)
{
	if (pg_atomic_read_u32(&s->state) != SLOT_DONE)
		return svc_service_gone();
	pg_read_barrier();
	if (!slot_ours(s, generation))
		return svc_service_gone();
	if (s->status != GH_OK)
		gh_set_last_error(s->err);
	return s->status;
}

/*
 * The answer of a request answered earlier (svc_submit) and read only now:
 * the service may have restarted in between, and the slot be another's.
 */
gh_status
svc_answer(SvcSlot *s, uint32 generation)
{
	return answer_status(s, generation);
}

/*
 * The claimed slot handed to the service, remembered in o; where the
 * service that took our requests is gone, the slot is let go.
 */
static gh_status
hand_over(Outstanding *o, SvcSlot *s, uint32 generation)
{
	if (!gpuhash_service_ready() || pg_atomic_read_u32(&gpuhash_svc->generation) != generation)
	{
		release_slot(s, generation);
		return svc_service_gone();
	}
	o->slot = s;
	o->generation = generation;
	s->t_submit = svc_clock_ns();
	pg_write_barrier();
	pg_atomic_write_u32(&s->state, SLOT_SUBMITTED);
	wake_service();
	return GH_OK;
}

/*
 * Sleeps until the service answers o's request: its status.  A cancel or
 * timeout while waiting abandons the request, and waits until the service
 * has dropped it.
 */
static gh_status
wait_for(Outstanding *o)
{
	SvcSlot    *s = o->slot;
	uint32		generation = o->generation;

	PG_TRY();
	{
		wait_answer(s, generation);
	}
	PG_CATCH();
	{
		abandon_outstanding(o);
		settle();
		PG_RE_THROW();
	}
	PG_END_TRY();
	o->slot = NULL;
	return answer_status(s, generation);
}

/* Hands the claimed slot to the service and sleeps until it answers. */
gh_status
svc_submit(SvcSlot *s, uint32 generation)
{
	gh_status	st = hand_over(&inflight, s, generation);

	return st == GH_OK ? wait_for(&inflight) : st;
}

/*
 * Hands the claimed slot to the service without waiting; svc_wait() waits
 * for the answer, svc_abandon_nowait() gives the request up (an error
 * meanwhile).  One such request at a time.
 */
gh_status
svc_submit_nowait(SvcSlot *s, uint32 generation)
{
	if (nowait.slot != NULL)
	{
		release_slot(s, generation);
		gh_set_last_error("GPU service: a request is out without waiting already");
		return GH_ERR_INVALID;
	}
	return hand_over(&nowait, s, generation);
}

/* Sleeps until the service answers svc_submit_nowait()'s request s: its status. */
gh_status
svc_wait(SvcSlot *s, uint32 generation)
{
	if (s == NULL || s != nowait.slot || generation != nowait.generation)
	{
		gh_set_last_error("GPU service: no such request out");
		return GH_ERR_INVALID;
	}
	return wait_for(&nowait);
}

/* Is a request out without waiting (svc_submit_nowait)? */
bool
svc_nowait_busy(void)
{
	return nowait.slot != NULL;
}

/* Gives up s, svc_submit_nowait()'s request, if it is out, and waits until it is dropped. */
void
svc_abandon_nowait(SvcSlot *s)
{
	if (s == NULL || s != nowait.slot)
		return;
	abandon_outstanding(&nowait);
	settle();
}

/*
 * Submits a probe of n keys without waiting for it (a pipelined join fills
 * its next batch meanwhile).  False when it cannot go now: more keys than a
 * slot's chunk, no slot free, or the slots that probes in flight may hold
 * all held; the caller then probes synchronously.
 */
bool
gpuhash_svc_probe_submit(GhRemoteTable *t, const uint64 *keys, uint64 n, GhProbeTicket *tk)
{
	SvcSlot    *s;

	tk->slot = -1;
	if (n == 0 || n * Max(sizeof(uint64), sizeof(gh_range)) > gpuhash_svc->chunk_bytes ||
		(s = gpuhash_svc_async_claim(t)) == NULL)
		return false;
	memcpy(chunk_of(s), keys, n * sizeof(uint64));
	s->type = REQ_PROBE;
	s->table_id = t->id;
	s->n = n;
	gpuhash_svc_async_submit(s, t, tk);
	return true;
}

/*
 * A slot for a request in flight (a probe, a page probe: service_page.c),
 * claimed; NULL when it cannot go now: another service, no slot free, or
 * the slots that requests in flight may hold all held.
 */
SvcSlot *
gpuhash_svc_async_claim(GhRemoteTable *t)
{
	SvcSlot    *s;

	if (!same_service(t->generation))
		return NULL;
	if (pg_atomic_add_fetch_u32(&gpuhash_svc->async_held, 1) > SVC_ASYNC_SLOTS)
	{
		pg_atomic_fetch_sub_u32(&gpuhash_svc->async_held, 1);
		return NULL;
	}
	if ((s = try_claim_slot()) == NULL)
	{
		pg_atomic_fetch_sub_u32(&gpuhash_svc->async_held, 1);
		return NULL;
	}
	return s;
}

/*
 * The claimed slot is held by tk while its request is written: given up
 * (gpuhash_svc_probe_abandon) like one in flight, at an error or exit too.
 */
void
gpuhash_svc_async_hold(SvcSlot *s, GhRemoteTable *t, GhProbeTicket *tk)
{
	int			i = s - gpuhash_svc->slots;

	async_slots |= UINT64CONST(1) << i;
	async_generation[i] = t->generation;
	tk->slot = i;
	tk->generation = t->generation;
	tk->n = s->n;
}

/* The claimed slot, its request written, goes to the service: tk follows it. */
void
gpuhash_svc_async_submit(SvcSlot *s, GhRemoteTable *t, GhProbeTicket *tk)
{
	gpuhash_svc_async_hold(s, t, tk);
	t->probe_requests++;
	s->t_submit = svc_clock_ns();
	pg_write_barrier();
	pg_atomic_write_u32(&s->state, SLOT_SUBMITTED);
	wake_service();
}

/*
 * Waits for a request in flight; its answer's status.  The caller reads the
 * answer from *sp's chunk, then hands the slot back (async_release).
 */
gh_status
gpuhash_svc_async_wait(GhProbeTicket *tk, SvcSlot **sp)
{
	SvcSlot    *s = &gpuhash_svc->slots[tk->slot];

	PG_TRY();
	{
		wait_answer(s, tk->generation);
	}
	PG_CATCH();
	{
		gpuhash_svc_probe_abandon(tk);
		PG_RE_THROW();
	}
	PG_END_TRY();
	async_forget(tk->slot);
	tk->slot = -1;
	*sp = s;
	return answer_status(s, tk->generation);
}

gh_status
gpuhash_svc_async_release(SvcSlot *s, GhProbeTicket *tk, gh_status st)
{
	return svc_release_if_ours(s, tk->generation, st);
}

/* Waits for a submitted probe and copies its n ranges out. */
gh_status
gpuhash_svc_probe_wait(GhRemoteTable *t, GhProbeTicket *tk, gh_range *ranges)
{
	SvcSlot    *s;
	gh_status	st = gpuhash_svc_async_wait(tk, &s);

	if (st == GH_OK)
	{
		memcpy(ranges, chunk_of(s), tk->n * sizeof(gh_range));
		t->info = s->info;
	}
	return gpuhash_svc_async_release(s, tk, st);
}

/*
 * Gives up a submitted probe (a rescan, an error, a rebuilt table) and
 * waits until the service has dropped it.  Never throws.
 */
void
gpuhash_svc_probe_abandon(GhProbeTicket *tk)
{
	int			i = tk->slot;

	if (i < 0)
		return;
	tk->slot = -1;
	if ((async_slots & (UINT64CONST(1) << i)) == 0)
		return;
	async_forget(i);
	abandon_slot(&gpuhash_svc->slots[i], tk->generation);
	settle();
}

void
gpuhash_svc_free(GhRemoteTable *t)
{
	uint64		value;
	TimestampTz start = 0;

	if (gpuhash_svc == NULL || t->id == 0 || !same_service(t->generation))
	{
		t->id = 0;
		return;					/* gone with its service already */
	}
	if (n_pending_frees == MAX_PENDING_FREES)
		settle();
	if (n_pending_frees > 0 && pending_generation != t->generation)
		n_pending_frees = 0;
	value = (uint64) t->id | ((uint64) (MyProc->pgprocno + 1) << 32);
	for (;;)
	{
		for (int i = 0; i < SVC_FREE_QUEUE; i++)
		{
			uint64		expected = 0;

			if (pg_atomic_compare_exchange_u64(&gpuhash_svc->free_queue[i], &expected, value))
			{
				pending_generation = t->generation;
				pending_frees[n_pending_frees].index = i;
				pending_frees[n_pending_frees].value = value;
				n_pending_frees++;
				wake_service();
				t->id = 0;
				settle();
				return;
			}
		}

		/* a full queue: the service is emptying it */
		if (!same_service(t->generation))
		{
			t->id = 0;
			return;				/* gone with its service */
		}
		if (start == 0)
			start = GetCurrentTimestamp();
		else if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(), SVC_SETTLE_MS))
			break;
		wake_service();
		if (WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_POSTMASTER_DEATH, 1,
					  PG_WAIT_EXTENSION) & WL_POSTMASTER_DEATH)
			break;
		ResetLatch(MyLatch);
	}
	ereport(LOG,
			(errmsg("gpuhash: the GPU service's free queue stayed full; join table %u is left to its sweep",
					t->id)));
	t->id = 0;
}
