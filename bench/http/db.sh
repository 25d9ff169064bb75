#!/usr/bin/env bash
# Prints the path of the 1,000,000-tap database of bench/query/fill.c
# (30 days ending 2025-12-01T00:00:00Z, 20 apps), building it first when
# it is missing.  The file is kept outside the tree, in
# ${TAPD_CACHE:-~/.cache/tapd}/bench/, under a key of fill.c and the
# migrations of sql/: a change of either fills a new file, as the old one
# would no longer be what the fill makes.  The fill takes minutes.
#
#   bench/http/db.sh [GESTURES]      (default 1000000)
#
# Run from the repository root, after make.  Progress goes to stderr.
set -eu
build=${BUILD:-build}
taps=${1:-1000000}
end=1764547200
days=30

[ -f "$build/libtapd.a" ] || {
	echo "bench/http: run make first" >&2
	exit 1
}
cache=${TAPD_CACHE:-$HOME/.cache/tapd}/bench
key=$(cat bench/query/fill.c sql/[0-9][0-9][0-9]-*.sql | sha256sum | cut -c1-12)
db=$cache/fill-$key-$taps.db
if [ -s "$db" ]; then
	echo "$db"
	exit 0
fi

mkdir -p "$cache"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rm -f "$db.tmp" "$db.tmp-wal" "$db.tmp-shm"' EXIT
cc -std=gnu11 -D_GNU_SOURCE -O2 -Idaemon \
	$(pkg-config --cflags sqlite3 libevdev libcjson libmicrohttpd) \
	-o "$tmp/fill" bench/query/fill.c "$build/libtapd.a" \
	$(pkg-config --libs sqlite3 libevdev libcjson libmicrohttpd) -lm -lpthread
echo "bench/http: filling $db ($taps gestures, minutes)" >&2
rm -f "$db.tmp" "$db.tmp-wal" "$db.tmp-shm"
# The file is renamed only once complete, so that an interrupted fill is
# never taken for a finished one.
FILL_CACHE_KB=65536 "$tmp/fill" --db "$db.tmp" --taps "$taps" \
	--days "$days" --end "$end" >&2
[ ! -s "$db.tmp-wal" ] || sqlite3 "$db.tmp" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
rm -f "$db.tmp-wal" "$db.tmp-shm"
mv "$db.tmp" "$db"
echo "$db"
