/*
 * gpu_linear.cu
 *		Linear probing over the distinct keys: the in-project baseline the
 *		perfect-hash schemes are measured against.  Keys are distinct here,
 *		so an insert only claims an empty slot: a CAS of the slot's
 *		(off, cnt) word from 0 (empty; cnt >= 1 for every key) to its value.
 */
#include "gpu_common.cuh"

namespace
{

__global__ void
insert(gh_lin_view v, const uint64_t *__restrict__ dk, const uint32_t *__restrict__ doff,
	   const uint32_t *__restrict__ dcnt, uint32_t u, gh_slot *slots)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= u)
		return;

	uint64_t	key = dk[i];
	unsigned long long payload = (unsigned long long) doff[i] | ((unsigned long long) dcnt[i] << 32);

	for (uint64_t j = gh_lin_home(v, key);; j = (j + 1) & v.mask)
	{
		unsigned long long *word = (unsigned long long *) &slots[j].off;

		if (atomicCAS(word, 0ULL, payload) == 0ULL)
		{
			slots[j].key = key;
			return;
		}
	}
}

}								/* namespace */

gh_status
gh_gpu_build_linear(gh_table *t, const uint64_t *dk, const uint32_t *doff,
					const uint32_t *dcnt, uint32_t u, uint64_t seed, double lf)
{
	gh_gpu_state *g = t->gpu;
	uint64_t	cap = gh_lin_capacity_for(u, lf);
	uint64_t	sd = gh_attempt_seed(seed, 0);
	gh_lin_view v;

	GH_CHECK(gh_dmalloc(t, (void **) &g->d_slots, cap * sizeof(gh_slot)));
	GH_TRY(cudaMemsetAsync(g->d_slots, 0, cap * sizeof(gh_slot), g->stream));
	v.slots = g->d_slots;
	v.mask = cap - 1;
	v.seed = gh_splitmix64(&sd);
	if (u > 0)
	{
		insert<<<gh_blocks(u, 256), 256, 0, g->stream>>>(v, dk, doff, dcnt, u, g->d_slots);
		GH_LAUNCHED();
	}
	t->lin = v;
	t->seed = seed;
	t->attempts = 1;
	t->rounds = 1;
	t->n_slots = cap;
	t->n_cells = 0;
	return GH_OK;
}
