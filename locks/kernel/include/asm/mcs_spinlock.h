/* SPDX-License-Identifier: MIT */
/* qsim arch (kernel-tree mode): no arch MCS hooks; the tree's generic
 * header (a forwarder generated at configure time) decides. */
#include <asm-generic/mcs_spinlock.h>
