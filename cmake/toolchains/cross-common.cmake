# SPDX-License-Identifier: MIT
# cross-common.cmake - what every Debian cross toolchain file here shares; the including file
# sets BB_CROSS_TRIPLE (e.g. aarch64-linux-gnu) and CMAKE_SYSTEM_PROCESSOR first.
#
# Debian's cross compilers (gcc-<triple>) search only their own sysroot, /usr/<triple>, with
# its libc headers. blockbloom's two dependencies are header-only and architecture-
# independent (xxhash.h/xxh3.h from libxxhash-dev, simde/ from libsimde-dev) but live in the
# host's /usr/include, which must not be put on the include path as a whole: its glibc
# headers (bits/, sys/) are the host's and would shadow the target's. So the build directory
# gets an include directory holding symlinks to just those headers, and the find modules are
# pointed at it (find_path does not search when the cache variable is already set).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${BB_CROSS_TRIPLE}-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/${BB_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Lets CTest and add_custom_command run target programs: qemu-user with the target's libc.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-${CMAKE_SYSTEM_PROCESSOR} -L /usr/${BB_CROSS_TRIPLE})

set(_bb_hdr ${CMAKE_BINARY_DIR}/bb-portable-include)
foreach(_h xxhash.h xxh3.h simde)
  if(NOT EXISTS ${_bb_hdr}/${_h} AND EXISTS /usr/include/${_h})
    file(MAKE_DIRECTORY ${_bb_hdr})
    file(CREATE_LINK /usr/include/${_h} ${_bb_hdr}/${_h} SYMBOLIC)
  endif()
endforeach()
set(XXHash_INCLUDE_DIR ${_bb_hdr} CACHE PATH "xxHash headers (host, architecture-independent)")
set(SIMDe_INCLUDE_DIR ${_bb_hdr} CACHE PATH "SIMDe headers (host, architecture-independent)")
