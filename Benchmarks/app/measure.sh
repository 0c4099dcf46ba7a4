#!/usr/bin/env bash
# Runs inside scripts/gui-session.sh (Xvfb + D-Bus). $1: the output folder.
set -euo pipefail
out=$1
export GSK_RENDERER=cairo GTK_A11Y=none GDK_BACKEND=x11
home=$(mktemp -d)
export XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data XDG_CACHE_HOME=$home/cache
hello="$out/gtk-hello"
desk=".build-release/release/halo-desk --non-unique --quit-after-first-frame"

# One untimed start creates first-run state (e.g. the local workspace), so every timed run is a
# warm-disk "cold start" of the process, the same for both programs.
$desk >/dev/null 2>&1 || true
# The three programs are started in turn, 30 times (after 3 warm-ups), so a slow spell of the
# (virtual) machine weighs on all of them alike; each start is timed from spawn to exit.
/usr/bin/python3 - "$out/startup.json" "$hello" "$out/adw-hello" $desk <<'PY'
import json, os, statistics, sys, time
out, programs = sys.argv[1], [[sys.argv[2]], [sys.argv[3]], sys.argv[4:]]
names = ["gtk-hello", "adw-hello", "halo-desk"]
times = {name: [] for name in names}
devnull = os.open(os.devnull, os.O_WRONLY)
for round in range(33):
    for name, argv in zip(names, programs):
        start = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
        os.waitpid(pid, 0)
        if round >= 3:
            times[name].append(time.perf_counter() - start)
json.dump({"results": [{"command": name, "median": statistics.median(t), "times": t} for name, t in times.items()]}, open(out, "w"))
PY

peak_rss() { # median of 5 runs of GNU time's max RSS, in KiB
  for _ in 1 2 3 4 5; do /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; done | sort -n | sed -n 3p
}
hello_rss=$(peak_rss $hello)
desk_rss=$(peak_rss $desk)

python3 - "$out/startup.json" "$hello_rss" "$desk_rss" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
hello, adw, desk = results["gtk-hello"], results["adw-hello"], results["halo-desk"]
hello_rss, desk_rss = int(sys.argv[2]) / 1024, int(sys.argv[3]) / 1024
print("start to first painted window (median of 30 interleaved starts, Xvfb, cairo renderer):")
print("  gtk4 hello-world  %7.1f ms" % (hello["median"] * 1000))
print("  adw hello-world   %7.1f ms   (libadwaita alone: %.2fx the GTK floor)" % (adw["median"] * 1000, adw["median"] / hello["median"]))
print("  halo-desk         %7.1f ms   ratio %.2fx   (target <= 1.5x)" % (desk["median"] * 1000, desk["median"] / hello["median"]))
print("peak RSS (median of 5):")
print("  gtk4 hello-world  %7.1f MB" % hello_rss)
print("  halo-desk         %7.1f MB   +%.1f MB" % (desk_rss, desk_rss - hello_rss))
PY
rm -rf "$home"
