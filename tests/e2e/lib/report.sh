# Sourced by the end-to-end scripts: the counting and reporting every one
# of them needs.  The caller sets NAME (used in the closing line) and
# pass=0 fail=0 before its first check.

ok() {
	pass=$((pass + 1))
	echo "ok   $*"
}

ko() {
	fail=$((fail + 1))
	echo "FAIL $*"
}

# check NAME EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		ko "$1: expected '$2', got '$3'"
	fi
}

# The closing line tests/run.sh reads, and the exit status.
finish() {
	echo "$NAME: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
