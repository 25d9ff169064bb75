/*
 * The hash tables of the FrameTimeline reader (frames_ftl.h): open
 * starts and display presents, keyed by sequence and cookie or token.
 */
#ifndef TAPD_FRAMES_FTL_TABLE_H
#define TAPD_FRAMES_FTL_TABLE_H

#include <stdint.h>

enum frames_ftl_ent_kind {
	ENT_FREE = 0,
	ENT_EXPECTED,	     /* an expected-timeline start, kept to pair */
	ENT_DISPLAY,	     /* an actual display frame; val = its token */
	ENT_DISPLAY_IGNORED, /* token 0 or dropped: no present to record */
	ENT_SURFACE,	     /* an actual surface frame; val = pool index */
	ENT_SURFACE_DROPPED, /* PRESENT_DROPPED: counted, never emitted */
	ENT_PRESENT,	     /* present table: val = present time */
};

/* A slot of the open-start table or of the present table. */
struct frames_ftl_ent {
	int64_t key; /* cookie, or display token */
	int64_t t;   /* MONOTONIC time that ages the entry */
	int64_t val;
	uint32_t seq;
	uint8_t kind;  /* enum frames_ftl_ent_kind */
	uint8_t flags; /* FTL_FRAME_* the entry passes on to its frames */
};

/*
 * Open addressing with linear probing, at most half full so a probe always
 * ends on a free slot, and backward-shift deletion so no tombstones build
 * up in a table that lives as long as the trace.
 */
struct frames_ftl_table {
	struct frames_ftl_ent *slot;
	uint32_t mask;
	uint32_t count;
	uint32_t max;
};

/*
 * Makes t empty, with room for max entries.  Returns 0 or -ENOMEM; the
 * caller frees t->slot.
 */
int frames_ftl_table_init(struct frames_ftl_table *t, uint32_t max);

/* The entry of (seq, key), or NULL. */
struct frames_ftl_ent *frames_ftl_table_find(struct frames_ftl_table *t,
					     uint32_t seq, int64_t key);

/*
 * A new entry for (seq, key), its kind, time and value for the caller to
 * set.  The caller checked that the key is absent and count < max.
 */
struct frames_ftl_ent *frames_ftl_table_add(struct frames_ftl_table *t,
					    uint32_t seq, int64_t key);

/* Removes e, which must be an entry of t. */
void frames_ftl_table_del(struct frames_ftl_table *t, struct frames_ftl_ent *e);

/* The entry with the smallest t, or NULL when the table is empty. */
struct frames_ftl_ent *frames_ftl_table_oldest(struct frames_ftl_table *t);

#endif
