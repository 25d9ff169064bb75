/*
 * Schema version 8: launches and navigations (docs/DESIGN.md 1.5.1).
 *
 * A tap after which the focus went to another app within the launch cap
 * and before the next touch-down is a launch (flag 'launch'): target_app
 * is the app launched, target_activity its activity when the foreground
 * source names one, and launch_first_frame_ns and launch_settle_ns the
 * present of the launched app's first response frame and of the last of
 * their burst, less t_up_ns (NULL when it presented none in the launch
 * window, or no frame source covered the tap).  A switch to another
 * activity of the same app is a navigation (flag 'navigation'):
 * target_app is the app, target_activity the activity, and the launch
 * columns are NULL.  Other taps have NULL in all four.  The tap's own
 * first_frame_ns and settle_ns are what they were.
 *
 * The launch metrics are counted in tap_hist (and so in tap_hist_sum)
 * as metrics 2 (launch_first_frame_ns) and 3 (launch_settle_ns), under
 * the tapped app, with the same rule as metrics 0 and 1: status 'ok',
 * kind tap or long_press, a wall time, the value not NULL.  No tap
 * stored before this version has them, so nothing is to be counted.
 */
ALTER TABLE taps ADD COLUMN target_app TEXT;
ALTER TABLE taps ADD COLUMN target_activity TEXT;
ALTER TABLE taps ADD COLUMN launch_first_frame_ns INTEGER
	CHECK (launch_first_frame_ns >= 0);
ALTER TABLE taps ADD COLUMN launch_settle_ns INTEGER
	CHECK (launch_settle_ns >= 0);

/*
 * The launches of each app and what they opened, for the sqlite3 shell,
 * and the object that marks a file of this version (store_schema.c).
 */
CREATE VIEW tap_launches AS
	SELECT app, target_app, count(*) AS taps,
		count(launch_first_frame_ns) AS measured
	FROM taps WHERE target_app IS NOT NULL AND flags & 2048 != 0
	GROUP BY app, target_app;

/*
 * The launch metrics' indexes, partial since only launches have them: a
 * launch is a few taps in a hundred.  The statistics of one app and of
 * every app read these as they read taps_app_status_wall and taps_wall
 * for the tap's own metrics (the same columns, the launch ones for the
 * tap's); the exact percentiles read the rank indexes as they read
 * taps_rank_first and taps_rank_settle.  A launch with one launch value
 * has the other: both come from the same frames.
 */
CREATE INDEX taps_launch_app_wall
	ON taps (app, status, wall_ns, kind, launch_first_frame_ns,
		launch_settle_ns)
	WHERE launch_first_frame_ns IS NOT NULL;
CREATE INDEX taps_launch_wall
	ON taps (wall_ns, app, status, kind, launch_first_frame_ns,
		launch_settle_ns)
	WHERE launch_first_frame_ns IS NOT NULL;
CREATE INDEX taps_rank_launch_first
	ON taps (app, launch_first_frame_ns, wall_ns)
	WHERE status = 'ok' AND kind IN ('tap', 'long_press')
		AND launch_first_frame_ns IS NOT NULL;
CREATE INDEX taps_rank_launch_settle
	ON taps (app, launch_settle_ns, wall_ns)
	WHERE status = 'ok' AND kind IN ('tap', 'long_press')
		AND launch_settle_ns IS NOT NULL;
