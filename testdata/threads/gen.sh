#!/usr/bin/env bash
# Regenerates the thread-dump fixtures in testdata/threads/.
#
#   bash testdata/threads/gen.sh      (from anywhere)
#
# Needs a JDK 17 (java, javac, jcmd, jstack). A JDK 21 or newer (JDK25_HOME,
# JDK21_HOME, or one found under /usr/lib/jvm) adds the jdkNN-* files,
# including Thread.dump_to_file's JSON and plain-text dumps; set
# JDK25_HOME=none JDK21_HOME=none to skip it. LockPair and Busy also get a
# JDK 17 heap dump of the same process (heap/). Files of a JDK that is missing
# or skipped are left as they are. Each fixture program prints READY once its
# threads are in place (for a deadlock: once the JVM's own detector sees it);
# the dumps are taken then, and the program is killed. Output files are
# replaced only after every dump of the run was written and checked.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$HERE/java/src"
OUT="$HERE"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/thread-fixtures.XXXXXXXX")"
CLASSES="$WORK/classes"
STAGE="$WORK/out"
mkdir -p "$CLASSES" "$STAGE"

PID=""
cleanup() {
    if [[ -n "$PID" ]] && kill -0 "$PID" 2>/dev/null; then
        kill "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

log() { printf '[threads/gen.sh] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# --- JDKs -----------------------------------------------------------------------

jdk_major() { # JAVA_HOME -> major version, or nothing
    "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9][0-9]*\).*/\1/p' | head -n1
}

usable() { # JAVA_HOME -> success when it has the tools the script runs
    [[ -x "$1/bin/java" && -x "$1/bin/jcmd" && -x "$1/bin/jstack" ]]
}

JDK17=""
if [[ -n "${JDK17_HOME:-}" ]]; then
    JDK17="$JDK17_HOME"
elif command -v javac >/dev/null; then
    JDK17="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
fi
[[ -n "$JDK17" ]] && usable "$JDK17" && [[ "$(jdk_major "$JDK17")" == 17 ]] ||
    die "no JDK 17 found (set JDK17_HOME)"

# The newest JDK 21+ to use: JDK25_HOME, then JDK21_HOME, then /usr/lib/jvm.
NEW=""
if [[ "${JDK25_HOME:-}" != none && -n "${JDK25_HOME:-}" ]]; then
    NEW="$JDK25_HOME"
elif [[ "${JDK21_HOME:-}" != none && -n "${JDK21_HOME:-}" ]]; then
    NEW="$JDK21_HOME"
elif [[ "${JDK25_HOME:-}" != none && "${JDK21_HOME:-}" != none ]]; then
    best=0
    for d in /usr/lib/jvm/*; do
        usable "$d" || continue
        m="$(jdk_major "$d")"
        if [[ -n "$m" && "$m" -ge 21 && "$m" -gt "$best" ]]; then
            best="$m"
            NEW="$d"
        fi
    done
fi
NEW_MAJOR=""
if [[ -n "$NEW" ]]; then
    usable "$NEW" || die "$NEW is not a usable JDK"
    NEW_MAJOR="$(jdk_major "$NEW")"
    [[ "$NEW_MAJOR" -ge 21 ]] || die "$NEW is JDK $NEW_MAJOR, not 21 or newer"
fi
log "JDK 17: $JDK17"
log "JDK 21+: ${NEW:-not found or skipped (its committed files are kept)}"

# --- compile --------------------------------------------------------------------------

mapfile -t SOURCES < <(find "$SRC" -name '*.java' | sort)
"$JDK17/bin/javac" -Xlint:all -Werror --release 17 -encoding UTF-8 -d "$CLASSES" "${SOURCES[@]}"

# --- helpers --------------------------------------------------------------------------

# -Xshare:off and -XX:-UseTLAB keep the heap dumps small (no archived heap
# objects, no filler arrays).
FLAGS=(-Xshare:off -Xmx32m -XX:-UseTLAB -XX:+UseSerialGC)

start() { # JAVA_HOME MAINCLASS STDOUT [ARGS...]; sets PID, waits for READY
    local jh="$1" main="$2" out="$3"
    shift 3
    "$jh/bin/java" "${FLAGS[@]}" -cp "$CLASSES" "$main" "$@" >"$out" 2>"$WORK/stderr" &
    PID=$!
    local i
    for ((i = 0; i < 600; i++)); do
        if grep -qx READY "$out" 2>/dev/null; then
            return 0
        fi
        kill -0 "$PID" 2>/dev/null || { cat "$WORK/stderr" >&2; die "$main exited before READY"; }
        sleep 0.1
    done
    die "$main: no READY after 60 s"
}

stop() {
    kill "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
    PID=""
}

# Every dump of a program whose threads deadlock must hold the JVM's own
# deadlock report (the tests compare against it); the others must not.
check_verdict() { # FILE yes|no
    if [[ "$2" == yes ]]; then
        grep -q '^Found one Java-level deadlock:' "$1" || die "$(basename "$1"): no JVM deadlock report"
    else
        ! grep -q '^Found one Java-level deadlock:' "$1" || die "$(basename "$1"): unexpected JVM deadlock report"
    fi
}

# fixture name, main class, whether the JVM reports a deadlock in it, and
# whether a heap dump of the same process is taken too (JDK 17 only)
PROGRAMS=(
    "monitor-pair threads.MonitorPair yes no"
    "monitor-ring threads.MonitorRing yes no"
    "lock-pair threads.LockPair yes heap"
    "mixed-pair threads.MixedPair yes heap"
    "wait-relock threads.WaitRelock no no"
    "busy threads.Busy no heap"
)

dump_program() { # JAVA_HOME PREFIX NAME MAINCLASS VERDICT HEAP
    local jh="$1" prefix="$2" name="$3" main="$4" verdict="$5" heap="$6" base="$STAGE/$2-$3"
    start "$jh" "$main" "$WORK/stdout"
    "$jh/bin/jstack" -l "$PID" >"$base.jstack.txt"
    if [[ "$heap" == heap && "$prefix" == jdk17 ]]; then
        # -all: no GC before the dump, so objects keep the addresses the
        # thread dumps print.
        "$jh/bin/jcmd" "$PID" GC.heap_dump -all "$WORK/heap.hprof" >/dev/null
        mkdir -p "$STAGE/heap"
        gzip -9 -n -c "$WORK/heap.hprof" >"$STAGE/heap/$prefix-$name.hprof.gz"
        rm -f "$WORK/heap.hprof"
    fi
    "$jh/bin/jcmd" "$PID" Thread.print -l >"$base.jcmd.txt"
    check_verdict "$base.jstack.txt" "$verdict"
    check_verdict "$base.jcmd.txt" "$verdict"
    if [[ "$prefix" != jdk17 ]]; then
        "$jh/bin/jcmd" "$PID" Thread.dump_to_file -format=json "$base.json" >/dev/null
        "$jh/bin/jcmd" "$PID" Thread.dump_to_file "$base.plain.txt" >/dev/null
        [[ -s "$base.json" && -s "$base.plain.txt" ]] || die "$prefix-$name: Thread.dump_to_file wrote nothing"
    fi
    stop
    log "$prefix-$name: dumped"
}

# --- fixtures ---------------------------------------------------------------------------

PREFIXES=(jdk17)
for p in "${PROGRAMS[@]}"; do
    read -r name main verdict heap <<<"$p"
    dump_program "$JDK17" jdk17 "$name" "$main" "$verdict" "$heap"
done

# An application log: the program writes log lines to stdout, kill -3 makes
# the JVM print its thread dump (no -l: no ownable synchronizers) in between.
start "$JDK17" threads.MonitorPair "$STAGE/jdk17-monitor-pair.applog.txt" log
sleep 0.3
kill -QUIT "$PID"
for ((i = 0; i < 100; i++)); do
    grep -q '^Found 1 deadlock\.$' "$STAGE/jdk17-monitor-pair.applog.txt" && break
    sleep 0.1
done
sleep 0.3
stop
check_verdict "$STAGE/jdk17-monitor-pair.applog.txt" yes
grep -q 'heartbeat' "$STAGE/jdk17-monitor-pair.applog.txt" || die "applog: no log lines"
log "jdk17-monitor-pair.applog: dumped"

# Two consecutive dumps of one process in one file.
start "$JDK17" threads.MixedPair "$WORK/stdout"
"$JDK17/bin/jstack" -l "$PID" >"$STAGE/jdk17-mixed-pair.two-dumps.txt"
sleep 0.2
"$JDK17/bin/jstack" -l "$PID" >>"$STAGE/jdk17-mixed-pair.two-dumps.txt"
stop
[[ "$(grep -c '^Found one Java-level deadlock:' "$STAGE/jdk17-mixed-pair.two-dumps.txt")" == 2 ]] ||
    die "two-dumps: expected two JVM deadlock reports"
log "jdk17-mixed-pair.two-dumps: dumped"

if [[ -n "$NEW" ]]; then
    PREFIXES+=("jdk$NEW_MAJOR")
    for p in "${PROGRAMS[@]}"; do
        read -r name main verdict heap <<<"$p"
        dump_program "$NEW" "jdk$NEW_MAJOR" "$name" "$main" "$verdict" "$heap"
    done
fi

# --- record the JDKs and install --------------------------------------------------------

record_jvm() { # JAVA_HOME PREFIX
    {
        "$1/bin/java" -version 2>&1
        echo
        echo "command: java ${FLAGS[*]} -cp \$CLASSES MAINCLASS"
        if [[ "$2" == jdk17 ]]; then
            echo "heap dumps (heap/): jcmd PID GC.heap_dump -all FILE; then gzip -9 -n FILE"
        fi
    } >"$STAGE/$2-java-version.txt"
}
record_jvm "$JDK17" jdk17
if [[ -n "$NEW" ]]; then
    record_jvm "$NEW" "jdk$NEW_MAJOR"
fi

for p in "${PREFIXES[@]}"; do
    rm -f "$OUT/$p"-*.txt "$OUT/$p"-*.json "$OUT/heap/$p"-*.hprof.gz
done
mkdir -p "$OUT/heap"
chmod 0644 "$STAGE"/heap/*
mv "$STAGE"/heap/* "$OUT"/heap/
rmdir "$STAGE/heap"
chmod 0644 "$STAGE"/*
mv "$STAGE"/* "$OUT"/
log "done:"
(cd "$OUT" && ls -l -- *.txt *.json heap/*.hprof.gz >&2 && du -ch -- *.txt *.json heap/*.hprof.gz | tail -n1 >&2)
