#!/usr/bin/env bash
# Renders the app's icons as PNGs (run after editing an SVG; the PNGs are committed): the app icon
# at every size GTK asks for (window icon, welcome and sign-in pages), and the spinner as symbolic
# PNGs (data/icons/src; style.css points GtkSpinner at it, since Adwaita's spinner is SVG only).
# With PNGs only, the app never loads librsvg at run time: ~6 MB less memory and no pause the
# first time a spinner or the icon shows.
set -euo pipefail
cd "$(dirname "$0")/.."
id=io.github.halodesk.HaloDesk
svg=data/icons/hicolor/scalable/apps/$id.svg
for size in 16 24 32 48 64 96 128 192 256 512; do
  mkdir -p "data/icons/hicolor/${size}x${size}/apps"
  /usr/bin/python3 - "$svg" "$size" "data/icons/hicolor/${size}x${size}/apps/$id.png" <<'PY'
import sys
import gi
gi.require_version("GdkPixbuf", "2.0")
from gi.repository import GdkPixbuf
svg, size, png = sys.argv[1], int(sys.argv[2]), sys.argv[3]
GdkPixbuf.Pixbuf.new_from_file_at_size(svg, size, size).savev(png, "png", [], [])
PY
done

for size in 16 24 32 48 64; do
  mkdir -p "data/icons/hicolor/${size}x${size}/status"
  gtk4-encode-symbolic-svg -o "data/icons/hicolor/${size}x${size}/status" data/icons/src/halodesk-process-working-symbolic.svg "${size}x${size}"
done
