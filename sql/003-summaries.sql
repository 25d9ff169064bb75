/*
 * Schema version 3: summaries for /v1/apps and the indexes of the exact
 * percentiles (store_cover.c, store_rank.c).
 *
 * The rules of 001-init.sql hold: store.c runs this file inside its own
 * transaction and sets user_version.  The two new tables are kept by
 * triggers rather than by the writer's C code: they fire in the
 * statement that changes taps or tap_hist, so they are in the same
 * transaction whatever path inserts or deletes (a batch, a retry,
 * retention), and they call no function of tapd's, so that a file
 * changed by the sqlite3 shell keeps them too.  tapd only inserts and
 * deletes taps rows; an UPDATE by hand is followed by 004-counts-update.sql.
 */

/*
 * Gestures by app, status and period of wall time: the counts of
 * /v1/apps, which otherwise count a million index entries.
 *
 *  - app and named: the tap's app with named 1, or '' with named 0 for
 *    taps of unknown app (a key column cannot be NULL, and '' is an app
 *    name like any other).
 *  - span and minute: as in tap_hist, the period of span minutes starting
 *    at minute (minutes since the Unix epoch, UTC, a multiple of span):
 *    every tap with a wall time is counted in its hour (60) and its day
 *    (1440).  Span 0, minute 0 counts the taps without a wall time.  A
 *    range is covered by whole days, whole hours at its ends and the taps
 *    of the partial hours at its very ends, read from the rows.
 *
 * Every gesture is counted, of any kind and status: 20 apps of a month
 * are about 3,000 day rows and 70,000 hour rows (3 MiB over a million
 * taps).
 */
CREATE TABLE tap_counts (
	app TEXT NOT NULL,
	named INTEGER NOT NULL,
	status TEXT NOT NULL,
	span INTEGER NOT NULL,
	minute INTEGER NOT NULL,
	count INTEGER NOT NULL,
	PRIMARY KEY (app, named, span, minute, status)
) WITHOUT ROWID;

INSERT INTO tap_counts (app, named, status, span, minute, count)
SELECT coalesce(app, ''), app IS NOT NULL, status, span,
	CASE WHEN span = 0 THEN 0 ELSE wall_ns / 60000000000 / span * span END,
	count(*)
FROM taps, (SELECT 0 AS span UNION ALL SELECT 60 UNION ALL SELECT 1440)
WHERE (span = 0) = (wall_ns IS NULL)
GROUP BY 1, 2, 3, 4, 5;

CREATE TRIGGER tap_counts_add AFTER INSERT ON taps
WHEN NEW.wall_ns IS NOT NULL
BEGIN
	INSERT INTO tap_counts (app, named, status, span, minute, count)
	VALUES (coalesce(NEW.app, ''), NEW.app IS NOT NULL, NEW.status, 60,
		NEW.wall_ns / 3600000000000 * 60, 1)
	ON CONFLICT DO UPDATE SET count = count + 1;
	INSERT INTO tap_counts (app, named, status, span, minute, count)
	VALUES (coalesce(NEW.app, ''), NEW.app IS NOT NULL, NEW.status, 1440,
		NEW.wall_ns / 86400000000000 * 1440, 1)
	ON CONFLICT DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER tap_counts_add_nowall AFTER INSERT ON taps
WHEN NEW.wall_ns IS NULL
BEGIN
	INSERT INTO tap_counts (app, named, status, span, minute, count)
	VALUES (coalesce(NEW.app, ''), NEW.app IS NOT NULL, NEW.status, 0, 0,
		1)
	ON CONFLICT DO UPDATE SET count = count + 1;
END;

/*
 * A row whose count reaches 0 goes, so that the periods of deleted taps
 * leave nothing.  One statement per span, each on the whole key.
 */
CREATE TRIGGER tap_counts_sub AFTER DELETE ON taps
BEGIN
	UPDATE tap_counts SET count = count - 1
	WHERE app = coalesce(OLD.app, '') AND named = (OLD.app IS NOT NULL)
		AND span = 0 AND minute = 0 AND status = OLD.status
		AND OLD.wall_ns IS NULL;
	UPDATE tap_counts SET count = count - 1
	WHERE app = coalesce(OLD.app, '') AND named = (OLD.app IS NOT NULL)
		AND span = 60 AND minute = OLD.wall_ns / 3600000000000 * 60
		AND status = OLD.status;
	UPDATE tap_counts SET count = count - 1
	WHERE app = coalesce(OLD.app, '') AND named = (OLD.app IS NOT NULL)
		AND span = 1440 AND minute = OLD.wall_ns / 86400000000000 * 1440
		AND status = OLD.status;
	DELETE FROM tap_counts
	WHERE app = coalesce(OLD.app, '') AND named = (OLD.app IS NOT NULL)
		AND span = 0 AND minute = 0 AND status = OLD.status
		AND count <= 0;
	DELETE FROM tap_counts
	WHERE app = coalesce(OLD.app, '') AND named = (OLD.app IS NOT NULL)
		AND span = 60 AND minute = OLD.wall_ns / 3600000000000 * 60
		AND status = OLD.status AND count <= 0;
	DELETE FROM tap_counts
	WHERE app = coalesce(OLD.app, '') AND named = (OLD.app IS NOT NULL)
		AND span = 1440 AND minute = OLD.wall_ns / 86400000000000 * 1440
		AND status = OLD.status AND count <= 0;
END;

/*
 * The sum of tap_hist's day rows over all time, per app (and '*'),
 * metric and bucket: about 300 rows for an app where its day rows of a
 * month are 5,000.  A range then costs whichever is fewer rows: the
 * periods inside it, or this sum less the periods outside it (the
 * all-time answers of /v1/apps, and a range over most of the file, read
 * only this).  Kept by triggers on tap_hist itself, so that it is the
 * sum of those rows at every commit, retention's deletes included.
 */
CREATE TABLE tap_hist_sum (
	app TEXT NOT NULL,
	metric INTEGER NOT NULL,
	bucket INTEGER NOT NULL,
	count INTEGER NOT NULL,
	PRIMARY KEY (app, metric, bucket)
) WITHOUT ROWID;

INSERT INTO tap_hist_sum (app, metric, bucket, count)
SELECT app, metric, bucket, sum(count) FROM tap_hist
WHERE span = 1440
GROUP BY 1, 2, 3;

CREATE TRIGGER tap_hist_sum_add AFTER INSERT ON tap_hist
WHEN NEW.span = 1440
BEGIN
	INSERT INTO tap_hist_sum (app, metric, bucket, count)
	VALUES (NEW.app, NEW.metric, NEW.bucket, NEW.count)
	ON CONFLICT DO UPDATE SET count = count + excluded.count;
END;

CREATE TRIGGER tap_hist_sum_update AFTER UPDATE OF count ON tap_hist
WHEN NEW.span = 1440
BEGIN
	UPDATE tap_hist_sum SET count = count + NEW.count - OLD.count
	WHERE app = NEW.app AND metric = NEW.metric AND bucket = NEW.bucket;
END;

CREATE TRIGGER tap_hist_sum_sub AFTER DELETE ON tap_hist
WHEN OLD.span = 1440
BEGIN
	UPDATE tap_hist_sum SET count = count - OLD.count
	WHERE app = OLD.app AND metric = OLD.metric AND bucket = OLD.bucket;
	DELETE FROM tap_hist_sum
	WHERE app = OLD.app AND metric = OLD.metric AND bucket = OLD.bucket
		AND count <= 0;
END;

/*
 * Exact percentiles: the rows of one app ordered by the metric, with the
 * wall time for the range.  The histogram says which bucket holds rank
 * k and at which rank the bucket starts; the bucket's rows of the range
 * are then one range of this index, a few thousand entries where the
 * app's range is hundreds of thousands to sort (store_rank.c).  Partial:
 * only the taps tap_hist counts, the 'ok' taps of the measured kinds
 * with the metric known, whose WHERE the statements repeat word for word
 * so that the planner may use it.  About 30 MiB each over a million
 * taps.
 */
CREATE INDEX taps_rank_first ON taps (app, first_frame_ns, wall_ns)
	WHERE status = 'ok' AND kind IN ('tap', 'long_press')
		AND first_frame_ns IS NOT NULL;

CREATE INDEX taps_rank_settle ON taps (app, settle_ns, wall_ns)
	WHERE status = 'ok' AND kind IN ('tap', 'long_press')
		AND settle_ns IS NOT NULL;
