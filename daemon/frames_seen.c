#include "frames_seen.h"

#include <errno.h>
#include <stdlib.h>

#include "frames_ftl.h"
#include "frames_live.h"

/* Open addressing at half load, a power of two. */
#define SEEN_TABLE (2 * FRAMES_LIVE_SEEN_MAX)

struct frames_seen {
	uint64_t *table; /* the keys, 0 for an empty slot */
	uint64_t *ring;	 /* the same keys in the order they came */
	size_t nring, head;
};

int
frames_seen_new(struct frames_seen **out)
{
	struct frames_seen *s;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->table = calloc(SEEN_TABLE, sizeof(*s->table));
	s->ring = calloc(FRAMES_LIVE_SEEN_MAX, sizeof(*s->ring));
	if (!s->table || !s->ring) {
		frames_seen_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void
frames_seen_free(struct frames_seen *s)
{
	if (!s)
		return;
	free(s->table);
	free(s->ring);
	free(s);
}

static size_t
seen_slot(uint64_t k)
{
	return (size_t)((k * UINT64_C(0x9e3779b97f4a7c15)) >> 32) &
	       (SEEN_TABLE - 1);
}

int
frames_seen_has(const struct frames_seen *s, uint64_t k)
{
	size_t i = seen_slot(k);

	while (s->table[i]) {
		if (s->table[i] == k)
			return 1;
		i = (i + 1) & (SEEN_TABLE - 1);
	}
	return 0;
}

/* Linear probing: deletion moves later entries of the run back. */
static void
seen_del(struct frames_seen *s, uint64_t k)
{
	size_t i = seen_slot(k), j, h;

	while (s->table[i] && s->table[i] != k)
		i = (i + 1) & (SEEN_TABLE - 1);
	if (!s->table[i])
		return;
	j = i;
	for (;;) {
		j = (j + 1) & (SEEN_TABLE - 1);
		if (!s->table[j])
			break;
		h = seen_slot(s->table[j]);
		/* Move j to i unless its home lies cyclically in (i, j]. */
		if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
			s->table[i] = s->table[j];
			i = j;
		}
	}
	s->table[i] = 0;
}

void
frames_seen_add(struct frames_seen *s, uint64_t k)
{
	size_t i;

	if (s->nring == FRAMES_LIVE_SEEN_MAX) {
		seen_del(s, s->ring[s->head]);
		s->ring[s->head] = k;
		s->head = (s->head + 1) % FRAMES_LIVE_SEEN_MAX;
	} else {
		s->ring[s->nring++] = k;
	}
	i = seen_slot(k);
	while (s->table[i])
		i = (i + 1) & (SEEN_TABLE - 1);
	s->table[i] = k;
}

static uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	h ^= h >> 29;
	return h;
}

uint64_t
frames_seen_key(const struct frames_ftl_frame *f)
{
	uint64_t h = UINT64_C(1469598103934665603);
	const unsigned char *p;

	h = mix(h, (uint64_t)(uint32_t)f->pid);
	h = mix(h, (uint64_t)f->token);
	h = mix(h, (uint64_t)f->display_token);
	for (p = (const unsigned char *)f->layer; *p; p++)
		h = (h ^ *p) * UINT64_C(1099511628211);
	h = mix(h, 0);
	return h ? h : 1;
}
