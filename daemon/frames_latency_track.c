/* Part 2 of the --latency reader: the frames of one layer. */
#include "frames_latency_track.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frames_latency_int.h"
#include "log.h"

struct frames_latency_tracker {
	char *layer;
	char *app;
	int64_t wm;
	int had_keys;
	/*
	 * The latest present emitted, and that latest as of the end of the
	 * last complete snapshot: a new frame earlier than it goes back.
	 */
	int64_t emitted_max;
	int64_t taken_max;
	int strict;
	int have_jump;
	struct frames_latency_jump jump;
	/* The last LATENCY_SEEN_MAX finalized keys, a ring. */
	int64_t seen[LATENCY_SEEN_MAX];
	size_t nseen;
	size_t seen_head;
	/* Keys of the frames waiting for a present, oldest first. */
	int64_t pending[LATENCY_ROWS_MAX];
	size_t npending;
	struct frames_latency_stats st;
};

int
frames_latency_tracker_new(const char *layer,
			   struct frames_latency_tracker **out)
{
	struct frames_latency_tracker *t = NULL;
	char app[LATENCY_NAME_MAX + 1];
	size_t len;
	int rc = -ENOMEM;

	if (!layer)
		return -EINVAL;
	len = strnlen(layer, LATENCY_NAME_MAX + 1);
	if (len == 0 || len > LATENCY_NAME_MAX)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto out;
	t->wm = INT64_MIN;
	t->emitted_max = INT64_MIN;
	t->taken_max = INT64_MIN;
	t->layer = strdup(layer);
	if (!t->layer)
		goto out;
	if (frames_latency_layer_package(layer, app, sizeof(app)) == 0) {
		t->app = strdup(app);
		if (!t->app)
			goto out;
	}
	*out = t;
	t = NULL;
	rc = 0;
out:
	frames_latency_tracker_free(t);
	return rc;
}

void
frames_latency_tracker_free(struct frames_latency_tracker *t)
{
	if (!t)
		return;
	free(t->layer);
	free(t->app);
	free(t);
}

static int
seen_has(const struct frames_latency_tracker *t, int64_t key)
{
	size_t i;

	for (i = 0; i < t->nseen; i++)
		if (t->seen[i] == key)
			return 1;
	return 0;
}

static void
seen_add(struct frames_latency_tracker *t, int64_t key)
{
	t->seen[t->seen_head] = key;
	t->seen_head = (t->seen_head + 1) % LATENCY_SEEN_MAX;
	if (t->nseen < LATENCY_SEEN_MAX)
		t->nseen++;
}

static int
pending_find(const struct frames_latency_tracker *t, int64_t key)
{
	size_t i;

	for (i = 0; i < t->npending; i++)
		if (t->pending[i] == key)
			return (int)i;
	return -1;
}

static void
pending_remove(struct frames_latency_tracker *t, size_t i)
{
	memmove(&t->pending[i], &t->pending[i + 1],
		(t->npending - i - 1) * sizeof(t->pending[0]));
	t->npending--;
}

static void
pending_add(struct frames_latency_tracker *t, int64_t key)
{
	/* Only a hostile input has more pending rows than a ring holds. */
	if (t->npending == LATENCY_ROWS_MAX) {
		pending_remove(t, 0);
		t->st.pending_lost++;
	}
	t->pending[t->npending++] = key;
}

static int
snapshot_has_key(const struct frames_latency_snapshot *snap, int64_t key)
{
	size_t i;

	for (i = 0; i < snap->nrows; i++)
		if (snap->rows[i].desired_ns == key)
			return 1;
	return 0;
}

/* After a complete snapshot: see the header's "Watermark". */
static void
tracker_advance(struct frames_latency_tracker *t, int64_t capture_ns)
{
	int64_t w = capture_ns;
	size_t i;

	for (i = 0; i < t->npending; i++) {
		int64_t p = t->pending[i];

		/* Keys are > 0, so capture_ns - p cannot overflow. */
		if (p <= capture_ns &&
		    capture_ns - p > LATENCY_PENDING_STALE_NS)
			continue;
		if (p - 1 < w)
			w = p - 1;
	}
	if (w > t->wm)
		t->wm = w;
}

/*
 * A presented frame earlier than what was taken before: see the header's
 * "Going back".  Returns 1 when r goes back, after counting it.
 */
static int
goes_back(struct frames_latency_tracker *t, const struct frames_latency_row *r,
	  int64_t capture_ns)
{
	if (t->taken_max == INT64_MIN || r->actual_ns >= t->taken_max)
		return 0;
	t->st.backwards++;
	if (!t->have_jump) {
		t->have_jump = 1;
		t->jump.from_ns = t->taken_max;
		t->jump.to_ns = r->actual_ns;
		t->jump.layer = t->layer;
	}
	log_debug("frame of layer '%s' queued at %lld goes back: presented at "
		  "%lld, before %lld, in the snapshot of %lld",
		  t->layer, (long long)r->desired_ns, (long long)r->actual_ns,
		  (long long)t->taken_max, (long long)capture_ns);
	return 1;
}

int
frames_latency_tracker_feed(struct frames_latency_tracker *t,
			    int64_t capture_ns,
			    const struct frames_latency_snapshot *snap,
			    frames_latency_frame_cb cb, void *ctx)
{
	const struct frames_latency_row *r;
	struct frames_latency_frame f;
	size_t i, keyed = 0;
	int overlap = 0, pi, rc;

	frames_latency_stats_add(&t->st, &snap->st, NULL);
	for (i = 0; i < snap->nrows; i++) {
		r = &snap->rows[i];
		if (r->desired_ns <= 0 || r->desired_ns == LATENCY_PENDING)
			continue;
		keyed++;
		if (seen_has(t, r->desired_ns)) {
			t->st.duplicates++;
			overlap = 1;
			continue;
		}
		pi = pending_find(t, r->desired_ns);
		if (pi >= 0)
			overlap = 1;
		switch (frames_latency_row_classify(r)) {
		case LATENCY_ROW_ZERO:
			break;
		case LATENCY_ROW_PENDING:
			if (pi < 0)
				pending_add(t, r->desired_ns);
			break;
		case LATENCY_ROW_INVALID:
			if (pi >= 0)
				pending_remove(t, (size_t)pi);
			seen_add(t, r->desired_ns);
			t->st.frames_invalid++;
			break;
		case LATENCY_ROW_PRESENTED:
			if (pi >= 0)
				pending_remove(t, (size_t)pi);
			seen_add(t, r->desired_ns);
			if (goes_back(t, r, capture_ns)) {
				if (t->strict)
					return -ERANGE;
				break;
			}
			t->st.frames++;
			if (r->actual_ns > t->emitted_max)
				t->emitted_max = r->actual_ns;
			if (!cb)
				break;
			f.layer = t->layer;
			f.app = t->app;
			f.desired_ns = r->desired_ns;
			f.present_ns = r->actual_ns;
			f.ready_ns = r->ready_ns > 0 && r->ready_ns !=
								LATENCY_PENDING
					     ? r->ready_ns
					     : -1;
			rc = cb(ctx, &f);
			if (rc != 0)
				return rc;
			break;
		}
	}
	if (!snap->complete)
		goto out;

	/*
	 * A complete snapshot shows the whole ring: a pending frame not in
	 * it was pushed out, or cleared, before its fence was read.
	 */
	for (i = t->npending; i-- > 0;) {
		if (snapshot_has_key(snap, t->pending[i]))
			continue;
		pending_remove(t, i);
		t->st.pending_lost++;
	}
	/*
	 * A full ring with nothing in common with what came before means
	 * more frames came between the two snapshots than the ring holds.
	 */
	if (t->had_keys && !overlap && keyed >= LATENCY_RING_ROWS &&
	    snap->st.zero_rows == 0) {
		t->st.gaps++;
		log_debug("frames of layer '%s' may be missing before %lld: "
			  "the ring overflowed between two snapshots",
			  t->layer, (long long)capture_ns);
	}
	tracker_advance(t, capture_ns);
	t->taken_max = t->emitted_max;
out:
	if (keyed > 0)
		t->had_keys = 1;
	return 0;
}

void
frames_latency_tracker_set_strict(struct frames_latency_tracker *t, int strict)
{
	t->strict = strict;
}

int
frames_latency_tracker_get_jump(const struct frames_latency_tracker *t,
				struct frames_latency_jump *j)
{
	if (!t->have_jump)
		return -ENOENT;
	*j = t->jump;
	return 0;
}

int64_t
frames_latency_tracker_watermark(const struct frames_latency_tracker *t)
{
	return t->wm;
}

const char *
frames_latency_tracker_layer(const struct frames_latency_tracker *t)
{
	return t->layer;
}

unsigned
frames_latency_tracker_pending(const struct frames_latency_tracker *t)
{
	return (unsigned)t->npending;
}

void
frames_latency_tracker_get_stats(const struct frames_latency_tracker *t,
				 struct frames_latency_stats *st)
{
	*st = t->st;
}
