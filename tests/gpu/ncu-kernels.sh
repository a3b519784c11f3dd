#!/usr/bin/env bash
# What bounds each case of kconv-cuda-bench's table: the chosen path's
# first launches under Nsight Compute, with its share of the device's
# limits (DRAM bandwidth, the SM's issue rate, the integer tensor pipes of
# mma.sync and of the warpgroup's wgmma).  From the project root on the
# GPU machine, with a kconv-cuda-bench linked (tests/bench/link-bench.sh):
#   tests/gpu/ncu-kernels.sh BENCH [OUTDIR]
set -uo pipefail
bench=${1:?usage: ncu-kernels.sh BENCH [OUTDIR]}
out=${2:-ncu-results}
mkdir -p "$out"
command -v ncu >/dev/null || { echo "ncu-kernels.sh: no ncu here"; exit 1; }
# the tensor pipes' names differ between chips: take those this one has
have=$(ncu --query-metrics 2>/dev/null | awk '{print $1}')
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,sm__inst_issued.avg.pct_of_peak_sustained_active
metrics+=,l1tex__throughput.avg.pct_of_peak_sustained_active
metrics+=,lts__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
# (and the pipe's combined counter, whose name covers the warpgroup's
# integer products, igmma)
for m in sm__pipe_tensor_op_imma_cycles_active sm__pipe_tensor_op_gmma_cycles_active \
    sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active \
    sm__pipe_alu_cycles_active sm__pipe_fma_cycles_active; do
  grep -qx "$m" <<<"$have" && metrics+=,$m.avg.pct_of_peak_sustained_active
done
status=0
for label in "4K RGBA 3x3" "4K RGBA 5x5" "4K RGBA 7x7" "4K RGBA 15x15" \
    "4K RGBA 31x31" "4K RGBA 41x41" "4K RGBA 61x61" "4K RGBA gaussian 31x31" \
    "1000x1000 RGB 121x121"; do
  echo "=== $label"
  # the chosen path runs first; its warm-up launches are the ones profiled
  ncu --launch-count 2 --metrics "$metrics" --csv \
      "$bench" --only "$label" >"$out/${label// /_}.csv" 2>"$out/${label// /_}.log" \
    || { echo "ncu-kernels.sh: FAILED on $label"; tail -5 "$out/${label// /_}.log"; status=1; continue; }
  grep -E '^"[0-9]' "$out/${label// /_}.csv" | awk -F'","' '{gsub(/"/,"",$NF); printf "  %-60.60s %-58s %s\n", $5, $(NF-2), $NF}'
done
exit $status
