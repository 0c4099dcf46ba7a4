#!/usr/bin/python3
"""Finds an application's top-level window through AT-SPI, the way assistive technology does.

Usage: find_window.py APP_NAME WINDOW_NAME TIMEOUT_SECONDS
Prints "found <role> '<name>'" and exits 0, or prints what it saw and exits 1.
"""
import sys
import time

import pyatspi


def main():
    app_name, window_name, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
    deadline = time.time() + timeout
    seen = set()
    while time.time() < deadline:
        desktop = pyatspi.Registry.getDesktop(0)
        for app in desktop:
            if app is None:
                continue
            seen.add(app.name)
            if app.name != app_name:
                continue
            for window in app:
                if window is not None and window.name == window_name:
                    print("found %s '%s'" % (window.getRoleName(), window.name))
                    return 0
        time.sleep(0.3)
    print("no window '%s' in app '%s'; applications seen: %s" % (window_name, app_name, sorted(seen)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
