# SPDX-License-Identifier: MIT
# Cross build for 64-bit Arm Linux with Debian's gcc-aarch64-linux-gnu; the
# tests run under qemu-user (scripts/test --cross arm64).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
find_program(SINEW_QEMU NAMES qemu-aarch64 qemu-aarch64-static)
if(SINEW_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${SINEW_QEMU} -L /usr/aarch64-linux-gnu)
endif()
