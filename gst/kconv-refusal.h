/* GStreamer kconv plugin: refusing a property value
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A refused value leaves the property as it was and says why on the bus
 * (a GST_MESSAGE_WARNING from the element), where gst-launch-1.0 prints it
 * and an application can see it.  gst-launch sets properties while parsing,
 * before the element is in a pipeline with a bus: such warnings wait on the
 * element and are posted by kconv_refusal_flush when it starts.
 */
#ifndef KCONV_REFUSAL_H
#define KCONV_REFUSAL_H

#include <gst/gst.h>

G_BEGIN_DECLS

void kconv_refusal_post (GstElement * element, const gchar * format, ...)
    G_GNUC_PRINTF (2, 3);

/* Posts the warnings that waited for a bus; call from start(). */
void kconv_refusal_flush (GstElement * element);

G_END_DECLS
#endif /* KCONV_REFUSAL_H */
