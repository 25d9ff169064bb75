/*
 * Protocol Buffers wire-format writer, the counterpart of pb.h: builds a
 * serialized message in a growable buffer, field by field, without a
 * schema.  A nested message is built into a writer of its own and copied
 * into its parent with pb_write_msg(), which suits the small messages the
 * daemon writes (a TraceConfig, the packets of a FrameTimeline trace).
 *
 * An allocation failure sticks: every later call is a no-op and oom stays
 * set, so a caller checks once, at the end.
 */
#ifndef TAPD_PB_WRITE_H
#define TAPD_PB_WRITE_H

#include <stddef.h>
#include <stdint.h>

/*
 * A writer.  Not opaque, like struct pb_reader: one is made for every
 * nested message, on the caller's stack.  Zero-initialized it is empty;
 * callers read p and len once done and must not change them.
 */
struct pb_writer {
	uint8_t *p;
	size_t len, cap;
	int oom;
};

/* Appends n raw bytes. */
void pb_write_put(struct pb_writer *w, const void *data, size_t n);

/* Appends v as a varint. */
void pb_write_varint(struct pb_writer *w, uint64_t v);

/* A varint field (uint64, or int64 and int32 in two's complement). */
void pb_write_uint(struct pb_writer *w, uint32_t field, uint64_t v);
void pb_write_int(struct pb_writer *w, uint32_t field, int64_t v);

/* A length-delimited field: bytes, a string without its NUL. */
void pb_write_bytes(struct pb_writer *w, uint32_t field, const void *data,
		    size_t n);
void pb_write_str(struct pb_writer *w, uint32_t field, const char *s);

/* A nested message built in child (its oom carries over). */
void pb_write_msg(struct pb_writer *w, uint32_t field,
		  const struct pb_writer *child);

/* Empties w, keeping its buffer for reuse (and oom as it is). */
void pb_write_reset(struct pb_writer *w);

/* Frees the buffer; w is empty again. */
void pb_write_release(struct pb_writer *w);

#endif
