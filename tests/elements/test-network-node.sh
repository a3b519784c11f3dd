#!/usr/bin/env bash
# pipelines/network-node.sh over localhost: a sender streams the bouncing
# ball as RTP raw video, the node filters it and finds the ball, and what
# comes back is checked: the frames, against the same filter run here, and
# one match line a frame, with the ball found.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
frames=60 size=320x240
base=$((20000 + RANDOM % 20000))
in=$base video=$((base + 2)) match=$((base + 4))
w=${size%x*} h=${size#*x}
raw="video/x-raw,format=UYVY,width=$w,height=$h,framerate=30/1"
rtp="application/x-rtp,media=video,clock-rate=90000,encoding-name=RAW,sampling=YCbCr-4:2:2,depth=(string)8,width=(string)$w,height=(string)$h,colorimetry=(string)BT601-5,payload=96"

# what comes back: the frames into a file, the match lines into another
# (all but the last few: the node's last frame may stay in a jitter buffer;
# at most 30 s)
timeout -s INT 30 gst-launch-1.0 -q -e udpsrc port=$video caps="$rtp" buffer-size=8388608 \
  ! rtpjitterbuffer latency=50 ! rtpvrawdepay ! identity eos-after=$((frames - 5)) \
  ! filesink location="$work/back.raw" &
python3 - "$match" "$work/matches.txt" "$((frames - 5))" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.settimeout(20)
with open(sys.argv[2], "w") as out:
    for _ in range(int(sys.argv[3])):
        try:
            out.write(s.recv(65536).decode() + "\n")
            out.flush()
        except socket.timeout:
            break
PY
timeout -s INT 30 "$root/pipelines/network-node.sh" --listen $in --video-port $video \
  --match-port $match --size $size --frames $frames \
  --filter "kernel=edge" --match "template-region=140,100,40,40" \
  >"$work/node.log" 2>&1 &
node=$!
sleep 2
# the sender, at the stream's own rate (UDP on loopback drops nothing then),
# a few frames more than the node takes
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=$((frames + 15)) ! "$raw" \
  ! rtpvrawpay mtu=1400 ! udpsink host=127.0.0.1 port=$in sync=true
wait $node
wait

# the same frames filtered here
. "$root/pipelines/env.sh"
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=$((frames + 15)) ! "$raw" \
  ! kconvfilter kernel=edge ! filesink location="$work/expected.raw"
python3 - "$work" "$((w * h * 2))" "$frames" <<'PY'
import re, sys
work, size, frames = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
back = open(f"{work}/back.raw", "rb").read()
want = open(f"{work}/expected.raw", "rb").read()
got = [back[i:i + size] for i in range(0, len(back), size)]
exp = [want[i:i + size] for i in range(0, len(want), size)]
ok = True
if len(got) < frames * 0.9 or len(back) % size:
    print(f"{len(got)} of {frames} frames came back ({len(back)} bytes)")
    ok = False
# each frame that came back is the filtered one, in order
i = 0
for k, g in enumerate(got):
    while i < len(exp) and exp[i] != g:
        i += 1
    if i == len(exp):
        print(f"frame {k} that came back is not a filtered frame in order")
        ok = False
        break
    i += 1
lines = [l for l in open(f"{work}/matches.txt") if l.strip()]
found = [l for l in lines if "found=(boolean)true" in l]
if len(lines) < frames * 0.9 or len(found) < len(lines) * 0.9:
    print(f"{len(lines)} match lines, {len(found)} with the ball found")
    ok = False
xy = re.search(r"x=\(int\)(\d+), y=\(int\)(\d+)", lines[0]) if lines else None
if not xy or (int(xy.group(1)), int(xy.group(2))) != (140, 100):
    print(f"the first frame's match is not where the template was cut: {lines[:1]}")
    ok = False
print(f"{len(got)} frames back, all filtered; {len(lines)} match lines" if ok
      else "FAILED")
sys.exit(0 if ok else 1)
PY
status=$?
[ $status -eq 0 ] || cat "$work/node.log"
exit $status
