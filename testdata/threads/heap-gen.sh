#!/usr/bin/env bash
# Writes the heap dumps of MonitorPair (a synchronized deadlock) with JDK 17
# and JDK 25 into heap/, leaving every other fixture as it is: jdkNN-monitor-pair
# with the flags of gen.sh (-Xshare:off, Serial GC, GC.heap_dump -all), and
# jdkNN-cds-monitor-pair with the JVM's defaults (G1, the CDS archive mapped,
# its archived heap objects in the heap) but -Xmx32m -XX:-UseTLAB, dumped
# with GC.heap_dump (live objects, after a full GC); and jdk25-virtual,
# Virtual's virtual threads in known states (the flags of gen.sh, -all):
#
#   bash testdata/threads/heap-gen.sh      (from anywhere)
#
# JDK17_HOME and JDK25_HOME default to /usr/lib/jvm/java-17-openjdk-amd64 and
# /usr/lib/jvm/temurin-25-jdk-amd64; a missing JDK's file is kept. Each JVM
# runs until MonitorPair prints READY (the JVM's own detector sees pair-a and
# pair-b deadlocked), then jstack -l checks the JVM's verdict, jcmd
# GC.heap_dump -all writes the dump (no GC first), and the JVM is killed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/thread-heaps.XXXXXXXX")"
PID=""
cleanup() {
    if [[ -n "$PID" ]] && kill -0 "$PID" 2>/dev/null; then
        kill "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
die() { printf '[threads/heap-gen.sh] ERROR: %s\n' "$*" >&2; exit 1; }

JDK17="${JDK17_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
JDK25="${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
FLAGS=(-Xshare:off -Xmx32m -XX:-UseTLAB -XX:+UseSerialGC)

mkdir -p "$WORK/classes"
mapfile -t SOURCES < <(find "$HERE/java/src" -name '*.java' | sort)
"$JDK17/bin/javac" -Xlint:all -Werror --release 17 -encoding UTF-8 -d "$WORK/classes" "${SOURCES[@]}"

dump() { # JAVA_HOME PREFIX [cds|virtual]
    local jh="$1" prefix="$2" mode="${3:-}" i
    local flags=("${FLAGS[@]}") all=(-all) name="$prefix-monitor-pair" main=threads.MonitorPair
    case "$mode" in
    cds) flags=(-Xmx32m -XX:-UseTLAB) all=() name="$prefix-cds-monitor-pair" ;;
    virtual) name="$prefix-virtual" main=threads.Virtual ;;
    esac
    [[ -x "$jh/bin/jcmd" ]] || { printf '[threads/heap-gen.sh] %s: no JDK, %s kept\n' "$jh" "$name" >&2; return 0; }
    "$jh/bin/java" "${flags[@]}" -cp "$WORK/classes" "$main" >"$WORK/stdout" 2>"$WORK/stderr" &
    PID=$!
    for ((i = 0; i < 600; i++)); do
        grep -qx READY "$WORK/stdout" 2>/dev/null && break
        kill -0 "$PID" 2>/dev/null || die "$main exited before READY"
        sleep 0.1
    done
    grep -qx READY "$WORK/stdout" || die "$main: no READY after 60 s"
    if [[ "$mode" != virtual ]]; then
        "$jh/bin/jstack" -l "$PID" >"$WORK/jstack.txt"
        grep -q '^Found one Java-level deadlock:' "$WORK/jstack.txt" || die "$prefix: no JVM deadlock report"
    fi
    "$jh/bin/jcmd" "$PID" GC.heap_dump "${all[@]}" "$WORK/heap.hprof" >/dev/null
    kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
    gzip -9 -n -c "$WORK/heap.hprof" >"$WORK/$name.hprof.gz"
    chmod 0644 "$WORK/$name.hprof.gz"
    mv "$WORK/$name.hprof.gz" "$HERE/heap/"
    rm -f "$WORK/heap.hprof"
    printf '[threads/heap-gen.sh] heap/%s.hprof.gz: %s\n' "$name" "$("$jh/bin/java" -version 2>&1 | head -n1)" >&2
}
dump "$JDK17" jdk17
dump "$JDK25" jdk25
dump "$JDK17" jdk17 cds
dump "$JDK25" jdk25 cds
dump "$JDK25" jdk25 virtual
