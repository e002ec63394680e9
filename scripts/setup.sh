#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs, without prompting and only when missing, the Debian 12 packages blockbloom
# needs: the build and test set below, plus any package named on the command line (the
# fuzz, cross-architecture, sanitizer and benchmark scripts pass theirs). Idempotent: a
# second run installs nothing and does not touch the network. Run as root. nodejs and npm
# are skipped when an npm is already on PATH. BB_SETUP_DRY_RUN=1 only prints what it would
# install.
#   scripts/setup.sh [EXTRA-PACKAGE...]
set -euo pipefail
pkgs=(cmake make gcc pkg-config libxxhash-dev libsimde-dev libcriterion-dev libbloom-dev
  libsnappy-dev libzstd-dev liblz4-dev libbrotli-dev zlib1g-dev # libblockbloom_parquet's codecs
  libhiredis-dev                       # libblockbloom_redis
  libidn2-dev publicsuffix libpcap-dev tcpdump # network keys and pcap
  python3                              # tests/scripts/doc_comments.py (ctest doc_comments)
  "$@")
missing=()
for p in "${pkgs[@]}"; do
  # nodejs and npm (the demo's real data: scripts/fetch-npm-names.sh) only when no npm is on
  # PATH: a node from elsewhere (NodeSource, nvm) must stay, Debian's npm would conflict.
  [[ ($p == nodejs || $p == npm) ]] && command -v npm >/dev/null && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${BB_SETUP_DRY_RUN:-} == 1 ]]; then # say what would be installed, install nothing
  echo "setup: would install: ${missing[*]}"
  exit 0
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
