-- wrk script for the uncached figure of bench/http/run.sh: every request
-- moves the URL's "since" and "until" back by one more second, each wrk
-- thread on its own seconds, so that no two requests of a run share a
-- range and none can be answered from the answer cache.
--
--   wrk -t2 -c64 -d30s -s bench/http/vary.lua URL -- THREADS

local made = 0

function setup(thread)
	thread:set("tid", made)
	made = made + 1
end

function init(args)
	step = tonumber(args[1]) or 2
	n = 0
	since = tonumber(string.match(wrk.path, "since=(%d+)"))
	till = tonumber(string.match(wrk.path, "until=(%d+)"))
end

function request()
	local back = n * step + tid + 1
	local path

	n = n + 1
	path = string.gsub(wrk.path, "since=%d+", "since=" .. (since - back))
	path = string.gsub(path, "until=%d+", "until=" .. (till - back))
	return wrk.format(nil, path)
end
