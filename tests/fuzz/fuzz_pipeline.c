/*
 * libFuzzer target for the measuring pipeline after the input readers:
 * the input decodes into a stream of evdev events (type, code, value and
 * a time step), frames of three apps, foreground switches, watermark
 * advances and lost devices, fed through touch -> gesture -> correlate
 * into a real store.  A second touch tracker and classifier see the same
 * events, so that what touch.h and gesture.h promise is checked at each
 * step; at the end the stored rows are read back and checked against
 * correlate.h's definitions.  A broken promise aborts.
 *
 * The first byte chooses the run: bit 0 lets time go backwards, bit 1
 * attaches a frame source (coverage), bit 2 sets a wall clock anchor,
 * bit 3 maps the axes to display px, bit 4 uses a foreground log instead
 * of one app throughout.  Then come 8-byte records.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/input.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "correlate.h"
#include "foreground.h"
#include "gesture.h"
#include "log.h"
#include "pipeline.h"
#include "store.h"
#include "store_sql.h"
#include "touch.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MS INT64_C(1000000)
#define S  INT64_C(1000000000)

#define FLAG_BACKWARDS 0x01u
#define FLAG_COVERAGE  0x02u
#define FLAG_WALL      0x04u
#define FLAG_MAPPING   0x08u
#define FLAG_FGLOG     0x10u

static const char *const apps[] = {"com.example.mail", "com.example.maps",
				   "org.fuzz"};

static struct store *store;
static char dir[512];

/* The side chain: what the touch tracker and the classifier promise. */
struct side {
	struct gesture *gesture;
	int64_t frame_ns; /* time of the SYN_REPORT being delivered */
	int phase;	  /* rank of the last phase delivered in this frame */
	uint64_t next_contact; /* one above the highest contact seen */
	uint64_t down[64];     /* contacts down */
	unsigned ndown;
	int ordered;
};

static int
side_touch(void *ctx, const struct touch_point *pt)
{
	struct side *s = ctx;
	struct gesture_record rec;
	unsigned i;
	int rank;

	/* Every change carries the time of the SYN_REPORT that ended it. */
	if (pt->time_ns != s->frame_ns)
		abort();
	/* Ups, then moves, then downs. */
	rank = pt->phase == TOUCH_UP ? 0 : pt->phase == TOUCH_MOVE ? 1 : 2;
	if (rank < s->phase)
		abort();
	s->phase = rank;
	for (i = 0; i < s->ndown && s->down[i] != pt->contact; i++)
		;
	switch (pt->phase) {
	case TOUCH_DOWN:
		/* A new serial number, above every one before. */
		if (pt->contact < s->next_contact || i < s->ndown ||
		    s->ndown >= sizeof(s->down) / sizeof(s->down[0]))
			abort();
		s->next_contact = pt->contact + 1;
		s->down[s->ndown++] = pt->contact;
		break;
	case TOUCH_MOVE:
		if (i == s->ndown)
			abort();
		break;
	case TOUCH_UP:
		if (i == s->ndown)
			abort();
		s->down[i] = s->down[--s->ndown];
		break;
	default:
		abort();
	}
	if (pt->active != s->ndown)
		abort();
	if (gesture_feed(s->gesture, pt, &rec) == 1) {
		if ((unsigned)rec.kind >= GESTURE_KIND_COUNT ||
		    rec.fingers < 1 || rec.max_dist_px < 0 ||
		    !gesture_kind_name(rec.kind))
			abort();
		if (s->ordered && rec.t_up_ns < rec.t_down_ns)
			abort();
		if (s->ndown != 0 || gesture_in_progress(s->gesture))
			abort();
	}
	return 0;
}

static int
side_feed(struct side *s, struct touch *t, const struct touch_event *ev)
{
	s->frame_ns = ev->time_ns;
	s->phase = -1;
	return touch_feed(t, ev, side_touch, s);
}

/* The evdev types and codes worth reaching often; the rest come raw. */
#define RAW 0xffff
static const uint16_t types[] = {EV_SYN, EV_SYN, EV_ABS, EV_ABS,
				 EV_ABS, EV_KEY, EV_MSC, RAW};
static const uint16_t abs_codes[] = {ABS_MT_SLOT,
				     ABS_MT_TRACKING_ID,
				     ABS_MT_POSITION_X,
				     ABS_MT_POSITION_Y,
				     ABS_MT_TRACKING_ID,
				     ABS_X,
				     ABS_Y,
				     ABS_MT_TOUCH_MAJOR,
				     ABS_MT_PRESSURE,
				     ABS_MT_POSITION_X,
				     ABS_MT_POSITION_Y,
				     ABS_MT_SLOT};
static const uint16_t syn_codes[] = {SYN_REPORT, SYN_REPORT, SYN_MT_REPORT,
				     SYN_DROPPED};
static const uint16_t key_codes[] = {BTN_TOUCH, BTN_TOOL_FINGER,
				     BTN_TOOL_DOUBLETAP};

/* The stored rows of the run, checked one by one. */
static void
check_rows(int64_t run, int ordered, int64_t *count)
{
	sqlite3_stmt *st = NULL;
	int64_t last_up = INT64_MIN;

	*count = 0;
	if (sqlite3_prepare_v2(
		    store__sqlite(store),
		    "SELECT kind, status, t_down_ns, t_up_ns, first_frame_ns,"
		    " settle_ns, frames, flags FROM taps WHERE run = ?"
		    " ORDER BY id",
		    -1, &st, NULL) != SQLITE_OK)
		abort();
	sqlite3_bind_int64(st, 1, run);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 0);
		const char *status = (const char *)sqlite3_column_text(st, 1);
		int64_t down = sqlite3_column_int64(st, 2);
		int64_t up = sqlite3_column_int64(st, 3);
		int have_first = sqlite3_column_type(st, 4) != SQLITE_NULL;
		int have_settle = sqlite3_column_type(st, 5) != SQLITE_NULL;
		int64_t first = sqlite3_column_int64(st, 4);
		int64_t settle = sqlite3_column_int64(st, 5);
		int64_t frames = sqlite3_column_int64(st, 6);
		int measured = strcmp(kind, "tap") == 0 ||
			       strcmp(kind, "long_press") == 0;

		(*count)++;
		if (ordered && up < down)
			abort();
		if (frames < 0 || (sqlite3_column_int64(st, 7) & ~INT64_C(15)))
			abort();
		if (!measured) {
			if (strcmp(status, "not_measured") != 0 || have_first ||
			    have_settle || frames != 0)
				abort();
			continue;
		}
		/* Measured taps are finalized, so stored, in t_up order. */
		if (ordered && up < last_up)
			abort();
		last_up = up;
		if (strcmp(status, "not_measured") == 0)
			abort();
		/* Response frames start in the window, at or after t_up. */
		if (have_first && first < 0)
			abort();
		if (have_settle && (!have_first || settle < first))
			abort();
		if (strcmp(status, "ok") == 0 &&
		    (frames < 1 || !have_first || !have_settle))
			abort();
		if (strcmp(status, "no_response") == 0 &&
		    (frames != 0 || have_first))
			abort();
		if (strcmp(status, "frames_unavailable") == 0 && have_first)
			abort();
		if (have_first != (frames > 0))
			abort();
	}
	sqlite3_finalize(st);
}

static void
run(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	struct pipeline_config cfg;
	struct pipeline_options o;
	struct pipeline_stats ps;
	struct foreground *fg = NULL;
	struct pipeline *p = NULL;
	struct touch *t = NULL;
	struct side side;
	int64_t now = S, run_id = 0, rows, frames_wm = 0, input_wm = 0;
	uint64_t gestures = 0;
	unsigned flags = fuzz_u8(&in), k;
	int ordered = !(flags & FLAG_BACKWARDS), rc;

	memset(&side, 0, sizeof(side));
	side.ordered = ordered;
	memset(&cfg, 0, sizeof(cfg));
	pipeline_options_init(&o);
	pipeline_configure(&cfg, &o, NULL, NULL, NULL);
	if (flags & FLAG_MAPPING) {
		cfg.gesture.have_mapping = 1;
		cfg.gesture.x.min = 0;
		cfg.gesture.x.max = 4095;
		cfg.gesture.y.min = -100;
		cfg.gesture.y.max = 8191;
		cfg.gesture.width_px = 1080;
		cfg.gesture.height_px = 2400;
	}
	if (flags & FLAG_FGLOG)
		rc = foreground_new(&fg);
	else
		rc = foreground_new_static(apps[0], &fg);
	if (rc != 0 || touch_new(&t) != 0 ||
	    gesture_new(&cfg.gesture, &side.gesture) != 0)
		abort();
	if (store_begin_run(store, "replay", "fuzz", &run_id) != 0)
		abort();
	cfg.store = store;
	cfg.fg = fg;
	if (pipeline_new(&cfg, &p) != 0)
		abort();
	if (flags & FLAG_COVERAGE)
		pipeline_set_coverage(p, 0);
	if (flags & FLAG_WALL)
		pipeline_set_wall_offset(p, INT64_C(1700000000) * S);

	while (in.left > 0) {
		uint8_t sel = fuzz_u8(&in), b1 = fuzz_u8(&in);
		int32_t value = (int32_t)fuzz_u32(&in);
		uint16_t step = fuzz_u16(&in);
		int64_t dt = (int64_t)(step & 0x7fff) * 100000;

		/* A step of 0.1 ms units; the top bit goes back in time. */
		if ((step & 0x8000) && !ordered)
			dt = -dt;
		now += dt;
		if (now < 0)
			now = 0;
		if (sel & 0x80) {
			switch ((sel >> 4) & 7) {
			case 0:
			case 1:
			case 2: {
				/* A frame: start around now, present later. */
				struct correlate_frame f;

				memset(&f, 0, sizeof(f));
				k = b1 % 4;
				f.app = k < 3 ? apps[k] : NULL;
				f.layer = (b1 & 4) ? "org.fuzz/org.fuzz.Main#3"
						   : NULL;
				f.pid = (b1 & 8) ? 1234 : 0;
				f.start_ns =
					now + (int64_t)(int16_t)value * 100000;
				f.present_ns =
					f.start_ns +
					(int64_t)((uint32_t)value >> 16) *
						10000;
				if (b1 & 16)
					f.present_ns = f.start_ns - 1;
				f.jank = (uint32_t)sel & 0xf;
				if (pipeline_frame(p, &f) != 0)
					abort();
				break;
			}
			case 3:
				/* Watermarks, which only move forward. */
				frames_wm = now + (int64_t)(int16_t)value * MS;
				input_wm = ordered ? now : now + (b1 % 8) * S;
				if (pipeline_advance(p, frames_wm, input_wm) !=
					    0 &&
				    ordered)
					abort();
				break;
			case 4:
				if (fg && (flags & FLAG_FGLOG) &&
				    foreground_add(fg, now, value & 0xffff,
						   apps[b1 % 3]) != 0)
					abort();
				break;
			case 5:
				rc = pipeline_input_lost(p, now);
				if (rc != 0 && ordered)
					abort();
				side.frame_ns = now;
				side.phase = -1;
				if (touch_flush(t, now, side_touch, &side) != 0)
					abort();
				break;
			default:
				if (pipeline_flush(p) != 0)
					abort();
				break;
			}
			continue;
		}
		{
			struct touch_event ev;

			ev.time_ns = now;
			ev.type = types[sel & 7];
			switch (ev.type) {
			case EV_SYN:
				ev.code = syn_codes[b1 % 4];
				break;
			case EV_ABS:
				ev.code = b1 < 0xc0 ? abs_codes[b1 % 12] : b1;
				break;
			case EV_KEY:
				ev.code = key_codes[b1 % 3];
				break;
			case RAW:
				ev.type = (uint16_t)(sel >> 3);
				ev.code = b1;
				break;
			default:
				ev.code = b1;
				break;
			}
			/* Small values (slots, ids, -1) most of the time. */
			ev.value = (sel & 0x40) ? value : (int8_t)value;
			rc = pipeline_input(p, &ev);
			if (rc != 0 && ordered)
				abort();
			if (side_feed(&side, t, &ev) != 0)
				abort();
		}
	}
	rc = pipeline_finish(p, now + 10 * S, now + 10 * S);
	if (rc != 0 && ordered)
		abort();
	if (pipeline_flush(p) != 0)
		abort();
	pipeline_get_stats(p, &ps);
	for (k = 0; k < GESTURE_KIND_COUNT; k++)
		gestures += ps.gestures[k];
	/* Everything was finalized and every gesture is a row. */
	check_rows(run_id, ordered, &rows);
	if (ordered && (pipeline_pending(p) != 0 || (uint64_t)rows != gestures))
		abort();
	pipeline_free(p);
	if (store_end_run(store, NULL) != 0)
		abort();
	gesture_free(side.gesture);
	touch_free(t);
	foreground_free(fg);
}

static void
cleanup(void)
{
	store_close(store);
	fuzz_rmtree(dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[600];

	(void)argc;
	(void)argv;
	log_init(NULL, LOG_LEVEL_ERROR);
	atexit(cleanup);
	fuzz_tmpdir(dir, sizeof(dir), "pipeline");
	snprintf(path, sizeof(path), "%s/taps.db", dir);
	if (store_open(path, 0, &store) != 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Each input starts from an empty database. */
	if (sqlite3_exec(store__sqlite(store),
			 "DELETE FROM tap_frames; DELETE FROM tap_hist;"
			 " DELETE FROM taps; DELETE FROM runs;",
			 NULL, NULL, NULL) != SQLITE_OK)
		abort();
	run(data, size);
	return 0;
}
