/*
 * The binary TraceConfig that makes the Perfetto tracing service record
 * SurfaceFlinger's FrameTimeline into a file the daemon tails
 * (docs/formats.md 2.8).  A binary config is the stable interface: a
 * `--txt` config fails on any field name an older perfetto does not know,
 * while an older service simply skips an unknown field number.
 *
 * What is encoded, with the field numbers of perfetto's
 * protos/perfetto/config/trace_config.proto, in field order:
 *
 *	buffers (1) { size_kb (1), fill_policy (4): RING_BUFFER (1) }
 *	data_sources (2) { config (1) { name (1):
 *		"android.surfaceflinger.frametimeline" } }
 *	duration_ms (3): 0, no timed stop
 *	write_into_file (8): true
 *	file_write_period_ms (9)
 *	max_file_size_bytes (10), when not 0: traced stops the session there
 *	flush_period_ms (13): makes SurfaceFlinger commit its chunks, which
 *		the periodic write alone does not do before perfetto v53
 *	builtin_data_sources (20) { disable_trace_config (2),
 *		disable_system_info (3), disable_service_events (4),
 *		disable_chunk_usage_histograms (8): all true }: nothing in the
 *		file but the FrameTimeline packets, the clock snapshots the
 *		reader needs and the service's periodic sync markers and stats
 *	unique_session_name (22), when set
 *	output_path (29): the file traced creates (Android 11+)
 *	write_flush_mode (44): WRITE_FLUSH_ENABLED (3), a flush before every
 *		write on perfetto v54+, where the default ignores
 *		flush_period_ms; older services skip the field
 */
#ifndef TAPD_TRACECFG_H
#define TAPD_TRACECFG_H

#include <stddef.h>
#include <stdint.h>

/* The data source SurfaceFlinger registers for FrameTimeline (A12+). */
#define TRACECFG_DATA_SOURCE "android.surfaceflinger.frametimeline"

/* Longest output_path and unique_session_name accepted, in bytes. */
#define TRACECFG_STRING_MAX 4096

/* Traced's minimum write period (kMinWriteIntoFilePeriodMs). */
#define TRACECFG_WRITE_PERIOD_MIN_MS 100

struct tracecfg_params {
	uint32_t buffer_kb;	       /* central buffer size, default 4096 */
	const char *output_path;       /* required; must not exist yet */
	const char *session_name;      /* unique_session_name, NULL: none */
	uint32_t file_write_period_ms; /* default 500 */
	uint32_t flush_period_ms;      /* default 500; 0 leaves it out */
	uint64_t max_file_size_bytes;  /* 0: no cap (left out) */
};

/* Fills p with the defaults above; output_path and session_name NULL. */
void tracecfg_params_default(struct tracecfg_params *p);

/*
 * Encodes the TraceConfig for p.  Returns 0 and sets *out to a buffer of
 * *len bytes that the caller frees with free(); -EINVAL when output_path
 * is NULL or empty, a string is longer than TRACECFG_STRING_MAX, buffer_kb
 * is 0, or file_write_period_ms is below TRACECFG_WRITE_PERIOD_MIN_MS
 * (traced would silently use its 5 s default instead); -ENOMEM.
 */
int tracecfg_encode(const struct tracecfg_params *p, uint8_t **out,
		    size_t *len);

#endif
