#!/usr/bin/env bash
# Runs a command the way a desktop session would host it, with nothing on the real machine:
# a private D-Bus session bus, an unlocked GNOME keyring (Secret Service for libsecret),
# the AT-SPI accessibility bus, and an Xvfb display. Used by `make test` and the benchmarks.
set -euo pipefail

if [ -z "${HALO_GUI_SESSION:-}" ]; then
  export HALO_GUI_SESSION=1
  exec dbus-run-session -- "$0" "$@"
fi

# Keep the keyring and runtime files of this session in a throwaway place.
session_dir=$(mktemp -d /tmp/halo-gui-session.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$session_dir"' EXIT
export XDG_RUNTIME_DIR="$session_dir/runtime"
mkdir -m 700 -p "$XDG_RUNTIME_DIR"
export HALO_KEYRING_HOME="$session_dir/home"
mkdir -p "$HALO_KEYRING_HOME"

# A password on stdin creates and unlocks the default "login" keyring without a prompt.
eval "$(printf 'halo-session' | HOME="$HALO_KEYRING_HOME" XDG_DATA_HOME="$HALO_KEYRING_HOME/.local/share" \
  gnome-keyring-daemon --unlock --components=secrets 2>/dev/null)" || true
export GNOME_KEYRING_CONTROL 2>/dev/null || true

# The session's web browser records what it is asked to open instead of starting one: an app that
# opens a link (browser sign-in, Play/Open) reaches it through GIO's default handler as on a desktop,
# and tests read $HALO_OPENED_URIS (a real browser, when a test needs one, is driven by Selenium).
export HALO_OPENED_URIS="$session_dir/opened-uris"
mkdir -p "$session_dir/xdg-data/applications"
printf '#!/bin/sh\nprintf "%%s\\n" "$1" >> "%s"\n' "$HALO_OPENED_URIS" > "$session_dir/record-uri"
chmod +x "$session_dir/record-uri"
printf '[Desktop Entry]\nType=Application\nName=Session browser\nExec=%s %%u\nMimeType=x-scheme-handler/http;x-scheme-handler/https;\nNoDisplay=true\n' \
  "$session_dir/record-uri" > "$session_dir/xdg-data/applications/halo-session-browser.desktop"
printf '[Default Applications]\nx-scheme-handler/http=halo-session-browser.desktop\nx-scheme-handler/https=halo-session-browser.desktop\n' \
  > "$session_dir/xdg-data/applications/mimeapps.list"
export XDG_DATA_DIRS="$session_dir/xdg-data:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}"

if [ -x /usr/libexec/at-spi-bus-launcher ]; then
  /usr/libexec/at-spi-bus-launcher --launch-immediately >/dev/null 2>&1 &
fi

exec xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" "$@"
