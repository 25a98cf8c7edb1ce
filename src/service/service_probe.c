/*-------------------------------------------------------------------------
 *
 * service_probe.c
 *	  The GPU service's probes: a batch probed on one copy of its table
 *	  (copies made on other GPUs as they are wanted), and multi-level
 *	  chains run on the GPU that holds most of their tables.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "service_gpus.h"
#include "worker_internal.h"

#include <pthread.h>

/*
 * (registry lock) The GPU a chain runs on: all its levels' tables must be
 * there, so the one where the fewest bytes are missing, then the least busy.
 */
static int
chain_gpu(SvcTable **held, int n_held)
{
	int			best = held[0]->home;
	uint64		best_missing = UINT64_MAX;

	for (int g = 0; g < svc_gpu_count(); g++)
	{
		uint64		missing = 0;

		if (!svc_gpu_ok(g))
			continue;
		for (int i = 0; i < n_held; i++)
			if (held[i]->copy[g] == NULL)
				missing += held[i]->on_gpu[held[i]->home];
		if (missing < best_missing ||
			(missing == best_missing &&
			 gpuhash_svc->gpu_use[g].busy < gpuhash_svc->gpu_use[best].busy))
		{
			best = g;
			best_missing = missing;
		}
	}
	return best;
}

/*
 * Takes the copy lock of table t's copy on GPU g (g -1: its slot 0, the
 * host twin's), making the copy first when there is none.  The lock is
 * held on return, also when making the copy failed.
 */
static gh_status
lock_copy(SvcSlot *s, SvcTable *t, int g)
{
	gh_status	st = GH_OK;
	gh_table   *c = NULL;

	if (g < 0 || t->copy[g] != NULL)
	{
		pthread_mutex_lock(&t->copy_lock[Max(g, 0)]);
		return GH_OK;
	}
	pthread_mutex_lock(&t->lock);
	pthread_mutex_lock(&t->copy_lock[g]);
	if (t->copy[g] == NULL)
	{
		st = gh_replicate(t->table, svc_gpu_ordinal(g), t->budget, &c);
		pthread_mutex_lock(&svc_registry);
		if (st == GH_OK)
		{
			gh_table_info ti;

			gh_table_get_info(c, &ti);
			t->copy[g] = c;
			svc_count_on_gpu(t, g, ti.device_bytes);
		}
		pthread_mutex_unlock(&svc_registry);
		if (st != GH_OK)
			svc_fail(s, st, gh_last_error());
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

/*
 * REQ_PROBE, keys in and ranges out in place (both 8 bytes per probe), on
 * the GPU svc_gpu_for_probe picks; a copy of the table is made there first
 * when it has none.  A GPU that fails is left out: the backend asks again,
 * and the probe goes to another.  Takes no table lock but to make a copy,
 * so probes of one table on distinct GPUs run at once.
 */
gh_status
svc_serve_probe(SvcSlot *s, SvcTable *t)
{
	char	   *chunk = chunk_of(s);
	gh_table   *c;
	gh_table_info before,
				after;
	gh_status	st;
	uint64		total;
	int			g;

	if (t->table == NULL || s->n * sizeof(uint64) > gpuhash_svc->chunk_bytes)
		return svc_fail(s, GH_ERR_INVALID, "GPU service: bad probe");
	if (t->home < 0)
	{
		/* the host twin, or partitioned over the GPUs (each part's own) */
		pthread_mutex_lock(&t->copy_lock[0]);
		st = gh_probe_ranges(t->table, (const uint64 *) chunk, s->n, (gh_range *) chunk, &total);
		if (st == GH_OK)
			gh_table_get_info(t->table, &s->info);
		pthread_mutex_unlock(&t->copy_lock[0]);
		return st == GH_OK ? GH_OK : svc_fail(s, st, gh_last_error());
	}

	pthread_mutex_lock(&svc_registry);
	{
		bool		has[SVC_MAX_GPUS];

		for (int i = 0; i < SVC_MAX_GPUS; i++)
			has[i] = t->copy[i] != NULL;
		g = svc_gpu_for_probe(t->home, has, t->on_gpu[t->home], t->budget);
	}
	svc_gpu_busy(g, 1);
	c = t->copy[g];
	pthread_mutex_unlock(&svc_registry);

	if (c != NULL)
		pthread_mutex_lock(&t->copy_lock[g]);
	else if ((st = lock_copy(s, t, g)) != GH_OK)
	{
		/* no copy there: the table's own GPU probes it */
		pthread_mutex_unlock(&t->copy_lock[g]);
		pthread_mutex_lock(&svc_registry);
		if (svc_gpu_fault(st))
			svc_gpu_failed(g, s->err);
		svc_gpu_busy(g, -1);
		g = t->home;
		svc_gpu_busy(g, 1);
		pthread_mutex_unlock(&svc_registry);
		pthread_mutex_lock(&t->copy_lock[g]);
	}

	c = t->copy[g];
	gh_table_get_info(c, &before);
	/* given up while it waited for the copy: nobody wants the answer */
	if (pg_atomic_read_u32(&s->state) == SLOT_ABANDONED_RUNNING)
		st = svc_fail(s, GH_ERR_INVALID, "request given up");
	else
	{
		st = svc_injected(s, g) ? svc_injected_failure() :
			gh_probe_ranges(c, (const uint64 *) chunk, s->n, (gh_range *) chunk, &total);
		if (st == GH_OK)
			gh_table_get_info(c, &after);
		else
			svc_fail(s, st, gh_last_error());
	}
	pthread_mutex_unlock(&t->copy_lock[g]);

	pthread_mutex_lock(&svc_registry);
	if (st == GH_OK)
	{
		/* the figures a backend sees add up over the copies it probed */
		t->probes.probe_ms += after.probe_ms - before.probe_ms;
		t->probes.transfer_ms += after.transfer_ms - before.transfer_ms;
		t->probes.probe_batches += after.probe_batches - before.probe_batches;
		t->probes.probe_keys += after.probe_keys - before.probe_keys;
		s->info = after;
		s->info.probe_ms = t->probes.probe_ms;
		s->info.transfer_ms = t->probes.transfer_ms;
		s->info.probe_batches = t->probes.probe_batches;
		s->info.probe_keys = t->probes.probe_keys;
		s->info.device_bytes = t->on_gpu[t->home];
		s->info.gpu_ordinal = svc_gpu_ordinal(t->home);
	}
	else if (svc_gpu_fault(st))
		svc_gpu_failed(g, s->err);
	svc_gpu_busy(g, -1);
	pthread_mutex_unlock(&svc_registry);
	return st;
}

/*
 * A chain probe (REQ_CHAIN; the chunk's layout is chain_layout's).  Every
 * level's table is taken (users counted, as serve() does) and locked, each
 * once, in ascending id order: chains and single-table requests then never
 * wait for each other in a cycle.
 */
gh_status
svc_serve_chain(SvcSlot *s)
{
	char	   *chunk = chunk_of(s);
	SvcChainLayout lay;
	SvcChainLevel lv[GH_MAX_CHAIN_LEVELS];
	gh_chain_level levels[GH_MAX_CHAIN_LEVELS];
	SvcTable   *held[GH_MAX_CHAIN_LEVELS];
	uint32		ids[GH_MAX_CHAIN_LEVELS];
	int			n_ids = 0,
				n_held = 0,
				n_locked = 0,
				g = -1;
	bool		on_gpus = true;
	gh_status	st = GH_OK;

	if (!chain_layout(gpuhash_svc->chunk_bytes, s->n_levels, s->ncols, s->n, s->has_valid, &lay))
		return svc_fail(s, GH_ERR_INVALID, "GPU service: bad chain request");
	memcpy(lv, chunk, sizeof(SvcChainLevel) * s->n_levels);

	/* the distinct table ids, ascending (insertion sort: a few levels) */
	for (int l = 0; l < s->n_levels; l++)
	{
		int			i = n_ids;

		while (i > 0 && ids[i - 1] > lv[l].table_id)
			i--;
		if (i > 0 && ids[i - 1] == lv[l].table_id)
			continue;
		memmove(ids + i + 1, ids + i, sizeof(uint32) * (n_ids - i));
		ids[i] = lv[l].table_id;
		n_ids++;
	}

	pthread_mutex_lock(&svc_registry);
	while (n_held < n_ids && (held[n_held] = svc_use_table(ids[n_held])) != NULL)
		n_held++;
	if (n_held < n_ids)
	{
		while (n_held > 0)
			svc_unuse_table(held[--n_held]);
		svc_publish_locked();
	}
	pthread_mutex_unlock(&svc_registry);
	if (n_held < n_ids)
		return svc_fail(s, GH_ERR_INVALID,
					"unknown join table in a chain (freed, or of an earlier service)");

	/* one GPU for all levels, or the host twin (slot 0 of each table) */
	for (int i = 0; i < n_held; i++)
		on_gpus &= held[i]->home >= 0;
	if (on_gpus)
	{
		pthread_mutex_lock(&svc_registry);
		g = chain_gpu(held, n_held);
		svc_gpu_busy(g, 1);
		pthread_mutex_unlock(&svc_registry);
	}
	for (int i = 0; i < n_held && st == GH_OK; i++, n_locked++)
		st = lock_copy(s, held[i], on_gpus ? g : -1);
	/* given up while it waited for the tables: nobody wants the answer */
	if (st == GH_OK && pg_atomic_read_u32(&s->state) == SLOT_ABANDONED_RUNNING)
		st = svc_fail(s, GH_ERR_INVALID, "request given up");
	for (int l = 0; l < s->n_levels && st == GH_OK; l++)
	{
		SvcTable   *t = NULL;

		for (int i = 0; i < n_held; i++)
			if (held[i]->id == lv[l].table_id)
				t = held[i];
		if (t->table == NULL)
			st = svc_fail(s, GH_ERR_INVALID, "GPU service: a chain level's table is not built");
		levels[l].table = on_gpus ? t->copy[g] : t->table;
		levels[l].kind = (gh_level_kind) lv[l].kind;
		levels[l].n_parts = lv[l].n_parts;
		memcpy(levels[l].part, lv[l].part, sizeof(levels[l].part));
	}
	if (st == GH_OK)
	{
		uint64		cap = Min(s->capacity, lay.room);
		uint32	   *out = (uint32 *) (chunk + lay.out);
		const uint64 *keys = (const uint64 *) (chunk + lay.keys);
		const uint8 *valid = s->has_valid ? (const uint8 *) (chunk + lay.valid) : NULL;
		uint64		total = 0,
					written = 0;
		gh_page_lane *lane = NULL;
		int			lane_short = 0;

		memset(s->level_ms, 0, sizeof(s->level_ms));

		/*
		 * On a GPU the probe runs on a lane of level 0's table, the locks
		 * let go: the participants' chains then run at once instead of in
		 * turns, each level only read.  The tables stay in use (counted
		 * above), and each counts the probe among its lane readers, for
		 * which CARRY_FINISH waits before it drops copies or carried
		 * columns (chain.c sets those before any chain probe, so it does
		 * not wait in fact).  A lane too small for the combinations falls
		 * back to the probe under the locks.
		 */
		if (on_gpus &&
			gh_chain_lane_take(levels[0].table, s->n_levels, s->ncols, s->n,
							   s->has_valid, &lane) != GH_OK)
			lane = NULL;
		if (lane != NULL)
		{
			SvcTable   *t0 = NULL;
			gh_page_stats ps;

			for (int i = 0; i < n_held; i++)
			{
				if (held[i]->id == lv[0].table_id)
					t0 = held[i];
				pg_atomic_fetch_add_u32(&held[i]->lane_readers, 1);
			}
			for (int i = n_locked - 1; i >= 0; i--)
				pthread_mutex_unlock(&held[i]->copy_lock[g]);
			n_locked = 0;
			st = gh_chain_probe_lane(lane, levels, s->n_levels, keys, valid, s->ncols, s->n,
									 s->skip, out, out + cap, cap, &total, &written,
									 s->level_ms, &lane_short);
			if (st != GH_OK && !lane_short)
				svc_fail(s, st, gh_last_error());
			/* level 0's probe counted as the locked probe counts it; no time */
			memset(&ps, 0, sizeof(ps));
			ps.passed = s->n;
			pthread_mutex_lock(&t0->copy_lock[g]);
			gh_page_lane_give(levels[0].table, lane, st == GH_OK ? &ps : NULL);
			pthread_mutex_unlock(&t0->copy_lock[g]);
			for (int i = 0; i < n_held; i++)
				pg_atomic_fetch_sub_u32(&held[i]->lane_readers, 1);
			if (lane_short)
			{
				/* again under the locks, in the same order */
				for (; n_locked < n_held; n_locked++)
					pthread_mutex_lock(&held[n_locked]->copy_lock[g]);
				memset(s->level_ms, 0, sizeof(s->level_ms));
				if (pg_atomic_read_u32(&s->state) == SLOT_ABANDONED_RUNNING)
				{
					st = svc_fail(s, GH_ERR_INVALID, "request given up");
					lane_short = 0;
				}
			}
		}
		if (lane == NULL || lane_short)
		{
			/* under every level's copy lock, on the tables' own streams */
			st = gh_chain_probe_window(levels, s->n_levels, keys, valid, s->ncols, s->n,
									   s->skip, out, out + cap, cap, &total, &written,
									   s->level_ms);
			if (st != GH_OK)
				svc_fail(s, st, gh_last_error());
		}
		s->capacity = cap;
		s->total = total;
		s->written = written;
	}
	for (int i = n_locked - 1; i >= 0; i--)
		pthread_mutex_unlock(&held[i]->copy_lock[on_gpus ? g : 0]);

	pthread_mutex_lock(&svc_registry);
	if (on_gpus)
	{
		if (svc_gpu_fault(st))
			svc_gpu_failed(g, s->err);
		svc_gpu_busy(g, -1);
	}
	for (int i = 0; i < n_held; i++)
		svc_unuse_table(held[i]);
	svc_publish_locked();
	pthread_mutex_unlock(&svc_registry);
	return st;
}
