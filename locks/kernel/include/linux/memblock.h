/* SPDX-License-Identifier: MIT */
/* qsim arch (kernel-tree mode): all in qsim/kernel.h. */
#include <qsim/kernel.h>
