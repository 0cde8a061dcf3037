#!/bin/sh
# SPDX-License-Identifier: MIT
# Every source, header, shader, CMake and script file of the repository says
# its licence in an SPDX line among its first three lines, and LICENSE is the
# MIT text. Prints each file without it and fails. (npm's packages, in the
# node_modules folders git ignores, are not the repository's.)
cd "$(dirname "$0")/.." || exit 2
status=0
grep -q '^MIT License$' LICENSE || { echo "LICENSE: not the MIT licence"; status=1; }
for file in $(find .ci bench cmake examples include programs scripts shaders src tests CMakeLists.txt -path '*/node_modules' -prune -o \
                   -type f \( -name '*.[ch]' -o -name '*.cu' -o -name '*.vert' -o -name '*.sh' \
                   -o -name '*.cmake' -o -name '*.in' -o -name CMakeLists.txt -o -path 'scripts/*' \
                   -o -path '.ci/*' \) -print 2>/dev/null | sort); do
    head -n 3 "$file" | grep -q 'SPDX-License-Identifier: MIT' || { echo "$file: no SPDX-License-Identifier line"; status=1; }
done
[ $status -eq 0 ] && echo "every source file says its licence (MIT)"
exit $status
