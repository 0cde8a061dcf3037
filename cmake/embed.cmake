# SPDX-License-Identifier: MIT
# Writes the bytes of IN as a NUL-terminated C array NAME into OUT:
#   cmake -DIN=shader.vert -DOUT=out.c -DNAME=symbol -DHEADER=sinew/sinew_gpu.h -P embed.cmake
# (an array, not a string literal: C11 promises string literals of 4095
# characters only).
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
get_filename_component(name "${IN}" NAME)
file(WRITE "${OUT}" "/* Generated from ${name} by cmake/embed.cmake: edit that file, not this one. */\n#include \"${HEADER}\"\n\nconst char ${NAME}[] = {\n${bytes}0};\n")
