#!/usr/bin/env bash
# GPU failures injected mid-stream (KCONV_FAULT, see kconv-error.h; a build
# made with -Dfault_injection=true, as no build for users is) into the
# soak's pipeline (tests/elements/soak.c): with backend=auto every frame must still
# come out, in order, bit-identical to a run on the CPU, with a warning on
# the bus; with backend=cuda the element must stop with an error.  Then the
# soak itself on CUDA, and eight pipelines at once on one GPU.
#   tests/gpu/faults.sh [FRAMES]      (BUILD: the build folder, default build;
#                                      ELEMENTS: which, default both)
set -uo pipefail
b=${BUILD:-build}
frames=${1:-3000}
[ -f .devgst/gst-env.sh ] && . .devgst/gst-env.sh
export GST_PLUGIN_PATH_1_0=$PWD/$b/gst
# CUDA loads each kernel on its first launch by default, which the soak's
# resident-memory bound would count as growth as new kernels come into use
export CUDA_MODULE_LOADING=EAGER
status=0
if ! grep -q KCONV_FAULT "$b/gst/libgstkconv.so"; then
  echo "FAILED: $b has no fault injection (meson setup -Dfault_injection=true)"
  exit 1
fi
hashes() { grep -o 'output hash [0-9a-f]*, message hash [0-9a-f]*' | head -1; }

for el in ${ELEMENTS:-kconvfilter kpatternmatch}; do
  # --exact: every kernel exact, so the backends agree bit for bit
  ref=$("$b/tests/elements/soak" --element $el --frames "$frames" --backend cpu --exact \
    | hashes)
  echo "$el on the CPU: $ref"
  got=$("$b/tests/elements/soak" --element $el --frames "$frames" --backend cuda --exact \
    | hashes)
  same=$([ "$got" = "$ref" ] && echo yes || echo no)
  echo "$el on CUDA, no fault: same output as the CPU: $same"
  [ "$same" = yes ] || status=1
  for fault in launch:40 copy:100 sync:60 alloc:2; do
    log=$(KCONV_FAULT=$fault "$b/tests/elements/soak" --element $el --frames "$frames" \
      --backend auto --exact 2>&1)
    rc=$?
    got=$(echo "$log" | hashes)
    warned=$(echo "$log" | grep -c 'The GPU failed; continuing on the CPU')
    verdict=ok
    [ $rc -eq 0 ] && [ "$got" = "$ref" ] && [ "$warned" -ge 1 ] || {
      verdict=FAILED; status=1; echo "$log" | tail -n 6; }
    echo "$el backend=auto, fault $fault: exit $rc, warnings $warned," \
      "same output as the CPU: $([ "$got" = "$ref" ] && echo yes || echo no)" \
      "-> $verdict"
  done
  log=$(KCONV_FAULT=launch:40 "$b/tests/elements/soak" --element $el --frames "$frames" \
    --backend cuda 2>&1)
  rc=$?
  err=$(echo "$log" | grep -m1 'error:')
  if [ $rc -ne 0 ] && [ -n "$err" ]; then
    echo "$el backend=cuda, fault launch:40: stopped with $err -> ok"
  else
    echo "$el backend=cuda, fault launch:40: exit $rc, no error -> FAILED"
    status=1
  fi
done

# no fault: the soak and eight pipelines on one GPU, outputs as on the CPU
for el in ${ELEMENTS:-kconvfilter kpatternmatch}; do
  "$b/tests/elements/soak" --element $el --frames $((frames * 4)) --backend cuda \
    || status=1
  "$b/tests/elements/soak" --element $el --frames "$frames" --backend cuda \
    --pipelines 8 || status=1
done
exit $status
