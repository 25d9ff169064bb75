/* The names of the correlator, each kept once. */
#include "correlate_intern.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t
hash_str(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

int
correlate_intern_grow(struct correlate *c)
{
	struct istr **nb;
	size_t n, i;

	n = c->nbuckets ? c->nbuckets * 2 : 64;
	nb = calloc(n, sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	for (i = 0; i < c->nbuckets; i++) {
		struct istr *s = c->buckets[i], *next;

		for (; s; s = next) {
			next = s->next;
			s->next = nb[s->hash & (n - 1)];
			nb[s->hash & (n - 1)] = s;
		}
	}
	free(c->buckets);
	c->buckets = nb;
	c->nbuckets = n;
	return 0;
}

int
correlate_intern(struct correlate *c, const char *s, struct istr **out)
{
	struct istr *is;
	size_t len;
	uint32_t h;

	*out = NULL;
	if (!s || !*s)
		return 0;
	/* A table that cannot grow still works, with longer chains. */
	if (c->nstrings >= c->nbuckets * 2)
		(void)correlate_intern_grow(c);
	len = strlen(s);
	/*
	 * Frames come in runs of one layer, so the name kept last is tried
	 * before the string is hashed.
	 */
	is = c->last_intern;
	if (is && is->len == len && memcmp(is->s, s, len) == 0) {
		is->refs++;
		*out = is;
		return 0;
	}
	h = hash_str(s, len);
	for (is = c->buckets[h & (c->nbuckets - 1)]; is; is = is->next) {
		if (is->hash == h && is->len == len &&
		    memcmp(is->s, s, len) == 0) {
			is->refs++;
			c->last_intern = is;
			*out = is;
			return 0;
		}
	}
	is = malloc(sizeof(*is) + len + 1);
	if (!is)
		return -ENOMEM;
	is->hash = h;
	is->refs = 1;
	is->len = len;
	memcpy(is->s, s, len + 1);
	is->next = c->buckets[h & (c->nbuckets - 1)];
	c->buckets[h & (c->nbuckets - 1)] = is;
	c->nstrings++;
	c->last_intern = is;
	*out = is;
	return 0;
}

void
correlate_unintern(struct correlate *c, struct istr *is)
{
	struct istr **pp;

	if (!is || --is->refs > 0)
		return;
	if (c->last_intern == is)
		c->last_intern = NULL;
	for (pp = &c->buckets[is->hash & (c->nbuckets - 1)]; *pp;
	     pp = &(*pp)->next) {
		if (*pp == is) {
			*pp = is->next;
			break;
		}
	}
	c->nstrings--;
	free(is);
}
