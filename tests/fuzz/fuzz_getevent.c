/*
 * libFuzzer target for the getevent log reader: any bytes, read once with
 * the touch screen chosen by the reader and once with a named device.
 * Every event is drained so that the whole result is touched.
 */
#include <stddef.h>
#include <stdint.h>

#include "input_getevent.h"
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
run(const uint8_t *data, size_t size, const char *device)
{
	struct input_getevent_stats st;
	struct input_getevent_axis axis;
	struct touch_event ev;
	struct input_getevent *g = NULL;
	uint64_t n = 0;
	unsigned code;

	if (input_getevent_open_mem((const char *)data, size, "fuzz", device,
				    &g) != 0)
		return;
	while (input_getevent_next(g, &ev) == 1)
		n++;
	input_getevent_get_stats(g, &st);
	/* The counters must agree with what was handed out. */
	if (st.events != n || st.skipped > st.lines || st.too_long > st.skipped)
		__builtin_trap();
	for (code = 0; code < 0x40; code++)
		if (input_getevent_get_axis(g, (uint16_t)code, &axis) == 0 &&
		    axis.min > axis.max)
			__builtin_trap();
	(void)input_getevent_device(g);
	(void)input_getevent_device_name(g);
	input_getevent_free(g);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int init;

	if (!init) {
		log_init(NULL, LOG_LEVEL_ERROR);
		init = 1;
	}
	run(data, size, NULL);
	run(data, size, "/dev/input/event1");
	return 0;
}
