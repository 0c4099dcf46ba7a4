"""What the app benchmarks' AT-SPI drivers share (reopen_module.py, open_filter_builder.py): the
app's timing marks (HALO_DESK_MARKS, see BenchmarkMarks.swift) and the app's CPU time. Signing in
and selecting a module come from the accessibility tests' helpers (sign_in.py, workspace.py)."""
import os
import time


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
