#!/usr/bin/python3
"""Builds issue 13's filter in HaloDesk's filter builder from outside the process, as assistive
technology would, and checks the list online and then with the server stopped.

Usage: filter_builder.py APP_NAME PASSWORD SERVER_PID EXPECTED_JSON TIMEOUT_SECONDS
EXPECTED_JSON holds {"text": the filter as the builder writes it, "names": the names
`halo search --filter` lists for it, in order}.
Signs in to the remote workspace, opens Products and waits for its offline copy, opens the
builder with the Filter button and builds
    price >= 10 and price <= 500 and (inStock = true or title like "abi")
by pressing buttons and option buttons and typing into the value inputs, applies it and compares
the list's rows with the names. Then kills the server (SIGKILL), clears the filter, undoes the
clear and applies again: the rows, now from the offline copy, must be the same.
Prints each step; exits 0 with "offline rows match" on success, 1 with what it saw otherwise.
"""
import json
import os
import signal
import sys
import time

import pyatspi
from gi.repository import GLib

from sign_in import find, is_button, named, run_signed_in, wait_for
from workspace import select_module


def find_all(node, predicate, found, depth=0):
    """Every node under `node` (itself included) that satisfies `predicate`, in tree order."""
    if node is None or depth > 60:
        return found
    try:
        if predicate(node):
            found.append(node)
        for child in node:
            find_all(child, predicate, found, depth + 1)
    except Exception:  # nodes can vanish while we walk the tree
        pass
    return found


def label_starting(node, prefix):
    return find(node, lambda n: n.getRole() == pyatspi.ROLE_LABEL and (n.name or "").startswith(prefix))


def press(node):
    """Clicks a button. A menu button is exposed as a named button holding the toggle that
    carries the click action."""
    if node.queryAction().nActions == 0:
        node = next(child for child in node if child.queryAction().nActions > 0)
    node.queryAction().doAction(0)


def click(description, lookup, deadline):
    """Presses the button `lookup` finds once it is sensitive; looks again when the node goes
    away before the press arrives (the builder rebuilds its tree after each edit)."""
    while True:
        button = wait_for(description, lambda: next(
            (n for n in [lookup()] if n is not None and n.getState().contains(pyatspi.STATE_SENSITIVE)), None), deadline)
        try:
            press(button)
            print("pressed", description, flush=True)
            return button
        except GLib.Error:
            if time.time() > deadline:
                raise TimeoutError("could not press " + description)


def conditions(builder):
    """The conditions on screen in tree order: the rows holding a "Field: …" picker. The tree is
    rebuilt after every structural edit, so callers look them up again after each one."""
    pickers = find_all(builder, lambda n: (n.name or "").startswith("Field: "), [])
    rows = [picker.parent.parent if picker.parent is not None else None for picker in pickers]
    return rows if None not in rows else []  # caught mid-rebuild: look again


def in_condition(builder, index, predicate):
    """The node under the `index`th condition satisfying `predicate` (None while not shown)."""
    rows = conditions(builder)
    return find(rows[index], predicate) if index < len(rows) else None


def popover_buttons(menu):
    """The buttons in a menu button's popover (the menu button's first child is its own toggle;
    the popover comes after it)."""
    return [n for popover in list(menu)[1:] for n in find_all(popover, lambda n: n.getRole() == pyatspi.ROLE_PUSH_BUTTON, [])]


def pick(condition_index, purpose, option, builder, deadline, search=None):
    """Opens the condition's `purpose` picker ("Field", "Comparison") and presses `option` in its
    popover; `search` is first typed into the popover's search entry to narrow the options."""
    menu = click("%s picker of condition %d" % (purpose, condition_index + 1), lambda: in_condition(
        builder, condition_index, lambda n: (n.name or "").startswith(purpose + ": ")), deadline)
    if search is not None:
        entry = wait_for("search entry of the %s picker" % purpose, lambda: find(
            menu, lambda n: named(n, "Search " + purpose.lower()) and "EditableText" in pyatspi.listInterfaces(n)), deadline)
        entry.queryEditableText().setTextContents(search)
        # The options not matching are hidden, and so leave the tree.
        wait_for("options narrowed by '%s' to '%s'" % (search, option), lambda: menu if [
            n.name for n in popover_buttons(menu)] == [option] else None, deadline)
    click("option '%s'" % option, lambda: next((n for n in popover_buttons(menu) if named(n, option)), None), deadline)
    wait_for("%s: %s" % (purpose, option), lambda: find(builder, lambda n: n.name == "%s: %s" % (purpose, option)), deadline)


def value_input(condition_index, field, builder, deadline):
    return wait_for("value input of " + field, lambda: in_condition(
        builder, condition_index, lambda n: named(n, "Value of " + field)), deadline)


def type_value(condition_index, field, text, builder, deadline):
    wait_for("%s = %s typed" % (field, text), lambda: value_input(condition_index, field, builder, deadline)
             .queryEditableText().setTextContents(text) or None, deadline)


def row_names(table):
    """The names shown in the list: the first cell of each row of the instance table (None when
    the rows changed while being read)."""
    try:
        rows = next(child for child in table if child.getRole() == pyatspi.ROLE_LIST)
        return [row[0][0].name for row in rows]
    except (GLib.Error, IndexError, StopIteration, TypeError, AttributeError):  # a row went away mid-read (None)
        return None


def wait_for_rows(table, expected, deadline):
    seen = []
    while time.time() < deadline:
        seen = row_names(table) or seen
        if seen == expected:
            print("rows match: %d" % len(seen), flush=True)
            return
        time.sleep(0.5)
    missing = [name for name in expected if name not in seen]
    extra = [name for name in seen if name not in expected]
    raise TimeoutError("the list shows %d rows, %d expected; missing %s; not expected %s%s" % (
        len(seen), len(expected), missing[:5], extra[:5], "" if missing or extra else "; in another order"))


def build(builder, deadline):
    """price >= 10 and price <= 500 and (inStock = true or title like "abi"), by clicking."""
    add_condition = lambda: find(builder, lambda n: is_button(n, "Add a condition"))  # noqa: E731
    click("Add a condition", add_condition, deadline)
    pick(0, "Field", "price", builder, deadline)
    pick(0, "Comparison", "is at least", builder, deadline)
    type_value(0, "price", "10", builder, deadline)
    click("Add a condition", add_condition, deadline)
    pick(1, "Field", "price", builder, deadline)
    pick(1, "Comparison", "is at most", builder, deadline)
    type_value(1, "price", "500", builder, deadline)
    # A new group matches any of its conditions and starts with one.
    click("Add a group", lambda: find(builder, lambda n: is_button(n, "Add a group")), deadline)
    wait_for("the new group matching any", lambda: next((n for n in find_all(
        builder, lambda n: named(n, "Match any of the following"), [])[1:] if n.getState().contains(pyatspi.STATE_PRESSED)
    ), None), deadline)
    pick(2, "Field", "inStock", builder, deadline, search="stock")
    pick(2, "Comparison", "is", builder, deadline)
    # The switch starts on, as the condition's value does.
    wait_for("inStock switched on", lambda: next((n for n in [value_input(2, "inStock", builder, deadline)]
                                                  if n.getState().contains(pyatspi.STATE_CHECKED)), None), deadline)
    click("Add a condition to this group", lambda: find(
        builder, lambda n: is_button(n, "Add a condition to this group")), deadline)
    pick(3, "Field", "title", builder, deadline)
    pick(3, "Comparison", "contains", builder, deadline)
    type_value(3, "title", "abi", builder, deadline)


def main():
    app_name, password, server_pid, expected_file, timeout = sys.argv[1:6]
    expected = json.load(open(expected_file))
    names, text = expected["names"], expected["text"]

    def steps(app, main_window, deadline):
        status = wait_for("status 'Online'", lambda: label_starting(main_window, "Online"), deadline)
        select_module(app, "Products", deadline)
        print("selected Products", flush=True)
        # Opening a module copies it for offline use; the sync line shows until every copy asked
        # for is made (it is shown by the time the selection is answered).
        sync_area = status.parent
        wait_for("the offline copy of Products", lambda: None if label_starting(sync_area, "Keeping") or label_starting(
            sync_area, "Updating the offline copy") else sync_area, deadline)
        wait_for("Products listed", lambda: status if (status.name or "").endswith("150 instances") else None, deadline)
        table = wait_for("table 'Instances'", lambda: find(
            main_window, lambda n: n.name == "Instances" and n.getRole() == pyatspi.ROLE_TREE_TABLE), deadline)

        click("button 'Filter'", lambda: find(main_window, lambda n: is_button(n, "Filter")), deadline)
        builder = wait_for("window 'Filter Products'", lambda: next(
            (w for w in app if w is not None and w.name == "Filter Products"), None), deadline)
        build(builder, deadline)
        text_view = wait_for("text form", lambda: find(builder, lambda n: n.name == "The filter as text"), deadline)
        # The text form follows the last value typed once the app has handled its change.
        read = lambda: text_view.queryText().getText(0, -1)  # noqa: E731
        try:
            wait_for("text form %r" % text, lambda: text_view if read() == text else None, time.time() + 10)
        except TimeoutError:
            raise AssertionError("the text form reads %r, not %r" % (read(), text))
        count = "%d match%s" % (len(names), "" if len(names) == 1 else "es")
        wait_for("live count '%s'" % count, lambda: label_starting(builder, count), deadline)
        apply = lambda: find(builder, lambda n: is_button(n, "Apply the filter"))  # noqa: E731
        click("Apply the filter", apply, deadline)
        wait_for("button 'Filter: 4 conditions applied'", lambda: find(
            main_window, lambda n: named(n, "Filter: 4 conditions applied")), deadline)
        wait_for_rows(table, names, deadline)
        print("online rows match", flush=True)

        os.kill(int(server_pid), signal.SIGKILL)
        print("killed the server", flush=True)
        click("Clear the filter", lambda: find(builder, lambda n: is_button(n, "Clear the filter")), deadline)
        wait_for("status 'Offline … 150 instances'", lambda: status if (status.name or "").startswith("Offline")
                 and (status.name or "").endswith("150 instances") else None, deadline)
        click("Undo", lambda: find(builder, lambda n: is_button(n, "Undo")), deadline)
        wait_for("live count '%s · from the offline copy'" % count, lambda: label_starting(
            builder, count + " · from the offline copy"), deadline)
        click("Apply the filter", apply, deadline)
        wait_for("status 'showing the copy'", lambda: status if "showing the copy" in (status.name or "") else None,
                 deadline)
        wait_for_rows(table, names, deadline)
    return run_signed_in(app_name, password, timeout, steps, "offline rows match")


if __name__ == "__main__":
    sys.exit(main())
