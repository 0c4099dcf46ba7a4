#!/usr/bin/python3
"""Browser sign-in from outside HaloDesk, with a real browser: presses "Continue with Google" on
the sign-in page over AT-SPI, reads the address HaloDesk asked the desktop's browser to open (the
test session's browser records it in $HALO_OPENED_URIS), lets Chromium go through the identity
provider's consent page as ACCOUNT (consent.py), and waits for the workspace, signed in as that
person.

Usage: browser_sign_in.py APP_NAME CONSENT_SCRIPT ACCOUNT SCREENSHOT_DIR TIMEOUT_SECONDS
"""
import json
import os
import subprocess
import sys
import time

import pyatspi

from sign_in import app_named, find, is_button, named, wait_for


def opened_address(path):
    """The last provider address the app asked the browser to open, if any yet."""
    try:
        with open(path, encoding="utf-8") as recorded:
            lines = [line.strip() for line in recorded if "/authorize?" in line]
    except FileNotFoundError:
        return None
    return lines[-1] if lines else None


def main():
    app_name, consent, account, shots, timeout = sys.argv[1:6]
    deadline = time.time() + float(timeout)
    opened = os.environ.get("HALO_OPENED_URIS")
    if not opened:
        print("failed: HALO_OPENED_URIS is not set (run inside scripts/gui-session.sh)")
        return 1
    try:
        app = wait_for("application " + app_name, lambda: app_named(app_name), deadline)
        google = wait_for("button 'Continue with Google'",
                          lambda: find(app, lambda n: is_button(n, "Continue with Google")), deadline)
        google.queryAction().doAction(0)
        print("pressed Continue with Google", flush=True)
        address = wait_for("address sent to the browser", lambda: opened_address(opened), deadline)
        wait_for("waiting page's 'Copy Link'", lambda: find(app, lambda n: is_button(n, "Copy Link")), deadline)

        browser = subprocess.run(["/usr/bin/python3", consent, address, account, shots],
                                 capture_output=True, text=True, timeout=max(10, deadline - time.time()))
        if browser.returncode != 0:
            print("failed: the browser did not finish the consent:", browser.stderr.strip().splitlines()[-3:])
            return 1
        landing = json.loads(browser.stdout.strip().splitlines()[-1])
        print("browser landing page:", landing["heading"], flush=True)
        assert landing["heading"] == "Signed in with Google", landing

        wait_for("signed-in workspace", lambda: find(app, lambda n: n.getRole() == pyatspi.ROLE_LABEL
                                                      and n.name == "Modules"), deadline)
        # The sidebar's title says whose workspace it is (its tooltip is its accessible description).
        wait_for("workspace of " + account, lambda: find(app, lambda n: account in (n.description or "")), deadline)
        assert find(app, lambda n: is_button(n, "Continue with Google")
                    and n.getState().contains(pyatspi.STATE_SHOWING)) is None, "the sign-in page is still showing"
        print("signed in through the browser", flush=True)
        return 0
    except (TimeoutError, AssertionError, subprocess.TimeoutExpired) as error:
        print("failed:", error)
        print("showing text:", showing_text(app_named(app_name)))
        return 1


def showing_text(node, depth=0):
    """The names of the showing labels under `node`: what a person would read on screen."""
    if node is None or depth > 40:
        return []
    names = []
    try:
        if node.getRole() == pyatspi.ROLE_LABEL and node.name and node.getState().contains(pyatspi.STATE_SHOWING):
            names.append(node.name)
        children = list(node)
    except Exception:  # nodes can vanish while we walk the tree
        return names
    for child in children:
        names += showing_text(child, depth + 1)
    return names


if __name__ == "__main__":
    sys.exit(main())
