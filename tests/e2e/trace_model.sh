#!/usr/bin/env bash
# GET /v1/trace loaded by a real consumer of the Trace Event Format,
# @tracerbench/trace-model (pinned in tests/npm), which builds processes,
# threads and the nesting of slices the way a trace viewer does, and
# crashed on metadata events without "cat".  On a simulated session
# replayed by tapd: the model's processes are the apps of the database;
# every measured tap is one top-level slice on a "taps" track, with its
# first-frame slice nested in it and its present instants within it (the
# model nests slices only), right after its "finger down" slice (which
# ends where the tap starts and lasts t_up - t_down); the response frames
# are slices on the "frames" tracks of the tap's app.  Run from the repository root; BUILD names the build
# directory (default build).
set -u
BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
SIM="$BUILD/tapd-sim"
NAME=trace_model
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"
. "$(dirname "$0")/lib/npm.sh"
need_tools curl jq sqlite3
need_bins "$TAPD" "$SIM"
need_npm
work_dir trace-model

dir=$work/mixed
if ! "$SIM" gen --scenario mixed --seed 3 --out "$dir" >"$work/gen.log" 2>&1 ||
	! "$TAPD" replay --session "$dir" --db "$dir/taps.db" >"$work/replay.log" 2>&1; then
	ko "session: gen or replay failed" "$(cat "$work/gen.log" "$work/replay.log")"
	finish
fi
db=$dir/taps.db
start_server "$work/serve" "$TAPD" serve --db "$db" --listen 127.0.0.1:0 ||
	{ ko "tapd serve did not start"; finish; }
code=$(curl -sS -o "$work/trace.json" -w '%{http_code}' "$url/v1/trace")
check "GET /v1/trace: 200" 200 "$code"
stop_server "$pid"

# What the model makes of it, as one JSON object the checks below read.
if ! node - "$work/trace.json" >"$work/model.json" 2>"$work/node.err" <<'JS'; then
const fs = require("fs");
const { buildModel } = require("@tracerbench/trace-model");
const model = buildModel(JSON.parse(fs.readFileSync(process.argv[2], "utf8")));
const out = { processes: [], taps: [], frames: [], bad: [] };
for (const p of model.processes) {
  out.processes.push(p.name);
  for (const t of p.threads) {
    /* The model's isInstant() knows "I" only; "i" is the same phase. */
    const evs = t.events.filter((e) => !e.isMetadata());
    /* It nests slices only: an instant is inside what spans its time. */
    const within = (k, e) => k.ph === "i" && k.start >= e.start && k.start <= e.end;
    for (const e of evs) {
      /* The model splits cat into a list of categories. */
      const cat = [].concat(e.cat).join(",");
      if (cat === "tap" && e.isComplete()) {
        /* The slice just before it on the track: its finger down. */
        const before = evs.filter((f) => f.name === "finger down" &&
          f.args.tap === e.args.id);
        /* Nested at any depth: a present can be in the first frame. */
        const kids = evs.filter((k) => {
          for (let q = k.parent; q; q = q.parent) if (q === e) return true;
          return false;
        });
        const t_down = BigInt(e.args.t_down_ns), t_up = BigInt(e.args.t_up_ns);
        out.taps.push({
          id: e.args.id, app: p.name, thread: t.name,
          top: e.parent === undefined,
          fingers: before.length,
          finger_ends_at_start: before.length === 1 && before[0].end === e.start,
          finger_top: before.length === 1 && before[0].parent === undefined,
          finger_dur_err: before.length === 1 ?
            Math.abs(before[0].duration - Number(t_up - t_down) / 1000) : null,
          first_frames: kids.filter((k) => k.hasCategory("first_frame") &&
            k.args.tap === e.args.id).length,
          presents: evs.filter((k) => k.hasCategory("present") &&
            k.args.tap === e.args.id && within(k, e)).length,
          foreign_kids: kids.filter((k) => k.args.tap !== e.args.id).length,
        });
      } else if (cat === "frame") {
        out.frames.push({ tap: e.args.tap, app: p.name, thread: t.name,
                          slice: e.isComplete() });
      } else if (cat === "present") {
        if (!evs.some((k) => k.isComplete() && k.hasCategory("tap") &&
            k.args.id === e.args.tap && within(e, k)))
          out.bad.push(`present of tap ${e.args.tap} outside its tap's slice`);
      } else if (cat === "first_frame") {
        let q = e.parent;
        while (q && !q.hasCategory("tap")) q = q.parent;
        if (!q || q.args.id !== e.args.tap)
          out.bad.push(`${cat} of tap ${e.args.tap} outside its tap's slice`);
      }
    }
  }
}
process.stdout.write(JSON.stringify(out));
JS
	ko "the model could not be built" "$(cat "$work/node.err")"
	finish
fi
ok "the model is built from the export"
m=$work/model.json

check "processes: the apps of the database" \
	"$(sqlite3 "$db" "SELECT DISTINCT coalesce(app, 'unknown') FROM taps
		WHERE wall_ns IS NOT NULL" | sort | tr '\n' ' ')" \
	"$(jq -r '.processes | sort | join(" ") + " "' "$m")"
measured=$(sqlite3 "$db" "SELECT id FROM taps WHERE wall_ns IS NOT NULL AND
	kind IN ('tap', 'long_press') AND settle_ns IS NOT NULL ORDER BY id")
holds "the session has measured taps" test -n "$measured"
check "tap slices: one per measured tap" "$(printf '%s\n' "$measured" | tr '\n' ' ' | sed 's/ $//')" \
	"$(jq -r '[.taps[].id] | sort | map(tostring) | join(" ")' "$m")"
check "tap slices: on the app of their tap" \
	"$(sqlite3 "$db" "SELECT id || ' ' || coalesce(app, 'unknown') FROM taps
		WHERE wall_ns IS NOT NULL AND kind IN ('tap', 'long_press') AND
		settle_ns IS NOT NULL ORDER BY id")" \
	"$(jq -r '.taps | sort_by(.id) | .[] | "\(.id) \(.app)"' "$m")"
check "tap slices: on taps tracks" 0 \
	"$(jq '[.taps[] | select(.thread | startswith("taps") | not)] | length' "$m")"
check "tap slices: top level" 0 "$(jq '[.taps[] | select(.top | not)] | length' "$m")"
check "finger down: one per tap slice, top level, ending where the tap starts" 0 \
	"$(jq '[.taps[] | select(.fingers != 1 or (.finger_ends_at_start | not) or
		(.finger_top | not))] | length' "$m")"
check "finger down: lasts t_up - t_down (to the rounding of both ends)" 0 \
	"$(jq '[.taps[] | select(.finger_dur_err > 1)] | length' "$m")"
check "first frame: nested in its tap, where it has one" \
	"$(sqlite3 "$db" "SELECT count(*) FROM taps WHERE wall_ns IS NOT NULL AND
		kind IN ('tap', 'long_press') AND settle_ns IS NOT NULL AND
		first_frame_ns IS NOT NULL")" \
	"$(jq '[.taps[].first_frames] | add' "$m")"
check "presents: nested in their tap" \
	"$(jq '[.traceEvents[] | select(.cat == "present")] | length' "$work/trace.json")" \
	"$(jq '[.taps[].presents] | add' "$m")"
check "nothing of another tap nested in a tap" 0 \
	"$(jq '[.taps[].foreign_kids] | add' "$m")"
check "no first frame or present outside its tap" "" "$(jq -r '.bad[]' "$m" | head -n 3)"
check "frames: every stored frame of these taps" \
	"$(sqlite3 "$db" "SELECT count(*) FROM tap_frames WHERE tap_id IN
		(SELECT id FROM taps WHERE wall_ns IS NOT NULL)")" \
	"$(jq '.frames | length' "$m")"
check "frames: on the frames tracks of their tap's app" "" \
	"$(jq -r --argjson t "$(jq '[.taps[] | {key: (.id | tostring), value: .app}] |
		from_entries' "$m")" '.frames[] | select((.thread | startswith("frames") | not) or
		($t[.tap | tostring] != null and $t[.tap | tostring] != .app)) | .tap' "$m" | head -n 3)"
finish
