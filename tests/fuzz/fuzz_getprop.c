/*
 * libFuzzer target for the parse of `getprop ro.build.version.sdk`
 * output, which picks the live frame source (frames_live.h): any bytes,
 * cut at the first NUL as the child's output is.  The level must be -1
 * or 1 to 10000 and be what the trimmed text says; the trimmed text must
 * lie inside the buffer with no blank at either end.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frames_live.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *trimmed = NULL;
	char *text = malloc(size + 1), *end;
	size_t len;
	long v;
	int sdk;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	len = strlen(text);
	sdk = frames_live_parse_sdk(text, &trimmed);
	if (!trimmed || trimmed < text || trimmed > text + len)
		abort();
	if (*trimmed == ' ' || *trimmed == '\t')
		abort();
	if (*trimmed && strchr(" \t\r\n", trimmed[strlen(trimmed) - 1]))
		abort();
	if (sdk != -1 && (sdk < 1 || sdk > 10000))
		abort();
	if (sdk > 0) {
		v = strtol(trimmed, &end, 10);
		if (v != sdk || *end != '\0')
			abort();
	}
	free(text);
	return 0;
}
