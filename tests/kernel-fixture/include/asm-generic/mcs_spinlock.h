/* SPDX-License-Identifier: MIT */
/* qsim fixture tree: no arch MCS hooks by default. */
#ifndef FIXTURE_ASM_GENERIC_MCS_SPINLOCK_H
#define FIXTURE_ASM_GENERIC_MCS_SPINLOCK_H
#endif
