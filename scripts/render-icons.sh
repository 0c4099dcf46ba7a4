#!/usr/bin/env bash
# Renders the app icon's PNG sizes from its SVG (run after editing the SVG; the PNGs are committed).
# With a PNG at every size GTK asks for (window icon, welcome and sign-in pages), the app never
# loads librsvg at run time: ~6 MB less memory and a faster start.
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
