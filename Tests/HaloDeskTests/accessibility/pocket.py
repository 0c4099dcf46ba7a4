#!/usr/bin/python3
"""Edits the signed-in user's pocket in HaloDesk's pocket window from outside the process, as
assistive technology would.

Usage: pocket.py APP_NAME PASSWORD TIMEOUT_SECONDS
The test gives the user the pocket {"data": {"size": 2}, "references": {"old": ["x"],
"recent": ["a", "b"]}} first. The script signs in, opens Main Menu → Pocket, and:
- waits for the whole pocket's meter and its words ("… of 262,144 bytes used");
- adds the member `theme` to data; types 2,001 characters into it and waits for Save to be
  refused with the limit's reason, then types "dark";
- adds the list "reading" (New list name, then its Add button), picks Ada Lovelace into it by
  name and types the entry "note-1";
- presses Clear recent (saved as []) and Delete old (saved as null);
- presses Review and Save… (named "Review the changes and save"), checks the review lists the five changes, with Ada Lovelace by
  name, and presses Save to the Pocket, then waits for "Saved".
The test then reads the pocket with a second client and compares it byte for byte.
Prints each step; exits 0 with "pocket saved" on success, 1 otherwise.
"""
import sys

import pyatspi

from field_editors import menu_starting, pick_instance, type_into
from filter_builder import click, find_all, press
from sign_in import find, is_button, named, run_signed_in, wait_for


def pocket_window(app):
    return next((w for w in app if w is not None and w.name == "Pocket"), None)


def button(window, name):
    return find(window, lambda n: is_button(n, name))


def edit_the_pocket(app, workspace, deadline):
    menu = menu_starting(workspace, "Main Menu", deadline)
    item = wait_for("menu item 'Pocket'", lambda: find(menu, lambda n: named(n, "Pocket")
                                                       and n.queryAction().nActions > 0), deadline)
    press(item)
    window = wait_for("the Pocket window", lambda: pocket_window(app), deadline)
    wait_for("the pocket read", lambda: find(window, lambda n: named(n, "Name of data.size")), deadline)
    # The whole pocket's meter, in bytes of the limit the server announced (the default here).
    wait_for("meter 'Space used by the whole pocket'", lambda: find(
        window, lambda n: n.getRole() == pyatspi.ROLE_LEVEL_BAR and n.name == "Space used by the whole pocket"), deadline)
    wait_for("the whole pocket's size", lambda: find(
        window, lambda n: n.getRole() == pyatspi.ROLE_LABEL and (n.name or "").endswith(" of 262,144 bytes used")), deadline)

    click("Add a member to data", lambda: button(window, "Add a member to data"), deadline)
    type_into(window, "Name of data.key", "theme", deadline)
    type_into(window, "Value of data.theme", "x" * 2001, deadline)
    save = wait_for("button 'Review the changes and save'", lambda: button(window, "Review the changes and save"), deadline)
    wait_for("Save refused over the limit", lambda: save if not save.getState().contains(pyatspi.STATE_SENSITIVE)
             and find(window, lambda n: n.getRole() == pyatspi.ROLE_LABEL and "over the limit of 2,000" in (n.name or "")) else None,
             deadline)
    type_into(window, "Value of data.theme", "dark", deadline)

    type_into(window, "New list name", "reading", deadline)
    click("Add the list", lambda: button(window, "Add the list"), deadline)
    pick_instance(window, "Add an instance to reading", "Ada", "Ada Lovelace", deadline)
    wait_for("entry 'Ada Lovelace' in reading", lambda: button(window, "Remove Ada Lovelace from reading"), deadline)
    type_into(window, "Add an entry to reading", "note-1", deadline)
    click("Add the entry to reading", lambda: button(window, "Add the entry to reading"), deadline)
    wait_for("entry 'note-1' in reading", lambda: button(window, "Remove note-1 from reading"), deadline)
    click("Clear recent", lambda: button(window, "Clear recent"), deadline)
    # The lists are rebuilt after each edit: wait for the new ones before the next press.
    wait_for("recent to be empty", lambda: next((b for b in [button(window, "Clear recent")]
                                                 if b is not None and not b.getState().contains(pyatspi.STATE_SENSITIVE)), None),
             deadline)
    click("Delete old", lambda: button(window, "Delete old"), deadline)
    wait_for("old to be deleted", lambda: button(window, "Keep old"), deadline)

    click("Review the changes and save", lambda: button(window, "Review the changes and save"), deadline)
    for change in ("data.theme", "references.old", "references.reading", "references.recent"):
        wait_for("review row " + change, lambda: find(window, lambda n: named(n, change)), deadline)
    wait_for("Ada Lovelace by name in the review", lambda: next((n for n in find_all(
        window, lambda n: "Ada Lovelace, note-1" in (n.name or "") or "Ada Lovelace, note-1" in (n.description or ""), [])),
        None), deadline)
    click("Save to the Pocket", lambda: button(window, "Save to the Pocket"), deadline)
    wait_for("subtitle 'Saved'", lambda: find(window, lambda n: n.getRole() == pyatspi.ROLE_LABEL and n.name == "Saved"),
             deadline)


def main():
    app_name, password, timeout = sys.argv[1:4]
    return run_signed_in(app_name, password, timeout, edit_the_pocket, "pocket saved")


if __name__ == "__main__":
    sys.exit(main())
