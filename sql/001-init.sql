/*
 * Schema version 1: runs, sessions and taps.
 *
 * store.c runs this file inside BEGIN IMMEDIATE ... COMMIT and sets
 * PRAGMA user_version (and, on a new file, PRAGMA application_id) in the
 * same transaction, so the file must hold neither those pragmas nor a
 * transaction of its own.
 *
 * PRAGMA auto_vacuum = INCREMENTAL is not here on purpose: sqlite 3.40
 * ignores it inside BEGIN IMMEDIATE and once PRAGMA journal_mode = WAL has
 * written the first page, both of which happen before this file runs.
 * store.c sets it on a new file before anything else touches it, and the
 * unit test checks that PRAGMA auto_vacuum reads 2 afterwards.
 *
 * The tables are not STRICT: the sqlite3 shell of Android 12 and 13 is
 * 3.32, older than STRICT (3.37), and could not even read the schema of a
 * file pulled from a device.  Types are enforced where the values come
 * from, the typed binds in store.c, and the enumerations by CHECK.
 */

/*
 * One row per ingest: a replay or a live daemon start.  Times here are
 * CLOCK_REALTIME ns: runs span reboots, across which CLOCK_MONOTONIC
 * starts again and would not order them.
 */
CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	mode TEXT NOT NULL,
	source TEXT,
	started_ns INTEGER NOT NULL,
	/* NULL while the run is going on, and forever after a crash. */
	ended_ns INTEGER,
	/* The run's counters as a JSON object, stored as given. */
	stats TEXT
);

/*
 * Named sessions of the sessions API; taps carry their id.  Times are
 * CLOCK_REALTIME ns, like those of runs, for display only: taps belong to
 * a session by id, never by time.
 */
CREATE TABLE sessions (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL,
	started_ns INTEGER NOT NULL,
	stopped_ns INTEGER
);

/*
 * One row per finalized gesture.  AUTOINCREMENT keeps ids from ever being
 * reused: retention may delete every row of an idle device, and a plain
 * rowid would then start again at 1 under clients that page with after_id
 * or follow the event stream.
 *
 * NULL means unknown or not measured (app, pid, wall_ns, x and y, the two
 * latencies), never a made-up 0.  t_down_ns and t_up_ns are
 * CLOCK_MONOTONIC ns of the device; first_frame_ns and settle_ns are
 * durations from t_up_ns.  flags is the STORE_FLAG_* mask of store.h and
 * jank the union of the response frames' jank bits.
 */
CREATE TABLE taps (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	run INTEGER REFERENCES runs (id),
	session INTEGER REFERENCES sessions (id),
	app TEXT,
	pid INTEGER,
	kind TEXT NOT NULL
		CHECK (kind IN ('tap', 'long_press', 'swipe', 'multi')),
	status TEXT NOT NULL
		CHECK (status IN ('ok', 'no_response', 'truncated',
				  'frames_unavailable', 'not_measured')),
	flags INTEGER NOT NULL DEFAULT 0,
	t_down_ns INTEGER NOT NULL,
	t_up_ns INTEGER NOT NULL,
	wall_ns INTEGER,
	x REAL,
	y REAL,
	first_frame_ns INTEGER,
	settle_ns INTEGER,
	frames INTEGER NOT NULL DEFAULT 0,
	jank INTEGER NOT NULL DEFAULT 0
);

/*
 * GET /v1/percentiles?app=&metric=first_frame and GET /v1/apps over all
 * time.  A nearest-rank percentile is
 *   SELECT first_frame_ns FROM taps
 *   WHERE app = ? AND status = 'ok' AND first_frame_ns IS NOT NULL
 *   ORDER BY first_frame_ns LIMIT 1 OFFSET k
 * which this index answers as a walk of k entries with no sort; the count
 * that gives k is a range scan of the same index.  Being covering, it also
 * serves the per-app, per-status counts of /v1/apps (GROUP BY app, status)
 * without touching the table.
 */
CREATE INDEX taps_app_status_first ON taps (app, status, first_frame_ns);

/* The same for metric=settle. */
CREATE INDEX taps_app_status_settle ON taps (app, status, settle_ns);

/*
 * Time ranges without an app: since/until of /v1/taps, /v1/trace,
 * /v1/apps and /v1/histogram, and retention, which deletes the oldest
 * rows in bounded batches (WHERE id IN (SELECT id ... ORDER BY t_up_ns
 * LIMIT n)).  A window of one human's taps is small, so sorting the rows
 * in range by latency is cheap.
 */
CREATE INDEX taps_t_up ON taps (t_up_ns);

/*
 * Time ranges of one app: /v1/percentiles?app=&since=, the usual dashboard
 * query, and /v1/taps?app=.  Without it such a query walks either every
 * row of the app (the indexes above) or every row of every app in the
 * window (taps_t_up); with it, only the app's rows in the window.
 */
CREATE INDEX taps_app_t_up ON taps (app, t_up_ns);

/*
 * ?session= of /v1/taps and /v1/percentiles, and the foreign key check
 * when a session is deleted.  Most taps belong to no session, so a partial
 * index keeps it to the rows that do; "session = ?" implies
 * "session IS NOT NULL", which lets the planner use it.  Sessions are
 * short, so sorting one session's rows by latency is cheap.
 *
 * taps.run has no index: runs are never deleted and no query of the API
 * filters by run; a migration can add one when either changes.
 */
CREATE INDEX taps_session ON taps (session) WHERE session IS NOT NULL;
