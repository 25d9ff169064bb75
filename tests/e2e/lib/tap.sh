# Sourced by the end-to-end scripts (bash) that play touches through a
# live getevent stream (tapd run --input getevent:FIFO).
#
# play_tap FIFO FRAMES: writes one 60 ms tap into the getevent stream,
# each line stamped with CLOCK_MONOTONIC as it is written (getevent's
# microseconds), appends its finger-up to the fakes' frames file (their
# response burst follows it) and prints that finger-up in ns.
play_tap() {
	python3 - "$1" "$2" <<'PY'
import os, sys, time

def line(t, typ, code, value):
    us = t // 1000
    return "[%8d.%06d] %-12s %-20s %s\n" % (us // 1000000, us % 1000000,
                                           typ, code, value)

def now():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)

fd = os.open(sys.argv[1], os.O_WRONLY)
t = now()
os.write(fd, (line(t, "EV_ABS", "ABS_MT_TRACKING_ID", "00000001") +
              line(t, "EV_ABS", "ABS_MT_POSITION_X", "000000fa") +
              line(t, "EV_ABS", "ABS_MT_POSITION_Y", "00000190") +
              line(t, "EV_KEY", "BTN_TOUCH", "DOWN") +
              line(t, "EV_SYN", "SYN_REPORT", "00000000")).encode())
time.sleep(0.06)
t = now()
os.write(fd, (line(t, "EV_ABS", "ABS_MT_TRACKING_ID", "ffffffff") +
              line(t, "EV_KEY", "BTN_TOUCH", "UP") +
              line(t, "EV_SYN", "SYN_REPORT", "00000000")).encode())
os.close(fd)
up = t // 1000 * 1000
with open(sys.argv[2], "a") as f:
    f.write("%d\n" % up)
print(up)
PY
}
