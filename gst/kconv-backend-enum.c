/* GStreamer kconv plugin: the backend property both elements share
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kconv-backend-enum.h"
#include "kconv.h"

GType
gst_kconv_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {KCONV_BACKEND_AUTO, "CUDA when a usable GPU exists, else the CPU",
        "auto"},
    {KCONV_BACKEND_CPU, "CPU (threads, vectorised)", "cpu"},
    {KCONV_BACKEND_CUDA, "CUDA (fails when unavailable)", "cuda"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstKConvBackend",
            values));
  return type;
}
