/*
 * Schema version 2: the response frames of each tap, indexes on wall time,
 * and a pre-aggregated latency histogram for percentiles over long ranges.
 *
 * The rules of 001-init.sql hold: store.c runs this file inside its own
 * transaction and sets user_version, so the file has neither.  It calls
 * tapd_hist_bucket(ns), an SQL function that store.c registers on the
 * writer's connection before migrating (store_hist_bucket() of store.h):
 * the bucket edges are integers computed in C, and SQLite builds without
 * math functions (Android's) could not compute them here.
 */

/*
 * The response frames of each measured tap (docs/DESIGN.md 1.4), in
 * present order: seq 0 is the first frame, the one first_frame_ns
 * measures.  start_ns and present_ns are CLOCK_MONOTONIC ns like the tap's
 * t_up_ns; jank is the frame's FrameTimeline jank bits; in_burst is 1 for
 * the frames up to and including the last frame of the burst, the one
 * settle_ns measures, and 0 for those after it.  /v1/trace draws them.
 *
 * Taps stored before this version have no rows here: their frames were
 * never kept.  WITHOUT ROWID clusters a tap's frames under its id, which
 * is also what the foreign key's cascade looks them up by.
 */
CREATE TABLE tap_frames (
	tap_id INTEGER NOT NULL REFERENCES taps (id) ON DELETE CASCADE,
	seq INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	present_ns INTEGER NOT NULL,
	jank INTEGER NOT NULL DEFAULT 0,
	in_burst INTEGER NOT NULL,
	PRIMARY KEY (tap_id, seq)
) WITHOUT ROWID;

/*
 * Counts of latencies per bucket, per app, per metric and per period of
 * wall time, so that a percentile over a long range sums a few thousand
 * rows instead of sorting every tap in it (query.c).
 *
 *  - app: the tap's app, or '*' (STORE_HIST_ALL_APPS) for the rows that
 *    count every tap whatever its app, which serve queries without
 *    ?app=.  Taps of unknown app are only in the '*' rows.
 *  - metric: 0 first_frame_ns, 1 settle_ns.
 *  - span and minute: the period counted is the span minutes starting at
 *    minute, in minutes since the Unix epoch (UTC) of the tap's wall_ns.
 *    Every tap is counted at three spans: its minute (span 1), its hour
 *    (60) and its day (1440), each aligned to a multiple of the span.  A
 *    range of wall time is then covered by whole days, the whole hours
 *    and minutes at its ends, and an exact scan of the taps in the
 *    partial minutes at its very ends.
 *  - bucket: log-spaced, store_hist_bucket() in store.h: bucket 0 is
 *    [0, 0.1 ms), then each bucket is 2% wider than the last, so that
 *    the midpoint of a bucket is within 1% of any value in it.
 *
 * Only taps with status 'ok', kind 'tap' or 'long_press' and a known
 * wall_ns are counted, each metric when not NULL: exactly the taps a
 * percentile query with default filters matches.  The writer keeps the
 * table in step with taps in the same transaction as the tap's INSERT
 * (store_insert()); whatever deletes taps must subtract them here.
 */
CREATE TABLE tap_hist (
	app TEXT NOT NULL,
	metric INTEGER NOT NULL,
	span INTEGER NOT NULL,
	minute INTEGER NOT NULL,
	bucket INTEGER NOT NULL,
	count INTEGER NOT NULL,
	PRIMARY KEY (app, metric, span, minute, bucket)
) WITHOUT ROWID;

/* The taps already stored go into the histogram as store_insert() does. */
WITH v (app, metric, minute, bucket) AS (
	SELECT app, 0, wall_ns / 60000000000, tapd_hist_bucket(first_frame_ns)
	FROM taps
	WHERE status = 'ok' AND kind IN ('tap', 'long_press')
		AND wall_ns IS NOT NULL AND first_frame_ns IS NOT NULL
	UNION ALL
	SELECT app, 1, wall_ns / 60000000000, tapd_hist_bucket(settle_ns)
	FROM taps
	WHERE status = 'ok' AND kind IN ('tap', 'long_press')
		AND wall_ns IS NOT NULL AND settle_ns IS NOT NULL
),
scoped (app, metric, minute, bucket) AS (
	SELECT app, metric, minute, bucket FROM v
	WHERE app IS NOT NULL AND app NOT IN ('', '*')
	UNION ALL
	SELECT '*', metric, minute, bucket FROM v
),
spans (span) AS (VALUES (1), (60), (1440))
INSERT INTO tap_hist (app, metric, span, minute, bucket, count)
SELECT app, metric, span, minute - minute % span, bucket, count(*)
FROM scoped, spans
GROUP BY 1, 2, 3, 4, 5;

/*
 * Indexes.  The API's time parameters (since, until) are wall times, so
 * ranges are on wall_ns, the REALTIME of t_up.  001's indexes on t_up_ns
 * go: it is CLOCK_MONOTONIC, which starts again at every boot, so no
 * range of it is a range of dates, and no query of the API uses one.
 * Retention, when it comes, deletes by wall_ns (oldest first).
 *
 * The statistics (query.c) read only indexes, never the table: a file
 * with millions of taps has them scattered over hundreds of MiB, and a
 * lookup per row made an exact percentile over 7,600 taps of one app in
 * one day take 35 ms instead of 5 (bench/query).  So the two indexes it
 * reads carry every column its filters and metrics use, and query.c
 * names them with INDEXED BY: a file copied off a device has no ANALYZE
 * statistics to choose by.
 */

/*
 * One app: percentiles of one app (its ok taps in a time range are one
 * range of this index, already without the others), /v1/apps counts by
 * app and status (one seek per status).  It replaces 001's
 * (app, status, first_frame_ns) and (app, status, settle_ns), whose order
 * by latency only served a percentile over all time, and only by reading
 * the table for the kind.
 */
DROP INDEX taps_app_status_first;
DROP INDEX taps_app_status_settle;
CREATE INDEX taps_app_status_wall
	ON taps (app, status, wall_ns, kind, first_frame_ns, settle_ns);

/*
 * Every app: time ranges without ?app= (/v1/taps, /v1/trace, and the
 * statistics of all apps, including the exact scans at the ends of a
 * histogram range).  Rows whose wall_ns is NULL sort first, so
 * "wall_ns IS NULL" is a range of it too.
 */
DROP INDEX taps_t_up;
CREATE INDEX taps_wall
	ON taps (wall_ns, app, status, kind, first_frame_ns, settle_ns);

/*
 * One app's time range, whatever the status: /v1/taps?app=&since= and
 * /v1/trace?app=, and the list of apps of /v1/apps (the next name after
 * another is one seek).
 */
DROP INDEX taps_app_t_up;
CREATE INDEX taps_app_wall ON taps (app, wall_ns);

/* taps_session of 001 stays as it is. */
