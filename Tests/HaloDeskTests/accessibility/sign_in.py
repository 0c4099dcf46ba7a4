#!/usr/bin/python3
"""Drives HaloDesk's sign-in from outside the process, as assistive technology would.

Usage: sign_in.py APP_NAME EMAIL TIMEOUT_SECONDS
Finds the Email entry and the Sign In button by their accessible names, types the email,
presses the button, and waits for the workspace (its "Modules" sidebar header) to show.
Prints each step; exits 0 on success, 1 with what it saw otherwise.
"""
import sys
import time

import pyatspi
from gi.repository import GLib


def named(node, text):
    """GTK 4.8 exposes a labelled widget's name as its label property followed by its visible
    text ("_Sign In Sign In", "Save instance _Save"); later GTK versions give just the label
    property. Accept both forms."""
    name = (node.name or "").replace("_", "")
    return name == text or name.startswith(text + " ")


def find(node, predicate, depth=0):
    if node is None or depth > 40:
        return None
    try:
        if predicate(node):
            return node
        for child in node:
            found = find(child, predicate, depth + 1)
            if found is not None:
                return found
    except GLib.Error:  # nodes can vanish while we walk the tree
        return None
    return None


def wait_for(description, lookup, deadline):
    while time.time() < deadline:
        try:
            found = lookup()
        except GLib.Error:  # a node went away under the lookup (a view rebuilt): look again
            found = None
        if found is not None:
            print("found", description)
            return found
        time.sleep(0.3)
    raise TimeoutError("timed out waiting for " + description)


def is_button(node, text):
    return node.getRole() == pyatspi.ROLE_PUSH_BUTTON and named(node, text)


def app_named(name):
    for app in pyatspi.Registry.getDesktop(0):
        if app is not None and app.name == name:
            return app
    return None


def sign_in(app, email, deadline):
    """Types `email` into the Email entry, presses Sign In, and waits for the signed-in title."""
    button = wait_for("button 'Sign In'", lambda: find(app, lambda n: is_button(n, "Sign In")), deadline)
    entry = wait_for("entry 'Email'", lambda: find(app, lambda n: named(n, "Email")
                                                    and "EditableText" in pyatspi.listInterfaces(n)), deadline)
    entry.queryEditableText().setTextContents(email)
    print("typed email")
    button.queryAction().doAction(0)
    print("pressed Sign In")
    # Signed in, the workspace shows: its sidebar header is titled "Modules".
    wait_for("signed-in workspace", lambda: find(app, lambda n: n.getRole() == pyatspi.ROLE_LABEL
                                                  and n.name == "Modules"), deadline)


def sign_in_with_password(app, password, deadline):
    """The sign-in page of a remote workspace (its email prefilled): types `password` and
    presses Sign In."""
    button = wait_for("button 'Sign In'", lambda: find(app, lambda n: is_button(n, "Sign In")), deadline)
    entry = wait_for("entry 'Password'", lambda: find(app, lambda n: (n.name or "").startswith("Password")
                                                       and "EditableText" in pyatspi.listInterfaces(n)), deadline)
    entry.queryEditableText().setTextContents(password)
    button.queryAction().doAction(0)
    print("pressed Sign In", flush=True)


def run_signed_in(app_name, password, timeout, steps, done):
    """Signs in to the remote workspace with `password`, runs `steps(app, workspace, deadline)`
    and prints `done`; returns the exit status (1 with what failed when a step times out or a
    check fails with AssertionError)."""
    deadline = time.time() + float(timeout)
    try:
        app = wait_for("application " + app_name, lambda: app_named(app_name), deadline)
        sign_in_with_password(app, password, deadline)
        workspace = wait_for("workspace", lambda: next(
            (w for w in app if w is not None and find(w, lambda n: n.name == "Modules")), None), deadline)
        steps(app, workspace, deadline)
        print(done, flush=True)
        return 0
    except (TimeoutError, StopIteration, AssertionError) as error:
        print("failed:", error or "a node vanished")
        return 1


def main():
    app_name, email, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
    deadline = time.time() + timeout
    try:
        app = wait_for("application " + app_name, lambda: app_named(app_name), deadline)
        sign_in(app, email, deadline)
        return 0
    except TimeoutError as error:
        print(error)
        return 1


if __name__ == "__main__":
    sys.exit(main())
