/*
 * host_build.h
 *		What the host twin's builders share (host_build.cpp, host_fks.cpp,
 *		host_gph.cpp, host_linear.cpp): the cancel polls, memory the table
 *		holds, scratch freed on every exit path.
 */
#ifndef GPUHASH_HOST_BUILD_H
#define GPUHASH_HOST_BUILD_H

#include "build_driver.h"
#include "scheme_ops.h"

#include <stdlib.h>

namespace gh_host
{

/*
 * The running build's options (a build runs on one thread), for its cancel
 * callback: asked at each step and every so many iterations of the long
 * loops, so that an unwanted build stops within milliseconds.
 */
extern thread_local const gh_build_options *build_opt;

inline bool
cancelled()
{
	return build_opt && build_opt->cancelled && build_opt->cancelled(build_opt->cancel_arg);
}

/* cancelled(), asked at every (mask + 1)th iteration only */
inline bool
cancelled_every(size_t i, size_t mask)
{
	return (i & mask) == 0 && cancelled();
}

constexpr size_t ROW_POLL = ((size_t) 1 << 16) - 1;	/* rows between polls */

inline gh_status
cancel_error()
{
	return gh_error(GH_ERR_CANCELLED, "build cancelled");
}

/* malloc that records what the table holds */
inline void *
take(gh_table *t, size_t bytes)
{
	void	   *p = malloc(bytes ? bytes : 1);

	if (p)
		t->host_bytes += bytes;
	return p;
}

/*
 * The same, zeroed.  calloc knows fresh pages are zero already: a large
 * slot array costs no memset pass, and its pages are touched only by the
 * (cancellable) loop that fills it.
 */
inline void *
take_zeroed(gh_table *t, size_t bytes)
{
	void	   *p = calloc(bytes ? bytes : 1, 1);

	if (p)
		t->host_bytes += bytes;
	return p;
}

/* Scratch arrays freed on every exit path. */
struct scratch
{
	void	   *p[16];
	int			n = 0;

	void	   *get(size_t bytes, bool zero = false)
	{
		void	   *q = zero ? calloc(bytes ? bytes : 1, 1) : malloc(bytes ? bytes : 1);

		if (q)
			p[n++] = q;
		return q;
	}
	~scratch()
	{
		for (int i = 0; i < n; i++)
			free(p[i]);
	}
};

}								/* namespace gh_host */

#endif							/* GPUHASH_HOST_BUILD_H */
