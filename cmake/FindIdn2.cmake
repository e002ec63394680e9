# SPDX-License-Identifier: MIT
# FindIdn2 - locates libidn2 (Debian libidn2-dev), which maps internationalised domain names
# to Punycode for src/net/domain.c. Defines Idn2_FOUND, Idn2_INCLUDE_DIR and Idn2_LIBRARY.
find_path(Idn2_INCLUDE_DIR NAMES idn2.h)
find_library(Idn2_LIBRARY NAMES idn2)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Idn2 REQUIRED_VARS Idn2_INCLUDE_DIR Idn2_LIBRARY)
mark_as_advanced(Idn2_INCLUDE_DIR Idn2_LIBRARY)
