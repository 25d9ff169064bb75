#include "attrib_live.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>

#include "attrib_int.h"
#include "child.h"
#include "foreground.h"
#include "log.h"
#include "loop.h"
#include "owner.h"
#include "record.h"
#include "windows_log.h"

#define MS INT64_C(1000000)

static void
ring_push(struct attrib *a, int64_t t_ns, struct winlist *wl)
{
	if (a->nring == ATTRIB_RING) {
		winlist_free(a->ring[0].wl);
		memmove(a->ring, a->ring + 1,
			(ATTRIB_RING - 1) * sizeof(*a->ring));
		a->nring--;
	}
	/* Blocks of windows.log go forward in time, or the log ends there. */
	if (a->nring && t_ns < a->ring[a->nring - 1].t_ns)
		t_ns = a->ring[a->nring - 1].t_ns;
	a->ring[a->nring].t_ns = t_ns;
	a->ring[a->nring].wl = wl;
	a->nring++;
}

/*
 * Under --record the logs are the recording's current files: after a
 * rotation the owners are written again and the list in force is read
 * again, so that the new directory holds what its taps were decided by.
 */
static void
sync_record(struct attrib *a)
{
	unsigned gen;

	if (!a->record)
		return;
	a->windows_out = record_log(a->record, RECORD_WINDOWS, &gen);
	a->processes_out = record_log(a->record, RECORD_PROCESSES, NULL);
	if (gen == a->record_gen)
		return;
	a->record_gen = gen;
	a->nwritten = 0;
	a->next_written = 0;
	a->windows_bytes = 0;
	a->windows_full = 0;
	a->record_stale = 1;
}

/* Appends a block to windows.log: its mark, then the output verbatim. */
static void
record_block(struct attrib *a, int64_t t_ns, const char *out, size_t len)
{
	int n;

	sync_record(a);
	if (!a->windows_out || a->windows_full)
		return;
	if (a->windows_bytes + len + WINDOWS_LOG_MARK_MAX >
	    ATTRIB_LIVE_LOG_MAX) {
		log_warnx("windows.log has reached %lld bytes: no more window "
			  "lists are recorded",
			  ATTRIB_LIVE_LOG_MAX);
		a->windows_full = 1;
		return;
	}
	n = fprintf(a->windows_out, "@ %" PRId64 "\n", t_ns);
	if (len)
		fwrite(out, 1, len, a->windows_out);
	if (len && out[len - 1] != '\n')
		fputc('\n', a->windows_out);
	a->windows_bytes += (uint64_t)(n > 0 ? n : 0) + len + 1;
	if (fflush(a->windows_out) != 0 && !a->windows_full) {
		log_warnx("cannot write windows.log: %s", strerror(errno));
		a->windows_full = 1;
	}
}

static void
on_read(void *ctx, struct child *c)
{
	struct attrib *a = ctx;
	struct winlist *wl = NULL;
	int64_t now = loop_now_ns();
	const char *out;
	char why[128];
	size_t len = 0;

	out = child_out(c, &len);
	if (child_clean_exit(c) && len > 0 &&
	    winlist_parse(out, len, &wl) == 0 && winlist_n_displays(wl) > 0) {
		ring_push(a, now, wl);
		record_block(a, a->ring[a->nring - 1].t_ns, out, len);
		a->st.lists++;
	} else {
		child_exit_text(c, why, sizeof(why));
		if (a->st.read_failures++ == 0)
			log_warnx("dumpsys input gave no window list (%s%s%s): "
				  "taps go to the foreground app",
				  why, child_errline(c)[0] ? ": " : "",
				  child_errline(c));
		winlist_free(wl);
		ring_push(a, now, NULL);
		record_block(a, a->ring[a->nring - 1].t_ns, NULL, 0);
		a->retry_ns = now + ATTRIB_LIVE_RETRY_MS * MS;
	}
	child_free(c);
	a->child = NULL;
}

static int
on_children(void *ctx, uint32_t events)
{
	struct attrib *a = ctx;

	(void)events;
	return child_set_dispatch(a->cs);
}

static void
start_read(struct attrib *a)
{
	char *argv[] = {a->dumpsys, "input", NULL};
	struct child_spec spec;
	char why[256];
	int rc;

	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.out_max = ATTRIB_LIVE_OUT_MAX;
	spec.timeout_ms = (uint32_t)a->timeout_ms;
	spec.on_exit = on_read;
	spec.ctx = a;
	a->record_stale = 0;
	rc = child_spawn(a->cs, &spec, &a->child, why, sizeof(why));
	a->st.reads++;
	if (rc < 0) {
		if (a->st.read_failures++ == 0)
			log_warnx("%s: taps go to the foreground app", why);
		a->child = NULL;
		a->retry_ns = loop_now_ns() + ATTRIB_LIVE_RETRY_MS * MS;
	}
}

void
attrib__live_down(struct attrib *a, int64_t t_ns)
{
	const struct attrib_block *b = a->nring ? &a->ring[a->nring - 1] : NULL;
	const char *pkg = NULL;
	int64_t now = loop_now_ns();
	int32_t pid = 0;

	sync_record(a);
	if (a->fg && foreground_at(a->fg, t_ns, &pid, &pkg) < 0) {
		pid = 0;
		pkg = NULL;
	}
	if (b && b->wl &&
	    (pid != a->fg_pid || strcmp(pkg ? pkg : "", a->fg_app) != 0)) {
		/* The list was read under another app: it holds no more. */
		a->st.invalidations++;
		ring_push(a, t_ns, NULL);
		record_block(a, a->ring[a->nring - 1].t_ns, NULL, 0);
		b = &a->ring[a->nring - 1];
	}
	if (a->child)
		return;
	if (b && b->wl && now - b->t_ns < ATTRIB_LIVE_REFRESH_MS * MS &&
	    !a->record_stale)
		return;
	if (b && !b->wl && now < a->retry_ns)
		return;
	a->fg_pid = pid;
	snprintf(a->fg_app, sizeof(a->fg_app), "%s", pkg ? pkg : "");
	start_read(a);
}

const struct winlist *
attrib__live_at(const struct attrib *a, int64_t t_ns)
{
	size_t i;

	for (i = a->nring; i-- > 0;)
		if (a->ring[i].t_ns <= t_ns)
			return a->ring[i].wl;
	return NULL;
}

int
attrib_viewport(const struct attrib *a, int32_t display_id,
		struct winlist_viewport *out)
{
	const struct winlist_viewport *vp;
	size_t i;

	for (i = a->nring; i-- > 0;) {
		if (!a->ring[i].wl)
			continue;
		vp = winlist_find_viewport(a->ring[i].wl, display_id);
		if (!vp)
			return -ENOENT;
		*out = *vp;
		return 0;
	}
	return -ENOENT;
}

/* Writes the owner to processes.log unless it was written already. */
static void
record_owner(struct attrib *a, int64_t t_ns, int32_t pid, int64_t uid,
	     const char *package)
{
	struct attrib_written *w;
	size_t i;

	sync_record(a);
	if (!a->processes_out)
		return;
	for (i = 0; i < a->nwritten; i++) {
		w = &a->written[i];
		if (w->pid == pid && w->uid == uid &&
		    strcmp(w->package, package) == 0)
			return;
	}
	w = &a->written[a->next_written];
	a->next_written = (a->next_written + 1) % ATTRIB_WRITTEN;
	if (a->nwritten < ATTRIB_WRITTEN)
		a->nwritten++;
	w->pid = pid;
	w->uid = uid;
	snprintf(w->package, sizeof(w->package), "%s", package);
	fprintf(a->processes_out, "%" PRId64 " %" PRId32 " %" PRId64 " %s\n",
		t_ns, pid, uid, package);
	if (fflush(a->processes_out) == 0)
		a->st.processes_lines++;
}

int
attrib__live_owner(struct attrib *a, int64_t t_ns, int32_t pid, int64_t uid,
		   char *package, size_t size)
{
	struct owner_result res;
	size_t n;

	/* What processes.log cannot say, a replay could not find. */
	if (pid <= 0 || uid < 0 || !a->owner)
		return -ENOENT;
	if (owner_resolve(a->owner, pid, uid, &res) < 0)
		return -ENOENT;
	n = strlen(res.package);
	if (n == 0 || n >= size || !foreground_valid_package(res.package))
		return -ENOENT;
	memcpy(package, res.package, n + 1);
	record_owner(a, t_ns, pid, uid, package);
	return 0;
}

/* Opens dir/name for appending; NULL (warned) when it cannot. */
static FILE *
open_log(const char *dir, const char *name, uint64_t *size)
{
	struct stat sb;
	char *path;
	FILE *fp;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return NULL;
	fp = fopen(path, "ae");
	if (!fp)
		log_warnx("cannot open '%s': %s: window lists are not recorded",
			  path, strerror(errno));
	else if (size && fstat(fileno(fp), &sb) == 0)
		*size = (uint64_t)sb.st_size;
	free(path);
	return fp;
}

int
attrib_live_start(struct attrib *a, const struct attrib_live_config *cfg)
{
	const char *slash;
	char *dir;
	int rc;

	a->timeout_ms =
		cfg->timeout_ms > 0 ? cfg->timeout_ms : ATTRIB_LIVE_TIMEOUT_MS;
	a->fg = cfg->fg;
	a->dumpsys = strdup(cfg->dumpsys_bin ? cfg->dumpsys_bin : "dumpsys");
	if (!a->dumpsys)
		return -ENOMEM;
	rc = owner_new(cfg->sysroot, &a->owner);
	if (rc < 0) {
		log_error("cannot set up the window owners: %s", strerror(-rc));
		return rc;
	}
	rc = child_set_new(&a->cs);
	if (rc < 0) {
		log_error("cannot set up dumpsys input: %s", strerror(-rc));
		return rc;
	}
	rc = loop_add_fd(cfg->loop, child_set_fd(a->cs), EPOLLIN, on_children,
			 a);
	if (rc < 0) {
		log_error("cannot watch dumpsys input: %s", strerror(-rc));
		return rc;
	}
	a->loop = cfg->loop;
	if (cfg->record) {
		a->record = cfg->record;
		record_log(a->record, RECORD_WINDOWS, &a->record_gen);
		sync_record(a);
	} else if (cfg->db) {
		/* Beside the database: the directory part of its path. */
		slash = strrchr(cfg->db, '/');
		dir = slash ? strndup(cfg->db, (size_t)(slash - cfg->db))
			    : strdup(".");
		if (!dir)
			return -ENOMEM;
		a->windows_out = open_log(dir[0] ? dir : "/", "windows.log",
					  &a->windows_bytes);
		a->processes_out =
			open_log(dir[0] ? dir : "/", "processes.log", NULL);
		free(dir);
	}
	a->live = 1;
	return 0;
}

int
attrib_live_new(const struct attrib_live_config *cfg,
		const struct hittest_axes *axes, struct attrib **out)
{
	struct attrib *a = NULL;
	int rc;

	*out = NULL;
	if (!axes ||
	    !child_can_run(cfg->dumpsys_bin ? cfg->dumpsys_bin : "dumpsys"))
		return 0;
	rc = attrib_new(axes, &a);
	if (rc == 0)
		rc = attrib_live_start(a, cfg);
	if (rc < 0) {
		attrib_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void
attrib__live_free(struct attrib *a)
{
	size_t i;

	if (a->loop && a->cs)
		loop_del_fd(a->loop, child_set_fd(a->cs));
	child_free(a->child);
	child_set_free(a->cs);
	owner_free(a->owner);
	for (i = 0; i < a->nring; i++)
		winlist_free(a->ring[i].wl);
	/* The recording's files are the recording's to close. */
	if (a->windows_out && !a->record)
		fclose(a->windows_out);
	if (a->processes_out && !a->record)
		fclose(a->processes_out);
	free(a->dumpsys);
}
