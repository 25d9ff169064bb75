/*
 * The keys of the frames a live source emitted last, so that a frame two
 * overlapping perfetto sessions both recorded comes out once
 * (frames_live.h, "No frame lost or duplicated").  The last
 * FRAMES_LIVE_SEEN_MAX keys are kept; the oldest is forgotten first.
 */
#ifndef TAPD_FRAMES_SEEN_H
#define TAPD_FRAMES_SEEN_H

#include <stdint.h>

struct frames_ftl_frame;
struct frames_seen;

/* Returns 0 and sets *out, or -ENOMEM.  Free with frames_seen_free(). */
int frames_seen_new(struct frames_seen **out);

/* NULL is a no-op. */
void frames_seen_free(struct frames_seen *s);

/* 1 when key is among those kept, else 0. */
int frames_seen_has(const struct frames_seen *s, uint64_t key);

/* Keeps key (not yet kept), forgetting the oldest when full. */
void frames_seen_add(struct frames_seen *s, uint64_t key);

/*
 * A frame's identity, never 0: a hash of (pid, token, display frame
 * token, layer), the same in every session.
 */
uint64_t frames_seen_key(const struct frames_ftl_frame *f);

#endif
