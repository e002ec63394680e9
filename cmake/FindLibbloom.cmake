# SPDX-License-Identifier: MIT
# FindLibbloom - locates libbloom 1.6 (Debian libbloom-dev), used only as the benchmark's peer.
# Defines Libbloom_FOUND and the imported target Libbloom::Libbloom.
find_path(Libbloom_INCLUDE_DIR NAMES bloom.h)
find_library(Libbloom_LIBRARY NAMES bloom)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Libbloom REQUIRED_VARS Libbloom_LIBRARY Libbloom_INCLUDE_DIR)
if(Libbloom_FOUND AND NOT TARGET Libbloom::Libbloom)
  add_library(Libbloom::Libbloom UNKNOWN IMPORTED)
  set_target_properties(Libbloom::Libbloom PROPERTIES
    IMPORTED_LOCATION "${Libbloom_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${Libbloom_INCLUDE_DIR}")
endif()
mark_as_advanced(Libbloom_INCLUDE_DIR Libbloom_LIBRARY)
