# count.sh BINARY FILTER SIDE-REGEX: instructions per call
valgrind --tool=callgrind --callgrind-out-file=/tmp/c.cg ./$1 --benchmark_filter="$2" --benchmark_min_time=0.01 >/dev/null 2>&1
callgrind_annotate --inclusive=yes --tree=caller /tmp/c.cg 2>/dev/null | awk -v re="$3" '
 /^ *$/ {calls=0; next}
 / < / { if ($0 ~ /LambdaBenchmark|side_by_side::encode|side_by_side::decode/ && match($0, /\(([0-9,]+)x\)/)) { x=substr($0,RSTART+1,RLENGTH-3); gsub(",","",x); calls+=x; ir=$1; gsub(",","",ir); cost+=ir } next }
 / \* / { if ($0 ~ re && calls>0) printf "%s %.0f\n", re, cost/calls; calls=0; cost=0 }'
