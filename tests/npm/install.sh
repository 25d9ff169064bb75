#!/bin/sh
# Installs the npm packages of tests/npm/package.json, at the exact
# versions and integrity hashes of its package-lock.json, into a cache
# directory named by the lock's hash, and prints that directory:
#
#   ${XDG_CACHE_HOME:-$HOME/.cache}/tapd/npm-HASH/node_modules
#
# A directory that is complete (its .complete mark) is used as it is, with
# no network: the tests run offline once it exists.  A new lock makes a
# new directory.  `npm ci` is run with --ignore-scripts (no package runs
# code at install) into a temporary directory, then moved into place, so
# that an interrupted install is never taken for a complete one.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
lock=$here/package-lock.json
hash=$(cat "$here/package.json" "$lock" | sha256sum | cut -c1-16)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tapd
dir=$cache/npm-$hash
if [ -f "$dir/.complete" ]; then
	echo "$dir/node_modules"
	exit 0
fi
command -v npm >/dev/null 2>&1 || {
	echo "npm is missing: run make deps" >&2
	exit 1
}
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/npm-tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp "$here/package.json" "$lock" "$tmp/"
(cd "$tmp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error \
	>"$tmp/npm.log" 2>&1) || {
	cat "$tmp/npm.log" >&2
	echo "cannot install the npm packages of '$here'" >&2
	exit 1
}
touch "$tmp/.complete"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
echo "$dir/node_modules"
