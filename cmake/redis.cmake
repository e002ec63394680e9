# SPDX-License-Identifier: MIT
# The Redis binding: libblockbloom_redis (include/blockbloom_redis.h, src/redis/) over
# hiredis, and `blockbloom redis` in the CLI. Optional: built when hiredis (Debian
# libhiredis-dev) is found, unless BB_BUILD_REDIS=OFF; scripts/test-redis.sh requires it.
option(BB_BUILD_REDIS "Build the Redis binding when hiredis is found" ON)
if(BB_BUILD_REDIS AND NOT CMAKE_CROSSCOMPILING) # a host hiredis cannot link a cross build
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(HIREDIS QUIET IMPORTED_TARGET hiredis)
  endif()
endif()
if(BB_BUILD_REDIS AND HIREDIS_FOUND)
  add_library(blockbloom_redis src/redis/conn.c src/redis/url.c src/redis/meta.c src/redis/filter.c
    src/redis/publish.c)
  add_library(blockbloom::redis ALIAS blockbloom_redis)
  # hiredis by target here and by name in the installed package (see the parquet library).
  target_link_libraries(blockbloom_redis PUBLIC blockbloom
    PRIVATE $<BUILD_INTERFACE:PkgConfig::HIREDIS> $<INSTALL_INTERFACE:hiredis> m)
  set_target_properties(blockbloom_redis PROPERTIES EXPORT_NAME redis)
  target_compile_definitions(blockbloom_redis PRIVATE _GNU_SOURCE)
  set_target_properties(blockbloom_redis PROPERTIES
    VERSION ${PROJECT_VERSION} SOVERSION ${BB_SOVERSION}
    PUBLIC_HEADER include/blockbloom_redis.h)
  if(TARGET blockbloom_cli)
    target_link_libraries(blockbloom_cli PRIVATE blockbloom_redis)
    target_compile_definitions(blockbloom_cli PRIVATE BB_HAVE_REDIS)
  endif()
  # Installed and exported with the core (CMakeLists.txt, "install").
  message(STATUS "blockbloom: Redis binding enabled (hiredis ${HIREDIS_VERSION})")
else()
  message(STATUS "blockbloom: Redis binding not built (hiredis not found or BB_BUILD_REDIS=OFF)")
endif()
