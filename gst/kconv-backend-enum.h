/* GStreamer kconv plugin: the backend property both elements share
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* Values are KConvBackend's AUTO, CPU and CUDA. */
#define GST_TYPE_KCONV_BACKEND (gst_kconv_backend_get_type ())
GType gst_kconv_backend_get_type (void);

G_END_DECLS
