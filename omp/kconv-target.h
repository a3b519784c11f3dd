/* kconv: the instruction sets a function of the CPU backend is built for
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written between `static` and the return type, where the code formatter
 * (tests/gst-indent) leaves a declaration as it is.
 */
#ifndef KCONV_TARGET_H
#define KCONV_TARGET_H

#define KCONV_TARGET_AVX2 __attribute__ ((target ("avx2")))
#define KCONV_TARGET_AVX2_FMA __attribute__ ((target ("avx2,fma")))
#define KCONV_TARGET_AVX512F __attribute__ ((target ("avx512f")))
#define KCONV_TARGET_AVX512BW __attribute__ ((target ("avx512f,avx512bw")))

#endif /* KCONV_TARGET_H */
