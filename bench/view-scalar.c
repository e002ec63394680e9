/* SPDX-License-Identifier: MIT */
/* view-scalar.c - bench/view-loops.h built with the scalar flags (bench/CMakeLists.txt). */
#define VIEW_FN view_loops_scalar
#include "view-loops.h"
