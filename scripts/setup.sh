#!/usr/bin/env bash
# Installs, without prompting and only when missing, the Debian 12 packages blockbloom
# needs: the build and test set below, plus any package named on the command line (the
# fuzz, cross-architecture, sanitizer and benchmark scripts pass theirs). Idempotent: a
# second run installs nothing and does not touch the network. Run as root.
#   scripts/setup.sh [EXTRA-PACKAGE...]
set -euo pipefail
pkgs=(cmake make gcc pkg-config libxxhash-dev libsimde-dev libcriterion-dev libbloom-dev
  libsnappy-dev libzstd-dev zlib1g-dev # libblockbloom_parquet's codecs
  libhiredis-dev                       # libblockbloom_redis
  libidn2-dev publicsuffix libpcap-dev tcpdump # network keys and pcap
  "$@")
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
