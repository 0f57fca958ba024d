#!/usr/bin/env bash
# Regenerates the redact fixtures in testdata/redact/: heap dumps of
# java/src/secrets/Secrets.java, a program that holds known secrets (see
# EXPECTED.md), one per JDK found.
#
#   bash testdata/redact/gen.sh      (from anywhere)
#
# Needs a JDK 17 (java, javac, jcmd): JDK17_HOME, or the javac on PATH. A
# JDK 25 is used when found (JDK25_HOME, or /usr/lib/jvm/*-25-*; JDK25_HOME=none
# skips it); without one the committed jdk25 file is left as it is. Each JVM
# prints READY once the secrets are in place; jcmd then dumps it, gzip -9 -n
# compresses the dump, and the files are replaced only after every dump of the
# run was made. About 10 s.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/redact-fixtures.XXXXXXXX")"
PID=""
cleanup() {
    if [[ -n "$PID" ]] && kill -0 "$PID" 2>/dev/null; then
        kill "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

log() { printf '[gen.sh] %s\n' "$*" >&2; }

major() { "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9][0-9]*\).*/\1/p' | head -n1; }

find_jdk() { # MAJOR -> a JAVA_HOME of that major version, or nothing
    local var="JDK$1_HOME" d
    [[ "${!var:-}" == none ]] && return
    if [[ -n "${!var:-}" ]]; then echo "${!var}"; return; fi
    if [[ "$1" == 17 ]] && command -v javac >/dev/null; then
        d="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
        if [[ "$(major "$d")" == 17 ]]; then echo "$d"; return; fi
    fi
    for d in /usr/lib/jvm/*-"$1"-*; do
        if [[ -x "$d/bin/jcmd" && "$(major "$d")" == "$1" ]]; then echo "$d"; return; fi
    done
}

JDK17="$(find_jdk 17)"
[[ -n "$JDK17" ]] || { log "no JDK 17 found (set JDK17_HOME)"; exit 1; }
"$JDK17/bin/javac" --release 17 -d "$WORK/classes" "$HERE"/java/src/secrets/*.java

dump() { # JAVA_HOME NAME
    local jdk="$1" name="$2"
    mkfifo "$WORK/$name.out"
    "$jdk/bin/java" -Xmx32m -XX:+UseSerialGC -Dsecrets.password=S3cr3t-Property-Xyzzy \
        -cp "$WORK/classes" secrets.Secrets >"$WORK/$name.out" &
    PID=$!
    read -r line <"$WORK/$name.out"
    [[ "$line" == READY ]] || { log "$name: expected READY, got '$line'"; exit 1; }
    "$jdk/bin/jcmd" "$PID" GC.heap_dump -all "$WORK/$name.hprof" >/dev/null
    kill "$PID"
    wait "$PID" 2>/dev/null || true
    PID=""
    gzip -9 -n "$WORK/$name.hprof"
    log "$name: $("$jdk/bin/java" -version 2>&1 | head -n1)"
}

dump "$JDK17" jdk17-secrets
JDK25="$(find_jdk 25 || true)"
if [[ -n "$JDK25" ]]; then
    dump "$JDK25" jdk25-secrets
else
    log "no JDK 25: jdk25-secrets.hprof.gz left as it is"
fi
mv "$WORK"/*.hprof.gz "$HERE/"
