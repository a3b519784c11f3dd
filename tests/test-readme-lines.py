#!/usr/bin/env python3
"""Runs every gst-launch-1.0 line of README.md and pipelines/ as a user
would after the quick start, in the folder where it made the sample media
(in.mp4, logo.png, ball.png: pipelines/samples.sh), changing only what a
machine without a camera or display lacks: v4l2src becomes
`videotestsrc is-live=true`, autovideosink becomes fakesink.

    tests/test-readme-lines.py SAMPLES_DIR [--list]

The lines come from README.md and pipelines/README.md (indented code), the
lines pipelines/quickstart.sh prints, and the line pipelines/webcam-edges.sh
prints where there is no display.  A line that ends by itself must exit 0;
one that would run for ever (a test source without num-buffers, a network
receiver) must still be running without an error after a few seconds, and
is then interrupted.  Lines that need an NVIDIA GPU (nvh264dec, cudaupload,
backend=cuda; a second GPU for device-id=1) are skipped, and said so, where
GStreamer has no CUDA elements or the machine no such GPU.  Exits 77
(skipped) when gst-launch-1.0 cannot load kconv or the samples are not
there.
"""
import os
import re
import shutil
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN_SECONDS = 3  # how long a line that never ends must run without error


def join_commands(lines, prefix):
    """The gst-launch-1.0 commands among lines that begin with prefix,
    continuation lines (a command ending in a backslash) joined."""
    commands, current = [], None
    for text in lines:
        if current is not None:
            current += " " + text.strip().rstrip("\\").strip()
        elif text.startswith(prefix) and text.strip().startswith("gst-launch-1.0"):
            current = text.strip().rstrip("\\").strip()
        else:
            continue
        if not text.rstrip().endswith("\\"):
            commands.append(current)
            current = None
    return commands


def code_lines(path):
    """The commands of a Markdown file's indented code blocks."""
    return join_commands((l.rstrip("\n") for l in open(path, encoding="utf-8")), "    ")


def heredoc_lines(path):
    """The commands a script prints from its here-documents (written with
    \\\\ for a continuation)."""
    inside, lines = None, []
    for line in open(path, encoding="utf-8"):
        text = line.rstrip("\n")
        if inside is None:
            here = re.search(r"<<\s*'?(\w+)'?\s*$", text)
            inside = here.group(1) if here else None
        elif text == inside:
            inside = None
        else:
            lines.append(text.replace("\\\\", "\\"))
    return join_commands(lines, "  ")


def webcam_fallback_line():
    """The line pipelines/webcam-edges.sh gives where there is no display."""
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    r = subprocess.run([os.path.join(ROOT, "pipelines", "webcam-edges.sh")],
                       env=env, capture_output=True, text=True, timeout=60)
    lines = [l.strip() for l in r.stderr.splitlines()
             if l.strip().startswith("gst-launch-1.0")]
    if r.returncode != 2 or len(lines) != 1:
        raise SystemExit("webcam-edges.sh without a display: expected exit 2 and one "
                         f"line to run instead, got exit {r.returncode}:\n{r.stderr}")
    return lines[0]


def build_lines(path):
    """The README's lines that build an example as one's own program."""
    return [l.strip() for l in open(path, encoding="utf-8")
            if l.startswith("    cc ") and "pkg-config" in l]


def build_and_run(command):
    """Builds the example by the README's line in a folder of its own and
    runs it for 10 frames."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for name in re.findall(r"(\w+\.c)\b", command):
            shutil.copy(os.path.join(ROOT, "pipelines", name), tmp)
        r = subprocess.run(["bash", "-c", command], cwd=tmp, capture_output=True, text=True)
        if r.returncode != 0:
            return r.returncode, r.stdout + r.stderr
        program = re.search(r"-o\s+(\S+)", command).group(1)
        r = subprocess.run([os.path.join(tmp, program), "10"], capture_output=True,
                           text=True, timeout=60)
        return r.returncode, r.stdout + r.stderr


def substitute(command):
    """No camera, no display: the two replacements the README names."""
    command = re.sub(r"\bv4l2src(\s+device=\S+)?", "videotestsrc is-live=true", command)
    return re.sub(r"\bautovideosink\b", "fakesink", command)


def gpus():
    """How many NVIDIA GPUs GStreamer's CUDA elements can use here."""
    if shutil.which("nvidia-smi") is None:
        return 0
    if subprocess.run(["gst-inspect-1.0", "cudaupload"],
                      capture_output=True).returncode != 0:
        return 0
    r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    return len([l for l in r.stdout.splitlines() if l.startswith("GPU ")])


def needs_gpus(command):
    if "device-id=1" in command:
        return 2
    if re.search(r"nvh26[45]dec|cudaupload|cudadownload|backend=cuda|CUDAMemory", command):
        return 1
    return 0


def run(command, cwd):
    """0 and a note when the line ended well or ran without error until
    interrupted; otherwise its exit status and the end of its output."""
    p = subprocess.Popen(["bash", "-c", command], cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=RUN_SECONDS)
        return p.returncode, "ended", out
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGINT)  # as Ctrl-C: gst-launch stops the pipeline
        try:
            out, _ = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            return 1, "did not stop on an interrupt", out
        # A line that reaches its end just as the interrupt comes is past
        # gst-launch's handler and dies of the signal itself: still a clean stop.
        ok = p.returncode in (0, 130, -signal.SIGINT) and "ERROR" not in out
        return (0 if ok else 1), f"ran {RUN_SECONDS} s, interrupted", out


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    samples = os.path.abspath(sys.argv[1])
    commands = []
    for md in ("README.md", "pipelines/README.md"):
        commands += [(md, c) for c in code_lines(os.path.join(ROOT, md))]
    commands += [("pipelines/quickstart.sh", c)
                 for c in heredoc_lines(os.path.join(ROOT, "pipelines", "quickstart.sh"))]
    if "--list" in sys.argv:
        for where, c in commands:
            print(f"{where}: {substitute(c)}")
        return 0
    if subprocess.run(["gst-inspect-1.0", "kconvfilter"],
                      capture_output=True).returncode != 0:
        print("kconvfilter not found: set GST_PLUGIN_PATH (pipelines/env.sh)")
        return 77
    for name in ("in.mp4", "logo.png", "ball.png"):
        if not os.path.isfile(os.path.join(samples, name)):
            print(f"no sample media: {name} is not in {samples} "
                  f"(pipelines/samples.sh {samples} makes them)")
            return 77
    commands.append(("pipelines/webcam-edges.sh", webcam_fallback_line()))
    have = gpus()
    counts = {"ok": 0, "FAIL": 0, "SKIP": 0}

    def say(kind, where, note, command, out=""):
        counts[kind] += 1
        print(f"{kind:4} {where}{note}: {command}")
        if out:
            print("     " + "\n     ".join(out.strip().splitlines()[-12:]))

    for where, original in commands:
        command = substitute(original)
        if needs_gpus(command) > have:
            say("SKIP", where, "", command, f"needs {needs_gpus(command)} NVIDIA GPU(s) "
                f"with GStreamer's CUDA elements; this machine has {have}")
            continue
        rc, how, out = run(command, samples)
        say("ok", where, f" ({how})", command) if rc == 0 else \
            say("FAIL", where, f" ({how}, exit {rc})", command, out)
    for command in build_lines(os.path.join(ROOT, "README.md")):
        if subprocess.run(["pkg-config", "--exists", "gstreamer-app-1.0", "gstreamer-video-1.0"],
                          capture_output=True).returncode != 0:
            say("SKIP", "README.md", "", command, "no GStreamer development files here")
            continue
        rc, out = build_and_run(command)
        say("ok", "README.md", " (built, ran 10 frames)", command) if rc == 0 else \
            say("FAIL", "README.md", f" (exit {rc})", command, out)
    passed, failed, skipped = counts["ok"], counts["FAIL"], counts["SKIP"]
    print(f"launch lines: {passed} ran, {failed} failed, {skipped} skipped (said above)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
