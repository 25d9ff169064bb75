/*
 * The jank tags of a tap: the union of its response frames' tags, each
 * frame's tag derived from its FrameTimeline jank bits and present type
 * the way Perfetto's trace processor derives its jank_tag column (the bit
 * values are JANKTAG_* of daemon/janktag.h).  They sit beside the raw
 * bits of taps.jank, since several raw bits (Buffer Stuffing, a display
 * power-mode change) are not jank a user sees.  Taps stored before this
 * version have no tags: 0.
 */
ALTER TABLE taps ADD COLUMN jank_tags INTEGER NOT NULL DEFAULT 0;

/*
 * The tags for the sqlite3 shell, with whether any is perceivable (self
 * jank, other jank or a dropped frame: bits 1, 2 and 4).  Being an object
 * of its own, it also lets a file whose user_version was lowered from
 * this version be recognised (store_schema.c counts objects, not
 * columns) rather than fail on the column that is there already.
 */
CREATE VIEW tap_jank_tags AS
	SELECT id, app, jank, jank_tags, (jank_tags & 7) != 0 AS perceivable
	FROM taps;
