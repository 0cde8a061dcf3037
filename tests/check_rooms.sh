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

# Within the clip room calls go one way too: a file calls functions defined
# in files of lower rank only (clip/clip_internal.h says what each holds),
# so no circle of calls forms. Comments are left out; calls through a
# form's table are not named calls, and are the way up.
clip_rank() {
    case $1 in
    clip/track.c) echo 0 ;; clip/simd/plan_avx2.c | clip/simd/compressed_avx2.c) echo 1 ;;
    clip/simd/dispatch.c) echo 2 ;; clip/plan.c) echo 3 ;; clip/packed.c | clip/compressed.c) echo 4 ;;
    clip/clip.c) echo 5 ;; clip/sample.c) echo 6 ;; *) echo -1 ;;
    esac
}
uncommented() {
    awk '{ out = ""; line = $0
           while (line != "") {
               if (inside) { i = index(line, "*/"); if (!i) line = ""; else { line = substr(line, i + 2); inside = 0 } }
               else { i = index(line, "/*"); if (!i) { out = out line; line = "" }
                      else { out = out substr(line, 1, i - 1); line = substr(line, i + 2); inside = 1 } } }
           print out }' "$1"
}
clip_files=$(find clip -name '*.c' | sort)
defined=$(for file in $clip_files; do
    uncommented "$file" | sed -n 's/^[a-z][^(;=]*[ *]\(sinew_[a-z0-9_]*\)(.*[^;]$/\1/p; s/^[a-z][^(;=]*[ *]\(sinew_[a-z0-9_]*\)($/\1/p' |
        sed "s|\$| $file|"
done)
for file in $clip_files; do
    own=$(clip_rank "$file")
    [ "$own" -ge 0 ] || { echo "src/$file: a clip file without a rank in check_rooms.sh"; status=1; continue; }
    for name in $(uncommented "$file" | grep -o 'sinew_[a-z0-9_]*(' | tr -d '(' | sort -u); do
        where=$(echo "$defined" | awk -v n="$name" '$1 == n { print $2 }')
        [ -n "$where" ] && [ "$where" != "$file" ] || continue
        r=$(clip_rank "$where")
        if [ "$r" -ge "$own" ]; then
            echo "src/$file: calls $name of src/$where (rank $r), not below it (rank $own)"
            status=1
        fi
    done
done
[ $status -eq 0 ] && echo "every room of src/ depends downwards only, and so do the clip room's files"
exit $status
