#!/usr/bin/env python3
# Embedding kconv from Python (PyGObject): a custom blur on the test
# pattern, its kernel changed while the pipeline plays, and kpatternmatch's
# message for each frame read from the bus.
#   pipelines/embed.py [FRAMES]
# Needs python3-gi and gir1.2-gst-plugins-base-1.0, and the plugin where
# GStreamer finds it (installed, or GST_PLUGIN_PATH pointing at build/gst).
# Exits 0 when every frame was matched and filtered.
# SPDX-License-Identifier: LGPL-2.1-or-later
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

frames = int(sys.argv[1]) if len(sys.argv) > 1 else 30
Gst.init(None)
pipeline = Gst.parse_launch(
    f"videotestsrc pattern=ball num-buffers={frames} "
    "! video/x-raw,format=GRAY8,width=320,height=240 "
    "! kpatternmatch template-region=140,100,40,40 search-radius=24 "
    "! kconvfilter name=blur matrix=\"1 2 1; 2 4 2; 1 2 1\" "
    "! fakesink name=out signal-handoffs=true")
blur = pipeline.get_by_name("blur")
filtered = 0


def on_frame(sink, buffer, pad):
    global filtered
    filtered += 1
    if filtered == frames // 2:  # properties can change while playing
        blur.set_property("kernel-size", 5)
        Gst.util_set_object_arg(blur, "kernel", "gaussian")


pipeline.get_by_name("out").connect("handoff", on_frame)
pipeline.set_state(Gst.State.PLAYING)
bus = pipeline.get_bus()
found = 0
while True:
    msg = bus.timed_pop_filtered(
        10 * Gst.SECOND,
        Gst.MessageType.ELEMENT | Gst.MessageType.EOS | Gst.MessageType.ERROR)
    if msg is None or msg.type == Gst.MessageType.EOS:
        break
    if msg.type == Gst.MessageType.ERROR:
        err, debug = msg.parse_error()
        print(f"embed.py: {err.message}", file=sys.stderr)
        sys.exit(1)
    s = msg.get_structure()
    if s.get_name() == "kpatternmatch" and s.get_value("found"):
        found += 1
        if found <= 3:
            print(f"ball at {s.get_value('x')},{s.get_value('y')}, "
                  f"score {s.get_value('score'):.4f}")
pipeline.set_state(Gst.State.NULL)
print(f"{filtered} frames filtered, the ball found in {found}")
sys.exit(0 if filtered == frames and found == frames else 1)
