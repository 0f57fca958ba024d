#!/usr/bin/env bash
# Generates the real HotSpot benchmark dump of `make bench` (never committed).
#
#   bash testdata/bench/gen.sh        (or: make bench-dump)
#
# Runs bench.ServiceHeap (testdata/bench/src) in a JDK 17 JVM, waits for its
# READY, and writes into $HPROFCTL_BENCH_DIR (default $TMPDIR/hprofctl-bench):
#
#   service-heap.hprof          jcmd PID GC.heap_dump -all          (~2.3 GB)
#   service-heap.histo.txt      jcmd PID GC.class_histogram -all, right after it
#   service-heap.hprof.gz       jcmd PID GC.heap_dump -all -gz=1    (the JVM's multi-member gzip)
#   service-heap.gz.histo.txt   jcmd PID GC.class_histogram -all, right after that one
#   service-heap.info.txt       java -version, flags, program output, jcmd VM.flags, Thread.print
#
# then kills the JVM. Every bench.* count the program prints is checked
# against both histograms. Files are written under temporary names and
# renamed only when everything was produced and checked.
#
# Environment: BENCH_CUSTOMERS (default 1250000: ~40 M objects), BENCH_XMX
# (default 3g), JAVA_HOME (else java/javac/jcmd from PATH).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DIR="${HPROFCTL_BENCH_DIR:-${TMPDIR:-/tmp}/hprofctl-bench}"
NAME=service-heap
CUSTOMERS="${BENCH_CUSTOMERS:-1250000}"
XMX="${BENCH_XMX:-3g}"
BIN="${JAVA_HOME:+$JAVA_HOME/bin/}"

log() { printf '[bench/gen.sh] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# --- room: ~1.9 KB of dump per customer (plain) plus ~40% of it for -gz=1 --------

mkdir -p "$DIR"
need_mb=$(( CUSTOMERS * 19 / 10000 * 14 / 10 + 1024 ))
free_mb=$(df -Pm "$DIR" | awk 'NR == 2 { print $4 }')
(( free_mb >= need_mb )) || die "$DIR: $free_mb MB free, need about $need_mb MB"
xmx_mb=$(numfmt --from=iec "${XMX^^}" | awk '{ print int($1 / 1048576) }')
avail_mb=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
(( avail_mb >= xmx_mb + 1024 )) || die "$avail_mb MB of memory available, need about $(( xmx_mb + 1024 )) MB (-Xmx$XMX)"
log "$DIR: $free_mb MB free (need ~$need_mb); memory available $avail_mb MB (need ~$(( xmx_mb + 1024 )))"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/hprofctl-benchgen.XXXXXXXX")"
PID=""
cleanup() {
    if [[ -n "$PID" ]] && kill -0 "$PID" 2>/dev/null; then
        kill "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
    rm -f "$DIR/$NAME".*.partial
}
trap cleanup EXIT

"${BIN}javac" -Xlint:all --release 17 -encoding UTF-8 -d "$WORK/classes" "$HERE"/src/bench/*.java

FLAGS=("-Xmx$XMX" "-Dbench.customers=$CUSTOMERS")
start=$(date +%s)
"${BIN}java" "${FLAGS[@]}" -cp "$WORK/classes" bench.ServiceHeap >"$WORK/stdout" 2>"$WORK/stderr" &
PID=$!
until grep -qx READY "$WORK/stdout" 2>/dev/null; do
    kill -0 "$PID" 2>/dev/null || { cat "$WORK/stderr" >&2; die "JVM exited before READY"; }
    (( $(date +%s) - start < 1800 )) || die "no READY after 30 minutes"
    sleep 1
done
log "READY after $(( $(date +%s) - start )) s (pid $PID)"

dump() { # FILE [-gz=1]
    local out
    out="$("${BIN}jcmd" "$PID" GC.heap_dump -all "${@:2}" "$1")"
    printf '%s\n' "$out" >&2
    grep -q 'Heap dump file created' <<<"$out" || die "jcmd GC.heap_dump did not write $1"
    printf '%s\n' "$out" >>"$WORK/dumps"
}

check_counts() { # HISTOFILE
    local name want got
    while read -r _ name want; do
        got="$(awk -v c="$name" '$4 == c { print $2; found = 1 } END { if (!found) print 0 }' "$1")"
        [[ "$got" == "$want" ]] || die "$(basename "$1"): $name has $got instances, the program made $want"
    done < <(grep '^count ' "$WORK/stdout")
    log "$(basename "$1"): every bench.* count matches"
}

dump "$DIR/$NAME.hprof.partial"
"${BIN}jcmd" "$PID" GC.class_histogram -all >"$DIR/$NAME.histo.txt.partial"
check_counts "$DIR/$NAME.histo.txt.partial"
dump "$DIR/$NAME.gz.partial" -gz=1
"${BIN}jcmd" "$PID" GC.class_histogram -all >"$DIR/$NAME.gz-histo.txt.partial"
check_counts "$DIR/$NAME.gz-histo.txt.partial"

{
    echo "generator: testdata/bench/gen.sh"
    echo "command:   java ${FLAGS[*]} -cp \$CLASSES bench.ServiceHeap"
    echo "dumps:     jcmd $PID GC.heap_dump -all $NAME.hprof; jcmd $PID GC.heap_dump -all -gz=1 $NAME.hprof.gz"
    echo "histogram: jcmd $PID GC.class_histogram -all (right after each dump)"
    echo
    echo "== java -version"
    "${BIN}java" -version 2>&1
    echo
    echo "== jcmd output"
    cat "$WORK/dumps"
    echo
    echo "== program stdout"
    cat "$WORK/stdout"
    echo
    echo "== jcmd $PID VM.flags"
    "${BIN}jcmd" "$PID" VM.flags
    echo
    echo "== jcmd $PID Thread.print"
    "${BIN}jcmd" "$PID" Thread.print
} >"$DIR/$NAME.info.txt.partial"

kill "$PID"
wait "$PID" 2>/dev/null || true
PID=""

mv "$DIR/$NAME.hprof.partial" "$DIR/$NAME.hprof"
mv "$DIR/$NAME.gz.partial" "$DIR/$NAME.hprof.gz"
mv "$DIR/$NAME.histo.txt.partial" "$DIR/$NAME.histo.txt"
mv "$DIR/$NAME.gz-histo.txt.partial" "$DIR/$NAME.gz.histo.txt"
mv "$DIR/$NAME.info.txt.partial" "$DIR/$NAME.info.txt"
ls -l "$DIR/$NAME".* >&2
log "done in $(( $(date +%s) - start )) s"
