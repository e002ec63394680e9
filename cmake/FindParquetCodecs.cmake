# SPDX-License-Identifier: MIT
# FindParquetCodecs - locates the page codecs libblockbloom_parquet decompresses with:
# Snappy (Debian libsnappy-dev), zstd (libzstd-dev), LZ4 (liblz4-dev), the Brotli decoder
# (libbrotli-dev) and zlib (zlib1g-dev); all but zlib by header and library (Snappy ships
# no pkg-config file), zlib through CMake's FindZLIB.
# Defines ParquetCodecs_FOUND and the imported targets Snappy::Snappy, Zstd::Zstd,
# Lz4::Lz4, Brotlidec::Brotlidec and ZLIB::ZLIB.
find_path(Snappy_INCLUDE_DIR NAMES snappy-c.h)
find_library(Snappy_LIBRARY NAMES snappy)
find_path(Zstd_INCLUDE_DIR NAMES zstd.h)
find_library(Zstd_LIBRARY NAMES zstd)
find_path(Lz4_INCLUDE_DIR NAMES lz4.h)
find_library(Lz4_LIBRARY NAMES lz4)
find_path(Brotlidec_INCLUDE_DIR NAMES brotli/decode.h)
find_library(Brotlidec_LIBRARY NAMES brotlidec)
find_package(ZLIB)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(ParquetCodecs REQUIRED_VARS Snappy_INCLUDE_DIR
  Snappy_LIBRARY Zstd_INCLUDE_DIR Zstd_LIBRARY Lz4_INCLUDE_DIR Lz4_LIBRARY
  Brotlidec_INCLUDE_DIR Brotlidec_LIBRARY ZLIB_FOUND)
foreach(_lib Snappy Zstd Lz4 Brotlidec)
  if(ParquetCodecs_FOUND AND NOT TARGET ${_lib}::${_lib})
    add_library(${_lib}::${_lib} UNKNOWN IMPORTED)
    set_target_properties(${_lib}::${_lib} PROPERTIES IMPORTED_LOCATION "${${_lib}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${${_lib}_INCLUDE_DIR}")
  endif()
  mark_as_advanced(${_lib}_INCLUDE_DIR ${_lib}_LIBRARY)
endforeach()
