#!/usr/bin/env bash
# The schema version a database says it has, against what it holds.  A
# current database whose PRAGMA user_version was lowered by hand holds the
# tables of a later version: tapd must refuse it in one line that names
# the file and both versions, with no SQL in it, and leave the file as it
# was.  A real version-1 database (built from sql/001-init.sql) is still
# migrated.  Run from the repository root; BUILD names the build directory
# (default build).
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
LOG=tests/fixtures/getevent/emulator-tap.getevent

NAME=store_version
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD"
need_tools sqlite3

work_dir store_version

q() {
	sqlite3 -batch -noheader "$1" "$2" 2>&1
}

# detail: what the last command printed, for a failed check.
detail() {
	printf '%s\n' "$out"
}

# replay DB: one replay of the emulator tap into DB; sets out and rc.
replay() {
	out=$("$TAPD" replay --input "getevent:$LOG" --db "$1" 2>&1)
	rc=$?
}

# A current database, and its version.
db="$work/taps.db"
replay "$db"
check "a new database: exit status" 0 "$rc"
latest=$(q "$db" 'PRAGMA user_version')
if [ "${latest:-0}" -ge 2 ] 2>/dev/null; then
	ok "a new database is at version $latest"
else
	ko "a new database: expected a version of 2 or more, got '$latest'"
	finish
fi

for lowered in 1 0; do
	cp "$db" "$work/low$lowered.db"
	q "$work/low$lowered.db" "PRAGMA user_version = $lowered" >/dev/null
	sum=$(cksum <"$work/low$lowered.db")
	replay "$work/low$lowered.db"
	check "lowered to $lowered: replay exit status" 1 "$rc"
	check "lowered to $lowered: one line" 1 "$(printf '%s\n' "$out" | wc -l)"
	holds "lowered to $lowered: the error names the file and both versions" \
		grep -qF "error: database '$work/low$lowered.db' says schema version $lowered but holds tables of version $latest; restore it or point --db elsewhere" <<<"$out"
	holds "lowered to $lowered: no SQL in the message" \
		bash -c '! grep -Eqi "create|select|insert|/\*" <<<"$1"' _ "$out"
	check "lowered to $lowered: the file is untouched" "$sum" \
		"$(cksum <"$work/low$lowered.db")"
done

# tapd serve says the same, and does not start.
out=$(timeout 10 "$TAPD" serve --db "$work/low1.db" --listen 127.0.0.1:0 2>&1)
rc=$?
check "lowered: serve exit status" 1 "$rc"
holds "lowered: serve names the file and both versions" \
	grep -qF "error: database '$work/low1.db' says schema version 1 but holds tables of version $latest" <<<"$out"
holds "lowered: serve prints no SQL" \
	bash -c '! grep -Eqi "create|select|insert|/\*" <<<"$1"' _ "$out"

# A database really at version 1 is migrated, and replayed into.
v1="$work/v1.db"
{
	cat sql/001-init.sql
	echo "PRAGMA application_id = $((0x74617064)); PRAGMA user_version = 1;"
} | sqlite3 "$v1"
replay "$v1"
check "a version-1 database: replay exit status" 0 "$rc"
check "a version-1 database: migrated" "$latest" "$(q "$v1" 'PRAGMA user_version')"
check "a version-1 database: the tap stored" 1 "$(q "$v1" 'SELECT count(*) FROM taps')"

finish
