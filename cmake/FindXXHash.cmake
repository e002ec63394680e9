# SPDX-License-Identifier: MIT
# FindXXHash - locates the xxHash header (Debian libxxhash-dev). blockbloom inlines XXH3
# (XXH_INLINE_ALL) in one source file, so only the header is needed.
# Defines XXHash_FOUND, XXHash_INCLUDE_DIR and the interface target XXHash::XXHash.
find_path(XXHash_INCLUDE_DIR NAMES xxhash.h)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(XXHash REQUIRED_VARS XXHash_INCLUDE_DIR)
if(XXHash_FOUND AND NOT TARGET XXHash::XXHash)
  add_library(XXHash::XXHash INTERFACE IMPORTED)
  set_target_properties(XXHash::XXHash PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${XXHash_INCLUDE_DIR}")
endif()
mark_as_advanced(XXHash_INCLUDE_DIR)
