/*-------------------------------------------------------------------------
 *
 * service_dim.h
 *	  Dimensions of the aggregate over a join in the GPU service
 *	  (service_dim.c): the inner side's rows, built once per participant
 *	  where its page requests are folded.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_SERVICE_DIM_H
#define GPUHASH_SERVICE_DIM_H

#include "gpuhash.h"
#include "gpuhash_agg.h"

/* What the service answered for a built dimension (EXPLAIN ANALYZE). */
typedef struct GhSvcDimInfo
{
	uint64		rows;
	uint64		bytes;			/* memory it holds on its device */
	int			device;			/* GPU ordinal, or GH_AGG_HOST */
	double		ship_ms;		/* its rows sent to the service */
	double		build_ms;		/* the whole build, rows sent included */
	char		note[192];		/* where it went when a GPU failed or was
								 * full ("" otherwise) */
} GhSvcDimInfo;

/*
 * Builds a dimension in the service on device (GH_DEVICE_GPU or
 * GH_DEVICE_HOST) from n rows (arguments as gh_agg_dim_build's), sent a
 * staging chunk at a time: any n and heap size.  Its id in *dim_id (never
 * 0), held by this backend until gpuhash_svc_dim_free or its exit.  False
 * when the service cannot take it now (not running, no slot free, a GPU
 * asked of a service without one, every GPU failed lately): the caller
 * builds it in-process or runs on the CPU.  ERROR when the device fails or
 * has no room within gpuhash.max_gpu_memory (nothing is then held).
 */
extern bool gpuhash_svc_dim_build(const uint64 *keys, uint64 n, const gh_agg_inval *vals,
								  int ninner, const uint8 *heap, uint64 heap_bytes,
								  gh_device device, uint64 *dim_id);
/* the same; what the service answered in *info (may be NULL) */
extern bool gpuhash_svc_dim_build_info(const uint64 *keys, uint64 n, const gh_agg_inval *vals,
									   int ninner, const uint8 *heap, uint64 heap_bytes,
									   gh_device device, uint64 *dim_id, GhSvcDimInfo *info);

/*
 * The same, held by backend owner_pid (a parallel query's leader, for a
 * dimension its workers share) and not by this one: this backend's exit
 * leaves it, the owner frees it, or the owner sweep at the owner's exit.
 */
extern bool gpuhash_svc_dim_build_for(int owner_pid, const uint64 *keys, uint64 n,
									  const gh_agg_inval *vals, int ninner,
									  const uint8 *heap, uint64 heap_bytes,
									  gh_device device, uint64 *dim_id, GhSvcDimInfo *info);

/*
 * One piece of a dimension held in pieces (a shared dimension's shares):
 * n rows' keys and values, and heap_len bytes of by-reference data that
 * the values' offsets point into.
 */
typedef struct GhDimPart
{
	const uint64 *keys;
	const gh_agg_inval *vals;
	const uint8 *heap;
	uint64		n;
	uint64		heap_len;
} GhDimPart;

/*
 * The same from nparts pieces laid end to end, each piece's heap at the
 * next multiple of 8 past the heaps before it and its values' offsets
 * moved there on their way: no copy of the whole in this backend.
 */
extern bool gpuhash_svc_dim_build_parts(int owner_pid, const GhDimPart *parts, int nparts,
										int ninner, gh_device device, uint64 *dim_id,
										GhSvcDimInfo *info);

/*
 * Frees the dimension and waits, boundedly, until the service has
 * destroyed it (after the last request running on it).  Never throws: for
 * error cleanup (a memory context reset callback) and exit.  0, or an id of
 * a service that is gone: nothing to do.
 */
extern void gpuhash_svc_dim_free(uint64 dim_id);

/*
 * The matched flags of the dimension's n rows (gh_agg_dim_matched) into
 * out, a staging chunk at a time.  ERROR when the service cannot answer
 * (gone, the dimension freed): the caller cannot tell its unmatched rows.
 */
extern void gpuhash_svc_dim_matched(uint64 dim_id, uint64 n, uint8 *out);

/* tests: this backend forgets the dimension, left to the service's owner sweep */
extern void gpuhash_svc_dim_disown(uint64 dim_id);

/*
 * service_dim_pages.c: a dimension's rows walked from heap pages in the
 * service (struct GpuPageReq: scan/page_scan.h)
 */
struct GpuPageReq;
extern uint32 gpuhash_service_dim_pages_capacity(int ncols, bool in_place, uint32 *rows,
												 uint64 *heap);
extern bool gpuhash_svc_dim_pages_submit(const gh_page_scan *scan, const int16 *cols, int ncols,
										 const struct GpuPageReq *req, gh_device device,
										 GhProbeTicket *tk);
extern bool gpuhash_dim_pages_rows(struct GpuPageReq *req, const gh_page_scan *scan,
								   const int16 *cols, int ncols, bool use_service,
								   gh_device device, uint64 *keys, gh_agg_inval *vals,
								   uint8 *heap, uint64 *n_rows, uint64 *heap_bytes,
								   gh_page_stats *stats);

/* dimensions the service holds now, of every backend (-1: not running) */
extern int	gpuhash_svc_dims_alive(void);

#endif							/* GPUHASH_SERVICE_DIM_H */
