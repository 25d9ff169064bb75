/*
 * Schema version 4: tap_counts follows an UPDATE of taps too.
 *
 * tapd itself never updates a tap row, but a file is also changed by
 * hand (the sqlite3 shell renaming an app, say) or by other tools, and
 * /v1/apps counts from tap_counts: without this trigger such an edit
 * left the counts under the old app, status or period, and the renamed
 * app without any.  The old row is taken out of its periods and the new
 * one put into its own, as the DELETE and INSERT triggers of
 * 003-summaries.sql do.
 */
CREATE TRIGGER tap_counts_update AFTER UPDATE OF app, status, wall_ns ON taps
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
		AND status = OLD.status AND count <= 0
		AND ((span = 0 AND minute = 0 AND OLD.wall_ns IS NULL)
		     OR (span = 60
			 AND minute = OLD.wall_ns / 3600000000000 * 60)
		     OR (span = 1440
			 AND minute = OLD.wall_ns / 86400000000000 * 1440));
	INSERT INTO tap_counts (app, named, status, span, minute, count)
	SELECT coalesce(NEW.app, ''), NEW.app IS NOT NULL, NEW.status, 0, 0, 1
	WHERE NEW.wall_ns IS NULL
	ON CONFLICT DO UPDATE SET count = count + 1;
	INSERT INTO tap_counts (app, named, status, span, minute, count)
	SELECT coalesce(NEW.app, ''), NEW.app IS NOT NULL, NEW.status, 60,
		NEW.wall_ns / 3600000000000 * 60, 1
	WHERE NEW.wall_ns IS NOT NULL
	ON CONFLICT DO UPDATE SET count = count + 1;
	INSERT INTO tap_counts (app, named, status, span, minute, count)
	SELECT coalesce(NEW.app, ''), NEW.app IS NOT NULL, NEW.status, 1440,
		NEW.wall_ns / 86400000000000 * 1440, 1
	WHERE NEW.wall_ns IS NOT NULL
	ON CONFLICT DO UPDATE SET count = count + 1;
END;
