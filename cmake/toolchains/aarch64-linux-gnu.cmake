# SPDX-License-Identifier: MIT
# aarch64-linux-gnu.cmake - cross-build for 64-bit ARM with Debian's gcc-aarch64-linux-gnu;
# programs run under qemu-aarch64 (qemu-user). NEON is native there. Used by
# scripts/cross-arch.sh:  cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
set(BB_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/cross-common.cmake)
