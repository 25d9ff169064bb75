#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "msg.h"

#define MAX_TRUTH_BYTES (512L * 1024 * 1024)
#define NS_TOLERANCE	1000

/* One gesture, from either side.  Latencies are -1 when NULL. */
struct gesture {
	int64_t id;
	char kind[16];
	char app[128];
	int has_app;
	int64_t pid;
	char status[24];
	unsigned flags;
	int64_t t_down_ns, t_up_ns;
	int64_t first_frame_ns, settle_ns;
	int64_t frames, jank;
	/* Compared when the truth has them: attribution by window. */
	int by_window;
	char window[160];
	int has_window;
	char attribution[16];
	int db_columns; /* a row of a database with both columns */
	/*
	 * Compared when the truth has them (migration 008): the launch or
	 * navigation, exactly, to the nanosecond.
	 */
	int by_launch;
	char target_app[128], target_activity[160];
	int has_target_app, has_target_activity;
	int64_t launch_first_frame_ns, launch_settle_ns;
	int db_launch; /* a row of a database with the launch columns */
	int matched;
};

struct list {
	struct gesture *g;
	size_t n, cap;
};

static struct gesture *
list_add(struct list *l)
{
	struct gesture *p;

	if (l->n == l->cap) {
		size_t cap = l->cap == 0 ? 256 : l->cap * 2;

		p = realloc(l->g, cap * sizeof(*p));
		if (p == NULL)
			return NULL;
		l->g = p;
		l->cap = cap;
	}
	p = &l->g[l->n++];
	memset(p, 0, sizeof(*p));
	p->first_frame_ns = -1;
	p->settle_ns = -1;
	p->launch_first_frame_ns = -1;
	p->launch_settle_ns = -1;
	return p;
}

static int
cmp_tup(const void *a, const void *b)
{
	const struct gesture *x = a, *y = b;

	if (x->t_up_ns != y->t_up_ns)
		return x->t_up_ns < y->t_up_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int
parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

/* A decimal-string int64 member; null gives -1 when nullable. */
static int
json_i64(const cJSON *o, const char *name, int nullable, int64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	if (nullable && cJSON_IsNull(v)) {
		*out = -1;
		return 0;
	}
	if (cJSON_IsString(v))
		return parse_i64(v->valuestring, out);
	if (cJSON_IsNumber(v) && v->valuedouble >= -9e15 &&
	    v->valuedouble <= 9e15) {
		*out = (int64_t)v->valuedouble;
		return 0;
	}
	return -EINVAL;
}

static void
copy_str(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src != NULL ? src : "");
}

/* tapd's flag bits (daemon/store.h) of the truth's names. */
#define FLAG_LAUNCH	0x800u
#define FLAG_NAVIGATION 0x1000u

static unsigned
flag_bit(const char *name)
{
	static const char *const names[] = {
		"busy_before",
		"settle_capped",
		"interrupted",
		"input_dropped",
	};
	unsigned i;

	for (i = 0; i < 4; i++)
		if (strcmp(name, names[i]) == 0)
			return 1u << i;
	if (strcmp(name, "launch") == 0)
		return FLAG_LAUNCH;
	if (strcmp(name, "navigation") == 0)
		return FLAG_NAVIGATION;
	return 0;
}

static int
read_file(const char *path, char **out, size_t *len)
{
	FILE *f;
	char *buf = NULL, *p;
	size_t n = 0, cap = 0, got;
	int rc = 0;

	f = fopen(path, "rb");
	if (f == NULL) {
		rc = -errno;
		msg_warn("cannot open '%s'", path);
		return rc;
	}
	for (;;) {
		if (n + 65536 + 1 > cap) {
			cap = cap == 0 ? 1 << 20 : cap * 2;
			if (cap > (size_t)MAX_TRUTH_BYTES) {
				msg_warnx("cannot read '%s': larger than %ld "
					  "bytes",
					  path, MAX_TRUTH_BYTES);
				rc = -EFBIG;
				goto out;
			}
			p = realloc(buf, cap);
			if (p == NULL) {
				rc = -ENOMEM;
				goto out;
			}
			buf = p;
		}
		got = fread(buf + n, 1, 65536, f);
		n += got;
		if (got < 65536)
			break;
	}
	if (ferror(f)) {
		rc = -EIO;
		msg_warnx("cannot read '%s'", path);
		goto out;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	fclose(f);
	return rc;
}

static int
load_truth(const char *path, struct list *l)
{
	char *text = NULL;
	size_t len = 0, idx = 0;
	cJSON *root = NULL;
	const cJSON *arr, *o, *v, *fl;
	const char *end = NULL;
	struct gesture *g;
	int rc;

	rc = read_file(path, &text, &len);
	if (rc < 0)
		return rc;
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (root == NULL) {
		msg_warnx("cannot parse '%s': bad JSON at offset %ld", path,
			  end != NULL ? (long)(end - text) : -1L);
		rc = -EINVAL;
		goto out;
	}
	arr = cJSON_GetObjectItemCaseSensitive(root, "gestures");
	if (!cJSON_IsArray(arr)) {
		msg_warnx("cannot parse '%s': no \"gestures\" array", path);
		rc = -EINVAL;
		goto out;
	}
	cJSON_ArrayForEach(o, arr)
	{
		g = list_add(l);
		if (g == NULL) {
			rc = -ENOMEM;
			goto out;
		}
		g->id = (int64_t)idx++;
		v = cJSON_GetObjectItemCaseSensitive(o, "kind");
		copy_str(g->kind, sizeof(g->kind),
			 cJSON_IsString(v) ? v->valuestring : NULL);
		v = cJSON_GetObjectItemCaseSensitive(o, "app");
		g->has_app = cJSON_IsString(v);
		copy_str(g->app, sizeof(g->app),
			 g->has_app ? v->valuestring : NULL);
		v = cJSON_GetObjectItemCaseSensitive(o, "window");
		g->by_window = v != NULL || cJSON_GetObjectItemCaseSensitive(
						    o, "attribution") != NULL;
		g->has_window = cJSON_IsString(v);
		copy_str(g->window, sizeof(g->window),
			 g->has_window ? v->valuestring : NULL);
		v = cJSON_GetObjectItemCaseSensitive(o, "attribution");
		copy_str(g->attribution, sizeof(g->attribution),
			 cJSON_IsString(v) ? v->valuestring : NULL);
		v = cJSON_GetObjectItemCaseSensitive(o, "target_app");
		g->by_launch = v != NULL;
		g->has_target_app = cJSON_IsString(v);
		copy_str(g->target_app, sizeof(g->target_app),
			 g->has_target_app ? v->valuestring : NULL);
		v = cJSON_GetObjectItemCaseSensitive(o, "target_activity");
		g->has_target_activity = cJSON_IsString(v);
		copy_str(g->target_activity, sizeof(g->target_activity),
			 g->has_target_activity ? v->valuestring : NULL);
		if (g->by_launch && (json_i64(o, "launch_first_frame_ns", 1,
					      &g->launch_first_frame_ns) < 0 ||
				     json_i64(o, "launch_settle_ns", 1,
					      &g->launch_settle_ns) < 0)) {
			msg_warnx("cannot parse '%s': gesture %zu has a bad "
				  "launch value",
				  path, idx - 1);
			rc = -EINVAL;
			goto out;
		}
		v = cJSON_GetObjectItemCaseSensitive(o, "status");
		copy_str(g->status, sizeof(g->status),
			 cJSON_IsString(v) ? v->valuestring : NULL);
		fl = cJSON_GetObjectItemCaseSensitive(o, "flags");
		cJSON_ArrayForEach(v, fl)
		{
			if (cJSON_IsString(v))
				g->flags |= flag_bit(v->valuestring);
		}
		if (json_i64(o, "pid", 0, &g->pid) < 0 ||
		    json_i64(o, "t_down_ns", 0, &g->t_down_ns) < 0 ||
		    json_i64(o, "t_up_ns", 0, &g->t_up_ns) < 0 ||
		    json_i64(o, "first_frame_ns", 1, &g->first_frame_ns) < 0 ||
		    json_i64(o, "settle_ns", 1, &g->settle_ns) < 0 ||
		    json_i64(o, "frames", 0, &g->frames) < 0 ||
		    json_i64(o, "jank", 0, &g->jank) < 0) {
			msg_warnx("cannot parse '%s': gesture %zu lacks a "
				  "field or has a bad number",
				  path, idx - 1);
			rc = -EINVAL;
			goto out;
		}
	}
	rc = 0;
out:
	cJSON_Delete(root);
	free(text);
	return rc;
}

static int64_t
col_i64(sqlite3_stmt *st, int col, int64_t null_value)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return null_value;
	return sqlite3_column_int64(st, col);
}

/* The truth attributes by window: the database needs the columns. */
static int
by_window(const struct list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->g[i].by_window)
			return 1;
	return 0;
}

/*
 * The truth has a launch or a navigation: the database needs their
 * columns.  A truth whose taps switch nothing compares with a database
 * made before them.
 */
static int
by_launch(const struct list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->g[i].has_target_app)
			return 1;
	return 0;
}

/*
 * Whether taps has a column: a database made before migration 007 has
 * neither window nor attribution.
 */
static int
has_column(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('taps')",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	while (sqlite3_step(st) == SQLITE_ROW)
		if (strcmp((const char *)sqlite3_column_text(st, 0), name) == 0)
			found = 1;
	sqlite3_finalize(st);
	return found;
}

/*
 * Reads the taps of a database.  need says the truth attributes by
 * window: the window and attribution columns must then be there.
 * Without need they are read when present, so that a truth made before
 * them checks that the database attributed by the foreground.
 */
/*
 * The launch columns of each row, by id, into the gestures of l read
 * before; need says the truth has launches, so they must be there.
 */
static int
load_db_launch(sqlite3 *db, const char *path, struct list *l, int need)
{
	static const char sql[] =
		"SELECT id, target_app, target_activity, launch_first_frame_ns,"
		" launch_settle_ns FROM taps ORDER BY id";
	sqlite3_stmt *st = NULL;
	const unsigned char *s;
	size_t i = 0;
	int step, rc = 0;

	if (!has_column(db, "target_app") ||
	    !has_column(db, "launch_first_frame_ns")) {
		if (!need)
			return 0;
		msg_warnx("cannot compare '%s': its table 'taps' has no "
			  "column 'target_app' or 'launch_first_frame_ns' "
			  "(migration 008), which a truth with launches needs",
			  path);
		return -ENOENT;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		msg_warnx("cannot read 'taps' in '%s': %s", path,
			  sqlite3_errmsg(db));
		return -EIO;
	}
	/* l holds the rows in the order of the other read: by rowid. */
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct gesture *g;

		if (i >= l->n || l->g[i].id != sqlite3_column_int64(st, 0)) {
			msg_warnx("cannot read 'taps' in '%s': the rows "
				  "changed between two reads",
				  path);
			rc = -EIO;
			goto out;
		}
		g = &l->g[i++];
		g->db_launch = 1;
		s = sqlite3_column_text(st, 1);
		g->has_target_app = s != NULL;
		copy_str(g->target_app, sizeof(g->target_app), (const char *)s);
		s = sqlite3_column_text(st, 2);
		g->has_target_activity = s != NULL;
		copy_str(g->target_activity, sizeof(g->target_activity),
			 (const char *)s);
		g->launch_first_frame_ns = col_i64(st, 3, -1);
		g->launch_settle_ns = col_i64(st, 4, -1);
	}
	if (step != SQLITE_DONE) {
		msg_warnx("cannot read 'taps' in '%s': %s", path,
			  sqlite3_errmsg(db));
		rc = -EIO;
	}
out:
	sqlite3_finalize(st);
	return rc;
}

static int
load_db(const char *path, struct list *l, int need, int need_launch)
{
	static const char sql_plain[] =
		"SELECT id, app, pid, kind, status, flags, t_down_ns, "
		"t_up_ns, first_frame_ns, settle_ns, frames, jank FROM taps "
		"ORDER BY id";
	static const char sql_windows[] =
		"SELECT id, app, pid, kind, status, flags, t_down_ns, "
		"t_up_ns, first_frame_ns, settle_ns, frames, jank, window, "
		"attribution FROM taps ORDER BY id";
	const char *sql = sql_plain;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct gesture *g;
	const unsigned char *s;
	int rc, step, windows;

	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		msg_warnx("cannot open '%s': %s", path,
			  db != NULL ? sqlite3_errmsg(db) : "out of memory");
		rc = -EIO;
		goto out;
	}
	windows = has_column(db, "window") && has_column(db, "attribution");
	if (windows)
		sql = sql_windows;
	if (need && !windows) {
		msg_warnx("cannot compare '%s': its table 'taps' has no "
			  "column 'window' or 'attribution' (migration 007), "
			  "which a truth attributing taps by window needs",
			  path);
		rc = -ENOENT;
		goto out;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		msg_warnx("cannot read 'taps' in '%s': %s", path,
			  sqlite3_errmsg(db));
		rc = -EIO;
		goto out;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		g = list_add(l);
		if (g == NULL) {
			rc = -ENOMEM;
			goto out;
		}
		g->id = sqlite3_column_int64(st, 0);
		s = sqlite3_column_text(st, 1);
		g->has_app = s != NULL;
		copy_str(g->app, sizeof(g->app), (const char *)s);
		g->pid = col_i64(st, 2, 0);
		copy_str(g->kind, sizeof(g->kind),
			 (const char *)sqlite3_column_text(st, 3));
		copy_str(g->status, sizeof(g->status),
			 (const char *)sqlite3_column_text(st, 4));
		g->flags = (unsigned)col_i64(st, 5, 0);
		g->t_down_ns = col_i64(st, 6, -1);
		g->t_up_ns = col_i64(st, 7, -1);
		g->first_frame_ns = col_i64(st, 8, -1);
		g->settle_ns = col_i64(st, 9, -1);
		g->frames = col_i64(st, 10, 0);
		g->jank = col_i64(st, 11, 0);
		if (!windows)
			continue;
		g->db_columns = 1;
		s = sqlite3_column_text(st, 12);
		g->has_window = s != NULL;
		copy_str(g->window, sizeof(g->window), (const char *)s);
		copy_str(g->attribution, sizeof(g->attribution),
			 (const char *)sqlite3_column_text(st, 13));
	}
	if (step != SQLITE_DONE) {
		msg_warnx("cannot read 'taps' in '%s': %s", path,
			  sqlite3_errmsg(db));
		rc = -EIO;
		goto out;
	}
	rc = load_db_launch(db, path, l, need_launch);
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

static void
fmt_opt(char *buf, size_t size, int64_t v)
{
	if (v < 0)
		snprintf(buf, size, "null");
	else
		snprintf(buf, size, "%" PRId64, v);
}

static void
fmt_flags(char *buf, size_t size, unsigned flags)
{
	static const char *const names[] = {
		"busy_before", "settle_capped",
		"interrupted", "input_dropped",
		NULL,	       NULL,
		NULL,	       NULL,
		NULL,	       NULL,
		NULL,	       "launch",
		"navigation",
	};
	size_t used = 0;
	unsigned i;
	int n;

	buf[0] = '\0';
	for (i = 0; i < 13; i++) {
		if (names[i] == NULL)
			continue;
		if (!(flags & 1u << i))
			continue;
		n = snprintf(buf + used, size - used, "%s%s", used ? "," : "",
			     names[i]);
		if (n < 0 || (size_t)n >= size - used)
			return;
		used += (size_t)n;
	}
	if (flags & ~(0xfu | FLAG_LAUNCH | FLAG_NAVIGATION))
		snprintf(buf + used, size - used, "%s0x%x", used ? "," : "",
			 flags & ~(0xfu | FLAG_LAUNCH | FLAG_NAVIGATION));
	if (buf[0] == '\0')
		snprintf(buf, size, "-");
}

static int
near(int64_t a, int64_t b)
{
	if (a < 0 || b < 0)
		return a < 0 && b < 0;
	return (a > b ? a - b : b - a) < NS_TOLERANCE;
}

/* Prints the differences of one pair; returns how many fields differ. */
static int
compare(const struct gesture *t, const struct gesture *d, size_t idx)
{
	char a[96], b[96];
	int diffs = 0;

#define DIFF(field, fa, fb)                                                    \
	do {                                                                   \
		if (diffs++ == 0)                                              \
			printf("mismatch: gesture %zu (%s, app %s, t_up_ns "   \
			       "%" PRId64 ", db id %" PRId64 ")\n",            \
			       idx, t->kind, t->has_app ? t->app : "null",     \
			       t->t_up_ns, d->id);                             \
		printf("    %-15s truth %-22s db %s\n", field, fa, fb);        \
	} while (0)

	if (strcmp(t->kind, d->kind) != 0)
		DIFF("kind", t->kind, d->kind);
	if (t->has_app != d->has_app || strcmp(t->app, d->app) != 0)
		DIFF("app", t->has_app ? t->app : "null",
		     d->has_app ? d->app : "null");
	if (t->pid != d->pid) {
		snprintf(a, sizeof(a), "%" PRId64, t->pid);
		snprintf(b, sizeof(b), "%" PRId64, d->pid);
		DIFF("pid", a, b);
	}
	if (strcmp(t->status, d->status) != 0)
		DIFF("status", t->status, d->status);
	/*
	 * A truth made before launches says nothing of them: the database's
	 * launch bits are not held against it.
	 */
	if (t->flags !=
	    (t->by_launch ? d->flags
			  : d->flags & ~(FLAG_LAUNCH | FLAG_NAVIGATION))) {
		fmt_flags(a, sizeof(a), t->flags);
		fmt_flags(b, sizeof(b), d->flags);
		DIFF("flags", a, b);
	}
	if (!near(t->t_down_ns, d->t_down_ns)) {
		fmt_opt(a, sizeof(a), t->t_down_ns);
		fmt_opt(b, sizeof(b), d->t_down_ns);
		DIFF("t_down_ns", a, b);
	}
	if (!near(t->first_frame_ns, d->first_frame_ns)) {
		fmt_opt(a, sizeof(a), t->first_frame_ns);
		fmt_opt(b, sizeof(b), d->first_frame_ns);
		DIFF("first_frame_ns", a, b);
	}
	if (!near(t->settle_ns, d->settle_ns)) {
		fmt_opt(a, sizeof(a), t->settle_ns);
		fmt_opt(b, sizeof(b), d->settle_ns);
		DIFF("settle_ns", a, b);
	}
	if (t->frames != d->frames) {
		snprintf(a, sizeof(a), "%" PRId64, t->frames);
		snprintf(b, sizeof(b), "%" PRId64, d->frames);
		DIFF("frames", a, b);
	}
	if (t->jank != d->jank) {
		snprintf(a, sizeof(a), "0x%" PRIx64, t->jank);
		snprintf(b, sizeof(b), "0x%" PRIx64, d->jank);
		DIFF("jank", a, b);
	}
	if (t->by_window || d->db_columns) {
		/*
		 * A truth without windows is a session without window lists:
		 * the app is the foreground's, and no window is named.
		 */
		const char *want = t->by_window ? t->attribution
				   : t->has_app ? "foreground"
						: "none";

		if (t->has_window != d->has_window ||
		    strcmp(t->window, d->window) != 0)
			DIFF("window", t->has_window ? t->window : "null",
			     d->has_window ? d->window : "null");
		if (strcmp(want, d->attribution) != 0)
			DIFF("attribution", want, d->attribution);
	}
	/* Exact, not near(): the launch values are compared to the ns. */
	if (t->by_launch) {
		if (t->has_target_app != d->has_target_app ||
		    strcmp(t->target_app, d->target_app) != 0)
			DIFF("target_app",
			     t->has_target_app ? t->target_app : "null",
			     d->has_target_app ? d->target_app : "null");
		if (t->has_target_activity != d->has_target_activity ||
		    strcmp(t->target_activity, d->target_activity) != 0)
			DIFF("target_activity",
			     t->has_target_activity ? t->target_activity
						    : "null",
			     d->has_target_activity ? d->target_activity
						    : "null");
		if (t->launch_first_frame_ns != d->launch_first_frame_ns) {
			fmt_opt(a, sizeof(a), t->launch_first_frame_ns);
			fmt_opt(b, sizeof(b), d->launch_first_frame_ns);
			DIFF("launch_first", a, b);
		}
		if (t->launch_settle_ns != d->launch_settle_ns) {
			fmt_opt(a, sizeof(a), t->launch_settle_ns);
			fmt_opt(b, sizeof(b), d->launch_settle_ns);
			DIFF("launch_settle", a, b);
		}
	}
#undef DIFF
	return diffs;
}

int
check_run(const char *truth_path, const char *db_path, int verbose)
{
	struct list truth = {0}, db = {0};
	size_t i, j, mismatches = 0, missing = 0, spurious = 0;
	unsigned taps = 0, longs = 0, swipes = 0, multi = 0;
	int rc;

	if (load_truth(truth_path, &truth) < 0 ||
	    load_db(db_path, &db, by_window(&truth), by_launch(&truth)) < 0) {
		rc = 2;
		goto out;
	}
	qsort(db.g, db.n, sizeof(*db.g), cmp_tup);
	for (i = 0; i < truth.n; i++) {
		const struct gesture *t = &truth.g[i];
		size_t lo = 0, hi = db.n;

		if (strcmp(t->kind, "tap") == 0)
			taps++;
		else if (strcmp(t->kind, "long_press") == 0)
			longs++;
		else if (strcmp(t->kind, "swipe") == 0)
			swipes++;
		else
			multi++;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (db.g[mid].t_up_ns < t->t_up_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo; j < db.n && db.g[j].t_up_ns == t->t_up_ns; j++)
			if (!db.g[j].matched)
				break;
		if (j >= db.n || db.g[j].t_up_ns != t->t_up_ns) {
			missing++;
			printf("missing: gesture %zu (%s, app %s, t_up_ns "
			       "%" PRId64 ", status %s)\n",
			       i, t->kind, t->has_app ? t->app : "null",
			       t->t_up_ns, t->status);
			continue;
		}
		db.g[j].matched = 1;
		if (compare(t, &db.g[j], i) > 0)
			mismatches++;
		else if (verbose)
			printf("ok: gesture %zu (%s, t_up_ns %" PRId64
			       ", %s)\n",
			       i, t->kind, t->t_up_ns, t->status);
	}
	for (j = 0; j < db.n; j++) {
		if (db.g[j].matched)
			continue;
		spurious++;
		printf("spurious: db id %" PRId64 " (%s, app %s, t_up_ns "
		       "%" PRId64 ", status %s)\n",
		       db.g[j].id, db.g[j].kind,
		       db.g[j].has_app ? db.g[j].app : "null", db.g[j].t_up_ns,
		       db.g[j].status);
	}
	printf("check: %zu gestures compared (%u taps, %u long presses, %u "
	       "swipes, %u multi), %zu mismatches, %zu missing, %zu "
	       "spurious\n",
	       truth.n, taps, longs, swipes, multi, mismatches, missing,
	       spurious);
	rc = mismatches == 0 && missing == 0 && spurious == 0 ? 0 : 1;
out:
	free(truth.g);
	free(db.g);
	return rc;
}
