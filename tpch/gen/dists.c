/* Fixed value lists of the TPC-H specification. */
#include "dists.h"

const char *const region_names[N_REGIONS] = {
	"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST",
};

/* Nation keys are the array positions; the region keys are fixed by the spec. */
const nation_def nations[N_NATIONS] = {
	{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1},
	{"EGYPT", 4}, {"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3},
	{"INDIA", 2}, {"INDONESIA", 2}, {"IRAN", 4}, {"IRAQ", 4},
	{"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0}, {"MOROCCO", 0},
	{"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
	{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3},
	{"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
};

/* Words for P_NAME. */
const char *const colors[N_COLORS] = {
	"almond", "antique", "aquamarine", "azure", "beige", "bisque", "black",
	"blanched", "blue", "blush", "brown", "burlywood", "burnished",
	"chartreuse", "chiffon", "chocolate", "coral", "cornflower", "cornsilk",
	"cream", "cyan", "dark", "deep", "dim", "dodger", "drab", "firebrick",
	"floral", "forest", "frosted", "gainsboro", "ghost", "goldenrod",
	"green", "grey", "honeydew", "hot", "indian", "ivory", "khaki", "lace",
	"lavender", "lawn", "lemon", "light", "lime", "linen", "magenta",
	"maroon", "medium", "metallic", "midnight", "mint", "misty", "moccasin",
	"navajo", "navy", "olive", "orange", "orchid", "pale", "papaya",
	"peach", "peru", "pink", "plum", "powder", "puff", "purple", "red",
	"rose", "rosy", "royal", "saddle", "salmon", "sandy", "seashell",
	"sienna", "sky", "slate", "smoke", "snow", "spring", "steel", "tan",
	"thistle", "tomato", "turquoise", "violet", "wheat", "white", "yellow",
};

const char *const type_s1[6] = {
	"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO",
};
const char *const type_s2[5] = {
	"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED",
};
const char *const type_s3[5] = {
	"TIN", "NICKEL", "BRASS", "STEEL", "COPPER",
};
const char *const container_s1[5] = {
	"SM", "LG", "MED", "JUMBO", "WRAP",
};
const char *const container_s2[8] = {
	"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM",
};
const char *const segments[5] = {
	"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD",
};
const char *const priorities[5] = {
	"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW",
};
const char *const instructions[4] = {
	"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN",
};
const char *const ship_modes[7] = {
	"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB",
};
