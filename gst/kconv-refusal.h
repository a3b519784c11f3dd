/* GStreamer kconv plugin: refusing a property value
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A refused value leaves the property as it was and says why.  While the
 * element streams (PAUSED or PLAYING) that is a GST_MESSAGE_WARNING on the
 * bus, and the stream goes on with the previous value.  Before it streams
 * (gst-launch-1.0 sets properties while parsing, an application in NULL or
 * READY) the refusal waits on the element, and starting fails with an
 * ERROR that names the property and the value: a batch job must not write
 * its input back out unfiltered.  A valid value set later for the same
 * property takes the refusal back.
 */
#ifndef KCONV_REFUSAL_H
#define KCONV_REFUSAL_H

#include <gst/gst.h>

G_BEGIN_DECLS
/* property: the name of the property whose value is refused */
    void
gst_kconv_refusal_post (GstElement * element, const gchar * property,
    const gchar * format, ...)
G_GNUC_PRINTF (3, 4);

/* The start of a user's text for a message: at most max_chars characters
 * (never a character cut in two), "..." where it was longer, invalid UTF-8
 * replaced.  g_free it. */
     gchar *gst_kconv_refusal_excerpt (const gchar * text, glong max_chars);

/* A valid value of property was set: a refusal waiting for it is moot. */
     void gst_kconv_refusal_accepted (GstElement * element,
    const gchar * property);

/* From start(): FALSE, after posting an ERROR naming every refused value,
 * when a refusal waits; TRUE when none does. */
     gboolean gst_kconv_refusal_check_at_start (GstElement * element);

G_END_DECLS
#endif /* KCONV_REFUSAL_H */
