#!/usr/bin/env bash
# Validates what the app ships besides code: the desktop file, the AppStream metainfo, and every
# GtkBuilder file in Resources/ui. libadwaita is preloaded so gtk4-builder-tool knows Adw* types;
# the builder tool needs a display, so it runs under Xvfb when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."

desktop-file-validate data/halo-desk.desktop
appstreamcli validate --no-net --explain data/io.github.halodesk.HaloDesk.metainfo.xml >/dev/null

adwaita=$(pkg-config --variable=libdir libadwaita-1)/libadwaita-1.so.0
run_with_display() {
  if [ -n "${DISPLAY:-}" ]; then "$@"; else xvfb-run -a "$@"; fi
}
status=0
for ui in Resources/ui/*.ui; do
  if ! run_with_display env LD_PRELOAD="$adwaita" gtk4-builder-tool validate "$ui"; then
    echo "invalid: $ui" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "validate: desktop file, metainfo and $(ls Resources/ui/*.ui | wc -l) UI files are valid"
exit $status
