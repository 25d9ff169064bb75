/* The hash tables of the FrameTimeline reader. */
#include "frames_ftl_table.h"

#include <errno.h>
#include <stdlib.h>

/*
 * Keys in runs of this many share a block of slots: cookies and tokens
 * come from counters, so the keys a join holds at one time are nearly
 * consecutive, and consecutive keys then sit in consecutive slots, in
 * the few cache lines the probes of nearby keys touch, instead of one
 * line each anywhere in the table.
 */
#define ENT_RUN 256u

static uint32_t
ent_hash(uint32_t seq, int64_t key)
{
	uint64_t x = ((uint64_t)key / ENT_RUN) ^ ((uint64_t)seq << 32 | seq);

	/* The splitmix64 finalizer places each run of keys anywhere. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return (uint32_t)x + (uint32_t)((uint64_t)key % ENT_RUN);
}

int
frames_ftl_table_init(struct frames_ftl_table *t, uint32_t max)
{
	uint32_t cap = 16;

	while (cap < 2 * (uint64_t)max)
		cap *= 2;
	t->slot = calloc(cap, sizeof(*t->slot));
	if (t->slot == NULL)
		return -ENOMEM;
	t->mask = cap - 1;
	t->count = 0;
	t->max = max;
	return 0;
}

struct frames_ftl_ent *
frames_ftl_table_find(struct frames_ftl_table *t, uint32_t seq, int64_t key)
{
	uint32_t i = ent_hash(seq, key) & t->mask;

	while (t->slot[i].kind != ENT_FREE) {
		if (t->slot[i].key == key && t->slot[i].seq == seq)
			return &t->slot[i];
		i = (i + 1) & t->mask;
	}
	return NULL;
}

/* The caller checked that the key is absent and count < max. */
struct frames_ftl_ent *
frames_ftl_table_add(struct frames_ftl_table *t, uint32_t seq, int64_t key)
{
	uint32_t i = ent_hash(seq, key) & t->mask;

	while (t->slot[i].kind != ENT_FREE)
		i = (i + 1) & t->mask;
	t->slot[i].seq = seq;
	t->slot[i].key = key;
	t->slot[i].flags = 0;
	t->count++;
	return &t->slot[i];
}

/*
 * Removes e and moves later members of its probe run back into the hole,
 * so every entry stays reachable from its home slot.
 */
void
frames_ftl_table_del(struct frames_ftl_table *t, struct frames_ftl_ent *e)
{
	uint32_t i = (uint32_t)(e - t->slot), j = i, home;

	for (;;) {
		j = (j + 1) & t->mask;
		if (t->slot[j].kind == ENT_FREE)
			break;
		home = ent_hash(t->slot[j].seq, t->slot[j].key) & t->mask;
		/* The entry at j may move to i unless home lies in (i, j]. */
		if (i <= j ? (home <= i || home > j)
			   : (home <= i && home > j)) {
			t->slot[i] = t->slot[j];
			i = j;
		}
	}
	t->slot[i].kind = ENT_FREE;
	t->count--;
}

struct frames_ftl_ent *
frames_ftl_table_oldest(struct frames_ftl_table *t)
{
	struct frames_ftl_ent *old = NULL;
	uint32_t i;

	for (i = 0; i <= t->mask; i++) {
		if (t->slot[i].kind == ENT_FREE)
			continue;
		if (old == NULL || t->slot[i].t < old->t)
			old = &t->slot[i];
	}
	return old;
}
