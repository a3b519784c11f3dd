#!/bin/sh
# The code is in one style: every C source and header (gst/, kernels/,
# omp/, tests/) as tests/gst-indent formats it (GStreamer's), the CUDA
# sources (kernels/cuda/*.cu, *.cuh) as clang-format formats them with the
# project's .clang-format.  What either would change is printed and fails
# the test; a part whose tool is missing is said and left out.  And every
# failure in the core and its backends says why: a status returned bare
# (`return KCONV_ERROR_...`, without kconv_fail) fails the test.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
have_indent=0; have_clang=0
command -v indent >/dev/null 2>&1 && have_indent=1
command -v clang-format >/dev/null 2>&1 && have_clang=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
if (cd "$src" && grep -rnE 'return[[:space:]]+KCONV_ERROR_' kernels omp \
    --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh'); then
  echo "the failures above return a status without saying why: return" \
    "kconv_fail (status, \"...\") instead (kernels/support/kconv-error.h)"
  status=1
fi
echo "kernels/, omp/: every failure goes through kconv_fail"
# kconv reads no environment: tests set their hooks from their own code.
# Two files may: the OpenMP runtime's own variables, which kconv sets for
# it unless the user did (kconv-omp-defaults.c), and the fault injection
# of test builds (kconv-error.c, under KCONV_FAULT_INJECTION)
if (cd "$src" && grep -rnE '\bg?_?getenv *\(' kernels omp gst \
    --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' \
    | grep -v '^kernels/support/kconv-omp-defaults.c:' \
    | grep -v '^kernels/support/kconv-error.c:'); then
  echo "the lines above read the environment: a test hook belongs in the" \
    "tests' own code (tests/tuning-env.h, gst/kconv-testing.h)"
  status=1
fi
echo "kernels/, omp/, gst/: no environment read"
if [ $have_indent = 1 ]; then
  for f in $(cd "$src" && find gst kernels omp tests -name '*.[ch]' \
      -not -path 'kernels/cuda/*' | sort); do
    f=$src/$f
    "$src/tests/gst-indent" -o "$tmp/out.c" "$f" 2>"$tmp/err" || { cat "$tmp/err"; status=1; continue; }
    if ! diff -u "$f" "$tmp/out.c" >"$tmp/diff"; then
      echo "${f#$src/} is not in GStreamer's style (tests/gst-indent $f):"
      cat "$tmp/diff"
      status=1
    fi
  done
  echo "C sources and headers: checked against tests/gst-indent"
else
  echo "C sources and headers: not checked (GNU indent not installed)"
fi
if [ $have_clang = 1 ]; then
  for f in "$src"/kernels/cuda/*.cu "$src"/kernels/cuda/*.cuh; do
    (cd "$src" && clang-format --style=file "$f") >"$tmp/out.cu"
    if ! diff -u "$f" "$tmp/out.cu" >"$tmp/diff"; then
      echo "${f#$src/} is not in the project's CUDA style (clang-format -i $f):"
      cat "$tmp/diff"
      status=1
    fi
  done
  echo "kernels/cuda: checked against .clang-format"
else
  echo "kernels/cuda: not checked (clang-format not installed)"
fi
exit $status
