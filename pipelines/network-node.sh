#!/usr/bin/env bash
# A filtering node fed over the network: RTP raw video in, kpatternmatch and
# kconvfilter, RTP raw video out to the sender, and each frame's match sent
# back as one line of text (the kpatternmatch message as a GstStructure
# string) over UDP.  Run one per GPU, on as many hosts as there are
# cameras to serve (see the README's "Many hosts").
#   pipelines/network-node.sh [options]
#     --listen PORT        RTP video in (default 5000)
#     --reply HOST         where results go (default 127.0.0.1)
#     --video-port PORT    RTP video out (default 5002)
#     --match-port PORT    match lines out (default 5004)
#     --size WxH           the stream's size (default 640x480, UYVY)
#     --frames N           stop after N frames (default: run until stopped)
#     --filter "PROPS"     kconvfilter's properties (default "kernel=edge")
#     --match "PROPS"      kpatternmatch's properties (default: none, no
#                          matching; e.g. "template-region=140,100,40,40")
#     --device N           the GPU (device-id) for both elements
set -euo pipefail
. "$(dirname "$0")/env.sh"
listen=5000 reply=127.0.0.1 video_port=5002 match_port=5004 size=640x480
frames=-1 filter="kernel=edge" match="" device=-1
while [ $# -gt 0 ]; do
  case $1 in
    --listen) listen=$2 ;;
    --reply) reply=$2 ;;
    --video-port) video_port=$2 ;;
    --match-port) match_port=$2 ;;
    --size) size=$2 ;;
    --frames) frames=$2 ;;
    --filter) filter=$2 ;;
    --match) match=$2 ;;
    --device) device=$2 ;;
    *) echo "network-node: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
w=${size%x*} h=${size#*x}
# RTP raw video (RFC 4175) carries UYVY as YCbCr-4:2:2
caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=RAW,sampling=YCbCr-4:2:2,depth=(string)8,width=(string)$w,height=(string)$h,colorimetry=(string)BT601-5,payload=96"
matcher=""
[ -n "$match" ] && matcher="kpatternmatch $match device-id=$device !"
# shellcheck disable=SC2086
set -- udpsrc port="$listen" caps="$caps" buffer-size=8388608 ! rtpjitterbuffer latency=50 \
  ! rtpvrawdepay ! identity eos-after="$frames" ! $matcher \
  kconvfilter $filter device-id="$device" \
  ! rtpvrawpay mtu=1400 ! udpsink host="$reply" port="$video_port" sync=false
exec 3>"/dev/udp/$reply/$match_port"
# -m prints each bus message; the kpatternmatch ones go out as lines
gst-launch-1.0 -m "$@" 2>&1 | while IFS= read -r line; do
  case $line in
    # (UDP: a result nobody listens for is dropped, as a frame would be)
    *"(element): kpatternmatch, "*) printf '%s\n' "${line#*: }" >&3 2>/dev/null || true ;;
    *ERROR*|*WARNING*) printf '%s\n' "$line" >&2 ;;
  esac
done
