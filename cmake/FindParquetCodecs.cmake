# SPDX-License-Identifier: MIT
# FindParquetCodecs - locates the page codecs libblockbloom_parquet decompresses with:
# Snappy (Debian libsnappy-dev), zstd (libzstd-dev) and zlib (zlib1g-dev), the first two by
# header and library (Snappy ships no pkg-config file), zlib through CMake's FindZLIB.
# Defines ParquetCodecs_FOUND and the imported targets Snappy::Snappy, Zstd::Zstd and
# ZLIB::ZLIB.
find_path(Snappy_INCLUDE_DIR NAMES snappy-c.h)
find_library(Snappy_LIBRARY NAMES snappy)
find_path(Zstd_INCLUDE_DIR NAMES zstd.h)
find_library(Zstd_LIBRARY NAMES zstd)
find_package(ZLIB)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(ParquetCodecs REQUIRED_VARS Snappy_INCLUDE_DIR
  Snappy_LIBRARY Zstd_INCLUDE_DIR Zstd_LIBRARY ZLIB_FOUND)
foreach(_lib Snappy Zstd)
  if(ParquetCodecs_FOUND AND NOT TARGET ${_lib}::${_lib})
    add_library(${_lib}::${_lib} UNKNOWN IMPORTED)
    set_target_properties(${_lib}::${_lib} PROPERTIES IMPORTED_LOCATION "${${_lib}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${${_lib}_INCLUDE_DIR}")
  endif()
endforeach()
mark_as_advanced(Snappy_INCLUDE_DIR Snappy_LIBRARY Zstd_INCLUDE_DIR Zstd_LIBRARY)
