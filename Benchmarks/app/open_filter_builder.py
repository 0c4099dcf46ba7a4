#!/usr/bin/python3
"""Opening the filter builder on a module of 50 fields, driven like a user (benchmark helper).

Usage: open_filter_builder.py PASSWORD MODULE OTHER ROUNDS MARKS TIMEOUT
Signs in and, ROUNDS times: opens OTHER and then MODULE (another module drops the builder, so the
next one is built anew), presses Filter, and closes the builder; then opens and closes the About
window (the floor). A builder built anew is always empty: the app drops one only with its
module's filter. Then types a nested 4-condition filter into the builder's text form and, ROUNDS
times: closes and reopens that builder (a builder holding a draft is kept while hidden),
alternating with About again, and presses Undo and Redo (Redo rebuilds the 4 conditions, as any
structural edit does). Each figure is the app's own marks (HALO_DESK_MARKS): from the action's
start to the first frame of the window painted, wall and process CPU. Prints medians and the
ratio to About's; exits 1 on a timeout.
"""
import os
import statistics
import sys
import time

import pyatspi

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../Tests/HaloDeskTests/accessibility"))
from sign_in import app_named, find, is_button, named, sign_in_with_password, wait_for  # noqa: E402
from workspace import select_module  # noqa: E402
from bench_driver import mark, wait_for_mark  # noqa: E402

# A nested filter over fields of four types (seed --fields 50): a number, a group of a number or a
# choice, and a yes/no field.
CONDITIONS = "price >= 10 and (number10 < 500 or singleChoice13 = red) and boolean11 = true"


def frame(app, title):
    """A window of the app by title (the windows are the application's children)."""
    return next((n for n in app if n is not None and (n.name or "") == title), None)


def close(app, title, deadline):
    """Presses the window's Close button and waits until the window is hidden or gone. About's
    subpages have header bars of their own, and GTK 4.8 does not say which is on screen (no
    `showing` state): each is pressed, and only the one on screen acts."""
    window = wait_for("window " + title, lambda: frame(app, title), deadline)
    for button in pyatspi.findAllDescendants(window, lambda n: is_button(n, "Close")):
        button.queryAction().doAction(0)
    wait_for("window %s closed" % title, lambda: None if visible(app, title) else True, deadline)


def visible(app, title):
    window = frame(app, title)
    return window is not None and window.getState().contains(pyatspi.STATE_VISIBLE)


def timed(marks_file, name, trigger, deadline):
    """Runs `trigger` and returns (wall ms, CPU ms) from the app's `<name> open` mark to its
    `<name> painted` one, and wall ms from the driver's click."""
    clicked = time.monotonic_ns()
    mark(marks_file, "click " + name)
    trigger()
    opened = wait_for_mark(marks_file, name + " open", clicked, deadline)
    painted = wait_for_mark(marks_file, name + " painted", opened[0], deadline)
    return (painted[0] - opened[0]) / 1e6, (painted[2] - opened[2]) / 1e6, (painted[0] - clicked) / 1e6


class About:
    """Opens the About window from the main menu. The walks of the app's accessibility tree take
    seconds (every list row is in it): the menu's nodes are found once."""

    def __init__(self, app, deadline):
        menu = wait_for("menu button 'Main Menu'", lambda: find(app, lambda n: named(n, "Main Menu")), deadline)
        # GTK 4.8: the menu button's node has no action; its inner button opens the menu.
        self.toggle = find(menu, lambda n: "Action" in pyatspi.listInterfaces(n) and n.queryAction().nActions > 0)
        self.item = None
        self.app = app

    def open(self, deadline):
        self.toggle.queryAction().doAction(0)
        self.item = self.item or wait_for("menu item 'About HaloDesk'", lambda: find(
            self.app, lambda n: n.getRole() == pyatspi.ROLE_MENU_ITEM and named(n, "About HaloDesk")), deadline)
        self.item.queryAction().doAction(0)

    def round(self, marks_file, deadline):
        figures = timed(marks_file, "about", lambda: self.open(deadline), deadline)
        close(self.app, "About", deadline)
        return figures


def main():
    password, module, other = sys.argv[1], sys.argv[2], sys.argv[3]
    rounds, marks_file, timeout = int(sys.argv[4]), sys.argv[5], float(sys.argv[6])
    deadline = time.time() + timeout
    builder_title = "Filter " + module
    figures = {"empty": [], "conditions": [], "rebuild": [], "about": []}
    try:
        app = wait_for("application halo-desk", lambda: app_named("halo-desk"), deadline)
        sign_in_with_password(app, password, deadline)
        filter_button = about = None
        for _ in range(rounds):
            select_module(app, other, deadline)
            selected = time.monotonic_ns()
            select_module(app, module, deadline)
            wait_for_mark(marks_file, "painted " + module, selected, deadline)
            filter_button = filter_button or wait_for("button 'Filter'", lambda: find(
                app, lambda n: is_button(n, "Filter")), deadline)
            about = about or About(app, deadline)  # the workspace's menu (the sign-in page has its own)
            figures["empty"].append(timed(
                marks_file, "filter-builder", lambda: filter_button.queryAction().doAction(0), deadline))
            close(app, builder_title, deadline)
            figures["about"].append(about.round(marks_file, deadline))

        filter_button.queryAction().doAction(0)
        window = wait_for("window " + builder_title, lambda: frame(app, builder_title), deadline)
        text = wait_for("the filter as text", lambda: find(window, lambda n: named(n, "The filter as text")
                                                            and "EditableText" in pyatspi.listInterfaces(n)), deadline)
        text.queryEditableText().setTextContents(CONDITIONS)
        # The text becomes the tree once typing pauses: then each condition has its Comparison.
        wait_for("4 conditions", lambda: True if len(pyatspi.findAllDescendants(
            window, lambda n: (n.name or "").startswith("Comparison: "))) >= 4 else None, deadline)
        undo, redo = (wait_for(name, lambda: find(window, lambda n: is_button(n, name)), deadline) for name in ("Undo", "Redo"))
        for _ in range(rounds):
            close(app, builder_title, deadline)
            figures["about"].append(about.round(marks_file, deadline))
            figures["conditions"].append(timed(
                marks_file, "filter-builder", lambda: filter_button.queryAction().doAction(0), deadline))
            # The tree rebuilt with its 4 conditions (as after any structural edit): undo to the
            # empty tree, then redo.
            timed(marks_file, "filter-builder rebuild", lambda: undo.queryAction().doAction(0), deadline)
            figures["rebuild"].append(timed(
                marks_file, "filter-builder rebuild", lambda: redo.queryAction().doAction(0), deadline))
    except (TimeoutError, StopIteration) as error:
        print("failed:", error or "a module row vanished", "; windows:", [n.name for n in app if n is not None])
        return 1

    def medians(kind):
        wall, cpu, click = (statistics.median(values) for values in zip(*figures[kind]))
        return wall, cpu, click

    about_wall, about_cpu, _ = medians("about")
    print("filter builder of %s (50 fields): its action to the builder's first frame painted, median of %d"
          % (module, rounds))
    for kind, label in (("empty", "built anew, empty"), ("conditions", "reopened, 4 conditions"),
                        ("rebuild", "4 conditions rebuilt")):
        wall, cpu, click = medians(kind)
        print("  %-24s wall %6.1f ms  CPU %6.1f ms  (from the AT-SPI click %6.1f ms)   / About: wall %.2f, CPU %.2f"
              % (label, wall, cpu, click, wall / about_wall, cpu / about_cpu))
    print("  %-24s wall %6.1f ms  CPU %6.1f ms   (the floor, median of %d)"
          % ("About window", about_wall, about_cpu, len(figures["about"])))
    worst = max(medians(kind)[0] for kind in ("empty", "conditions", "rebuild"))
    print("  target <= 100 ms to first paint: %s" % ("met" if worst <= 100 else "NOT met (%.1f ms)" % worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
