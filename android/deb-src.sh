#!/bin/sh
# Makes Debian's source packages reachable for the Android build: writes
# /etc/apt/sources.list.d/tapd-deb-src.sources, a file of its own with a
# deb-src entry for every Debian deb entry this machine has (the same
# URIs, suites, components and keyring), plus the next stable release's
# sources on the same mirror (android/fetch-src.sh takes a package from
# there only when the current release's cannot be downloaded).  Runs
# apt-get update when the file changed.  Does nothing when it is current.
#
#   sh android/deb-src.sh        (as root, or through sudo)
set -eu
out=/etc/apt/sources.list.d/tapd-deb-src.sources
next=trixie
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

{
	echo "# Written by tapd's android/deb-src.sh: the source packages its"
	echo "# Android build compiles (make android).  Safe to delete."
	# deb822 files: every stanza whose Types has "deb" becomes deb-src.
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && [ "$f" != "$out" ] || continue
		awk -v next_suite="$next" '
		function flush() {
			if (deb && uris ~ /debian/) {
				print ""
				print "Types: deb-src"
				print "URIs: " uris
				print "Suites: " suites
				print "Components: " comps
				if (key != "") print "Signed-By: " key
				if (uris !~ /security/ && !done_next) {
					print ""
					print "Types: deb-src"
					print "URIs: " uris
					print "Suites: " next_suite
					print "Components: " comps
					if (key != "") print "Signed-By: " key
					done_next = 1
				}
			}
			deb = 0; uris = suites = comps = key = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		/^Types:/ { deb = ($0 ~ /[ \t]deb([ \t]|$)/) }
		/^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
		/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
		/^Components:/ { sub(/^Components:[ \t]*/, ""); comps = $0 }
		/^Signed-By:/ { sub(/^Signed-By:[ \t]*/, ""); key = $0 }
		END { flush() }
		' "$f"
	done
	# One-line files: "deb [options] URI SUITE COMPONENTS".
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^[ \t]*deb\([ \t][^#]*debian[^#]*\)$/X-One-Line: deb-src\1/p' "$f"
	done
} >"$tmp"

# One-line entries are converted to deb822 stanzas as well, to keep a
# single format in the file.
have_next=0
grep -q "^Suites: $next\$" "$tmp" && have_next=1
awk -v next_suite="$next" -v have_next="$have_next" '
/^X-One-Line: / {
	sub(/^X-One-Line: deb-src[ \t]+/, "")
	opts = ""
	if ($0 ~ /^\[/) { opts = substr($0, 2, index($0, "]") - 2); $0 = substr($0, index($0, "]") + 1) }
	n = split($0, w, /[ \t]+/)
	i = 1; while (w[i] == "") i++
	uri = w[i]; suite = w[i + 1]; comps = ""
	for (j = i + 2; j <= n; j++) if (w[j] != "") comps = comps (comps == "" ? "" : " ") w[j]
	print ""; print "Types: deb-src"; print "URIs: " uri; print "Suites: " suite
	print "Components: " comps
	k = ""
	if (opts ~ /signed-by=/) { k = opts; sub(/.*signed-by=/, "", k); sub(/[ \t].*/, "", k); print "Signed-By: " k }
	if (uri !~ /security/ && !done_next && !have_next) {
		print ""; print "Types: deb-src"; print "URIs: " uri; print "Suites: " next_suite
		print "Components: " comps
		if (k != "") print "Signed-By: " k
		done_next = 1
	}
	next
}
{ print }
' "$tmp" >"$tmp.2"
mv "$tmp.2" "$tmp"

if ! grep -q '^Types: deb-src' "$tmp"; then
	echo "deb-src.sh: error: no Debian 'deb' entry in /etc/apt to derive sources from" >&2
	exit 1
fi
if [ -f "$out" ] && cmp -s "$tmp" "$out"; then
	exit 0
fi
$sudo install -m 644 "$tmp" "$out"
echo "deb-src.sh: wrote $out; apt-get update"
$sudo apt-get update -qq
