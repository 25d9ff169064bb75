/*
 * Tests of the TraceConfig encoder.  The output is decoded by protoc with
 * a schema written from the reference (tests/fixtures/perfetto/
 * trace_config.proto), so a wrong field number or wire type shows up as an
 * unknown field or a wrong name; one config is also checked byte by byte
 * against an encoding worked out by hand, which needs no protoc.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tracecfg.h"

#define PROTO_DIR  "tests/fixtures/perfetto"
#define PROTO_FILE PROTO_DIR "/trace_config.proto"

static int
have_protoc(void)
{
	static int have = -1;

	if (have < 0)
		have = system("protoc --version >/dev/null 2>&1") == 0 &&
		       access(PROTO_FILE, R_OK) == 0;
	return have;
}

/*
 * Decodes buf with protoc into text (NUL-terminated).  Skips the calling
 * test when protoc is missing.
 */
static void
decode(const uint8_t *buf, size_t len, char *text, size_t size)
{
	char path[] = "/tmp/test_tracecfg.XXXXXX";
	char cmd[512];
	FILE *p;
	size_t n;
	int fd, rc;

	if (!have_protoc())
		skip();
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	rc = snprintf(cmd, sizeof(cmd),
		      "protoc --decode=perfetto.protos.TraceConfig -I %s %s "
		      "< %s 2>&1",
		      PROTO_DIR, PROTO_FILE, path);
	assert_true(rc > 0 && (size_t)rc < sizeof(cmd));
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(text, 1, size - 1, p);
	text[n] = '\0';
	rc = pclose(p);
	unlink(path);
	if (rc != 0)
		fail_msg("protoc failed: %s", text);
}

/* Encodes p and checks that protoc reads back exactly want. */
static void
expect_decoded(const struct tracecfg_params *p, const char *want)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	char text[4096];

	assert_int_equal(tracecfg_encode(p, &buf, &len), 0);
	assert_non_null(buf);
	assert_true(len > 0);
	decode(buf, len, text, sizeof(text));
	free(buf);
	assert_string_equal(text, want);
}

static void
test_defaults(void **state)
{
	struct tracecfg_params p;

	(void)state;
	memset(&p, 0xff, sizeof(p));
	tracecfg_params_default(&p);
	assert_int_equal(p.buffer_kb, 4096);
	assert_int_equal(p.file_write_period_ms, 500);
	assert_int_equal(p.flush_period_ms, 500);
	assert_int_equal(p.max_file_size_bytes, 0);
	assert_null(p.output_path);
	assert_null(p.session_name);
}

/* Every field, decoded by protoc with the reference's names and numbers. */
static void
test_full_config_decodes(void **state)
{
	struct tracecfg_params p;
	const char *want =
		"buffers {\n"
		"  size_kb: 8192\n"
		"  fill_policy: RING_BUFFER\n"
		"}\n"
		"data_sources {\n"
		"  config {\n"
		"    name: \"android.surfaceflinger.frametimeline\"\n"
		"  }\n"
		"}\n"
		"duration_ms: 0\n"
		"write_into_file: true\n"
		"file_write_period_ms: 250\n"
		"max_file_size_bytes: 68719476736\n"
		"flush_period_ms: 750\n"
		"builtin_data_sources {\n"
		"  disable_trace_config: true\n"
		"  disable_system_info: true\n"
		"  disable_service_events: true\n"
		"  disable_chunk_usage_histograms: true\n"
		"}\n"
		"unique_session_name: \"tapd_1\"\n"
		"output_path: "
		"\"/data/misc/perfetto-traces/tapd-4242-7.pftrace\"\n"
		"write_flush_mode: WRITE_FLUSH_ENABLED\n";

	(void)state;
	tracecfg_params_default(&p);
	p.buffer_kb = 8192;
	p.output_path = "/data/misc/perfetto-traces/tapd-4242-7.pftrace";
	p.session_name = "tapd_1";
	p.file_write_period_ms = 250;
	p.flush_period_ms = 750;
	/* Past 32 bits: the uint64 field must not be cut. */
	p.max_file_size_bytes = 64ULL << 30;
	expect_decoded(&p, want);
}

/* Optional fields left out stay out; strings are carried byte for byte. */
static void
test_optional_fields_and_escapes(void **state)
{
	struct tracecfg_params p;
	const char *want =
		"buffers {\n"
		"  size_kb: 1\n"
		"  fill_policy: RING_BUFFER\n"
		"}\n"
		"data_sources {\n"
		"  config {\n"
		"    name: \"android.surfaceflinger.frametimeline\"\n"
		"  }\n"
		"}\n"
		"duration_ms: 0\n"
		"write_into_file: true\n"
		"file_write_period_ms: 100\n"
		"builtin_data_sources {\n"
		"  disable_trace_config: true\n"
		"  disable_system_info: true\n"
		"  disable_service_events: true\n"
		"  disable_chunk_usage_histograms: true\n"
		"}\n"
		"output_path: \"/t/a \\\"q\\\" b\\\\c\"\n"
		"write_flush_mode: WRITE_FLUSH_ENABLED\n";

	(void)state;
	tracecfg_params_default(&p);
	p.buffer_kb = 1;
	p.output_path = "/t/a \"q\" b\\c";
	p.session_name = "";
	p.file_write_period_ms = TRACECFG_WRITE_PERIOD_MIN_MS;
	p.flush_period_ms = 0;
	p.max_file_size_bytes = 0;
	expect_decoded(&p, want);
}

/* The wire bytes, worked out by hand from the protobuf encoding rules. */
static void
test_bytes_by_hand(void **state)
{
	static const uint8_t want[] = {
		/* buffers (1, len) { size_kb (1) 4096, fill_policy (4) 1 } */
		0x0a, 0x05, 0x08, 0x80, 0x20, 0x20, 0x01,
		/* data_sources (2, len) { config (1, len) { name (1) } } */
		0x12, 0x28, 0x0a, 0x26, 0x0a, 0x24, 'a', 'n', 'd', 'r', 'o',
		'i', 'd', '.', 's', 'u', 'r', 'f', 'a', 'c', 'e', 'f', 'l', 'i',
		'n', 'g', 'e', 'r', '.', 'f', 'r', 'a', 'm', 'e', 't', 'i', 'm',
		'e', 'l', 'i', 'n', 'e',
		/* duration_ms (3) 0, write_into_file (8) 1 */
		0x18, 0x00, 0x40, 0x01,
		/* file_write_period_ms (9) 500 */
		0x48, 0xf4, 0x03,
		/* max_file_size_bytes (10) 300 */
		0x50, 0xac, 0x02,
		/* flush_period_ms (13) 1 */
		0x68, 0x01,
		/*
		 * builtin_data_sources (20, len): key 20 << 3 | 2 = 162;
		 * fields 2, 3, 4 and 8 true (keys 0x10, 0x18, 0x20, 0x40)
		 */
		0xa2, 0x01, 0x08, 0x10, 0x01, 0x18, 0x01, 0x20, 0x01, 0x40,
		0x01,
		/* unique_session_name (22, len): key 22 << 3 | 2 = 178 */
		0xb2, 0x01, 0x01, 'x',
		/* output_path (29, len): key 29 << 3 | 2 = 234 */
		0xea, 0x01, 0x04, '/', 'd', '/', 't',
		/* write_flush_mode (44): key 44 << 3 = 352, value 3 */
		0xe0, 0x02, 0x03};
	struct tracecfg_params p;
	uint8_t *buf = NULL;
	size_t len = 0;

	(void)state;
	tracecfg_params_default(&p);
	p.output_path = "/d/t";
	p.session_name = "x";
	p.flush_period_ms = 1;
	p.max_file_size_bytes = 300;
	assert_int_equal(tracecfg_encode(&p, &buf, &len), 0);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	free(buf);
}

static void
test_invalid(void **state)
{
	struct tracecfg_params p;
	uint8_t *buf = (uint8_t *)&p;
	size_t len = 12345;
	char *long_path;

	(void)state;
	tracecfg_params_default(&p);
	assert_int_equal(tracecfg_encode(&p, &buf, &len), -EINVAL);
	p.output_path = "";
	assert_int_equal(tracecfg_encode(&p, &buf, &len), -EINVAL);
	p.output_path = "/d/t";
	p.file_write_period_ms = TRACECFG_WRITE_PERIOD_MIN_MS - 1;
	assert_int_equal(tracecfg_encode(&p, &buf, &len), -EINVAL);
	p.file_write_period_ms = 1000;
	p.buffer_kb = 0;
	assert_int_equal(tracecfg_encode(&p, &buf, &len), -EINVAL);
	p.buffer_kb = 4096;

	long_path = malloc(TRACECFG_STRING_MAX + 2);
	assert_non_null(long_path);
	memset(long_path, 'a', TRACECFG_STRING_MAX + 1);
	long_path[TRACECFG_STRING_MAX + 1] = '\0';
	p.output_path = long_path;
	assert_int_equal(tracecfg_encode(&p, &buf, &len), -EINVAL);
	p.output_path = "/d/t";
	p.session_name = long_path;
	assert_int_equal(tracecfg_encode(&p, &buf, &len), -EINVAL);
	/* Failures leave the out-parameters alone. */
	assert_ptr_equal(buf, (uint8_t *)&p);
	assert_int_equal(len, 12345);

	/* Exactly the limit is accepted, with a two-byte length prefix. */
	long_path[TRACECFG_STRING_MAX] = '\0';
	p.session_name = NULL;
	p.output_path = long_path;
	assert_int_equal(tracecfg_encode(&p, &buf, &len), 0);
	assert_non_null(memmem(buf, len, long_path, TRACECFG_STRING_MAX));
	free(buf);
	free(long_path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full_config_decodes),
		cmocka_unit_test(test_optional_fields_and_escapes),
		cmocka_unit_test(test_bytes_by_hand),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
