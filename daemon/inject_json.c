/* The injector's gestures and health as the API shows them (inject.h). */
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inject_int.h"

static cJSON *
ns_json(int64_t ns)
{
	char buf[24];

	if (ns <= 0)
		return cJSON_CreateNull();
	snprintf(buf, sizeof(buf), "%lld", (long long)ns);
	return cJSON_CreateString(buf);
}

cJSON *
inject_record_json(const struct inject_record *r)
{
	cJSON *o = cJSON_CreateObject();
	int ok = o != NULL;

	if (!ok)
		return NULL;
	ok = cJSON_AddNumberToObject(o, "id", (double)r->id) &&
	     cJSON_AddStringToObject(o, "kind", inject_kind_name(r->g.kind)) &&
	     cJSON_AddStringToObject(o, "state", inject_state_name(r->state));
	if (ok && r->state == INJECT_FAILED)
		ok = cJSON_AddStringToObject(o, "error", strerror(-r->err)) !=
		     NULL;
	if (ok && r->g.kind == INJECT_SWIPE) {
		cJSON *from = cJSON_AddArrayToObject(o, "from");
		cJSON *to = cJSON_AddArrayToObject(o, "to");

		ok = from && to &&
		     cJSON_AddItemToArray(from, cJSON_CreateNumber(r->g.x)) &&
		     cJSON_AddItemToArray(from, cJSON_CreateNumber(r->g.y)) &&
		     cJSON_AddItemToArray(to, cJSON_CreateNumber(r->g.x2)) &&
		     cJSON_AddItemToArray(to, cJSON_CreateNumber(r->g.y2)) &&
		     cJSON_AddNumberToObject(o, "duration_ms",
					     (double)r->g.duration_ms);
	} else if (ok) {
		ok = cJSON_AddNumberToObject(o, "x", r->g.x) &&
		     cJSON_AddNumberToObject(o, "y", r->g.y) &&
		     cJSON_AddNumberToObject(o, "hold_ms",
					     (double)r->g.hold_ms);
	}
	if (ok && r->slot >= 0)
		ok = cJSON_AddNumberToObject(o, "slot", r->slot) &&
		     cJSON_AddNumberToObject(o, "tracking_id", r->tid) &&
		     cJSON_AddNumberToObject(o, "raw_x", r->raw_x) &&
		     cJSON_AddNumberToObject(o, "raw_y", r->raw_y);
	ok = ok &&
	     cJSON_AddItemToObject(o, "first_write_before_ns",
				   ns_json(r->first_before_ns)) &&
	     cJSON_AddItemToObject(o, "first_write_after_ns",
				   ns_json(r->first_after_ns)) &&
	     cJSON_AddItemToObject(o, "final_write_before_ns",
				   ns_json(r->final_before_ns)) &&
	     cJSON_AddItemToObject(o, "final_write_after_ns",
				   ns_json(r->final_after_ns)) &&
	     cJSON_AddItemToObject(o, "t_down_ns", ns_json(r->t_down_ns)) &&
	     cJSON_AddItemToObject(o, "t_up_ns", ns_json(r->t_up_ns));
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *
inject_list_json(struct inject *inj)
{
	struct inject_record *copy;
	cJSON *root = NULL, *arr, *item;
	size_t n = 0, i;
	int64_t id, first;

	copy = calloc(INJECT_RING, sizeof(*copy));
	if (!copy)
		return NULL;
	pthread_mutex_lock(&inj->mu);
	first = inj->next_id > INJECT_RING ? inj->next_id - INJECT_RING : 1;
	for (id = first; id < inj->next_id; id++) {
		struct inject_slot_rec *s = inject__rec_of(inj, id);

		if (s)
			copy[n++] = s->r;
	}
	pthread_mutex_unlock(&inj->mu);
	root = cJSON_CreateObject();
	arr = root ? cJSON_AddArrayToObject(root, "gestures") : NULL;
	for (i = 0; arr && i < n; i++) {
		item = inject_record_json(&copy[i]);
		if (!item || !cJSON_AddItemToArray(arr, item)) {
			cJSON_Delete(item);
			arr = NULL;
		}
	}
	free(copy);
	if (!arr) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

cJSON *
inject_health_json(struct inject *inj)
{
	const char *path, *mode, *screen;
	struct stat st;
	cJSON *o;
	int ok;

	o = cJSON_CreateObject();
	if (!o)
		return NULL;
	pthread_mutex_lock(&inj->mu);
	path = inj->device ? inj->device
			   : (inj->have_target ? inj->target : NULL);
	/*
	 * "evdev": the touch screen's own node, written as its driver
	 * would; "file": a given file that is no character device.
	 */
	screen = path;
	if (!path) {
		mode = "none";
	} else if (stat(path, &st) == 0 && !S_ISCHR(st.st_mode)) {
		mode = "file";
	} else if (!inj->device &&
		   (inj->clone_node[0] || inj->via == INJECT_VIA_UINPUT)) {
		/*
		 * "uinput": tapd's clone of the screen (inject_uinput.h),
		 * with --inject-via uinput or since the node refused; its
		 * node once it is made.
		 */
		mode = "uinput";
		path = inj->clone_node[0] ? inj->clone_node : NULL;
	} else {
		mode = "evdev";
	}
	ok = cJSON_AddStringToObject(o, "mode", mode) &&
	     cJSON_AddStringToObject(o, "via",
				     inject_uinput_via_name(inj->via)) &&
	     cJSON_AddItemToObject(o, "device",
				   path ? cJSON_CreateString(path)
					: cJSON_CreateNull()) &&
	     cJSON_AddItemToObject(o, "screen",
				   screen ? cJSON_CreateString(screen)
					  : cJSON_CreateNull()) &&
	     cJSON_AddItemToObject(o, "uinput_reason",
				   inj->clone_why[0]
					   ? cJSON_CreateString(inj->clone_why)
					   : cJSON_CreateNull()) &&
	     cJSON_AddItemToObject(o, "problem",
				   inj->why[0] ? cJSON_CreateString(inj->why)
					       : cJSON_CreateNull()) &&
	     cJSON_AddNumberToObject(o, "rate_per_s", inj->rate) &&
	     cJSON_AddNumberToObject(o, "queued",
				     (double)(inj->next_id - inj->qhead)) &&
	     cJSON_AddNumberToObject(o, "fingers_down",
				     inj->nphys + inj->phys_over) &&
	     cJSON_AddNumberToObject(o, "submitted", (double)inj->submitted) &&
	     cJSON_AddNumberToObject(o, "written", (double)inj->written) &&
	     cJSON_AddNumberToObject(o, "read_back", (double)inj->read_back) &&
	     cJSON_AddNumberToObject(o, "failed", (double)inj->failed) &&
	     cJSON_AddNumberToObject(o, "refused_finger_down",
				     (double)inj->refused_busy) &&
	     cJSON_AddNumberToObject(o, "rate_limited",
				     (double)inj->rate_limited) &&
	     cJSON_AddNumberToObject(o, "unmatched", (double)inj->mismatched) &&
	     cJSON_AddBoolToObject(o, "virtual_device", inj->is_virtual);
	pthread_mutex_unlock(&inj->mu);
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
