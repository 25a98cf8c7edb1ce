/*-------------------------------------------------------------------------
 *
 * service_groups.h
 *	  Resident groups in the GPU service (service_groups.c): a GpuPreAgg's
 *	  groups kept where its requests are folded, read back once at the end
 *	  of the scan with the exact HAVING terms applied.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_SERVICE_GROUPS_H
#define GPUHASH_SERVICE_GROUPS_H

#include "gpuhash.h"
#include "gpuhash_agg_set.h"
#include "scan/page_scan.h"

/* What a finish answered (EXPLAIN ANALYZE). */
typedef struct GhSvcGroupsInfo
{
	uint64		resident;		/* groups in the set */
	uint64		returned;		/* groups answered */
	uint64		removed;		/* groups the HAVING terms dropped */
	bool		applied;		/* the HAVING terms were applied */
	int			device;			/* GPU ordinal, or GH_AGG_HOST */
} GhSvcGroupsInfo;

/*
 * A resident set for agg over scan on device (GH_DEVICE_GPU or
 * GH_DEVICE_HOST), at most cap_bytes of its device's memory, held by
 * backend owner_pid (this one, or a parallel query's leader whose workers
 * share it): its id in *set_id (never 0).  False when the service cannot
 * take it now (not running, no slot, no GPU): the node goes without.
 */
extern bool gpuhash_svc_groups_begin(int owner_pid, const gh_page_scan *scan,
									 const gh_agg_prog *agg, gh_device device,
									 uint64 cap_bytes, uint64 *set_id);

/*
 * Groups [pos, ...) of the set's finish, as many as a staging chunk holds
 * (gpuhash_svc_groups_room; none when pos is past the end),
 * into out (malloc'd arrays, as the core's sets; out->naggs set by the
 * caller); the first call finishes the set, with having's terms applied
 * when apply and every request's groups went in.  ERROR when the set is
 * gone or the service fails.
 */
extern void gpuhash_svc_groups_read(uint64 set_id, const gh_agg_having *having, bool apply,
									uint64 pos, gh_agg_groups *out, GhSvcGroupsInfo *info);

/*
 * The groups one read answers at most: the ranges a parallel plan's
 * participants take of the finished set (a read from past the end answers
 * none).
 */
extern uint64 gpuhash_svc_groups_room(int naggs, int key_words);

/* Frees the set (never throws: error cleanup and exit); 0: nothing. */
extern void gpuhash_svc_groups_free(uint64 set_id);

/* service_agg.c: a page request (joined to dimension dim_id, 0: none) whose groups go into set set_id */
extern bool gpuhash_svc_agg_submit_set(const gh_page_scan *scan, const gh_agg_prog *agg,
									   const GpuPageReq *req, gh_device device,
									   uint64 max_groups, GhProbeTicket *tk, uint64 dim_id,
									   uint64 set_id);

#endif							/* GPUHASH_SERVICE_GROUPS_H */
