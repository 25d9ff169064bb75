/* Part 3 of the --latency reader: --list. */
#include "frames_latency_list.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frames_latency_int.h"

/* A --list line is a name plus, on A15+, a wrapper of a few fields. */
#define LIST_LINE_MAX (LATENCY_NAME_MAX + 256)

#define BLAST_TAG	 "(BLAST)"
#define REQUESTED_PREFIX "RequestedLayerState{"

struct frames_latency_list {
	char **names;
	/* Per name: the A15 line said " !handle" (the layer is going away). */
	unsigned char *dead;
	size_t n;
	size_t cap;
	struct frames_latency_stats st;
};

static int
starts_with(const char *s, size_t len, const char *prefix)
{
	size_t plen = strlen(prefix);

	return len >= plen && memcmp(s, prefix, plen) == 0;
}

/* Whether s[0..p) ends with '#' and at least one digit. */
static int
ends_with_seq(const char *s, size_t p)
{
	size_t j = p;

	while (j > 0 && frames_latency_is_digit(s[j - 1]))
		j--;
	return j < p && j > 0 && s[j - 1] == '#';
}

/*
 * The name inside an A15 `RequestedLayerState{...}` line body (what
 * follows the prefix), as frames_latency_list_name() describes.  Returns its
 * length.
 */
static size_t
requested_name_len(const char *s, size_t len)
{
	static const char *const markers[] = {
		" parentId=",	" relativeParentId=", " isRelativeOf=",
		" mirrorId=",	" !handle",	      " z=",
		" layerStack=",
	};
	size_t i, k, first = len, endc;

	for (i = 1; i < len; i++) {
		if (s[i] != ' ')
			continue;
		for (k = 0; k < sizeof(markers) / sizeof(markers[0]); k++) {
			if (!starts_with(s + i, len - i, markers[k]))
				continue;
			if (ends_with_seq(s, i))
				return i;
			if (first == len)
				first = i;
		}
	}
	endc = len > 0 && s[len - 1] == '}' ? len - 1 : len;
	if (ends_with_seq(s, endc))
		return endc;
	return first < endc ? first : endc;
}

static int
list_add(struct frames_latency_list *list, const char *name, size_t len,
	 int dead)
{
	unsigned char *grown_dead;
	char **grown, *copy;
	size_t cap;

	if (list->n == list->cap) {
		cap = list->cap ? 2 * list->cap : 64;
		grown = realloc(list->names, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		list->names = grown;
		grown_dead = realloc(list->dead, cap);
		if (!grown_dead)
			return -ENOMEM;
		list->dead = grown_dead;
		list->cap = cap;
	}
	copy = strndup(name, len);
	if (!copy)
		return -ENOMEM;
	list->dead[list->n] = (unsigned char)dead;
	list->names[list->n++] = copy;
	list->st.list_names++;
	return 0;
}

/* Whether the rest of an A15 line after the name holds " !handle". */
static int
has_dead_handle(const char *s, size_t len)
{
	static const char mark[] = " !handle";
	size_t i, mlen = sizeof(mark) - 1;

	for (i = 0; i + mlen <= len; i++)
		if (memcmp(s + i, mark, mlen) == 0 &&
		    (i + mlen == len || s[i + mlen] == ' ' ||
		     s[i + mlen] == '}'))
			return 1;
	return 0;
}

int
frames_latency_list_parse(const char *buf, size_t len,
			  struct frames_latency_list **out)
{
	struct frames_latency_list *list = NULL;
	struct frames_latency_lines it = {buf, buf + len};
	const char *line;
	size_t llen, nlen, plen = strlen(REQUESTED_PREFIX);
	int terminated, dead, rc = -ENOMEM;

	list = calloc(1, sizeof(*list));
	if (!list)
		goto out;
	list->st.lists = 1;
	while (frames_latency_next_line(&it, &line, &llen, &terminated)) {
		if (frames_latency_is_blank(line, llen))
			continue;
		if (llen > LIST_LINE_MAX || memchr(line, '\0', llen) ||
		    list->n >= LATENCY_LIST_NAMES_MAX) {
			list->st.garbage_lines++;
			continue;
		}
		dead = 0;
		nlen = llen;
		if (starts_with(line, llen, REQUESTED_PREFIX)) {
			line += plen;
			llen -= plen;
			nlen = requested_name_len(line, llen);
			dead = has_dead_handle(line + nlen, llen - nlen);
		}
		/*
		 * Names may end in spaces and so are kept verbatim, but an
		 * all-blank one cannot be passed to --latency.
		 */
		if (nlen == 0 || nlen > LATENCY_NAME_MAX ||
		    frames_latency_is_blank(line, nlen)) {
			list->st.garbage_lines++;
			continue;
		}
		rc = list_add(list, line, nlen, dead);
		if (rc < 0)
			goto out;
	}
	*out = list;
	list = NULL;
	rc = 0;
out:
	frames_latency_list_free(list);
	return rc;
}

void
frames_latency_list_free(struct frames_latency_list *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->n; i++)
		free(list->names[i]);
	free(list->names);
	free(list->dead);
	free(list);
}

size_t
frames_latency_list_count(const struct frames_latency_list *list)
{
	return list->n;
}

const char *
frames_latency_list_name(const struct frames_latency_list *list, size_t i)
{
	if (i >= list->n)
		return NULL;
	return list->names[i];
}

void
frames_latency_list_get_stats(const struct frames_latency_list *list,
			      struct frames_latency_stats *st)
{
	*st = list->st;
}

static int
pkg_follows(const char *s, const char *pkg, size_t plen, const char *stops)
{
	return strncmp(s, pkg, plen) == 0 && s[plen] != '\0' &&
	       strchr(stops, s[plen]) != NULL;
}

static int
is_app_layer(const char *name, const char *pkg, size_t plen)
{
	if (pkg_follows(name, pkg, plen, "/#("))
		return 1;
	if (strncmp(name, SV_PREFIX, strlen(SV_PREFIX)) == 0)
		return pkg_follows(name + strlen(SV_PREFIX), pkg, plen, "/]");
	if (strncmp(name, SV_PREFIX_A10, strlen(SV_PREFIX_A10)) == 0)
		return pkg_follows(name + strlen(SV_PREFIX_A10), pkg, plen,
				   "/#");
	return 0;
}

/*
 * The name without its first "(BLAST)" and then without a "#<digits>"
 * suffix, so that a BLAST child and its parent compare equal.  Returns a
 * string to free, or NULL.
 */
static char *
blast_base(const char *name)
{
	const char *tag = strstr(name, BLAST_TAG);
	size_t len = strlen(name), tlen = strlen(BLAST_TAG), j;
	char *base;

	base = malloc(len + 1);
	if (!base)
		return NULL;
	if (tag) {
		memcpy(base, name, (size_t)(tag - name));
		memcpy(base + (tag - name), tag + tlen,
		       len - (size_t)(tag - name) - tlen + 1);
		len -= tlen;
	} else {
		memcpy(base, name, len + 1);
	}
	j = len;
	while (j > 0 && frames_latency_is_digit(base[j - 1]))
		j--;
	if (j < len && j > 0 && base[j - 1] == '#')
		base[j - 1] = '\0';
	return base;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
frames_latency_list_pick(const struct frames_latency_list *list,
			 const char *package, const char **names, size_t max,
			 size_t *n)
{
	size_t *cand = NULL, ncand = 0, nblast = 0, i, plen, count = 0;
	char **bases = NULL, *base = NULL;
	const char *name;
	int rc = -ENOMEM;

	*n = 0;
	if (!package || package[0] == '\0')
		return -EINVAL;
	plen = strlen(package);
	if (list->n == 0)
		return 0;
	cand = malloc(list->n * sizeof(*cand));
	bases = calloc(list->n, sizeof(*bases));
	if (!cand || !bases)
		goto out;
	for (i = 0; i < list->n; i++) {
		if (list->dead[i] ||
		    !is_app_layer(list->names[i], package, plen))
			continue;
		cand[ncand++] = i;
		if (strstr(list->names[i], BLAST_TAG)) {
			bases[nblast] = blast_base(list->names[i]);
			if (!bases[nblast])
				goto out;
			nblast++;
		}
	}
	qsort(bases, nblast, sizeof(*bases), cmp_str);
	for (i = 0; i < ncand; i++) {
		name = list->names[cand[i]];
		if (!strstr(name, BLAST_TAG) && nblast > 0) {
			base = blast_base(name);
			if (!base)
				goto out;
			if (bsearch(&base, bases, nblast, sizeof(*bases),
				    cmp_str)) {
				free(base);
				base = NULL;
				continue;
			}
			free(base);
			base = NULL;
		}
		if (count < max)
			names[count] = name;
		count++;
	}
	*n = count < max ? count : max;
	rc = count > max ? -ENOSPC : 0;
out:
	if (bases)
		for (i = 0; i < nblast; i++)
			free(bases[i]);
	free(bases);
	free(cand);
	return rc;
}
