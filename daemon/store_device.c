/*
 * The device of each run (sql/009-device.sql): written by the writer
 * once its run is open, read by `tapd serve` and the metrics of a served
 * file, which name the phone a database came from.
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <string.h>

#include "devid.h"
#include "log.h"
#include "store.h"
#include "store_sql.h"

static int
store_bind_text(sqlite3_stmt *stmt, int col, const char *s)
{
	return s[0] ? sqlite3_bind_text(stmt, col, s, -1, SQLITE_STATIC)
		    : sqlite3_bind_null(stmt, col);
}

static int
store_bind_number(sqlite3_stmt *stmt, int col, int32_t v)
{
	return v > 0 ? sqlite3_bind_int(stmt, col, v)
		     : sqlite3_bind_null(stmt, col);
}

int
store_run_device(struct store *st, const struct devid *id)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	if (st->readonly)
		return store__refuse_readonly(st, "record the device in");
	if (!st->run_id)
		return -EINVAL;
	if (!devid_known(id))
		return 0;
	rc = sqlite3_prepare_v2(
		st->db,
		"INSERT OR REPLACE INTO run_devices (run_id, serial, "
		"manufacturer, model, fingerprint, sdk, abi, refresh_hz, "
		"width, height, density_dpi) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
		"?7, ?8, ?9, ?10, ?11)",
		-1, &stmt, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 1, st->run_id);
	if (rc == SQLITE_OK)
		rc = store_bind_text(stmt, 2, id->serial);
	if (rc == SQLITE_OK)
		rc = store_bind_text(stmt, 3, id->manufacturer);
	if (rc == SQLITE_OK)
		rc = store_bind_text(stmt, 4, id->model);
	if (rc == SQLITE_OK)
		rc = store_bind_text(stmt, 5, id->fingerprint);
	if (rc == SQLITE_OK)
		rc = store_bind_number(stmt, 6, id->sdk);
	if (rc == SQLITE_OK)
		rc = store_bind_text(stmt, 7, id->abi);
	if (rc == SQLITE_OK)
		rc = store_bind_number(stmt, 8, id->refresh_hz);
	if (rc == SQLITE_OK)
		rc = store_bind_number(stmt, 9, id->width);
	if (rc == SQLITE_OK)
		rc = store_bind_number(stmt, 10, id->height);
	if (rc == SQLITE_OK)
		rc = store_bind_number(stmt, 11, id->density_dpi);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(stmt);
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_OK)
		return store__fail(st, rc, "record the device in");
	return 0;
}

/* Copies column col of the row, a text or NULL, into out. */
static void
store_column_text(sqlite3_stmt *stmt, int col, char *out, size_t size)
{
	const unsigned char *s = sqlite3_column_text(stmt, col);

	/* A hand-edited file may hold anything: it is made a valid label. */
	devid_set_text(out, size, s ? (const char *)s : "");
}

static int32_t
store_column_number(sqlite3_stmt *stmt, int col)
{
	int64_t v = sqlite3_column_int64(stmt, col);

	return v > 0 && v <= INT32_MAX ? (int32_t)v : 0;
}

int
store_device_latest(struct store *st, struct devid *id)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	devid_clear(id);
	/* A file older than version 9 has no devices. */
	rc = sqlite3_prepare_v2(
		st->db,
		"SELECT serial, manufacturer, model, fingerprint, sdk, abi, "
		"refresh_hz, width, height, density_dpi FROM run_devices "
		"ORDER BY run_id DESC LIMIT 1",
		-1, &stmt, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(stmt);
		return -ENOENT;
	}
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		store_column_text(stmt, 0, id->serial, sizeof(id->serial));
		store_column_text(stmt, 1, id->manufacturer,
				  sizeof(id->manufacturer));
		store_column_text(stmt, 2, id->model, sizeof(id->model));
		store_column_text(stmt, 3, id->fingerprint,
				  sizeof(id->fingerprint));
		id->sdk = store_column_number(stmt, 4);
		store_column_text(stmt, 5, id->abi, sizeof(id->abi));
		id->refresh_hz = store_column_number(stmt, 6);
		id->width = store_column_number(stmt, 7);
		id->height = store_column_number(stmt, 8);
		id->density_dpi = store_column_number(stmt, 9);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = -ENOENT;
	} else {
		rc = store__fail(st, rc, "read the device of");
	}
	sqlite3_finalize(stmt);
	return rc;
}
