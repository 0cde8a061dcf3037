#!/bin/sh
# SPDX-License-Identifier: MIT
# How the tests run an example (tests/CMakeLists.txt): it passes when the
# program exits 0 and prints a line matching PATTERN (grep -E); exit status
# 77 (skipped: no shared assets, no GL context, no GPU) is passed on.
# usage: check.sh PATTERN PROGRAM [ARGS...]
pattern=$1
shift
out=$("$@")
status=$?
printf '%s\n' "$out"
[ "$status" -eq 0 ] || exit "$status"
printf '%s\n' "$out" | grep -E -q -e "$pattern" && exit 0
echo "check.sh: no line of $1's output matches: $pattern"
exit 1
