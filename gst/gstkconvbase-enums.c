/* GStreamer kconv plugin: the enums of the base class's properties
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstkconvbase-private.h"

GType
gst_kconv_backend_get_type (void)
{
  static GType type = 0;
  /* the core's list of backends, those offered to elements */
  static GEnumValue values[KCONV_BACKEND_COUNT + 1];
  if (g_once_init_enter (&type)) {
    gint n = 0;
    for (gint i = 0; i < KCONV_BACKEND_COUNT; i++) {
      const KConvBackendInfo *b = kconv_backend_info (i);
      if (!b->for_elements)
        continue;
      values[n].value = b->id;
      values[n].value_name = b->description;
      values[n++].value_nick = b->name;
    }
    g_once_init_leave (&type, g_enum_register_static ("GstKConvBackend",
            values));
  }
  return type;
}

GType
gst_kconv_gpu_wait_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {KCONV_GPU_WAIT_SPIN, "Poll without rest: the least delay, a core busy "
          "while a frame is on the GPU", "spin"},
    {KCONV_GPU_WAIT_SLEEP, "Poll with 20 us naps between, leaving the core "
          "to the threads that make the frames", "sleep"},
    {KCONV_GPU_WAIT_BLOCK, "Block in the CUDA runtime until the GPU is done",
        "block"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstKConvGpuWait",
            values));
  return type;
}

GType
gst_kconv_copy_streams_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {KCONV_COPY_STREAMS_OWN, "The element's own upload and download streams",
        "own"},
    {KCONV_COPY_STREAMS_SHARED, "Streams shared both ways with the other "
          "elements on the same CUDA context", "shared"},
    {KCONV_COPY_STREAMS_SHARED_UP, "Uploads shared with the other elements "
          "on the same CUDA context, downloads its own", "shared-up"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstKConvCopyStreams",
            values));
  return type;
}
