"""What the app benchmarks' AT-SPI drivers share (reopen_module.py, open_filter_builder.py): the
app's timing marks (HALO_DESK_MARKS, see BenchmarkMarks.swift), the app's CPU time, signing in
to the remote workspace and selecting a module in the sidebar."""
import os
import sys
import time

import pyatspi

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../Tests/HaloDeskTests/accessibility"))
from sign_in import find, wait_for  # noqa: E402
from list_module import is_button, module_list  # noqa: E402


def cpu_seconds(pid):
    """The process's CPU time from /proc (clock ticks: 10 ms steps; the app's marks are exact)."""
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def marks(path):
    """(CLOCK_MONOTONIC ns, what, process CPU ns or None) for each line of the marks file; the
    driver's own lines have no CPU time."""
    for line in open(path):
        stamp, _, what = line.rstrip("\n").partition(" ")
        if not stamp.isdigit():  # a line still being written is read next time
            continue
        head, _, cpu = what.rpartition(" cpu=")
        yield (int(stamp), head, int(cpu)) if head and cpu.isdigit() else (int(stamp), what, None)


def mark(path, what):
    with open(path, "a") as handle:
        handle.write("%d %s\n" % (time.monotonic_ns(), what))


def wait_for_mark(path, what, after, deadline):
    """The first mark `what` later than `after` (ns), waiting for it until `deadline`."""
    while time.time() < deadline:
        found = next((m for m in marks(path) if m[1] == what and m[0] > after), None)
        if found:
            return found
        time.sleep(0.005)
    raise TimeoutError("no mark '%s'" % what)


def sign_in(app, password, deadline):
    """Types `password` on the sign-in page (the email is remembered) and presses Sign In."""
    button = wait_for("button 'Sign In'", lambda: find(app, lambda n: is_button(n, "Sign In")), deadline)
    entry = wait_for("entry 'Password'", lambda: find(app, lambda n: (n.name or "").startswith("Password")
                                                   and "EditableText" in pyatspi.listInterfaces(n)), deadline)
    entry.queryEditableText().setTextContents(password)
    button.queryAction().doAction(0)


def select(app, module, deadline, before_click=None):
    """Selects MODULE's row in the sidebar; `before_click` runs once the row is found, just
    before the selection is sent (finding it walks the accessibility tree from Python)."""
    sidebar = wait_for("module " + module, lambda: module_list(app, module), deadline)
    index = next(i for i, child in enumerate(sidebar) if (child.name or "").startswith(module + ","))
    if before_click:
        before_click()
    sidebar.querySelection().selectChild(index)
