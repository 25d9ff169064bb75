#include "frames_source.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "correlate.h"
#include "filemap.h"
#include "frames_ftl.h"
#include "frames_latency.h"
#include "log.h"

/*
 * How far behind its own watermark a source's data may still arrive.
 * Packets of different Perfetto sequences interleave in arbitrary order
 * (TracePacket documentation), and a latency poll cycle reports frames up
 * to a second old; holding the correlator this far behind the newest data
 * costs memory, never an answer.
 */
#define FRAMES_REORDER_NS (10 * INT64_C(1000000000))

/*
 * How far past an input event the frame data is read before the event is
 * used: the longest response window (the cap), the frame latency the
 * correlator waits for, and the reorder slack.  Reading ahead by a
 * generous constant keeps replay finalizing as it goes.
 */
#define FRAMES_LOOKAHEAD_NS (30 * INT64_C(1000000000))

#define READ_CHUNK 65536

enum frames_kind {
	FRAMES_NONE,
	FRAMES_FTL,
	FRAMES_LATENCY,
};

struct frames_source {
	enum frames_kind kind;
	char *path;
	struct correlate *corr;
	struct frames_ftl *ftl;
	struct frames_latency_dir *dir;
	int fd;
	int eof;
	int coverage_set;
	uint64_t fed;
	int64_t first_present, last_present;
	unsigned char *buf;
	/* A regular file's mapping, read in place (filemap.h), and how far. */
	struct filemap *map;
	size_t map_off;
};

static int
feed(struct frames_source *fs, const struct correlate_frame *f)
{
	fs->fed++;
	if (fs->first_present == INT64_MIN || f->present_ns < fs->first_present)
		fs->first_present = f->present_ns;
	if (f->present_ns > fs->last_present)
		fs->last_present = f->present_ns;
	return correlate_feed_frame(fs->corr, f);
}

static int
drain_ftl(struct frames_source *fs)
{
	struct correlate_frame cf;
	struct frames_ftl_frame f;
	int rc;

	while (frames_ftl_next(fs->ftl, &f) == 1) {
		frames_ftl_frame_to_correlate(&f, &cf);
		rc = feed(fs, &cf);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
on_latency_frame(void *ctx, const struct frames_latency_frame *f)
{
	struct frames_source *fs = ctx;
	struct correlate_frame cf;

	frames_latency_frame_to_correlate(f, &cf);
	return feed(fs, &cf);
}

/*
 * The coverage is declared once the source knows where its data starts,
 * which for a trace is its first clock snapshot or packet.
 */
static void
update_coverage(struct frames_source *fs)
{
	int64_t start = INT64_MIN;

	if (fs->coverage_set)
		return;
	if (fs->kind == FRAMES_FTL)
		start = frames_ftl_coverage_start(fs->ftl);
	else if (fs->kind == FRAMES_LATENCY &&
		 frames_latency_dir_coverage(fs->dir) != INT64_MAX)
		start = frames_latency_dir_coverage(fs->dir);
	if (start == INT64_MIN)
		return;
	correlate_set_coverage(fs->corr, start);
	fs->coverage_set = 1;
}

/*
 * At the end of a trace: a file with bytes in it from which not one
 * packet could be framed is unreadable, and replaying it as "no frames"
 * would only hide that, so it is an error naming why.  Malformed packets
 * are warned about once, with their count, since each was skipped
 * silently.
 */
static int
ftl_end(struct frames_source *fs)
{
	struct frames_ftl_stats st;
	char why[160];

	frames_ftl_get_stats(fs->ftl, &st);
	if (st.bytes > 0 && st.packets == 0) {
		if (st.oversized > 0 && st.cut_at == 0 && st.cut_len > 0)
			snprintf(why, sizeof(why),
				 "first length %" PRIu64 " exceeds the %s",
				 st.cut_len,
				 st.truncated ? "file" : "packet limit");
		else if (st.corrupt > 0)
			snprintf(why, sizeof(why),
				 "bad record framing at byte %" PRIu64,
				 st.corrupt_at);
		else if (st.truncated > 0)
			snprintf(why, sizeof(why),
				 "the first packet is cut off");
		else
			snprintf(why, sizeof(why),
				 "%" PRIu64 " bytes hold no TracePacket record",
				 st.bytes);
		log_error("cannot read '%s': no FrameTimeline packet could "
			  "be read (%s)",
			  fs->path, why);
		return -EBADMSG;
	}
	if (st.malformed > 0)
		log_warnx("'%s': %" PRIu64 " malformed packets skipped (bad "
			  "wire types, lengths past their message or events "
			  "missing fields)",
			  fs->path, st.malformed);
	if (st.truncated > 0)
		log_warnx("'%s': truncated: the last packet at byte %" PRIu64
			  " is cut off",
			  fs->path, st.cut_at);
	return 0;
}

/* Reads one more step of the source; sets fs->eof at its end. */
static int
step(struct frames_source *fs)
{
	ssize_t n;
	int rc;

	if (fs->kind == FRAMES_FTL && fs->map) {
		n = (ssize_t)(filemap_len(fs->map) - fs->map_off);
		if (n > READ_CHUNK)
			n = READ_CHUNK;
		if (n == 0) {
			frames_ftl_eof(fs->ftl);
			fs->eof = 1;
			rc = ftl_end(fs);
		} else {
			rc = frames_ftl_feed(
				fs->ftl, filemap_data(fs->map) + fs->map_off,
				(size_t)n);
			fs->map_off += (size_t)n;
			filemap_done(fs->map, fs->map_off);
		}
		if (rc == 0)
			rc = drain_ftl(fs);
	} else if (fs->kind == FRAMES_FTL) {
		n = read(fs->fd, fs->buf, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			return 0;
		if (n < 0) {
			rc = -errno;
			log_error("cannot read '%s': %s", fs->path,
				  strerror(errno));
			return rc;
		}
		if (n == 0) {
			frames_ftl_eof(fs->ftl);
			fs->eof = 1;
			rc = ftl_end(fs);
			if (rc < 0)
				return rc;
		} else {
			rc = frames_ftl_feed(fs->ftl, fs->buf, (size_t)n);
			if (rc < 0)
				return rc;
		}
		rc = drain_ftl(fs);
	} else {
		rc = frames_latency_dir_next(fs->dir, on_latency_frame, fs,
					     NULL);
		if (rc == 0)
			fs->eof = 1;
	}
	update_coverage(fs);
	return rc < 0 ? rc : 0;
}

static int64_t
source_watermark(const struct frames_source *fs)
{
	if (fs->kind == FRAMES_FTL)
		return frames_ftl_watermark(fs->ftl);
	return frames_latency_dir_watermark(fs->dir);
}

int
frames_source_open(const char *spec, struct frames_source **out)
{
	struct frames_source *fs = NULL;
	int rc = 0;

	*out = NULL;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->fd = -1;
	fs->first_present = INT64_MIN;
	fs->last_present = INT64_MIN;
	if (!spec || strcmp(spec, "none") == 0) {
		fs->kind = FRAMES_NONE;
		fs->eof = 1;
		goto out;
	}
	if (strncmp(spec, "ftl:", 4) == 0 && spec[4]) {
		fs->kind = FRAMES_FTL;
		fs->path = strdup(spec + 4);
		fs->buf = malloc(READ_CHUNK);
		if (!fs->path || !fs->buf) {
			rc = -ENOMEM;
			goto out;
		}
		rc = frames_ftl_new(NULL, &fs->ftl);
		if (rc < 0)
			goto out;
		fs->fd = open(fs->path, O_RDONLY | O_CLOEXEC);
		if (fs->fd < 0) {
			rc = -errno;
			log_error("cannot open '%s': %s", fs->path,
				  strerror(errno));
			goto out;
		}
		/* What cannot be mapped (a pipe, say) is read. */
		if (filemap_open(fs->fd, SIZE_MAX, &fs->map) < 0)
			fs->map = NULL;
	} else if (strncmp(spec, "latency:", 8) == 0 && spec[8]) {
		fs->kind = FRAMES_LATENCY;
		fs->path = strdup(spec + 8);
		if (!fs->path) {
			rc = -ENOMEM;
			goto out;
		}
		rc = frames_latency_dir_open(fs->path, &fs->dir);
		if (rc < 0)
			goto out;
	} else {
		log_error("unknown frame source '%s': replay reads ftl:FILE, "
			  "latency:DIR or none",
			  spec);
		rc = -EINVAL;
		goto out;
	}
out:
	if (rc < 0) {
		frames_source_close(fs);
		return rc;
	}
	*out = fs;
	return 0;
}

void
frames_source_close(struct frames_source *fs)
{
	if (!fs)
		return;
	if (fs->fd >= 0)
		close(fs->fd);
	filemap_free(fs->map);
	frames_ftl_free(fs->ftl);
	frames_latency_dir_free(fs->dir);
	free(fs->buf);
	free(fs->path);
	free(fs);
}

int
frames_source_pump(struct frames_source *fs, struct correlate *corr,
		   int64_t input_ns, int64_t *frames_wm)
{
	int64_t wm, target;
	int rc;

	fs->corr = corr;
	/*
	 * Without a source no frame will ever come, so the frame data never
	 * holds a tap back: it is finalized (as frames_unavailable) as soon
	 * as its window is known.
	 */
	*frames_wm = INT64_MAX;
	if (fs->kind == FRAMES_NONE)
		return 0;
	*frames_wm = INT64_MIN;
	target = input_ns > INT64_MAX - FRAMES_LOOKAHEAD_NS
			 ? INT64_MAX
			 : input_ns + FRAMES_LOOKAHEAD_NS;
	while (!fs->eof) {
		wm = source_watermark(fs);
		if (wm != INT64_MIN && wm >= target)
			break;
		rc = step(fs);
		if (rc < 0)
			return rc;
	}
	wm = source_watermark(fs);
	if (fs->eof)
		*frames_wm = wm;
	else if (wm != INT64_MIN)
		*frames_wm = wm - FRAMES_REORDER_NS;
	return 0;
}

int
frames_source_finish(struct frames_source *fs, struct correlate *corr,
		     int64_t *frames_end)
{
	int rc;

	fs->corr = corr;
	*frames_end = INT64_MIN;
	if (fs->kind == FRAMES_NONE)
		return 0;
	while (!fs->eof) {
		rc = step(fs);
		if (rc < 0)
			return rc;
	}
	*frames_end = source_watermark(fs);
	return 0;
}

void
frames_source_counts(const struct frames_source *fs, uint64_t *frames,
		     uint64_t *packets, uint64_t *dropped)
{
	struct frames_ftl_stats st;

	*frames = fs->fed;
	*packets = 0;
	*dropped = 0;
	if (fs->kind != FRAMES_FTL)
		return;
	frames_ftl_get_stats(fs->ftl, &st);
	*packets = st.packets;
	*dropped = st.packets_lost + st.malformed + st.evicted_waiting +
		   st.unpaired_ends + st.corrupt + st.oversized + st.truncated;
}

void
frames_source_problems(const struct frames_source *fs, char *buf, size_t len)
{
	struct frames_ftl_stats st;
	int n;

	buf[0] = '\0';
	if (fs->kind != FRAMES_FTL)
		return;
	frames_ftl_get_stats(fs->ftl, &st);
	if (!st.malformed && !st.corrupt && !st.truncated && !st.oversized)
		return;
	n = snprintf(buf, len,
		     "%" PRIu64 " packets read, %" PRIu64
		     " malformed packets skipped, %" PRIu64 " bytes not framed",
		     st.packets, st.malformed,
		     st.ignored_bytes + st.skipped_bytes);
	if (n < 0 || (size_t)n >= len)
		return;
	if (st.truncated)
		snprintf(buf + n, len - (size_t)n,
			 ", truncated at byte %" PRIu64, st.cut_at);
}

int
frames_source_cut(const struct frames_source *fs, int64_t *until_ns)
{
	struct frames_latency_jump j;

	if (fs->kind != FRAMES_LATENCY ||
	    frames_latency_dir_get_jump(fs->dir, &j) < 0)
		return -ENOENT;
	*until_ns = j.until_ns;
	return 0;
}

void
frames_source_print(const struct frames_source *fs, FILE *out)
{
	struct frames_latency_jump j;
	struct frames_latency_stats ls;
	struct frames_ftl_stats st;

	switch (fs->kind) {
	case FRAMES_NONE:
		fprintf(out, "frames     none: taps are frames_unavailable\n");
		break;
	case FRAMES_FTL:
		frames_ftl_get_stats(fs->ftl, &st);
		fprintf(out,
			"frames     '%s': %" PRIu64 " packets, %" PRIu64
			" app frames presented (%.3f s to %.3f s), %" PRIu64
			" dropped frames\n",
			fs->path, st.packets, st.frames,
			fs->fed ? fs->first_present / 1e9 : 0.0,
			fs->fed ? fs->last_present / 1e9 : 0.0,
			st.dropped_frames);
		if (st.clock_held || st.clock_assumed)
			fprintf(out,
				"           clocks: %" PRIu64
				" events waited for a later clock snapshot, "
				"%" PRIu64 " read without one (offset 0, "
				"flagged clock_assumed)\n",
				st.clock_held, st.clock_assumed);
		if (st.malformed || st.unpaired_ends || st.packets_lost ||
		    st.ts_rejected || st.ts_unconvertible || st.corrupt ||
		    st.evicted_waiting || st.truncated || st.oversized ||
		    st.unpaired_starts)
			fprintf(out,
				"           problems: %" PRIu64
				" malformed, %" PRIu64
				" unpaired ends, %" PRIu64
				" packets lost by the tracer, %" PRIu64
				" bad timestamps, %" PRIu64
				" unconvertible clocks, %" PRIu64
				" frames never joined, %" PRIu64
				" framing errors, %" PRIu64
				" truncated, %" PRIu64 " starts never ended\n",
				st.malformed, st.unpaired_ends, st.packets_lost,
				st.ts_rejected, st.ts_unconvertible,
				st.evicted_waiting, st.corrupt, st.truncated,
				st.unpaired_starts);
		if (st.malformed || st.corrupt || st.truncated || st.oversized)
			fprintf(out,
				"           read: %" PRIu64 " packets, %" PRIu64
				" malformed packets skipped, %" PRIu64
				" oversized records skipped, %" PRIu64
				" bytes not framed\n",
				st.packets, st.malformed, st.oversized,
				st.ignored_bytes + st.skipped_bytes);
		if (st.corrupt)
			fprintf(out,
				"           unreadable: bad record framing at "
				"byte %" PRIu64 ", the last %" PRIu64
				" bytes ignored\n",
				st.corrupt_at, st.ignored_bytes);
		if (st.truncated)
			fprintf(out,
				"           truncated: the last packet at byte "
				"%" PRIu64 " is cut off\n",
				st.cut_at);
		break;
	case FRAMES_LATENCY:
		frames_latency_dir_get_stats(fs->dir, &ls);
		fprintf(out,
			"frames     '%s': %" PRIu64 " files, %" PRIu64
			" snapshots, %" PRIu64 " frames presented, %" PRIu64
			" invalid, %" PRIu64 " lost pending, %" PRIu64
			" gaps between polls\n",
			fs->path, ls.files, ls.snapshots, ls.frames,
			ls.frames_invalid, ls.pending_lost, ls.gaps);
		if (ls.files_skipped || ls.garbage_lines)
			fprintf(out,
				"           problems: %" PRIu64
				" files skipped, %" PRIu64 " garbage lines\n",
				ls.files_skipped, ls.garbage_lines);
		if (frames_latency_dir_get_jump(fs->dir, &j) < 0)
			break;
		fprintf(out,
			"STOPPED    at '%s/%s': layer '%s' goes back %.6f s "
			"(from %.6f to %.6f); the rest of the directory was "
			"not read, ",
			fs->path, j.file, j.layer,
			(double)(j.from_ns - j.to_ns) / 1e9,
			(double)j.from_ns / 1e9, (double)j.to_ns / 1e9);
		if (j.until_ns == INT64_MIN)
			fprintf(out, "nor any input\n");
		else
			fprintf(out, "nor input after %.6f\n",
				(double)j.until_ns / 1e9);
		break;
	}
}
