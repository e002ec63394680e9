# SPDX-License-Identifier: MIT
# FindSIMDe - locates SIMDe, the header-only SIMD portability library (Debian libsimde-dev).
# Defines SIMDe_FOUND, SIMDe_INCLUDE_DIR and the interface target SIMDe::SIMDe.
find_path(SIMDe_INCLUDE_DIR NAMES simde/x86/avx512.h)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SIMDe REQUIRED_VARS SIMDe_INCLUDE_DIR)
if(SIMDe_FOUND AND NOT TARGET SIMDe::SIMDe)
  add_library(SIMDe::SIMDe INTERFACE IMPORTED)
  set_target_properties(SIMDe::SIMDe PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${SIMDe_INCLUDE_DIR}")
endif()
mark_as_advanced(SIMDe_INCLUDE_DIR)
