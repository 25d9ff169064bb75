/*
 * The version of this build, from `git describe` at build time (the
 * Makefile generates its definition, and regenerates it only when it
 * changes, so every object agrees on it).
 */
#ifndef TAPD_VERSION_H
#define TAPD_VERSION_H

extern const char tapd_version[];

#endif
