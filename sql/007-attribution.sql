/*
 * Schema version 7: how a tap was attributed (docs/DESIGN.md 3.5.2).
 *
 * window is the name of the window the touch landed on, as `dumpsys
 * input` prints it, NULL when no window was hit or no window list was
 * used; attribution says how the tap's app was decided: 'window' (the
 * owner of that window), 'foreground' (the app in front, without a
 * usable window list) or 'none' (a list was used and no window took the
 * point: the app in front).  Taps stored before hit-testing existed
 * were all attributed to the foreground.
 */
ALTER TABLE taps ADD COLUMN window TEXT;
ALTER TABLE taps ADD COLUMN attribution TEXT NOT NULL DEFAULT 'foreground'
	CHECK (attribution IN ('window', 'foreground', 'none'));

/*
 * How often each window took the taps of each app, for the sqlite3
 * shell.  Being an object of this version, it is also what lets a file
 * whose user_version was lowered by hand be recognized as holding this
 * version's columns (store_schema.c compares objects, not columns).
 */
CREATE VIEW tap_windows AS
	SELECT app, window, attribution, count(*) AS taps
	FROM taps GROUP BY app, window, attribution;
