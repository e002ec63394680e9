#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make-pcap.sh - writes a four-packet Ethernet capture for the README's `query --pcap`
# examples, in plain bash (no capture tool needed):
#   1. UDP 10.1.2.3:5353 > 192.0.2.7:53           (both ends in examples/ranges.txt; a flow
#                                                  of examples/flows.txt)
#   2. TCP 203.0.113.5:40000 > 198.51.100.20:443   (destination in ranges.txt; a flow)
#   3. UDP 172.16.0.1:1000 > 172.16.0.2:2000       (in no range)
#   4. UDP [2001:db8::1]:1000 > [2001:db8::2]:53   (both in 2001:db8::/32)
# pcap format: little-endian global header (magic a1b2c3d4, version 2.4, link type 1), then
# per packet a 16-byte record header and the frame. IPv4 header checksums are computed, so
# tcpdump shows the capture as valid.
#   examples/make-pcap.sh [OUT]     (default: traffic.pcap)
set -euo pipefail
out=${1:-traffic.pcap}

hex=""                                       # the capture, as hex digits
le32() { printf '%02x%02x%02x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
ip4() { local IFS=.; set -- $1; printf '%02x%02x%02x%02x' "$1" "$2" "$3" "$4"; }
csum() { # the ones' complement sum of a hex string of 16-bit words
  local h=$1 s=0 i
  for ((i = 0; i < ${#h}; i += 4)); do s=$((s + 16#${h:i:4})); done
  while ((s >> 16)); do s=$(((s & 0xffff) + (s >> 16))); done
  printf '%04x' $((~s & 0xffff))
}
frame() { # frame ETHERTYPE PAYLOAD_HEX: one record with a fixed timestamp per packet
  local f="020000000002020000000001$1$2" n=$(( (12 + 2 + ${#2} / 2) ))
  hex+="$(le32 $((1700000000 + count)))$(le32 0)$(le32 $n)$(le32 $n)$f"
  count=$((count + 1))
}
ipv4() { # ipv4 PROTO SRC DST L4_HEX
  local len=$((20 + ${#4} / 2)) h
  h="4500$(printf '%04x' $len)0000400040${1}0000$(ip4 "$2")$(ip4 "$3")"
  h="${h:0:20}$(csum "$h")${h:24}"
  frame 0800 "$h$4"
}
udp() { printf '%04x%04x%04x0000%s' "$1" "$2" $((8 + ${#3} / 2)) "$3"; }          # checksum 0: none
tcp() { printf '%04x%04x00000001000000005002ffff00000000' "$1" "$2"; }         # a SYN; checksum left 0

count=0
hex+="d4c3b2a1020004000000000000000000ffff000001000000"
ipv4 11 10.1.2.3 192.0.2.7 "$(udp 5353 53 00000100000100000000000003777777)"
ipv4 06 203.0.113.5 198.51.100.20 "$(tcp 40000 443)"
ipv4 11 172.16.0.1 172.16.0.2 "$(udp 1000 2000 68656c6c6f)"
v6src=20010db8000000000000000000000001 v6dst=20010db8000000000000000000000002
payload=$(udp 1000 53 68656c6c6f)
frame 86dd "6000000000$(printf '%02x' $((${#payload} / 2)))1140$v6src$v6dst$payload"

printf "$(sed 's/../\\x&/g' <<<"$hex")" >"$out"
echo "make-pcap: wrote $count packets to $out" >&2
