/*-------------------------------------------------------------------------
 *
 * service.h
 *	  The gpuhash GPU service: one background worker that owns the CUDA
 *	  context, the device memory and the join tables of the whole cluster,
 *	  and serves requests that backends place in shared memory.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_SERVICE_H
#define GPUHASH_SERVICE_H

#include "gpuhash.h"

/* settings */
extern int	gpuhash_staging_memory_mb;
extern int	gpuhash_service_threads;
extern bool gpuhash_use_service;

/* _PG_init while preloading: shared memory and the worker's registration */
extern void gpuhash_service_register(void);

/* true when the service runs and takes requests */
extern bool gpuhash_service_ready(void);

/* what the service found at start: GPUs usable by it (0: host twin only) */
extern int	gpuhash_service_gpu_count(void);
/* and when that is 0, why */
extern const char *gpuhash_service_no_gpu_reason(void);

extern gh_status gpuhash_svc_build(const gh_build_options *opt, const GpuKeyParts *keys,
								   int owner_pid, GhRemoteTable *t);
extern gh_status gpuhash_svc_rowids(GhRemoteTable *t, uint32 *rowids);
extern gh_status gpuhash_svc_probe(GhRemoteTable *t, const uint64 *keys, uint64 n,
								   gh_range *ranges);
/* keys one probe request takes (a staging chunk's worth); 0: no service */
extern uint64 gpuhash_service_probe_capacity(void);
extern bool gpuhash_svc_probe_submit(GhRemoteTable *t, const uint64 *keys, uint64 n,
									 GhProbeTicket *tk);
extern gh_status gpuhash_svc_probe_wait(GhRemoteTable *t, GhProbeTicket *tk, gh_range *ranges);
extern void gpuhash_svc_probe_abandon(GhProbeTicket *tk);

/* multi-level joins (issue 14): carried columns, chain probes by windows */
extern gh_status gpuhash_svc_set_carried(GhRemoteTable *t, const uint64 *keys,
										 const uint8 *valid, int ncols);
extern gh_status gpuhash_svc_chain_submit(GhRemoteTable *const *tables,
										  const gh_chain_level *levels, int n_levels,
										  const uint64 *outer_keys, const uint8 *outer_valid,
										  int n_outer_cols, uint64 n, uint64 skip,
										  uint64 capacity, GhChainTicket *tk);
extern gh_status gpuhash_svc_chain_wait(GhChainTicket *tk, uint32 *out_outer, uint32 *out_pos,
										uint64 capacity, uint64 *total, uint64 *written,
										double *level_ms);
extern void gpuhash_svc_chain_abandon(GhChainTicket *tk);
extern gh_status gpuhash_svc_chain_probe(GhRemoteTable *const *tables,
										 const gh_chain_level *levels, int n_levels,
										 const uint64 *outer_keys, const uint8 *outer_valid,
										 int n_outer_cols, uint64 n, uint64 skip,
										 uint32 *out_outer, uint32 *out_pos,
										 uint64 capacity, uint64 *total, uint64 *written,
										 double *level_ms);
/* outer rows one chain request takes, with room for as many combinations; 0: no service */
extern uint64 gpuhash_service_chain_rows(int n_outer_cols, int n_levels);

/*
 * Waits, boundedly, until the service has destroyed the table; never
 * throws, so error cleanup and exit callbacks can free.
 */
extern void gpuhash_svc_free(GhRemoteTable *t);

/* For gpuhash_info(). */
typedef struct GhServiceStatus
{
	bool		running;
	int			pid;
	int			gpus;
	bool		pinned;
	bool		pool_in_place;
	uint64		staging_bytes;
	uint64		staging_in_use;
	int			tables_alive;
	int			dims_alive;		/* dimensions of aggregates over joins */
	uint64		device_bytes;
	uint64		requests_served;
} GhServiceStatus;

extern void gpuhash_service_status(GhServiceStatus *st);
extern bool gpuhash_service_gpu_info(int i, gh_gpu_info *info, int *driver, int *runtime);

/* per GPU of the service (read without a lock: figures of a moment) */
typedef struct GhGpuUse
{
	int			tables;			/* join tables, copies of them and dimensions
								 * (service_dim.c) on it */
	uint64		bytes;			/* their GPU memory */
	uint64		requests;		/* requests it served */
	bool		failed;			/* left out after a CUDA failure */
	char		failure[160];
} GhGpuUse;

extern bool gpuhash_service_gpu_use(int i, GhGpuUse *use);

#endif							/* GPUHASH_SERVICE_H */
