#!/usr/bin/env python3
"""Plots kconv-cuda-bench's CSV: time against kernel size for kconv on CUDA,
NPP and kconv on the CPU (4K RGBA, arbitrary integer weights)."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["case"] == "4K RGBA"]
size = [int(r["size"]) for r in rows]
fig, ax = plt.subplots(figsize=(7, 4.5))
for key, label in (("kconv_cuda_ms", "kconv CUDA"), ("npp_ms", "NPP"),
                   ("kconv_cpu_ms", "kconv CPU")):
    pts = [(s, float(r[key])) for s, r in zip(size, rows) if float(r[key]) > 0]
    if pts:
        ax.plot(*zip(*pts), marker="o", label=label)
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xticks(size, [f"{s}x{s}" for s in size])
ax.set_xlabel("kernel size")
ax.set_ylabel("ms per 3840x2160 RGBA frame (median)")
ax.set_title("kconvfilter: time against kernel size")
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
print("wrote", sys.argv[2])
