# Sourced by the end-to-end scripts: the counting and reporting every one
# of them needs.  The caller sets NAME (used in the closing line) before
# sourcing it; the counts start at zero here.
#
#   ok NAME...                   a check that passed (its words joined)
#   ko NAME [DETAIL...]          a check that failed; each DETAIL (often
#                                the output under test) is shown indented
#   check NAME EXPECTED ACTUAL   passes when the two strings are equal
#   holds NAME COMMAND...        passes when COMMAND exits 0; its output is
#                                dropped.  On failure, what a function
#                                named detail prints (when the script
#                                defines one) is shown below the FAIL line
#   finish                       the closing line, then exit: 0 only when
#                                nothing failed
pass=0
fail=0

ok() {
	pass=$((pass + 1))
	echo "ok   $*"
}

ko() {
	local line
	fail=$((fail + 1))
	echo "FAIL $1"
	shift
	for line in "$@"; do
		printf '%s\n' "$line" | sed 's/^/    /'
	done
}

check() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		ko "$1: expected '$2', got '$3'"
	fi
}

holds() {
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then
		ok "$name"
	elif declare -F detail >/dev/null; then
		ko "$name" "$(detail)"
	else
		ko "$name"
	fi
}

# The closing line tests/run.sh reads, and the exit status.
finish() {
	echo "$NAME: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}

# need_bins FILE... / need_tools NAME...: a missing build output or host
# tool is one failure and the end of the script, with what to run.
need_bins() {
	local bin
	for bin in "$@"; do
		if [ ! -x "$bin" ]; then
			ko "'$bin' is missing: run make first"
			finish
		fi
	done
}

need_tools() {
	local tool
	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null 2>&1; then
			ko "'$tool' is missing: run make deps"
			finish
		fi
	done
}
