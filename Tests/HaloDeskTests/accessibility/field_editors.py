#!/usr/bin/python3
"""Creates a product in HaloDesk's instance editor from outside the process, as assistive
technology would, editing fields of several types with their own editors.

Usage: field_editors.py APP_NAME PASSWORD NAME TIMEOUT_SECONDS
Signs in to the remote workspace, opens Products, presses "New instance", and fills in the
name NAME, `title` and `manual` (text and link entries), `price` (a number: "12,5x" is refused
under the field first, then 12.5), `inStock` (a switch), `color` (its hex code entry), `size`
(an option of its picker) and `features` (two toggle buttons), then presses Save and waits for the
"Created" toast. The test reads the instance back from the server.
Prints each step; exits 0 with "created through the field editors" on success, 1 otherwise.
"""
import sys
import time

import pyatspi

from filter_builder import click, label_starting, popover_buttons, press
from sign_in import app_named, find, is_button, named, sign_in_with_password, wait_for
from workspace import select_module


def entry(window, name, deadline):
    return wait_for("entry '%s'" % name, lambda: find(
        window, lambda n: named(n, name) and "EditableText" in pyatspi.listInterfaces(n)), deadline)


def type_into(window, name, text, deadline):
    entry(window, name, deadline).queryEditableText().setTextContents(text)
    print("typed %r into %s" % (text, name), flush=True)


def main():
    app_name, password, instance_name, timeout = sys.argv[1:5]
    deadline = time.time() + float(timeout)
    try:
        app = wait_for("application " + app_name, lambda: app_named(app_name), deadline)
        sign_in_with_password(app, password, deadline)
        window = wait_for("workspace", lambda: next(
            (w for w in app if w is not None and find(w, lambda n: n.name == "Modules")), None), deadline)
        select_module(app, "Products", deadline)
        status = wait_for("status 'Online'", lambda: label_starting(window, "Online"), deadline)
        wait_for("Products listed", lambda: status if (status.name or "").endswith("150 instances") else None, deadline)
        click("New instance", lambda: find(window, lambda n: is_button(n, "New instance")), deadline)
        wait_for("detail title 'New Instance'", lambda: find(
            window, lambda n: n.getRole() == pyatspi.ROLE_LABEL and n.name == "New Instance"), deadline)

        type_into(window, "Instance name", instance_name, deadline)
        type_into(window, "title", "Lamp made over AT-SPI", deadline)
        type_into(window, "price", "12,5x", deadline)
        wait_for("the price's problem under its field", lambda: label_starting(
            window, "“price” must be a number, not “12,5x”."), deadline)
        type_into(window, "price", "12.5", deadline)
        type_into(window, "color: hex code", "#00897b", deadline)
        type_into(window, "manual", "https://videos.example.com/at-spi.mp4", deadline)
        switch = wait_for("switch 'inStock'", lambda: find(
            window, lambda n: named(n, "inStock") and n.getRole() != pyatspi.ROLE_LABEL
            and "Action" in pyatspi.listInterfaces(n)), deadline)
        press(switch)
        wait_for("inStock on", lambda: switch if switch.getState().contains(pyatspi.STATE_CHECKED) else None, deadline)
        for choice in ("recycled", "organic"):
            # GTK 4.8 exposes a toggle button as a push button; pressed while chosen.
            toggle = wait_for("toggle button '%s'" % choice, lambda: find(
                window, lambda n: named(n, choice) and n.getRole() in (pyatspi.ROLE_TOGGLE_BUTTON, pyatspi.ROLE_PUSH_BUTTON)), deadline)
            press(toggle)
            wait_for("%s chosen" % choice, lambda: toggle if toggle.getState().contains(pyatspi.STATE_PRESSED)
                     or toggle.getState().contains(pyatspi.STATE_CHECKED) else None, deadline)
        menu = click("picker 'size'", lambda: find(window, lambda n: (n.name or "").startswith("size: ")), deadline)
        click("option 'L'", lambda: next((n for n in popover_buttons(menu) if named(n, "L")), None), deadline)
        wait_for("size: L", lambda: find(window, lambda n: n.name == "size: L"), deadline)

        click("Save instance", lambda: find(window, lambda n: is_button(n, "Save instance")), deadline)
        wait_for("detail title '%s'" % instance_name, lambda: find(
            window, lambda n: n.getRole() == pyatspi.ROLE_LABEL and n.name == instance_name), deadline)
        print("created through the field editors", flush=True)
        return 0
    except (TimeoutError, StopIteration) as error:
        print("failed:", error or "a node vanished")
        return 1


if __name__ == "__main__":
    sys.exit(main())
