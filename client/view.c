#include "view.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

#define VIEW_MAX_COLS  32
#define VIEW_MAX_DEPTH 4
#define VIEW_PATH_MAX  256
/* Separates the keys of a column's path; no JSON key of tapd holds it. */
#define VIEW_SEP '\x1f'

static int
view_scalar(const cJSON *v)
{
	return !cJSON_IsObject(v) &&
	       !(cJSON_IsArray(v) && cJSON_IsObject(cJSON_GetArrayItem(v, 0)));
}

/*
 * Joins a member's key to the path of its parent.  Returns 0, or -1 for a
 * path too long to show (the member is then left out).
 */
static int
view_path(char *path, size_t size, const char *prefix, char sep,
	  const char *key)
{
	int n;

	if (*prefix)
		n = snprintf(path, size, "%s%c%s", prefix, sep, key);
	else
		n = snprintf(path, size, "%s", key);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* An object whose members are all objects: a table, one row each. */
static int
view_is_table(const cJSON *v)
{
	const cJSON *e;

	if (!cJSON_IsObject(v) || cJSON_GetArraySize(v) == 0)
		return 0;
	cJSON_ArrayForEach(e, v)
	{
		if (!cJSON_IsObject(e))
			return 0;
	}
	return 1;
}

static void
view_number(double d, char *buf, size_t size)
{
	if (!isfinite(d))
		table_format(buf, size, "-");
	else if (d == floor(d) && fabs(d) < 9007199254740992.0)
		table_format(buf, size, "%.0f", d);
	else
		table_format(buf, size, "%.3f", d);
}

void
view_cell(const cJSON *v, char *buf, size_t size)
{
	const cJSON *e;
	char item[128];
	size_t len = 0, n;

	if (size == 0)
		return;
	buf[0] = '\0';
	if (v == NULL || cJSON_IsNull(v)) {
		table_format(buf, size, "-");
	} else if (cJSON_IsString(v)) {
		table_format(buf, size, "%s",
			     *v->valuestring ? v->valuestring : "-");
	} else if (cJSON_IsNumber(v)) {
		view_number(v->valuedouble, buf, size);
	} else if (cJSON_IsBool(v)) {
		table_format(buf, size, "%s",
			     cJSON_IsTrue(v) ? "true" : "false");
	} else if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach(e, v)
		{
			if (cJSON_IsArray(e) || cJSON_IsObject(e))
				table_format(item, sizeof(item), "...");
			else
				view_cell(e, item, sizeof(item));
			n = strlen(item) + (len ? 1 : 0);
			if (len + n >= size)
				break;
			table_format(buf + len, size - len, "%s%s",
				     len ? "|" : "", item);
			len += n;
		}
		if (len == 0)
			table_format(buf, size, "-");
	} else {
		table_format(buf, size, "{...}");
	}
}

/* ---- Objects as key/value lines ---- */

static int
view_kv(struct table *t, const cJSON *obj, const char *prefix, int depth)
{
	char path[VIEW_PATH_MAX], value[512];
	const char *cells[2];
	const cJSON *v;
	int rc;

	cJSON_ArrayForEach(v, obj)
	{
		if (v->string == NULL)
			continue;
		if (view_path(path, sizeof(path), prefix, '.', v->string) < 0)
			continue;
		/* Tables get a place of their own, later. */
		if (view_is_table(v))
			continue;
		if (cJSON_IsObject(v) && depth < VIEW_MAX_DEPTH &&
		    cJSON_GetArraySize(v) > 0) {
			if ((rc = view_kv(t, v, path, depth + 1)) < 0)
				return rc;
			continue;
		}
		if (!view_scalar(v))
			continue;
		view_cell(v, value, sizeof(value));
		cells[0] = path;
		cells[1] = value;
		if ((rc = table_add(t, cells)) < 0)
			return rc;
	}
	return 0;
}

/* The title of a table inside an object, cleaned like its cells. */
static void
view_title(const char *path, FILE *f)
{
	char title[VIEW_PATH_MAX];

	table_clean(path, title, sizeof(title));
	fprintf(f, "\n%s:\n", title);
}

/*
 * An object of objects as a table: a NAME column with each member's key,
 * then the members' own members.
 */
static int
view_rows(const cJSON *obj, FILE *f)
{
	const cJSON *e, *m;
	cJSON *arr, *row, *dup;
	int rc = -ENOMEM;

	if ((arr = cJSON_CreateArray()) == NULL)
		return -ENOMEM;
	cJSON_ArrayForEach(e, obj)
	{
		if ((row = cJSON_CreateObject()) == NULL)
			goto out;
		if (!cJSON_AddItemToArray(arr, row)) {
			cJSON_Delete(row);
			goto out;
		}
		if (cJSON_AddStringToObject(row, "name", e->string) == NULL)
			goto out;
		cJSON_ArrayForEach(m, e)
		{
			if (strcmp(m->string, "name") == 0)
				continue;
			if ((dup = cJSON_Duplicate(m, 1)) == NULL)
				goto out;
			if (!cJSON_AddItemToObject(row, m->string, dup)) {
				cJSON_Delete(dup);
				goto out;
			}
		}
	}
	rc = view_array(arr, f);
out:
	cJSON_Delete(arr);
	return rc;
}

static int
view_subtables(const cJSON *obj, const char *prefix, int depth, FILE *f)
{
	char path[VIEW_PATH_MAX];
	const cJSON *v;
	int rc;

	cJSON_ArrayForEach(v, obj)
	{
		if (v->string == NULL)
			continue;
		if (view_path(path, sizeof(path), prefix, '.', v->string) < 0)
			continue;
		if (view_is_table(v)) {
			view_title(path, f);
			if ((rc = view_rows(v, f)) < 0)
				return rc;
		} else if (cJSON_IsObject(v) && depth < VIEW_MAX_DEPTH) {
			if ((rc = view_subtables(v, path, depth + 1, f)) < 0)
				return rc;
		} else if (!view_scalar(v)) {
			view_title(path, f);
			if ((rc = view_array(v, f)) < 0)
				return rc;
		}
	}
	return 0;
}

int
view_object(const cJSON *obj, FILE *f)
{
	struct table *t = NULL;
	int rc;

	if ((rc = table_new(2, NULL, &t)) < 0)
		return rc;
	if ((rc = view_kv(t, obj, "", 0)) < 0)
		goto out;
	if (table_rows(t) > 0 && (rc = table_print(t, f)) < 0)
		goto out;
	rc = view_subtables(obj, "", 0, f);
out:
	table_free(t);
	return rc;
}

/* ---- Arrays of objects as tables ---- */

struct view_cols {
	char *path[VIEW_MAX_COLS];
	int numeric[VIEW_MAX_COLS]; /* every value seen is a number or null */
	int seen[VIEW_MAX_COLS];    /* at least one number */
	size_t n;
};

static int
view_col_add(struct view_cols *c, const char *path, const cJSON *v)
{
	size_t i;
	int num = cJSON_IsNumber(v) || cJSON_IsNull(v);

	for (i = 0; i < c->n; i++)
		if (strcmp(c->path[i], path) == 0)
			break;
	if (i == c->n) {
		/* Past the limit, further members are not shown. */
		if (c->n == VIEW_MAX_COLS)
			return 0;
		if ((c->path[i] = strdup(path)) == NULL)
			return -ENOMEM;
		c->numeric[i] = 1;
		c->n++;
	}
	c->numeric[i] = c->numeric[i] && num;
	c->seen[i] = c->seen[i] || cJSON_IsNumber(v);
	return 0;
}

static int
view_cols_collect(struct view_cols *c, const cJSON *obj, const char *prefix,
		  int depth)
{
	char path[VIEW_PATH_MAX];
	const cJSON *v;
	int rc;

	cJSON_ArrayForEach(v, obj)
	{
		if (v->string == NULL)
			continue;
		if (view_path(path, sizeof(path), prefix, VIEW_SEP, v->string) <
		    0)
			continue;
		if (cJSON_IsObject(v) && depth < VIEW_MAX_DEPTH &&
		    cJSON_GetArraySize(v) > 0)
			rc = view_cols_collect(c, v, path, depth + 1);
		else
			rc = view_col_add(c, path, v);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The member of obj at a path of keys joined by VIEW_SEP, or NULL. */
static const cJSON *
view_lookup(const cJSON *obj, const char *path)
{
	char key[VIEW_PATH_MAX];
	const char *sep;
	size_t n;

	while (obj != NULL) {
		sep = strchr(path, VIEW_SEP);
		n = sep ? (size_t)(sep - path) : strlen(path);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		obj = cJSON_GetObjectItemCaseSensitive(obj, key);
		if (sep == NULL)
			return obj;
		path = sep + 1;
	}
	return NULL;
}

/* A column's header: its path with dots, upper case. */
static void
view_header(const char *path, char *buf, size_t size)
{
	size_t i;

	for (i = 0; path[i] && i + 1 < size; i++)
		buf[i] = path[i] == VIEW_SEP
				 ? '.'
				 : (char)toupper((unsigned char)path[i]);
	buf[i] = '\0';
}

int
view_array(const cJSON *arr, FILE *f)
{
	char headers[VIEW_MAX_COLS][VIEW_PATH_MAX];
	char cells[VIEW_MAX_COLS][512];
	const char *hp[VIEW_MAX_COLS], *cp[VIEW_MAX_COLS];
	struct view_cols cols;
	struct table *t = NULL;
	const cJSON *e;
	size_t i;
	int rc = 0;

	memset(&cols, 0, sizeof(cols));
	cJSON_ArrayForEach(e, arr)
	{
		if (cJSON_IsObject(e) &&
		    (rc = view_cols_collect(&cols, e, "", 0)) < 0)
			goto out;
	}
	if (cols.n == 0) {
		fputs("(none)\n", f);
		goto out;
	}
	for (i = 0; i < cols.n; i++) {
		view_header(cols.path[i], headers[i], sizeof(headers[i]));
		hp[i] = headers[i];
	}
	if ((rc = table_new((unsigned)cols.n, hp, &t)) < 0)
		goto out;
	for (i = 0; i < cols.n; i++)
		if (cols.numeric[i] && cols.seen[i])
			table_align(t, (unsigned)i, TABLE_RIGHT);
	cJSON_ArrayForEach(e, arr)
	{
		if (!cJSON_IsObject(e))
			continue;
		for (i = 0; i < cols.n; i++) {
			view_cell(view_lookup(e, cols.path[i]), cells[i],
				  sizeof(cells[i]));
			cp[i] = cells[i];
		}
		if ((rc = table_add(t, cp)) < 0)
			goto out;
	}
	rc = table_print(t, f);
out:
	table_free(t);
	for (i = 0; i < cols.n; i++)
		free(cols.path[i]);
	return rc;
}
