/* SPDX-License-Identifier: MIT */
/* view-avx2.c - bench/view-loops.h built with the avx2 flags (bench/CMakeLists.txt). */
#define VIEW_FN view_loops_avx2
#include "view-loops.h"
