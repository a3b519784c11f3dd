/* kconv: hooks the tests set from their own code
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Not the elements' interface (nothing here is a property, and gst-inspect
 * shows none of it): a test sets a hook on an element type, before it
 * makes elements of it, with
 *   g_type_set_qdata (type, g_quark_from_static_string (HOOK),
 *       GINT_TO_POINTER (1));
 */
#ifndef KCONV_TESTING_H
#define KCONV_TESTING_H

/* Frames in flight leave only when frames-in-flight of them are queued,
 * never sooner because their work is done: tests that count frames in
 * flight see the same depth on every backend. */
#define KCONV_TESTING_HOLD_FRAMES "kconv-testing-hold-frames"

#endif /* KCONV_TESTING_H */
