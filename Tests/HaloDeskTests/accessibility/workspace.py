#!/usr/bin/python3
"""Checks HaloDesk's workspace from outside the process, as assistive technology sees it.

Usage: workspace.py APP_NAME EMAIL TIMEOUT_SECONDS
Signs in to the local workspace (see sign_in.py), then finds the workspace's main controls by
accessible name and role, presses "New instance" and waits for the detail pane to show the new
instance, and finally lists every showing interactive node without a name.
Prints each step; exits 0 when everything was found and named, 1 with what was wrong otherwise.
"""
import sys
import time

import pyatspi

from sign_in import app_named, find, named, sign_in, wait_for

# The workspace's main controls: accessible name -> roles GTK 4.8 may expose it with.
MAIN_CONTROLS = [
    ("Main Menu", {pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON}),
    ("Modules", {pyatspi.ROLE_LIST, pyatspi.ROLE_LIST_BOX}),
    ("Filter instances by name", {pyatspi.ROLE_ENTRY, pyatspi.ROLE_TEXT}),
    ("New instance", {pyatspi.ROLE_PUSH_BUTTON}),
    ("Instances", {pyatspi.ROLE_TABLE, pyatspi.ROLE_TREE_TABLE, pyatspi.ROLE_TREE}),
    ("Delete instance", {pyatspi.ROLE_PUSH_BUTTON}),
]

# Roles a person operates; each needs a name a screen reader can speak.
INTERACTIVE = {pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON, pyatspi.ROLE_CHECK_BOX,
               pyatspi.ROLE_ENTRY, pyatspi.ROLE_PASSWORD_TEXT, pyatspi.ROLE_COMBO_BOX,
               pyatspi.ROLE_SPIN_BUTTON, pyatspi.ROLE_LIST, pyatspi.ROLE_LIST_BOX,
               pyatspi.ROLE_LIST_ITEM, pyatspi.ROLE_TABLE, pyatspi.ROLE_TREE_TABLE}


def module_list(app, module):
    """The sidebar list once it holds a row for `module` (rows are named "<module>, <n> instances")."""
    def is_sidebar(node):
        return "Selection" in pyatspi.listInterfaces(node) and any(
            (child.name or "").startswith(module + ",") for child in node)
    return find(app, is_sidebar)


def select_module(app, module, deadline, before_click=None):
    """Selects MODULE's row in the sidebar, as a click does; `before_click` runs once the row is
    found, just before the selection is sent (finding it walks the accessibility tree)."""
    sidebar = wait_for("module " + module, lambda: module_list(app, module), deadline)
    index = next(i for i, child in enumerate(sidebar) if (child.name or "").startswith(module + ","))
    if before_click:
        before_click()
    sidebar.querySelection().selectChild(index)


def unnamed_controls(node, path, found, depth=0):
    if node is None or depth > 60:
        return
    try:
        role = node.getRole()
        showing = node.getState().contains(pyatspi.STATE_SHOWING)
        here = path + [node.getRoleName()]
        if showing and role in INTERACTIVE and not (node.name or "").strip():
            found.append(" > ".join(here[-5:]))
        for child in node:
            unnamed_controls(child, here, found, depth + 1)
    except Exception:  # nodes can vanish while we walk the tree
        return


def main():
    app_name, email, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
    deadline = time.time() + timeout
    try:
        app = wait_for("application " + app_name, lambda: app_named(app_name), deadline)
        sign_in(app, email, deadline)
        controls = {}
        for name, roles in MAIN_CONTROLS:
            controls[name] = wait_for("control '%s'" % name,
                                      lambda: find(app, lambda n: named(n, name) and n.getRole() in roles), deadline)
        # Rows of the module sidebar are named after their module.
        wait_for("module row 'Articles'", lambda: find(app, lambda n: n.getRole() == pyatspi.ROLE_LIST_ITEM
                                                         and (n.name or "").startswith("Articles")), deadline)
        controls["New instance"].queryAction().doAction(0)
        print("pressed New instance")
        wait_for("detail title 'New Instance'", lambda: find(app, lambda n: n.getRole() == pyatspi.ROLE_LABEL
                                                             and n.name == "New Instance"), deadline)
        # Save shows while an instance is open in the detail pane.
        wait_for("control 'Save instance'", lambda: find(app, lambda n: named(n, "Save instance")
                                                         and n.getRole() == pyatspi.ROLE_PUSH_BUTTON), deadline)
        time.sleep(0.5)
        missing = []
        for window in app:
            unnamed_controls(window, [], missing)
        if missing:
            print("interactive nodes without a name:")
            for line in missing:
                print("  " + line)
            return 1
        print("every showing interactive node has a name")
        return 0
    except TimeoutError as error:
        print(error)
        return 1


if __name__ == "__main__":
    sys.exit(main())
