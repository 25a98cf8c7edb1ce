/*-------------------------------------------------------------------------
 *
 * service_gpus.h
 *	  The GPU service's GPUs (service_gpus.c), for service_worker.c.  A GPU
 *	  is named by its index g in gpuhash_svc->gpu[]; svc_gpu_ordinal(g) is
 *	  its CUDA device number.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_SERVICE_GPUS_H
#define GPUHASH_SERVICE_GPUS_H

#include "service_internal.h"

extern int	svc_gpus_start(const char **why);
extern int	svc_gpu_count(void);
extern int	svc_gpu_ordinal(int g);
extern void svc_gpus_refresh(void);

/* with the registry lock held */
extern bool svc_gpu_ok(int g);
extern void svc_gpu_failed(int g, const char *why);
extern void svc_gpu_busy(int g, int delta);
extern void svc_gpu_holds(int g, int delta, uint64 bytes);
extern int	svc_gpus_by_load(int order[SVC_MAX_GPUS]);
extern int	svc_gpu_for_probe(int home, const bool *has, uint64 bytes, uint64 budget);

#endif							/* GPUHASH_SERVICE_GPUS_H */
