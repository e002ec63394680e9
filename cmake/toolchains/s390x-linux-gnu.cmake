# SPDX-License-Identifier: MIT
# s390x-linux-gnu.cmake - cross-build for IBM Z, the big-endian target, with Debian's
# gcc-s390x-linux-gnu; programs run under qemu-s390x (qemu-user). The NEON kernel compiles
# there through SIMDe's portable code. Used by scripts/cross-arch.sh:
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/s390x-linux-gnu.cmake
set(BB_CROSS_TRIPLE s390x-linux-gnu)
set(CMAKE_SYSTEM_PROCESSOR s390x)
include(${CMAKE_CURRENT_LIST_DIR}/cross-common.cmake)
