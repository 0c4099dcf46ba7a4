#!/usr/bin/env bash
# Installs every Debian package HaloDesk needs to build, run, test and benchmark.
# Idempotent: installs only what is missing, runs `apt-get update` at most once.
set -euo pipefail

PACKAGES=(
  # build
  pkg-config libgtk-4-dev libadwaita-1-dev libcurl4-openssl-dev libsqlite3-dev libsecret-1-dev
  # run and GUI tests: virtual display, D-Bus session, keyring, accessibility bus
  xvfb xauth dbus dbus-x11 gnome-keyring libsecret-tools at-spi2-core
  # language and country names for the localized-text editor
  iso-codes
  python3 python3-pyatspi gir1.2-atspi-2.0 libgtk-4-bin imagemagick x11-utils
  # packaging validators
  desktop-file-utils appstream
  # TLS test certificates, benchmark floors and load tools
  openssl curl sqlite3 wrk hyperfine time gcc libc6-dev
  # browser sign-in end to end: a real browser driven by Selenium
  chromium chromium-driver python3-selenium
  # halo-server behind a reverse proxy (TrustedProxyTests)
  nginx
  # halo-server on PostgreSQL: the tests start a private cluster of their own (PostgresCluster)
  postgresql
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} system packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
