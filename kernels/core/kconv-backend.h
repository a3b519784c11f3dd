/* kconv: the core's view of its backends
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_BACKEND_H
#define KCONV_BACKEND_H

#include "kconv.h"

/* KCONV_OK when the backend can run here (AUTO: always); else the status,
 * with the reason recorded (kconv_fail). */
KConvStatus kconv_backend_check (KConvBackend backend);

#endif /* KCONV_BACKEND_H */
