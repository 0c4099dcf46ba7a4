#!/usr/bin/env python3
"""`make mutate`: the mutation catalog (Tests/Mutations/catalog.tsv) run against a scratch copy.

Each entry of the catalog is a small bug put into one file: the tests it names must fail with it.
The run copies the repository's files (tracked and untracked-but-not-ignored, as the working tree
has them) into a fixed scratch folder, `.build-mutate/` (gitignored), which keeps its own `.build`,
so only the first run builds from scratch and later ones rebuild what an entry touches. The
working tree itself is never modified. For each entry: the text is replaced (it must occur exactly
once), `swift build --build-tests` rebuilds, `swift test --skip-build --filter <its tests>` runs
with HALO_PASSWORD_HASH_ROUNDS=1000, and the file is restored. The run fails naming every entry
that SURVIVED (its tests passed: a rule no test pins), every entry whose text is no longer found
exactly once in its file (the catalog rotted), and every entry that did not compile.

Before the first entry, the named tests of the chosen entries run once on the unmutated copy: a test
that already fails would "kill" every mutation and prove nothing, so the run stops there.

Settings (environment):
  MUTATE_ONLY=id,id,...     only these entries (exact ids, or regular expressions matched in full)
  MUTATE_SAMPLE=N           N entries chosen deterministically from MUTATE_SEED (default: HEAD's hash)
  MUTATE_SEED=text          the seed of the sample
  MUTATE_BASELINE=0         skip the unmutated run of the named tests
  MUTATE_TIMEOUT=seconds    per test run (default 300); a run past it counts as killed (it hung)
  MUTATE_DIR=path           the scratch folder (default .build-mutate)
  MUTATE_CATALOG=path       the catalog (default Tests/Mutations/catalog.tsv)
  MUTATE_CHECK=1            only check that every entry's text is found exactly once (no build)
  MUTATE_KEEP_GOING=0       stop at the first survivor
"""

import fcntl
import hashlib
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)
SCRATCH = os.path.abspath(os.environ.get("MUTATE_DIR", ".build-mutate"))
CATALOG = os.environ.get("MUTATE_CATALOG", "Tests/Mutations/catalog.tsv")
TIMEOUT = int(os.environ.get("MUTATE_TIMEOUT", "300"))
CHILD = {}  # the running build or test, killed with its process group on an interruption


def say(text=""):
    print(text, flush=True)


def unescape(field):
    out, i = [], 0
    while i < len(field):
        c = field[i]
        if c == "\\" and i + 1 < len(field):
            n = field[i + 1]
            out.append({"t": "\t", "n": "\n", "\\": "\\"}.get(n, "\\" + n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Entry:
    def __init__(self, line_no, fields):
        self.line = line_no
        self.id, self.file = fields[0].strip(), fields[1].strip()
        self.find, self.replace = unescape(fields[2]), unescape(fields[3])
        self.tests = [t.strip() for t in fields[4].split(",") if t.strip()]
        self.rule = fields[5].strip()

    def filter(self):
        # `Target.Class` names a whole class, `Target.Class/testName` one test.
        parts = []
        for t in self.tests:
            parts.append(re.escape(t) + ("$" if "/" in t else "/"))
        return "^(" + "|".join(parts) + ")"

    def needs_gui(self):
        return any(t.startswith("HaloDeskTests.") for t in self.tests)


def read_catalog():
    entries, problems, seen = [], [], set()
    with open(CATALOG, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 6:
                problems.append(f"{CATALOG}:{n}: {len(fields)} tab-separated fields, expected 6")
                continue
            e = Entry(n, fields)
            if e.id in seen:
                problems.append(f"{CATALOG}:{n}: the id {e.id} is used twice")
            seen.add(e.id)
            if not e.tests or not e.rule or e.find == e.replace:
                problems.append(f"{CATALOG}:{n}: {e.id}: tests, rule and a different replacement are required")
            entries.append(e)
    return entries, problems


def choose(entries):
    only = os.environ.get("MUTATE_ONLY", "").strip()
    if only:
        wanted = [w.strip() for w in only.split(",") if w.strip()]
        # In the order MUTATE_ONLY names them (catalog order within one pattern).
        rank = lambda e: next((i for i, w in enumerate(wanted) if e.id == w or re.fullmatch(w, e.id)), None)
        chosen = sorted((e for e in entries if rank(e) is not None), key=rank)
        if not chosen:
            sys.exit(f"mutate: MUTATE_ONLY={only} names no entry of {CATALOG}")
        return chosen
    sample = os.environ.get("MUTATE_SAMPLE", "").strip()
    if sample:
        seed = os.environ.get("MUTATE_SEED") or subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        ranked = sorted(entries, key=lambda e: hashlib.sha256((seed + "\0" + e.id).encode()).hexdigest())
        chosen = ranked[: int(sample)]
        say(f"mutate: {len(chosen)} of {len(entries)} entries chosen by the seed {seed}")
        return sorted(chosen, key=lambda e: e.line)
    return entries


def sync_scratch():
    """Copies the repository's files into the scratch folder; unchanged files keep their times."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    files = {p for p in listed if p and os.path.isfile(p)}
    if os.path.isfile("Package.resolved"):
        files.add("Package.resolved")
    os.makedirs(SCRATCH, exist_ok=True)
    copied = 0
    for p in files:
        dst = os.path.join(SCRATCH, p)
        with open(p, "rb") as f:
            data = f.read()
        try:
            with open(dst, "rb") as f:
                if f.read() == data:
                    continue
        except FileNotFoundError:
            os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
        shutil.copy2(p, dst)
        copied += 1
    removed = 0
    for top, dirs, names in os.walk(SCRATCH):
        rel_top = os.path.relpath(top, SCRATCH)
        if rel_top == ".":
            dirs[:] = [d for d in dirs if not d.startswith(".build")]
        for name in names:
            rel = os.path.normpath(os.path.join(rel_top, name))
            if rel not in files and rel != ".mutate.lock":
                os.remove(os.path.join(top, name))
                removed += 1
    # A first run resolves the packages from the working tree's clones instead of the network.
    repos = os.path.join(".build", "repositories")
    if os.path.isdir(repos) and not os.path.exists(os.path.join(SCRATCH, ".build", "repositories")):
        shutil.copytree(repos, os.path.join(SCRATCH, ".build", "repositories"), symlinks=True)
    say(f"mutate: scratch copy {os.path.relpath(SCRATCH)}: {copied} files copied, {removed} removed")


def locate(entry, base=None):
    """The file's text in the scratch copy (or under `base`), or why the entry no longer applies."""
    path = os.path.join(base or SCRATCH, entry.file)
    if not os.path.isfile(path):
        return None, f"{entry.file} does not exist"
    with open(path, encoding="utf-8") as f:
        text = f.read()
    count = text.count(entry.find)
    if count != 1:
        return None, f"its text occurs {count} times in {entry.file} (must be exactly once)"
    return text, None


def run(cmd, timeout=None, env=None):
    """Runs `cmd` in the scratch copy in its own process group (a hung test's children go too)."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, cwd=SCRATCH, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         errors="replace", env=env, start_new_session=True)
    CHILD["pid"] = p.pid
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out, time.monotonic() - start, False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return -1, out, time.monotonic() - start, True


def build():
    return run(["swift", "build", "--build-tests"])


def test_env():
    env = dict(os.environ)
    env["HALO_PASSWORD_HASH_ROUNDS"] = "1000"
    return env


def test_command(filter_regex, gui):
    cmd = ["swift", "test", "--skip-build", "--filter", filter_regex]
    return (["bash", "scripts/gui-session.sh"] + cmd) if gui else cmd


def failures(output):
    lines = [l for l in output.splitlines() if re.search(r"error: |' failed \(|✘ |Fatal error", l)]
    return lines[:6]


def main():
    entries, problems = read_catalog()
    if problems:
        for p in problems:
            say("mutate: " + p)
        sys.exit(1)
    if os.environ.get("MUTATE_CHECK") == "1":
        # The working tree's files, read only: no scratch copy, no build.
        rotted = [(e, why) for e in entries for _, why in [locate(e, ROOT)] if why]
        for e, why in rotted:
            say(f"mutate: ROTTED {e.id} ({CATALOG}:{e.line}): {why}")
        say(f"mutate: {len(entries) - len(rotted)} of {len(entries)} entries apply")
        sys.exit(1 if rotted else 0)

    chosen = choose(entries)
    wall0 = time.monotonic()
    # One run at a time per scratch copy: a second one would copy files over another's mutation.
    os.makedirs(SCRATCH, exist_ok=True)
    lock = open(os.path.join(SCRATCH, ".mutate.lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.exit(f"mutate: another run is using {os.path.relpath(SCRATCH)}; wait for it (or set MUTATE_DIR)")
    sync_scratch()

    # Every entry's text is looked for, chosen or not (no build needed): a sample still fails on rot.
    rotted = [(e, why) for e in entries for _, why in [locate(e)] if why]
    gone = {r[0].id for r in rotted}
    runnable = [e for e in chosen if e.id not in gone]
    say(f"mutate: {len(runnable)} entries to run ({len(rotted)} of the catalog's {len(entries)} no longer apply)")

    status, out, secs, _ = build()
    say(f"mutate: unmutated build {secs:.1f}s")
    if status != 0:
        say(out[-4000:])
        sys.exit("mutate: the unmutated scratch copy does not build")
    if os.environ.get("MUTATE_BASELINE", "1") != "0" and runnable:
        union = Entry(0, ["baseline", "-", "a", "b", ",".join(sorted({t for e in runnable for t in e.tests})), "-"])
        status, out, secs, timed_out = run(test_command(union.filter(), union.needs_gui()), TIMEOUT, test_env())
        say(f"mutate: unmutated tests {secs:.1f}s: {'pass' if status == 0 else 'FAIL'}")
        if status != 0:
            for l in failures(out):
                say("    " + l)
            sys.exit("mutate: the named tests fail without any mutation; fix them first (MUTATE_BASELINE=0 skips this)")

    results = []
    current = {}

    def restore(*_):
        if current:
            with open(current["path"], "w", encoding="utf-8") as f:
                f.write(current["text"])
            current.clear()

    def interrupted(signum, frame):
        if "pid" in CHILD:
            try:
                os.killpg(CHILD["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass
        restore()
        sys.exit("mutate: interrupted; the scratch file is restored")

    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    keep_going = os.environ.get("MUTATE_KEEP_GOING", "1") != "0"
    for i, e in enumerate(runnable, 1):
        text, why = locate(e)
        if why:
            rotted.append((e, why))
            say(f"[{i}/{len(runnable)}] {e.id}: ROTTED ({why})")
            continue
        path = os.path.join(SCRATCH, e.file)
        current.update(path=path, text=text)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(e.find, e.replace, 1))
        try:
            bstatus, bout, bsecs, _ = build()
            if bstatus != 0:
                verdict, tsecs, detail = "BROKEN", 0.0, failures(bout)
            else:
                tstatus, tout, tsecs, timed_out = run(test_command(e.filter(), e.needs_gui()), TIMEOUT, test_env())
                if timed_out:
                    verdict, detail = "killed (timeout)", []
                elif tstatus != 0:
                    # Which tests caught it (the first few), so a kill by a crash or a setup error shows.
                    caught = sorted({m.group(1) for m in re.finditer(r"Test Case '(\S+)' failed", tout)})
                    verdict = "killed"
                    detail = ["caught by " + ", ".join(caught[:3]) + (" …" if len(caught) > 3 else "")] if caught else failures(tout)[:2]
                else:
                    verdict, detail = "SURVIVED", []
                    if "No matching test cases were run" in tout or "Executed 0 tests" in tout:
                        detail = ["its filter matched no test: " + e.filter()]
        finally:
            restore()
        results.append((e, verdict))
        say(f"[{i}/{len(runnable)}] {e.id}: {verdict}  (build {bsecs:.1f}s, tests {tsecs:.1f}s)")
        for l in detail:
            say("    " + l)
        if verdict == "SURVIVED" and not keep_going:
            break

    wall = time.monotonic() - wall0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    killed = sum(1 for _, v in results if v.startswith("killed"))
    say(f"mutate: {killed} of {len(results)} killed; {wall:.0f}s wall, "
        f"{ru.ru_utime:.0f}s user + {ru.ru_stime:.0f}s system CPU")
    bad = False
    for e, v in results:
        if v in ("SURVIVED", "BROKEN"):
            bad = True
            what = "survived: its tests pass with the bug" if v == "SURVIVED" else "does not compile"
            say(f"mutate: {v} {e.id} ({CATALOG}:{e.line}, {e.file}): {what}. Rule: {e.rule}")
    for e, why in rotted:
        bad = True
        say(f"mutate: ROTTED {e.id} ({CATALOG}:{e.line}): {why}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
