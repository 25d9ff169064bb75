#!/usr/bin/env bash
# End to end: requests that are odd at the HTTP level, sent over raw
# sockets so that no client tidies them up.  A number written with a '+'
# ("limit=%2B5") is a JSON 400, not 5; a path holding a control character
# once decoded ("/v1/health%00") is a JSON 400, not /v1/health; a query
# of hundreds of parameters is a JSON 400, a URI over 8 KiB a JSON 414
# and a head over 32 KiB a JSON 431, where libmicrohttpd alone would drop
# the connection or answer in HTML.  What libmicrohttpd still answers itself (docs/tapd.8) is checked
# to be an answer that closes the connection.  Run from the repository
# root; BUILD names the build directory (default build).  Ends with
# "api_http: N passed, N failed".
set -u

BUILD=${BUILD:-build}
TAPD="$BUILD/tapd"
SIM="$BUILD/tapd-sim"
NAME=api_http

. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/server.sh"

need_bins "$TAPD" "$SIM"
need_tools python3

work_dir api-http
serve_session two-apps 4 20

# raw.py PORT REQUEST: sends REQUEST (Python escapes: \r\n, \x00) as is
# and prints "STATUS JSON-CODE CLOSED": the status of the first answer,
# the error code of its JSON body ("-" when the body is not JSON, or has
# none), and whether the server then closed the connection (1) or not
# within 5 s (0).  "0 - 1" is a connection closed without an answer.
cat >"$work/raw.py" <<'PY'
import json, socket, sys, time

port = int(sys.argv[1])
req = sys.argv[2].encode().decode("unicode_escape").encode("latin-1")
s = socket.create_connection(("127.0.0.1", port), timeout=5)
s.sendall(req)
data = b""
closed = 0
t0 = time.monotonic()
try:
    while time.monotonic() - t0 < 5:
        chunk = s.recv(65536)
        if not chunk:
            closed = 1
            break
        data += chunk
except ConnectionResetError:
    closed = 1
except OSError:
    pass
s.close()
status = 0
code = "-"
if data.startswith(b"HTTP/1.1 "):
    status = int(data[9:12])
    head, _, body = data.partition(b"\r\n\r\n")
    try:
        code = json.loads(body)["error"]["code"]
    except Exception:
        pass
print(status, code, closed)
PY

# ask LABEL EXPECTED REQUEST: passes when raw.py prints EXPECTED (or
# only its first words, when EXPECTED has fewer).
ask() {
	local got want=$2
	got=$(python3 "$work/raw.py" "$port" "$3" 2>&1)
	check "$1" "$want" "$(printf '%s\n' "$got" |
		cut -d' ' -f1-$(echo "$want" | wc -w))"
}

h='HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'

# A number has one spelling: no '+', as no blank (the query decodes
# "%2B" to '+', and "+" itself to a space).
ask "limit=%2B5 is a JSON 400" "400 bad_request" \
	"GET /v1/taps?limit=%2B5 $h"
ask "limit=5 is a 200" "200" "GET /v1/taps?limit=5 $h"
ask "p=%2B50 is a JSON 400" "400 bad_request" \
	"GET /v1/percentiles?p=%2B50 $h"
ask "after_id=-0 stays a number (200)" "200" "GET /v1/taps?after_id=-0 $h"

# A control character in the decoded path would end the C string the
# routing reads: /v1/health%00 is not /v1/health.
ask "/v1/health%00 is a JSON 400" "400 bad_request" \
	"GET /v1/health%00 $h"
ask "/v1/health%00x is a JSON 400" "400 bad_request" \
	"GET /v1/health%00x $h"
ask "/v1/health%0a is a JSON 400" "400 bad_request" \
	"GET /v1/health%0a $h"
ask "/v1/health%7F is a JSON 400" "400 bad_request" \
	"GET /v1/health%7F $h"
ask "/v1/health%20 is a JSON 404" "404 not_found" "GET /v1/health%20 $h"
ask "/v1/%68ealth (an encoded letter) is a 200" "200" \
	"GET /v1/%68ealth $h"

# Hundreds of parameters: refused before libmicrohttpd parses them (it
# runs out of per-connection memory near 900 and drops the connection).
many=$(python3 -c 'print("&".join("a%d=1" % i for i in range(1000)))')
ask "1000 query parameters are a JSON 400" "400 bad_request 1" \
	"GET /v1/taps?$many $h"
amps=$(python3 -c 'print("&" * 3000)')
ask "3000 empty query pairs are a JSON 400" "400 bad_request 1" \
	"GET /v1/taps?$amps $h"
few=$(python3 -c 'print("&".join("a%d=1" % i for i in range(40)))')
ask "40 query parameters are a JSON 400 too" "400 bad_request" \
	"GET /v1/taps?$few $h"

# A URI over tapd's 8 KiB is a JSON 414, up to what libmicrohttpd's
# 64 KiB of memory per connection holds.
long=$(python3 -c 'print("a" * 9000)')
ask "a URI of 9 KiB is a JSON 414" "414 too_large 1" \
	"GET /v1/taps?app=$long $h"
long=$(python3 -c 'print("a" * 60000)')
ask "a URI of 60 KiB is a JSON 414" "414 too_large 1" \
	"GET /v1/$long $h"
ask "a URI of 8 KiB is still read (a JSON 400 for its parameter)" \
	"400 bad_request" \
	"GET /v1/taps?app=$(python3 -c 'print("a" * 8000)') $h"

# A head over tapd's 32 KiB is a JSON 431, up to what libmicrohttpd
# holds; one just under is read.
big=$(python3 -c 'print("v" * 40000)')
ask "a head of 40 KiB is a JSON 431" "431 too_large 1" \
	"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: $big\r\nConnection: close\r\n\r\n"
big=$(python3 -c 'print("v" * 30000)')
ask "a head of 30 KiB is still read (200)" "200" \
	"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: $big\r\nConnection: close\r\n\r\n"

# What libmicrohttpd 0.9.75 answers before any tapd code runs: an answer
# (HTML, docs/tapd.8), then the connection is closed.
ask "a bad HTTP version: libmicrohttpd's 505, then close" "505 - 1" \
	'GET /v1/health HTTP/2.0\r\nHost: x\r\n\r\n'
ask "a header line without a colon: libmicrohttpd's 400, then close" \
	"400 - 1" 'GET /v1/health HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n'
ask "a negative Content-Length: libmicrohttpd's 400, then close" \
	"400 - 1" 'GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n'

# The server is still there, and stops cleanly.
ask "health answers after all that" "200" "GET /v1/health $h"
stop_server "$pid"
check "the server stops cleanly" 0 "$status"
finish
