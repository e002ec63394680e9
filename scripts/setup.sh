#!/usr/bin/env bash
# Installs the Debian 12 packages blockbloom needs, only those that are missing, without
# prompting. Idempotent: a second run installs nothing. Run as root (or with sudo).
#   scripts/setup.sh            build, test and benchmark dependencies
set -euo pipefail
pkgs=(cmake make gcc pkg-config libxxhash-dev libsimde-dev libcriterion-dev libbloom-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
