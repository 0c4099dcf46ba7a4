#!/usr/bin/python3
"""Drives HaloDesk from outside, as a user would, to list a large module (benchmark helper).

Usage: list_module.py APP_NAME MODULE_NAME EXPECTED_STATUS TIMEOUT_SECONDS [PASSWORD]
       list_module.py APP_NAME --until-sign-in - TIMEOUT_SECONDS   (only wait for the sign-in page)
Signs in (typing PASSWORD when given, else with the prefilled local-workspace account), selects the
module MODULE_NAME in the sidebar through the AT-SPI Selection interface, and waits until a label
contains EXPECTED_STATUS (e.g. "100,000 instances"). Exits 0 on success, 1 with what it saw.
"""
import os
import sys
import time

import pyatspi

# The AT-SPI helpers of the accessibility tests (tree search, waiting, GTK 4.8's doubled names).
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../Tests/HaloDeskTests/accessibility"))
from sign_in import app_named, find, is_button, sign_in_with_password, wait_for  # noqa: E402
from workspace import select_module  # noqa: E402


def main():
    app_name, module, expected, timeout = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    password = sys.argv[5] if len(sys.argv) > 5 else None
    deadline = time.time() + timeout
    try:
        app = wait_for("application " + app_name, lambda: app_named(app_name), deadline)
        sign_in = wait_for("button 'Sign In'", lambda: find(app, lambda n: is_button(n, "Sign In")), deadline)
        if module == "--until-sign-in":
            return 0
        if password is not None:
            sign_in_with_password(app, password, deadline)
        else:
            sign_in.queryAction().doAction(0)
            print("pressed Sign In", flush=True)
        select_module(app, module, deadline)
        print("selected", module, flush=True)
        wait_for("status '" + expected + "'", lambda: find(
            app, lambda n: n.getRole() == pyatspi.ROLE_LABEL and expected in (n.name or "")), deadline)
        return 0
    except (TimeoutError, StopIteration) as error:
        print("failed:", error or "module row vanished")
        return 1


if __name__ == "__main__":
    sys.exit(main())
