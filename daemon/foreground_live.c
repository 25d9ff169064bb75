/*
 * The live foreground tracker.  A sample costs one small read of
 * cgroup.procs and one of /proc/<pid>/stat per member; the name and uid of
 * a process are read once per (pid, start time), so a reused pid is seen
 * as the new process it is.  dumpsys is the expensive part and runs only
 * when top-app holds several apps and the last answer no longer holds, or
 * on the samples of an open launch window (the focused activity).
 */
#include "foreground_live.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "foreground_topapp.h"
#include "foreground_window.h"
#include "log.h"
#include "loop.h"
#include "parse.h"
#include "record.h"
#include "status.h"

#define TOPAPP_PATH "/dev/cpuset/top-app/cgroup.procs"
/* The header's bound is the reader's. */
_Static_assert(FOREGROUND_LIVE_PIDS_MAX == FOREGROUND_TOPAPP_PIDS_MAX,
	       "one bound on the pids of top-app");

#define SYSTEMUI	   "com.android.systemui"
#define KIND		   "top-app"
#define DETAIL_MAX	   160
#define WINDOW_OUTPUT_MAX  (16 * 1024 * 1024)
#define TIMEOUT_DEFAULT_MS 500
#define REFRESH_DEFAULT_MS 5000
#define RETRY_FIRST_NS	   1000000000LL
#define RETRY_MAX_NS	   60000000000LL

/* One app of top-app: the process standing for its package. */
struct candidate {
	const struct foreground_topapp_proc *rep;
	int oom;
};

struct dkey {
	int32_t pid;
	uint64_t start;
};

struct foreground_live {
	struct record *record; /* NULL unless --record */
	char dumpsys_bin[PATH_MAX];
	int timeout_ms;
	int64_t refresh_ns;
	struct status *status;
	struct foreground *timeline;

	struct foreground_topapp *topapp;
	/* The processes of the last sample, and the apps among them. */
	const struct foreground_topapp_proc *procs;
	size_t nprocs;
	struct candidate *cands;
	size_t ncands;
	size_t cap;

	int have_cur;
	int32_t cur_pid;
	char cur_pkg[FOREGROUND_PACKAGE_MAX + 1];
	char cur_act[FOREGROUND_ACTIVITY_MAX + 1]; /* "" when unknown */
	/* The activity of dumpsys's focus that answer() matched, or "". */
	char ans_act[FOREGROUND_ACTIVITY_MAX + 1];

	/*
	 * The last dumpsys answer: for which set of candidates, when, and
	 * the package it named (d_ok) or that it named none.
	 */
	struct dkey *dkey, *tmpkey;
	size_t ndkey;
	int d_valid;
	int d_ok;
	char d_pkg[FOREGROUND_PACKAGE_MAX + 1];
	char d_why[DETAIL_MAX];
	int64_t d_next_ns;  /* when the answer goes stale */
	unsigned d_fails;   /* consecutive failures */
	int64_t d_retry_ns; /* no run before this after a failure */

	/*
	 * The dumpsys running, if any, with what its answer is about: the
	 * sample that asked (its time, candidates and their key).
	 */
	struct loop *loop;
	struct child_set *children;
	struct child *dchild;
	struct foreground_window *wp;
	struct foreground_window_focus focus;
	size_t wtotal;
	int64_t ask_ns;
	int64_t last_sample_ns; /* the latest sample, INT64_MIN: none */
	struct foreground_topapp_proc *ask_procs;
	struct candidate *ask_cands;
	struct dkey *ask_key;
	size_t nask;
	int64_t last_add_ns; /* of the last switch tried, INT64_MIN: none */
	/* The dumpsys out asks only the activity of the one app (1). */
	int ask_focus;
	/* A tap's launch window is open before this; INT64_MIN: none. */
	int64_t win_end_ns;
	int err; /* -ENOMEM met while applying an answer */

	int reported;
	enum status_health health;
	char detail[DETAIL_MAX];

	struct foreground_live_stats stats;
};

static void report(struct foreground_live *fl, enum status_health health,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Sets the health, and logs when it changed. */
static void
report(struct foreground_live *fl, enum status_health health, const char *fmt,
       ...)
{
	char detail[DETAIL_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (fl->reported && fl->health == health &&
	    strcmp(fl->detail, detail) == 0)
		return;
	if (!fl->reported || fl->health != health) {
		if (health == STATUS_HEALTH_UP)
			log_info("foreground: %s", detail);
		else
			log_warnx("foreground %s: %s",
				  status_health_name(health), detail);
	}
	fl->reported = 1;
	fl->health = health;
	memcpy(fl->detail, detail, sizeof(detail));
	if (fl->status)
		status_set_source(fl->status, STATUS_SOURCE_FOREGROUND, health,
				  KIND, "%s", detail);
}

static int
grow(struct foreground_live *fl, size_t need)
{
	const struct foreground_topapp_array a[] = {
		{&fl->cands, sizeof(*fl->cands)},
		{&fl->dkey, sizeof(*fl->dkey)},
		{&fl->tmpkey, sizeof(*fl->tmpkey)},
		{&fl->ask_procs, sizeof(*fl->ask_procs)},
		{&fl->ask_cands, sizeof(*fl->ask_cands)},
		{&fl->ask_key, sizeof(*fl->ask_key)},
	};

	return foreground_topapp_grow(a, sizeof(a) / sizeof(*a), &fl->cap,
				      need);
}

/*
 * Groups the app processes by package into fl->cands, each standing as
 * its main process when that is there, else its lowest pid.  SystemUI is
 * dropped when any other app is there.
 */
static void
collect_candidates(struct foreground_live *fl)
{
	const struct foreground_topapp_proc *e;
	struct candidate *c;
	size_t i, k, others = 0;

	fl->ncands = 0;
	for (i = 0; i < fl->nprocs; i++) {
		e = &fl->procs[i];
		if (!e->is_app)
			continue;
		for (k = 0; k < fl->ncands; k++)
			if (strcmp(fl->cands[k].rep->package, e->package) == 0)
				break;
		if (k == fl->ncands) {
			c = &fl->cands[fl->ncands++];
			c->rep = e;
			c->oom = FOREGROUND_TOPAPP_OOM_UNKNOWN;
			if (strcmp(e->package, SYSTEMUI) != 0)
				others++;
			continue;
		}
		c = &fl->cands[k];
		if ((e->is_main && !c->rep->is_main) ||
		    (e->is_main == c->rep->is_main && e->pid < c->rep->pid))
			c->rep = e;
	}
	if (others == 0 || others == fl->ncands)
		return;
	for (i = 0, k = 0; i < fl->ncands; i++)
		if (strcmp(fl->cands[i].rep->package, SYSTEMUI) != 0)
			fl->cands[k++] = fl->cands[i];
	fl->ncands = k;
}

static struct candidate *
find_candidate(struct foreground_live *fl, const char *package)
{
	size_t i;

	for (i = 0; i < fl->ncands; i++)
		if (strcmp(fl->cands[i].rep->package, package) == 0)
			return &fl->cands[i];
	return NULL;
}

/* Whether a should win over b by the fallback rule. */
static int
fallback_better(const struct foreground_live *fl, const struct candidate *a,
		const struct candidate *b)
{
	int a_cur, b_cur;

	if (a->oom != b->oom)
		return a->oom < b->oom;
	a_cur = fl->have_cur && strcmp(a->rep->package, fl->cur_pkg) == 0;
	b_cur = fl->have_cur && strcmp(b->rep->package, fl->cur_pkg) == 0;
	if (a_cur != b_cur)
		return a_cur;
	if (a->rep->start != b->rep->start)
		return a->rep->start > b->rep->start;
	return a->rep->pid < b->rep->pid;
}

/*
 * Without a word from dumpsys: the lowest oom_score_adj (the top app has
 * 0, a launcher animating 100), then the current foreground (no flapping
 * on a tie), then the newest process, then the lowest pid.
 */
static struct candidate *
fallback(struct foreground_live *fl)
{
	struct candidate *best;
	size_t i;

	fl->stats.fallbacks++;
	for (i = 0; i < fl->ncands; i++)
		fl->cands[i].oom = foreground_topapp_oom(fl->topapp,
							 fl->cands[i].rep->pid);
	best = &fl->cands[0];
	for (i = 1; i < fl->ncands; i++)
		if (fallback_better(fl, &fl->cands[i], best))
			best = &fl->cands[i];
	return best;
}

static int
dkey_cmp(const void *a, const void *b)
{
	const struct dkey *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Whether the candidates differ from those of the last dumpsys answer. */
static int
set_changed(struct foreground_live *fl)
{
	size_t i;

	for (i = 0; i < fl->ncands; i++) {
		fl->tmpkey[i].pid = fl->cands[i].rep->pid;
		fl->tmpkey[i].start = fl->cands[i].rep->start;
	}
	qsort(fl->tmpkey, fl->ncands, sizeof(*fl->tmpkey), dkey_cmp);
	if (!fl->d_valid || fl->ndkey != fl->ncands)
		return 1;
	for (i = 0; i < fl->ncands; i++)
		if (fl->tmpkey[i].pid != fl->dkey[i].pid ||
		    fl->tmpkey[i].start != fl->dkey[i].start)
			return 1;
	return 0;
}

/*
 * After a failure of dumpsys: no run for 1 s after the first, doubling up
 * to a minute, whatever asks (a hanging dumpsys must not stall samples).
 */
static void
back_off(struct foreground_live *fl, int64_t now_ns, const char *failure)
{
	int64_t wait = RETRY_FIRST_NS;
	unsigned i;

	fl->stats.dumpsys_failures++;
	fl->d_fails++;
	for (i = 1; i < fl->d_fails && wait < RETRY_MAX_NS; i++)
		wait *= 2;
	if (wait > RETRY_MAX_NS)
		wait = RETRY_MAX_NS;
	fl->d_retry_ns = now_ns + wait;
	snprintf(fl->d_why, sizeof(fl->d_why), "%s", failure ? failure : "");
}

/* Whether dumpsys may run at now_ns: none out, and not backing off. */
static int
may_ask(const struct foreground_live *fl, int64_t now_ns)
{
	return !fl->dchild && !(fl->d_fails > 0 && now_ns < fl->d_retry_ns);
}

/* Records a dumpsys answer for the candidates of the sample that asked. */
static void
remember(struct foreground_live *fl, int64_t next_ns, const char *pkg,
	 const char *why)
{
	memcpy(fl->dkey, fl->ask_key, fl->nask * sizeof(*fl->dkey));
	fl->ndkey = fl->nask;
	fl->d_valid = 1;
	fl->d_ok = pkg != NULL;
	snprintf(fl->d_pkg, sizeof(fl->d_pkg), "%s", pkg ? pkg : "");
	snprintf(fl->d_why, sizeof(fl->d_why), "%s", why ? why : "");
	fl->d_next_ns = next_ns;
}

/*
 * The first focus dumpsys named that is one of the candidates, its
 * activity in fl->ans_act.
 */
static struct candidate *
match_focus(struct foreground_live *fl,
	    const struct foreground_window_focus *focus)
{
	struct candidate *c;
	size_t i, j;

	for (i = 0; i < focus->n_current; i++)
		if ((c = find_candidate(fl, focus->current[i])) != NULL) {
			memcpy(fl->ans_act, focus->current_activity[i],
			       sizeof(fl->ans_act));
			/* A window without its activity: the focused app's. */
			for (j = 0; !fl->ans_act[0] && j < focus->n_app; j++)
				if (strcmp(focus->app[j], focus->current[i]) ==
				    0)
					memcpy(fl->ans_act,
					       focus->app_activity[j],
					       sizeof(fl->ans_act));
			return c;
		}
	for (i = 0; i < focus->n_app; i++)
		if ((c = find_candidate(fl, focus->app[i])) != NULL) {
			memcpy(fl->ans_act, focus->app_activity[i],
			       sizeof(fl->ans_act));
			return c;
		}
	return NULL;
}

/* The fallback's choice, reported as degraded with what dumpsys did. */
static struct candidate *
by_fallback(struct foreground_live *fl, const char *why)
{
	struct candidate *c = fallback(fl);

	report(fl, STATUS_HEALTH_DEGRADED,
	       "%s (pid %d) of %zu apps by fallback: dumpsys window %s",
	       c->rep->package, (int)c->rep->pid, fl->ncands, why);
	return c;
}

/*
 * Appends a switch to c at t_ns, with the focused activity act when
 * dumpsys named one (NULL or ""), unless c is already the foreground in
 * that activity.  Returns 0 or -ENOMEM; other refusals are counted and
 * logged.
 */
static int
apply_activity(struct foreground_live *fl, const struct candidate *c,
	       int64_t t_ns, const char *act)
{
	int r;

	if (act && !foreground_valid_activity(act))
		act = NULL;
	if (fl->have_cur && fl->cur_pid == c->rep->pid &&
	    strcmp(fl->cur_pkg, c->rep->package) == 0 &&
	    (!act || strcmp(fl->cur_act, act) == 0))
		return 0;
	fl->last_add_ns = t_ns;
	r = foreground_add_activity(fl->timeline, t_ns, c->rep->pid,
				    c->rep->package, act);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fl->stats.add_errors++;
		log_warnx("cannot add foreground switch to '%s' (pid %d): %s",
			  c->rep->package, (int)c->rep->pid, strerror(-r));
	} else {
		fl->stats.switches++;
		record_foreground_activity(fl->record, t_ns, c->rep->pid,
					   c->rep->package, act);
		log_debug("foreground: '%s' (pid %d) at %lld", c->rep->package,
			  (int)c->rep->pid, (long long)t_ns);
	}
	/* Also after a refusal, so that it is not retried every sample. */
	fl->have_cur = 1;
	fl->cur_pid = c->rep->pid;
	memcpy(fl->cur_pkg, c->rep->package, sizeof(fl->cur_pkg));
	snprintf(fl->cur_act, sizeof(fl->cur_act), "%s", act ? act : "");
	return 0;
}

/* The same without an activity: top-app alone names none. */
static int
apply(struct foreground_live *fl, const struct candidate *c, int64_t t_ns)
{
	if (fl->have_cur && fl->cur_pid == c->rep->pid &&
	    strcmp(fl->cur_pkg, c->rep->package) == 0)
		return 0;
	return apply_activity(fl, c, t_ns, NULL);
}

/*
 * What the answer of dumpsys (r 0, or a negative errno with failure
 * saying why) makes of the candidates in fl->cands, asked at now_ns; sets
 * the health.
 */
static struct candidate *
answer(struct foreground_live *fl, int r, const char *failure, int64_t now_ns)
{
	struct candidate *c;
	char why[DETAIL_MAX];

	if (r < 0) {
		back_off(fl, now_ns, failure);
		remember(fl, fl->d_retry_ns, NULL, failure);
		return by_fallback(fl, failure);
	}
	fl->d_fails = 0;
	fl->ans_act[0] = '\0';
	c = match_focus(fl, &fl->focus);
	if (c) {
		remember(fl, now_ns + fl->refresh_ns, c->rep->package, NULL);
		report(fl, STATUS_HEALTH_UP,
		       "%s (pid %d) of %zu apps, focus from dumpsys window",
		       c->rep->package, (int)c->rep->pid, fl->ncands);
		return c;
	}
	fl->stats.dumpsys_unnamed++;
	if (fl->focus.n_current > 0)
		snprintf(why, sizeof(why), "named only '%.100s'",
			 fl->focus.current[0]);
	else if (fl->focus.n_app > 0)
		snprintf(why, sizeof(why), "named only '%.100s'",
			 fl->focus.app[0]);
	else
		snprintf(why, sizeof(why), "named no app");
	remember(fl, now_ns + fl->refresh_ns, NULL, why);
	return by_fallback(fl, why);
}

/*
 * The answer of a dumpsys asked for the focused activity of the one app
 * of top-app (fl->cands holds it): that app when dumpsys named it, its
 * activity in fl->ans_act; else NULL, as nothing was learnt (the sample
 * that asked has applied the app).  The app is certain either way, so the
 * health stays as it is; a failure backs off as any other.
 */
static struct candidate *
answer_focus(struct foreground_live *fl, int r, const char *failure)
{
	struct candidate *c;

	if (r < 0) {
		back_off(fl, fl->ask_ns, failure);
		log_debug("foreground: no activity for '%s': dumpsys window %s",
			  fl->cands[0].rep->package, failure);
		return NULL;
	}
	fl->d_fails = 0;
	c = match_focus(fl, &fl->focus);
	if (!c)
		fl->stats.dumpsys_unnamed++;
	return c;
}

/*
 * Takes the answer for the sample that asked: its candidates stand in for
 * the current ones while it is read, and its choice is appended at the
 * time of that sample, so that taps since then are attributed as if
 * dumpsys had answered at once.  With a loop, a switch appended since (a
 * later sample with one app) is newer news: then the answer is only
 * remembered.  Without one, nothing came between: the answer applies, as
 * it always did.
 */
static void
take_answer(struct foreground_live *fl, int r, const char *why)
{
	struct candidate *cands = fl->cands, *c;
	size_t ncands = fl->ncands;

	fl->cands = fl->ask_cands;
	fl->ncands = fl->nask;
	fl->ans_act[0] = '\0';
	c = fl->ask_focus ? answer_focus(fl, r, why)
			  : answer(fl, r, why, fl->ask_ns);
	if (c && (!fl->loop || fl->last_add_ns <= fl->ask_ns) &&
	    apply_activity(fl, c, fl->ask_ns, fl->ans_act) < 0)
		fl->err = -ENOMEM;
	fl->cands = cands;
	fl->ncands = ncands;
	/* Nothing is outstanding: the timeline holds every sample's news. */
	foreground_set_complete(fl->timeline, fl->last_sample_ns);
}

static int
on_window_out(void *ctx, const char *p, size_t n)
{
	struct foreground_live *fl = ctx;

	foreground_window_feed(fl->wp, p, n);
	fl->wtotal += n;
	if (fl->wtotal < WINDOW_OUTPUT_MAX)
		return 0;
	/* Enough: the focus lines come well before this. */
	log_debug("dumpsys window output cut at %zu bytes", fl->wtotal);
	return 1;
}

static void
on_window_exit(void *ctx, struct child *ch)
{
	struct foreground_live *fl = ctx;
	struct child_info ci;
	char why[DETAIL_MAX];
	int st, r = 0;

	why[0] = '\0';
	foreground_window_end(fl->wp);
	child_get_info(ch, &ci);
	st = ci.status;
	if (ci.exec_errno) {
		r = -ci.exec_errno;
		snprintf(why, sizeof(why), "cannot run '%.80s': %s",
			 fl->dumpsys_bin, strerror(-r));
	} else if (ci.cut) {
		/* Killed by us: its status means nothing. */
	} else if (child_killed(ch)) {
		r = -ETIMEDOUT;
		snprintf(why, sizeof(why), "timed out after %d ms",
			 fl->timeout_ms);
	} else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
		r = -EIO;
		snprintf(why, sizeof(why), "exited with status %d",
			 WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		r = -EIO;
		snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(st));
	}
	child_free(ch);
	fl->dchild = NULL;
	take_answer(fl, r, why);
}

/*
 * Starts `<dumpsys_bin> window` for the candidates of this sample, whose
 * copy is kept for the answer, to choose among them or (focus 1, one
 * app) for its activity; without a loop, waits for the answer.
 */
static void
ask_dumpsys(struct foreground_live *fl, int64_t now_ns, int focus)
{
	static char arg_window[] = "window";
	char *argv[] = {fl->dumpsys_bin, arg_window, NULL};
	struct child_spec spec;
	char why[DETAIL_MAX];
	size_t i;
	int r;

	fl->ask_ns = now_ns;
	fl->ask_focus = focus;
	fl->nask = fl->ncands;
	memcpy(fl->ask_key, fl->tmpkey, fl->ncands * sizeof(*fl->ask_key));
	for (i = 0; i < fl->ncands; i++) {
		fl->ask_procs[i] = *fl->cands[i].rep;
		fl->ask_cands[i] = fl->cands[i];
		fl->ask_cands[i].rep = &fl->ask_procs[i];
	}
	fl->stats.dumpsys_calls++;
	if (focus)
		fl->stats.focus_calls++;
	foreground_window_begin(fl->wp, &fl->focus);
	fl->wtotal = 0;
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.on_out = on_window_out;
	spec.timeout_ms = (uint32_t)fl->timeout_ms;
	spec.on_exit = on_window_exit;
	spec.ctx = fl;
	r = child_spawn(fl->children, &spec, &fl->dchild, NULL, 0);
	if (r < 0) {
		snprintf(why, sizeof(why), "cannot run '%.80s': %s",
			 fl->dumpsys_bin, strerror(-r));
		take_answer(fl, r, why);
		return;
	}
	if (!fl->loop && child_set_wait(fl->children, fl->dchild) < 0) {
		/* No way to wait is no answer: a failure. */
		child_free(fl->dchild);
		fl->dchild = NULL;
		take_answer(fl, -EIO, "cannot be waited for");
	}
}

/*
 * Chooses among several apps and sets the health, or returns NULL when
 * dumpsys is asked (its answer applies itself when it comes) or already
 * running.  dumpsys runs when the set changed or the answer is stale, or
 * in a launch window (in_window 1: the focused activity may have changed
 * since), and not while backing off after failures.
 */
static struct candidate *
choose_among(struct foreground_live *fl, int64_t now_ns, int in_window)
{
	struct candidate *c;
	int changed;

	changed = set_changed(fl);
	if (fl->d_fails > 0 && now_ns < fl->d_retry_ns)
		return by_fallback(fl, fl->d_why);
	if (!changed && now_ns < fl->d_next_ns && !in_window) {
		c = fl->d_ok ? find_candidate(fl, fl->d_pkg) : NULL;
		if (c) {
			report(fl, STATUS_HEALTH_UP,
			       "%s (pid %d) of %zu apps, focus from dumpsys "
			       "window",
			       c->rep->package, (int)c->rep->pid, fl->ncands);
			return c;
		}
		if (!fl->d_ok)
			return by_fallback(fl, fl->d_why);
	}
	if (!fl->dchild)
		ask_dumpsys(fl, now_ns, 0);
	return NULL;
}

/* Keeps the longest call since t0_ns: what the caller's loop waited. */
static void
timed(struct foreground_live *fl, int64_t t0_ns)
{
	int64_t took = loop_now_ns() - t0_ns;

	if (took > fl->stats.longest_call_ns)
		fl->stats.longest_call_ns = took;
}

static int
on_children(void *ctx, uint32_t events)
{
	struct foreground_live *fl = ctx;
	int64_t t0 = loop_now_ns();
	int r;

	(void)events;
	r = child_set_dispatch(fl->children);
	timed(fl, t0);
	return r == -ENOMEM ? -ENOMEM : 0;
}

int
foreground_live_new(const struct foreground_live_config *cfg,
		    struct foreground *timeline, struct foreground_live **out)
{
	struct foreground_live *fl = NULL;
	const char *bin;
	int n, r = 0;

	if (!cfg || !timeline || !out || cfg->dumpsys_timeout_ms < 0 ||
	    cfg->dumpsys_refresh_ms < 0)
		return -EINVAL;
	bin = cfg->dumpsys_bin && *cfg->dumpsys_bin ? cfg->dumpsys_bin
						    : "dumpsys";
	if (!(fl = calloc(1, sizeof(*fl)))) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = foreground_topapp_new(cfg->sysroot, &fl->topapp)) < 0)
		goto out;
	n = snprintf(fl->dumpsys_bin, sizeof(fl->dumpsys_bin), "%s", bin);
	if (n < 0 || (size_t)n >= sizeof(fl->dumpsys_bin)) {
		log_warnx("cannot use dumpsys '%s': path too long", bin);
		r = -EINVAL;
		goto out;
	}
	fl->timeout_ms = cfg->dumpsys_timeout_ms ? cfg->dumpsys_timeout_ms
						 : TIMEOUT_DEFAULT_MS;
	fl->refresh_ns =
		(int64_t)(cfg->dumpsys_refresh_ms ? cfg->dumpsys_refresh_ms
						  : REFRESH_DEFAULT_MS) *
		1000000LL;
	fl->status = cfg->status;
	fl->record = cfg->record;
	fl->timeline = timeline;
	fl->last_add_ns = INT64_MIN;
	fl->last_sample_ns = INT64_MIN;
	fl->win_end_ns = INT64_MIN;
	if (grow(fl, 16) < 0 || foreground_window_new(&fl->wp) < 0) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = child_set_new(&fl->children)) < 0)
		goto out;
	if (cfg->loop) {
		r = loop_add_fd(cfg->loop, child_set_fd(fl->children), EPOLLIN,
				on_children, fl);
		if (r < 0)
			goto out;
		fl->loop = cfg->loop;
	}
	*out = fl;
	fl = NULL;
out:
	foreground_live_free(fl);
	return r;
}

void
foreground_live_free(struct foreground_live *fl)
{
	if (!fl)
		return;
	if (fl->loop)
		loop_del_fd(fl->loop, child_set_fd(fl->children));
	/* A dumpsys still running is killed: its answer is not wanted. */
	child_set_free(fl->children);
	foreground_window_free(fl->wp);
	free(fl->ask_procs);
	free(fl->ask_cands);
	free(fl->ask_key);
	foreground_topapp_free(fl->topapp);
	free(fl->cands);
	free(fl->dkey);
	free(fl->tmpkey);
	free(fl);
}

static int
sample(struct foreground_live *fl, int64_t now_ns)
{
	struct candidate *c;
	size_t ndenied;
	int32_t denied_pid;
	int r, denied_err, in_window = now_ns < fl->win_end_ns;

	fl->stats.samples++;
	r = foreground_topapp_read(fl->topapp, &fl->procs, &fl->nprocs);
	if (r == -ENOENT)
		report(fl, STATUS_HEALTH_DOWN,
		       "no /dev/cpuset/top-app (not Android?)");
	else if (r < 0 && r != -ENOMEM && r != -ENAMETOOLONG)
		report(fl, STATUS_HEALTH_DOWN,
		       "cannot read '" TOPAPP_PATH "': %s", strerror(-r));
	if (r < 0 || (r = grow(fl, fl->nprocs)) < 0)
		return r;
	collect_candidates(fl);
	/*
	 * Processes tapd may not read (without root, hidepid): with no app
	 * found, the health must say it may be one of those.
	 */
	ndenied =
		foreground_topapp_denied(fl->topapp, &denied_pid, &denied_err);
	if (fl->ncands == 0 && ndenied > 0) {
		report(fl, STATUS_HEALTH_DEGRADED,
		       "cannot read '/proc/%d': %s (%zu of %zu top-app "
		       "processes), no app found%s%s%s",
		       (int)denied_pid, strerror(denied_err), ndenied,
		       foreground_topapp_pids(fl->topapp),
		       fl->have_cur ? ", '" : "",
		       fl->have_cur ? fl->cur_pkg : "",
		       fl->have_cur ? "' kept" : "");
		return 0;
	}
	if (fl->ncands == 0) {
		if (fl->have_cur)
			report(fl, STATUS_HEALTH_UP,
			       "no app in top-app, '%s' kept", fl->cur_pkg);
		else
			report(fl, STATUS_HEALTH_UP, "no app in top-app");
		return 0;
	}
	if (fl->ncands == 1) {
		c = &fl->cands[0];
		report(fl, STATUS_HEALTH_UP, "%s (pid %d)", c->rep->package,
		       (int)c->rep->pid);
		/*
		 * In a launch window, the activity too: its answer goes in
		 * at this sample's time, after the app applied below.
		 */
		if (in_window && may_ask(fl, now_ns)) {
			set_changed(fl);
			ask_dumpsys(fl, now_ns, 1);
		}
	} else {
		c = choose_among(fl, now_ns, in_window);
	}
	if (fl->err < 0) {
		r = fl->err;
		fl->err = 0;
		return r;
	}
	/* NULL: dumpsys was asked, and its answer applies itself. */
	return c ? apply(fl, c, now_ns) : 0;
}

int
foreground_live_sample(struct foreground_live *fl, int64_t now_ns)
{
	int64_t t0 = loop_now_ns();
	int r;

	if (now_ns > fl->last_sample_ns)
		fl->last_sample_ns = now_ns;
	r = sample(fl, now_ns);
	/*
	 * How far the timeline is complete (foreground.h): to this sample,
	 * or while dumpsys is out, to just before the sample that asked,
	 * whose answer may still go in at its time.
	 */
	foreground_set_complete(fl->timeline, fl->dchild ? fl->ask_ns - 1
							 : fl->last_sample_ns);
	timed(fl, t0);
	return r;
}

int
foreground_live_touch_down(struct foreground_live *fl, int64_t t_ns)
{
	/* A touch-down ends the launch window of the tap before it. */
	fl->win_end_ns = INT64_MIN;
	return foreground_live_sample(fl, t_ns);
}

int
foreground_live_launch_window(struct foreground_live *fl, int64_t t_up_ns,
			      int64_t end_ns)
{
	int64_t t = t_up_ns;

	if (end_ns <= t_up_ns)
		return 0;
	fl->win_end_ns = end_ns;
	/*
	 * At t_up, for the activity in force there, unless a sample after it
	 * has already declared the timeline complete that far.
	 */
	if (fl->last_sample_ns != INT64_MIN && t <= fl->last_sample_ns)
		t = fl->last_sample_ns + 1;
	if (t >= end_ns)
		return 0;
	return foreground_live_sample(fl, t);
}

int
foreground_live_current(const struct foreground_live *fl, int32_t *pid,
			const char **package)
{
	if (!fl->have_cur)
		return -ENOENT;
	if (pid)
		*pid = fl->cur_pid;
	if (package)
		*package = fl->cur_pkg;
	return 0;
}

void
foreground_live_get_stats(const struct foreground_live *fl,
			  struct foreground_live_stats *st)
{
	struct foreground_topapp_stats ts;

	*st = fl->stats;
	foreground_topapp_get_stats(fl->topapp, &ts);
	st->cache_hits = ts.cache_hits;
	st->cache_misses = ts.cache_misses;
	st->vanished = ts.vanished;
	st->proc_errors = ts.proc_errors;
	st->garbage = ts.garbage;
	st->dropped_pids = ts.dropped_pids;
}
