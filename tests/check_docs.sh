#!/bin/sh
# SPDX-License-Identifier: MIT
# Every public function (a SINEW_API declaration in include/sinew/) has a
# comment right above it, and every one is listed in its header's index
# (by name, or by a prefix ending in "*" such as sinew_vec3_*). Prints each
# missing one and fails.
status=0
for h in "$@"; do
    awk -v file="$h" '
        /^[ \t]*$/ { next }
        /SINEW_API/ && !/#/ {
            if (prev !~ /\*\/[ \t]*$/) { printf "%s:%d: undocumented: %s\n", file, NR, $0; bad = 1 }
            count++
        }
        { prev = $0 }
        END { if (count == 0) { printf "%s: no SINEW_API declarations found\n", file; bad = 1 }
              exit bad }' "$h" || status=1
    awk -v file="$h" '
            function collect(   i, word) {
                for (i = 1; i <= NF; ++i) {
                    word = $i
                    gsub(/[(),.;]/, "", word)
                    if (word ~ /^sinew_/) listed[word] = 1
                }
            }
            /^ \* Index[,:]/ { in_index = 1; collect(); next }
            in_index && /^ \* [A-Z][a-z]+:/ { in_index = 0 }
            in_index && /^ \*\// { in_index = 0 }
            in_index { collect() }
            /SINEW_API/ && !/#/ {
                line = $0
                sub(/[([].*/, "", line)
                n = split(line, words, /[ *]+/)
                name = words[n]
                names[name] = NR
            }
            END {
                for (name in names) {
                    found = (name in listed)
                    for (l in listed) if (l ~ /\*$/ && index(name, substr(l, 1, length(l) - 1)) == 1) found = 1
                    if (!found) { printf "%s:%d: not in the index: %s\n", file, names[name], name; bad = 1 }
                }
                exit bad
            }' "$h" || status=1
done
[ $status -eq 0 ] && echo "every public function in $# header(s) is documented"
exit $status
