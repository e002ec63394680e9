/* SPDX-License-Identifier: MIT */
/* view-avx512.c - bench/view-loops.h built with the avx512 flags (bench/CMakeLists.txt). */
#define VIEW_FN view_loops_avx512
#include "view-loops.h"
