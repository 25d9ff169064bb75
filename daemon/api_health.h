/*
 * GET /v1/health (docs/DESIGN.md 7.6): whether the daemon works, what
 * each source is doing, the live counters and the database's size.
 */
#ifndef TAPD_API_HEALTH_H
#define TAPD_API_HEALTH_H

struct api_request;

/*
 * Answers {"status": "ok"|"degraded", "version", "mode", "uptime_s",
 * "started", "sources": {NAME: {"health", "kind", "detail"}},
 * "counters": {...}, "frames_lag_ms", "database": {"path",
 * "schema_version", "taps", "size_bytes", "wal_bytes"} (or "error") or
 * null, "session"}.  "degraded" means a source is degraded or down, or
 * the database cannot be read.  No parameters are accepted.
 */
int api_health_get(struct api_request *rq);

#endif
