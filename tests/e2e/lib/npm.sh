# Sourced by the end-to-end scripts that run node programs over tapd's
# output with the npm packages of tests/npm (pinned by its
# package-lock.json).  The caller sources report.sh first.
#
#   need_npm   sets NODE_PATH to the installed packages (tests/npm/install.sh,
#              which does nothing when they are there already); node or the
#              packages missing is one failure and the end of the script.
need_npm() {
	local dir
	need_tools node
	if ! dir=$(sh "$(dirname "${BASH_SOURCE[0]}")/../../npm/install.sh" 2>&1); then
		ko "the npm packages of tests/npm cannot be installed: run make npm-deps" "$dir"
		finish
	fi
	export NODE_PATH=$dir
}
