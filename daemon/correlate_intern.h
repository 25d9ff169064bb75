/*
 * The names of the correlator (correlate.h): app and layer names kept once
 * each, reference-counted, in a hash table of the struct correlate.
 */
#ifndef TAPD_CORRELATE_INTERN_H
#define TAPD_CORRELATE_INTERN_H

#include "correlate_int.h"

/*
 * Doubles the hash table (64 buckets at first).  Returns 0 or -ENOMEM,
 * leaving the table as it was.
 */
int correlate_intern_grow(struct correlate *c);

/*
 * Returns a counted reference to the shared copy of s in *out: NULL for a
 * NULL or empty s, which both mean unknown.  Equal names then share one
 * copy, so comparing apps is comparing pointers.  Returns 0 or -ENOMEM.
 */
int correlate_intern(struct correlate *c, const char *s, struct istr **out);

/* Drops a reference taken by correlate_intern(); NULL is a no-op. */
void correlate_unintern(struct correlate *c, struct istr *is);

#endif
