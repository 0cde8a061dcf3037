#!/bin/sh
# Every public function (a SINEW_API declaration in include/sinew/) has a
# comment right above it. Prints each undocumented one and fails.
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
done
[ $status -eq 0 ] && echo "every public function in $# header(s) is documented"
exit $status
