#!/usr/bin/python3
"""Reopening a large module, online and then offline, driven like a user (benchmark helper).

Usage: reopen_module.py APP_PID SERVER_PID PASSWORD BIG SMALL ROUNDS MARKS CACHE_DIR TIMEOUT
Signs in, opens BIG (e.g. "Bench 1", 100,000 instances) and SMALL, and waits until BIG's
offline copy is complete in the cache (CACHE_DIR). Then, ROUNDS times online: open SMALL, open
BIG, and time the click to the first frame painted with BIG's rows (the app's "painted" mark in
MARKS, HALO_DESK_MARKS, on the same CLOCK_MONOTONIC). Kills the server (SIGKILL) and does the
same offline. Frames later than 25 ms are the app's "stall" marks. Prints the figures; exits 1
on a timeout.
"""
import glob
import os
import signal
import sqlite3
import statistics
import sys
import time

import pyatspi

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../Tests/HaloDeskTests/accessibility"))
from sign_in import app_named, find, sign_in_with_password, wait_for  # noqa: E402
from workspace import select_module  # noqa: E402
from bench_driver import cpu_seconds, mark, marks  # noqa: E402


def copy_complete(cache_dir, instances):
    for file in glob.glob(os.path.join(cache_dir, "halo-desk", "*.sqlite")):
        try:
            db = sqlite3.connect("file:%s?mode=ro" % file, uri=True, timeout=1)
            done = db.execute(
                "SELECT (SELECT count(*) FROM content_instance) >= ? AND NOT EXISTS "
                "(SELECT 1 FROM cache_sync_state WHERE first_sync_in_progress = 1)", (instances,)).fetchone()[0]
            db.close()
            if done:
                return True
        except sqlite3.Error:
            pass
    return None


def reopen(app, app_pid, big, small, marks_file, deadline):
    """Opens SMALL, then BIG; returns (the app's open to painted ms, click to painted ms, app CPU
    ms over that time). The click is the selection sent over AT-SPI (D-Bus to the app)."""
    select_module(app, small, deadline)
    time.sleep(0.8)
    cpu = cpu_seconds(app_pid)
    clicked = []

    def click():
        clicked.append(time.monotonic_ns())
        mark(marks_file, "click " + big)
    select_module(app, big, deadline, click)
    click = clicked[0]
    while time.time() < deadline:
        painted = [stamp for stamp, what, _ in marks(marks_file) if what == "painted " + big and stamp > click]
        if painted:
            opened = [stamp for stamp, what, _ in marks(marks_file) if what == "open " + big and click < stamp <= painted[0]]
            return (painted[0] - opened[0]) / 1e6, (painted[0] - click) / 1e6, (cpu_seconds(app_pid) - cpu) * 1000
        time.sleep(0.005)
    raise TimeoutError("no painted mark for " + big)


def main():
    app_pid, server_pid, password, big, small = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    rounds, marks_file, cache_dir, timeout = int(sys.argv[6]), sys.argv[7], sys.argv[8], float(sys.argv[9])
    deadline = time.time() + timeout
    try:
        app = wait_for("application halo-desk", lambda: app_named("halo-desk"), deadline)
        sign_in_with_password(app, password, deadline)
        select_module(app, small, deadline)
        time.sleep(1)
        select_module(app, big, deadline)
        wait_for("the offline copy of " + big, lambda: copy_complete(cache_dir, 100000), deadline)

        figures = {}
        for phase in ("online", "offline"):
            start = time.monotonic_ns()  # offline: from the moment the server dies
            if phase == "offline":
                os.kill(server_pid, signal.SIGKILL)
                mark(marks_file, "server killed")
            figures[phase] = [reopen(app, app_pid, big, small, marks_file, deadline) for _ in range(rounds)]
            if phase == "offline":  # the first click after the server died told the app
                wait_for("status 'Offline'", lambda: find(
                    app, lambda n: n.getRole() == pyatspi.ROLE_LABEL and (n.name or "").startswith("Offline")), deadline)
                # Offline and left alone: the probe retries with backoff; no frame may wait on it.
                idle = time.monotonic_ns()
                time.sleep(8)
                stalls = [float(what.split()[1]) for stamp, what, _ in marks(marks_file)
                          if what.startswith("stall ") and stamp > idle]
                figures["idle stall"] = max(stalls, default=0.0)
            stalls = [float(what.split()[1]) for stamp, what, _ in marks(marks_file) if what.startswith("stall ") and stamp > start]
            figures[phase + " stall"] = max(stalls, default=0.0)
    except (TimeoutError, StopIteration) as error:
        print("failed:", error or "module row vanished")
        return 1

    def line(phase):
        app_ms = [a for a, _, _ in figures[phase]]
        click_ms = [c for _, c, _ in figures[phase]]
        cpu = [c for _, _, c in figures[phase]]
        return "%-8s median %6.1f ms  max %6.1f ms  (from the AT-SPI click %6.1f ms)   app CPU median %6.1f ms   longest frame %s" % (
            phase, statistics.median(app_ms), max(app_ms), statistics.median(click_ms), statistics.median(cpu),
            ("%.1f ms" % figures[phase + " stall"]) if figures[phase + " stall"] else "< 25 ms")
    print("reopening %s (100,000 instances) after %s: the module selected to its first rows painted, %d rounds each"
          % (big, small, rounds))
    print("  " + line("online"))
    print("  " + line("offline") + "   (targets: <= 150 ms; no frame > 50 ms)")
    print("  offline and idle for 8 s (the probe retrying): longest frame %s" % (
        ("%.1f ms" % figures["idle stall"]) if figures["idle stall"] else "< 25 ms"))
    online = statistics.median([a for a, _, _ in figures["online"]])
    offline = statistics.median([a for a, _, _ in figures["offline"]])
    print("  offline / online: %.2f" % (offline / online))
    return 0


if __name__ == "__main__":
    sys.exit(main())
