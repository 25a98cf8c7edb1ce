/* Fixed value lists of the TPC-H specification (clause 4.2.2.13 and 4.2.3). */
#ifndef TPCH_DISTS_H
#define TPCH_DISTS_H

typedef struct {
	const char *name;
	int region;
} nation_def;

#define N_REGIONS 5
#define N_NATIONS 25
#define N_COLORS 92

extern const char *const region_names[N_REGIONS];
extern const nation_def nations[N_NATIONS];
extern const char *const colors[N_COLORS];

extern const char *const type_s1[6];
extern const char *const type_s2[5];
extern const char *const type_s3[5];
extern const char *const container_s1[5];
extern const char *const container_s2[8];
extern const char *const segments[5];
extern const char *const priorities[5];
extern const char *const instructions[4];
extern const char *const ship_modes[7];

#endif
