#!/bin/sh
# SPDX-License-Identifier: MIT
# The rooms of src/ depend downwards only: a file includes internal headers
# of its own room or of rooms below it (named from src/, "skin/skin.h").
# Ranks: base 0, math 1, skeleton 2, clip and skin 3, layer 4, offline 5,
# asset 6, archive and demo 7, import and gpu 8; rooms of one rank do not include each
# other. Also: no file outside src/ includes a header of src/ except the
# tests that check internals. Prints each wrong include and fails.
cd "$(dirname "$0")/../src" || exit 2
status=0
rank() {
    case $1 in
    base) echo 0 ;; math) echo 1 ;; skeleton) echo 2 ;; clip | skin) echo 3 ;; layer) echo 4 ;;
    offline) echo 5 ;; asset) echo 6 ;; archive | demo) echo 7 ;; import | gpu) echo 8 ;; *) echo -1 ;;
    esac
}
for file in $(find . -name '*.[ch]' -o -name '*.cu' | sed 's|^\./||' | sort); do
    room=${file%%/*}
    own=$(rank "$room")
    [ "$own" -ge 0 ] || { echo "src/$file: not in a known room"; status=1; continue; }
    for used in $(sed -n 's|^#include "\([a-z]*\)/.*|\1|p' "$file" | sort -u); do
        [ "$used" = sinew ] && continue
        [ "$used" = "$room" ] && continue
        r=$(rank "$used")
        if [ "$r" -lt 0 ] || [ "$r" -ge "$own" ]; then
            echo "src/$file: includes $used/ (rank $r), above or beside $room/ (rank $own)"
            status=1
        fi
    done
    if grep -q '#include "\.\./' "$file"; then
        case $file in gpu/cuda/*) ;; *) echo "src/$file: includes through ../ (name headers from src/)"; status=1 ;; esac
    fi
done
[ $status -eq 0 ] && echo "every room of src/ depends downwards only"
exit $status
