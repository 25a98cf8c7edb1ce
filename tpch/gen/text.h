/*
 * Comment text: the specification draws every comment as a random substring
 * of a large pool of sentences produced by a small English-like grammar.
 * We do the same with a smaller pool built once per process from a fixed seed.
 */
#ifndef TPCH_TEXT_H
#define TPCH_TEXT_H

#include <stddef.h>
#include "rng.h"

void text_init(uint64_t seed);

/* A random pool substring whose length is uniform in [min, max]. */
const char *text_pick(rng_t *r, int min, int max, int *len);

/* Random alphanumeric string ("v-string") of length uniform in [min, max]. */
int vstring(rng_t *r, int min, int max, char *dst);

#endif
