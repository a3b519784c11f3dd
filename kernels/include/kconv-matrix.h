/* kconv: kernels as text, and the named kernels
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_MATRIX_H
#define KCONV_MATRIX_H

#include <stddef.h>

/* *INDENT-OFF* */
#ifdef __cplusplus
extern "C" {
#endif
/* *INDENT-ON* */

/* Parses rows separated by ';' and values separated by spaces or commas,
 * e.g. "1 2 1; 2 4 2; 1 2 1", whatever the locale.  On success returns 0
 * and a malloc'd rows * cols array; otherwise -1 and a sentence in err. */
int kconv_matrix_parse (const char *text, float **weights, int *rows,
    int *cols, char *err, size_t err_size);

/* The canonical text of a kernel ("1 2 1; 2 4 2; 1 2 1"); malloc'd.  Each
 * value is written with the fewest digits that read back to the same float. */
char *kconv_matrix_format (const float *weights, int rows, int cols);

/* strtod in the C locale: "0.5" is a half whatever the program's locale
 * (the text of properties is written in it). */
double kconv_strtod_c (const char *s, char **end);

/* The named kernels, in the order of their table (kconv-matrix.c), which
 * is the one list of them: the element's `kernel` values, its
 * documentation and the tests are made from it. */
typedef enum
{
  KCONV_NAMED_IDENTITY,
  KCONV_NAMED_EDGE,
  KCONV_NAMED_LAPLACIAN,
  KCONV_NAMED_SHARPEN,
  KCONV_NAMED_BOX,
  KCONV_NAMED_GAUSSIAN,
  KCONV_NAMED_SOBEL_X,
  KCONV_NAMED_SOBEL_Y,
  KCONV_NAMED_EMBOSS,
  KCONV_NAMED_COUNT
} KConvNamedKernel;

typedef struct
{
  KConvNamedKernel id;
  const char *nick;             /* its name on the element: "sobel-x" */
  const char *description;      /* a line for gst-inspect */
  int sized;                    /* shaped by a size (box, gaussian) */
  int is_signed;                /* gives signed results, naturally shown as
                                 * |v| (edge detectors) */
  int rows, cols;               /* a fixed kernel's shape and weights */
  const float *weights;         /* (NULL where sized) */
} KConvNamedKernelInfo;

/* The named kernel `which`, or NULL when there is none. */
const KConvNamedKernelInfo *kconv_named_kernel_info (KConvNamedKernel which);

/* The weights of a named kernel.  size (odd) applies to box and gaussian,
 * sigma to gaussian (0: 0.3 * ((size - 1) / 2 - 1) + 0.8, as OpenCV).
 * Returns a malloc'd rows * cols array, or NULL (kconv_last_error says
 * why). */
float *kconv_named_kernel (KConvNamedKernel which, int size, double sigma,
    int *rows, int *cols);

/* Edge detectors give signed results; their natural display is |v|. */
int kconv_named_kernel_is_signed (KConvNamedKernel which);

double kconv_gaussian_default_sigma (int size);

/* *INDENT-OFF* */
#ifdef __cplusplus
}
#endif
/* *INDENT-ON* */
#endif /* KCONV_MATRIX_H */
