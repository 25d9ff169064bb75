#include "tracecfg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pb_write.h"

/* TraceConfig field numbers (trace_config.proto). */
#define TC_BUFFERS		1
#define TC_DATA_SOURCES		2
#define TC_DURATION_MS		3
#define TC_WRITE_INTO_FILE	8
#define TC_FILE_WRITE_PERIOD_MS 9
#define TC_MAX_FILE_SIZE_BYTES	10
#define TC_FLUSH_PERIOD_MS	13
#define TC_BUILTIN_DATA_SOURCES 20
#define TC_UNIQUE_SESSION_NAME	22
#define TC_OUTPUT_PATH		29
#define TC_WRITE_FLUSH_MODE	44

/* TraceConfig.BufferConfig */
#define BC_SIZE_KB	 1
#define BC_FILL_POLICY	 4
#define FILL_RING_BUFFER 1

/* TraceConfig.DataSource and DataSourceConfig */
#define DS_CONFIG 1
#define DSC_NAME  1

/* TraceConfig.BuiltinDataSource */
#define BDS_DISABLE_TRACE_CONFIG	   2
#define BDS_DISABLE_SYSTEM_INFO		   3
#define BDS_DISABLE_SERVICE_EVENTS	   4
#define BDS_DISABLE_CHUNK_USAGE_HISTOGRAMS 8

/* TraceConfig.WriteFlushMode */
#define WRITE_FLUSH_ENABLED 3

/*
 * The config is small and nested only two levels deep, so each message is
 * built into its own writer (pb_write.h) and copied into its parent.
 */

void
tracecfg_params_default(struct tracecfg_params *p)
{
	memset(p, 0, sizeof(*p));
	p->buffer_kb = 4096;
	p->file_write_period_ms = 500;
	p->flush_period_ms = 500;
}

static int
string_ok(const char *s, int required)
{
	size_t n;

	if (!s)
		return !required;
	n = strnlen(s, TRACECFG_STRING_MAX + 1);
	if (n > TRACECFG_STRING_MAX)
		return 0;
	return n > 0 || !required;
}

int
tracecfg_encode(const struct tracecfg_params *p, uint8_t **out, size_t *len)
{
	struct pb_writer cfg = {0}, buf = {0}, ds = {0}, dsc = {0}, bds = {0};
	int rc = 0;

	if (!string_ok(p->output_path, 1) || !string_ok(p->session_name, 0) ||
	    p->buffer_kb == 0 ||
	    p->file_write_period_ms < TRACECFG_WRITE_PERIOD_MIN_MS)
		return -EINVAL;

	pb_write_uint(&buf, BC_SIZE_KB, p->buffer_kb);
	pb_write_uint(&buf, BC_FILL_POLICY, FILL_RING_BUFFER);
	pb_write_msg(&cfg, TC_BUFFERS, &buf);

	pb_write_bytes(&dsc, DSC_NAME, TRACECFG_DATA_SOURCE,
		       strlen(TRACECFG_DATA_SOURCE));
	pb_write_msg(&ds, DS_CONFIG, &dsc);
	pb_write_msg(&cfg, TC_DATA_SOURCES, &ds);

	/* Written out although 0 is the default, to say it is meant. */
	pb_write_uint(&cfg, TC_DURATION_MS, 0);
	pb_write_uint(&cfg, TC_WRITE_INTO_FILE, 1);
	pb_write_uint(&cfg, TC_FILE_WRITE_PERIOD_MS, p->file_write_period_ms);
	if (p->max_file_size_bytes)
		pb_write_uint(&cfg, TC_MAX_FILE_SIZE_BYTES,
			      p->max_file_size_bytes);
	if (p->flush_period_ms)
		pb_write_uint(&cfg, TC_FLUSH_PERIOD_MS, p->flush_period_ms);
	/*
	 * What the service would add that the reader skips: the config
	 * echoed, the system info, the service events (one after every
	 * flush, that is every write period, on services that emit them,
	 * which on an idle screen would make a write with no frame in it)
	 * and the chunk histograms of the periodic stats.  The clock
	 * snapshots stay: the reader needs them for BOOTTIME.
	 */
	pb_write_uint(&bds, BDS_DISABLE_TRACE_CONFIG, 1);
	pb_write_uint(&bds, BDS_DISABLE_SYSTEM_INFO, 1);
	pb_write_uint(&bds, BDS_DISABLE_SERVICE_EVENTS, 1);
	pb_write_uint(&bds, BDS_DISABLE_CHUNK_USAGE_HISTOGRAMS, 1);
	pb_write_msg(&cfg, TC_BUILTIN_DATA_SOURCES, &bds);
	if (p->session_name && p->session_name[0])
		pb_write_bytes(&cfg, TC_UNIQUE_SESSION_NAME, p->session_name,
			       strlen(p->session_name));
	pb_write_bytes(&cfg, TC_OUTPUT_PATH, p->output_path,
		       strlen(p->output_path));
	pb_write_uint(&cfg, TC_WRITE_FLUSH_MODE, WRITE_FLUSH_ENABLED);

	if (cfg.oom) {
		rc = -ENOMEM;
		goto out;
	}
	*out = cfg.p;
	*len = cfg.len;
	cfg.p = NULL;
out:
	pb_write_release(&cfg);
	pb_write_release(&buf);
	pb_write_release(&ds);
	pb_write_release(&dsc);
	pb_write_release(&bds);
	return rc;
}
