#!/usr/bin/env bash
# Regenerates the real-JVM heap dump fixtures in testdata/jvm/.
#
#   bash testdata/gen.sh            (from the repository root, or from anywhere)
#   bash testdata/gen.sh inspect    (only the jdk*-inspect-* fixtures)
#   bash testdata/gen.sh chain      (only jdk17-chain: a path through 1,000 links)
#
# Needs a JDK 17 (java, javac, jcmd, jmap). Optional extra JDKs are used when
# found: JDK21_HOME / JDK25_HOME, or /usr/lib/jvm/*-21-* / *-25-*. Set e.g.
# JDK25_HOME=none to skip one. When an optional JDK is missing or skipped, its
# existing fixtures in testdata/jvm/ are left alone.
#
# Scratch files live in a mktemp directory that is removed on exit. The output
# files are replaced only after every fixture of a run was produced and checked.
# See testdata/README.md for what each file is and testdata/jvm/EXPECTED.md for
# the facts known by construction.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$HERE/java/src"
OUT="$HERE/jvm"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/hprof-fixtures.XXXXXXXX")"
CLASSES="$WORK/classes"
STAGE="$WORK/out"
mkdir -p "$CLASSES" "$STAGE"

PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do
        if kill -0 "$p" 2>/dev/null; then
            kill "$p" 2>/dev/null || true
            wait "$p" 2>/dev/null || true
        fi
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

log() { printf '[gen.sh] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

SECTION="${1:-all}"
case "$SECTION" in
all | inspect | chain) ;;
*) die "usage: gen.sh [all|inspect|chain]" ;;
esac

# --- locate JDKs -----------------------------------------------------------

jdk_major() { # JAVA_HOME -> major version number (or empty)
    "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9][0-9]*\).*/\1/p' | head -n1
}

find_jdk() { # MAJOR -> prints a JAVA_HOME with that major version, or nothing
    local major="$1" var="JDK$1_HOME" d
    if [[ "${!var:-}" == none ]]; then
        return
    fi
    if [[ -n "${!var:-}" ]]; then
        [[ "$(jdk_major "${!var}")" == "$major" ]] || die "$var=${!var} is not JDK $major"
        echo "${!var}"
        return
    fi
    if [[ "$major" == 17 ]] && command -v javac >/dev/null; then
        d="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
        if [[ "$(jdk_major "$d")" == 17 ]]; then echo "$d"; return; fi
    fi
    for d in /usr/lib/jvm/*-"$major"-* /usr/lib/jvm/*-"$major" /usr/lib/jvm/*"$major"*; do
        [[ -x "$d/bin/java" && -x "$d/bin/jcmd" ]] || continue
        if [[ "$(jdk_major "$d")" == "$major" ]]; then echo "$d"; return; fi
    done
}

JDK17="$(find_jdk 17)"
[[ -n "$JDK17" ]] || die "no JDK 17 found (set JDK17_HOME)"
JDK21="$(find_jdk 21 || true)"
JDK25="$(find_jdk 25 || true)"
log "JDK 17: $JDK17"
log "JDK 21: ${JDK21:-not found or skipped}"
log "JDK 25: ${JDK25:-not found or skipped}"

# --- compile ----------------------------------------------------------------

mapfile -t SOURCES < <(find "$SRC" -name '*.java' | sort)
"$JDK17/bin/javac" -Xlint:all --release 17 -encoding UTF-8 -d "$CLASSES" "${SOURCES[@]}"

# --- helpers ----------------------------------------------------------------

PID=""
LOGFILE=""
FIXTURE_STDIN=/dev/null
start_fixture() { # NAME JAVA_HOME MAINCLASS FLAGS... ; sets PID, LOGFILE; stdin from $FIXTURE_STDIN
    local name="$1" jh="$2" main="$3"
    shift 3
    LOGFILE="$WORK/$name.stdout"
    "$jh/bin/java" "$@" -cp "$CLASSES" "$main" <"$FIXTURE_STDIN" >"$LOGFILE" 2>"$WORK/$name.stderr" &
    PID=$!
    PIDS+=("$PID")
    wait_line "$name" READY
}

wait_line() { # NAME LINE : until the running fixture printed LINE on a line of its own
    local i
    for ((i = 0; i < 1200; i++)); do
        if grep -qx "$2" "$LOGFILE" 2>/dev/null; then
            return 0
        fi
        kill -0 "$PID" 2>/dev/null || { cat "$WORK/$1.stderr" >&2; die "$1: JVM exited before $2"; }
        sleep 0.1
    done
    die "$1: no $2 after 120 s"
}

stop_fixture() {
    kill "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
}

# Replace scratch paths by placeholders in recorded text.
scrub() { sed -e "s|$CLASSES|\$CLASSES|g" -e "s|$WORK|\$WORK|g"; }

write_info() { # NAME JAVA_HOME MAINCLASS DUMPCMD HISTOCMD NOTE FLAGS...
    local name="$1" jh="$2" main="$3" dumpcmd="$4" histocmd="$5" note="$6"
    shift 6
    {
        echo "fixture:   $name"
        echo "generator: testdata/gen.sh"
        echo "pid:       $PID (fixtures with the same pid come from the same JVM process)"
        echo "command:   java $* -cp \$CLASSES $main"
        echo "dump:      $dumpcmd"
        echo "histogram: $histocmd"
        [[ -n "$note" ]] && echo "note:      $note"
        echo
        echo "== java -version"
        "$jh/bin/java" -version 2>&1
        echo
        echo "== program stdout"
        cat "$LOGFILE"
        echo
        echo "== jcmd $PID VM.flags"
        "$jh/bin/jcmd" "$PID" VM.flags
        echo
        echo "== jcmd $PID Thread.print"
        "$jh/bin/jcmd" "$PID" Thread.print
    } | scrub >"$STAGE/$name.info.txt"
}

# Plain jcmd dump (-all, no GC) of the running fixture, gzipped, the histogram
# right after it, and its info.txt.
snapshot_jcmd() { # NAME JAVA_HOME MAINCLASS NOTE FLAGS...
    local name="$1" jh="$2" main="$3" note="$4"
    shift 4
    "$jh/bin/jcmd" "$PID" GC.heap_dump -all "$WORK/$name.hprof" >&2
    "$jh/bin/jcmd" "$PID" GC.class_histogram -all >"$STAGE/$name.histo.txt"
    gzip -9 -n -c "$WORK/$name.hprof" >"$STAGE/$name.hprof.gz"
    rm -f "$WORK/$name.hprof"
    write_info "$name" "$jh" "$main" \
        "jcmd $PID GC.heap_dump -all <file>; then gzip -9 -n <file>" \
        "jcmd $PID GC.class_histogram -all (right after the dump)" "$note" "$@"
}

# jcmd plain dump (-all, no GC) + histogram, optionally a second -gz=1 dump.
dump_jcmd() { # NAME JAVA_HOME MAINCLASS GZNAME|- FLAGS...
    local name="$1" jh="$2" main="$3" gzname="$4"
    shift 4
    start_fixture "$name" "$jh" "$main" "$@"
    local jcmd="$jh/bin/jcmd"
    snapshot_jcmd "$name" "$jh" "$main" "" "$@"
    if [[ "$gzname" != - ]]; then
        "$jcmd" "$PID" GC.heap_dump -all -gz=1 "$STAGE/$gzname.hprof.gz" >&2
        "$jcmd" "$PID" GC.class_histogram -all >"$STAGE/$gzname.histo.txt"
        write_info "$gzname" "$jh" "$main" \
            "jcmd $PID GC.heap_dump -all -gz=1 <file> (gzip written by the JVM, committed as-is)" \
            "jcmd $PID GC.class_histogram -all (right after the dump)" \
            "same JVM process as $name, dumped right after it" "$@"
    fi
    stop_fixture
}

# jmap -dump:live (full GC first) + jmap -histo.
dump_jmap_live() { # NAME JAVA_HOME FLAGS...
    local name="$1" jh="$2"
    shift 2
    start_fixture "$name" "$jh" fixture.HeapShapes "$@"
    "$jh/bin/jmap" -dump:live,format=b,file="$WORK/$name.hprof" "$PID" >&2
    "$jh/bin/jmap" -histo "$PID" >"$STAGE/$name.histo.txt"
    gzip -9 -n -c "$WORK/$name.hprof" >"$STAGE/$name.hprof.gz"
    write_info "$name" "$jh" fixture.HeapShapes \
        "jmap -dump:live,format=b,file=<file> $PID; then gzip -9 -n <file>" \
        "jmap -histo $PID (all objects, the default; right after the dump)" \
        "live dump: the JVM ran a full GC first, so fixture.WeakOnly was collected" "$@"
    stop_fixture
}

# OutOfMemoryError dump written by -XX:+HeapDumpOnOutOfMemoryError.
dump_oom() { # NAME JAVA_HOME
    local name="$1" jh="$2" file="$WORK/$1.hprof"
    local flags=(-Xshare:off -Xmx16m -XX:+UseSerialGC -XX:+HeapDumpOnOutOfMemoryError "-XX:HeapDumpPath=$file")
    start_fixture "$name" "$jh" fixture.OomMain "${flags[@]}"
    [[ -s "$file" ]] || die "$name: no heap dump at $file"
    "$jh/bin/jcmd" "$PID" GC.class_histogram -all >"$STAGE/$name.histo.txt"
    gzip -9 -n -c "$file" >"$STAGE/$name.hprof.gz"
    write_info "$name" "$jh" fixture.OomMain \
        "-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=<file> (written when the error was thrown); then gzip -9 -n <file>" \
        "jcmd $PID GC.class_histogram -all (after the program caught the error and printed READY)" \
        "the histogram also counts the long[32768] OomMain.RESERVE that was dropped after the dump (no GC in between)" \
        "${flags[@]}"
    stop_fixture
}

# Field offsets / array base offsets as the JVM reports them (separate JVM, same flags).
layout_report() { # NAME JAVA_HOME FLAGS...
    local name="$1" jh="$2"
    shift 2
    "$jh/bin/java" "$@" -cp "$CLASSES" fixture.LayoutReport >"$STAGE/$name.layout.txt" 2>"$WORK/$name.layout.stderr"
    grep -q '^field fixture.LayoutA3 ' "$STAGE/$name.layout.txt" || die "$name: LayoutReport failed"
}

# Until the main thread of the running fixture blocks in FRAME (its top frame
# in jcmd Thread.print), so that a dump cannot catch it still allocating.
wait_main_in() { # NAME JAVA_HOME FRAME
    local i
    for ((i = 0; i < 100; i++)); do
        if "$2/bin/jcmd" "$PID" Thread.print |
            awk '/^"main"/ { m = 1; next } m && /^\tat / { print $2; exit }' | grep -q "^$3("; then
            return 0
        fi
        sleep 0.2
    done
    die "$1: main thread not in $3"
}

# fixture.Inspect: one JVM, dumped when it prints READY and again after it
# added its growth objects (READY2); NAME-before and NAME-after.
dump_inspect() { # NAME JAVA_HOME FLAGS...
    local name="$1" jh="$2" fifo="$WORK/$1.stdin" go
    shift 2
    mkfifo "$fifo"
    # Held open read-write here so that the JVM's open of the fifo does not
    # block and its reads block until gen.sh writes a line.
    exec {go}<>"$fifo"
    FIXTURE_STDIN="$fifo" start_fixture "$name" "$jh" fixture.Inspect "$@"
    wait_main_in "$name" "$jh" java.io.FileInputStream.readBytes
    snapshot_jcmd "$name-before" "$jh" fixture.Inspect \
        "first dump of fixture.Inspect, taken after READY; $name-after is the same process after the growth step" "$@"
    echo grow >&"$go"
    wait_line "$name" READY2
    wait_main_in "$name" "$jh" java.io.FileInputStream.readBytes
    snapshot_jcmd "$name-after" "$jh" fixture.Inspect \
        "second dump of the same process as $name-before, taken after READY2 (growth step done)" "$@"
    exec {go}>&-
    # -Xlog:gc prints every collection: none may have run after READY.
    if sed -n '/^READY$/,$p' "$LOGFILE" | grep -q 'GC('; then
        die "$name: a GC ran after READY"
    fi
    stop_fixture
}

# --- checks -------------------------------------------------------------------

LAYOUTS=(LayoutEmpty LayoutBoolean LayoutByte LayoutChar LayoutShort
    LayoutInt LayoutFloat LayoutLong LayoutDouble LayoutRef
    LayoutByteLong LayoutIntByteRef LayoutBoolShortDouble LayoutAllPrims
    LayoutIntLong LayoutThreeBytes LayoutFiveRefs
    LayoutP1 LayoutC1 LayoutA1 LayoutA2 LayoutA3
    LayoutPBool LayoutPBoolChildIntRef LayoutPEmpty LayoutPEmptyChildInt
    LayoutPLong LayoutPLongChildByte LayoutPIntLong LayoutPIntLongChildByte
    LayoutPRef LayoutPRefChildLong LayoutPShort LayoutPShortChildRefByte
    LayoutStaticOnly)

histo_count() { # HISTOFILE CLASSNAME -> instance count (0 if absent)
    awk -v c="$2" '$4 == c { print $2; found = 1 } END { if (!found) print 0 }' "$1"
}

expect_count() { # HISTOFILE CLASSNAME N
    local got
    got="$(histo_count "$1" "$2")"
    [[ "$got" == "$3" ]] || die "$(basename "$1"): $2 has $got instances, expected $3"
}

check_heapshapes() { # NAME WEAKONLY_COUNT
    local h="$STAGE/$1.histo.txt" k
    for k in "${!LAYOUTS[@]}"; do
        expect_count "$h" "fixture.${LAYOUTS[$k]}" $((11 + k))
    done
    expect_count "$h" fixture.Payload 100
    expect_count "$h" fixture.ArrayElem 5
    expect_count "$h" fixture.StackOnly 1
    expect_count "$h" fixture.StackHolder 1
    expect_count "$h" fixture.WeakOnly "$2"
    expect_count "$h" '[Lfixture.Payload;' 2
    expect_count "$h" '[[Lfixture.Payload;' 1
    grep -q '"fixture-holder"' "$STAGE/$1.info.txt" || die "$1: no fixture-holder thread"
    grep -q 'fixture.StackHolder.hold' "$STAGE/$1.info.txt" || die "$1: holder not in hold()"
    log "$1: histogram counts OK"
}

check_oom() { # NAME
    local n
    n="$(sed -n 's/^OOM chunks=\([0-9]*\)$/\1/p' "$STAGE/$1.info.txt")"
    [[ -n "$n" ]] || die "$1: no 'OOM chunks=' line"
    expect_count "$STAGE/$1.histo.txt" fixture.OomChunk "$n"
    log "$1: $n OomChunk objects, histogram agrees"
}

# fixture.* classes with instances in every fixture.Inspect histogram, and
# how many (InspectGrowth, whose count changes, is checked apart).
INSPECT_COUNTS=(fixture.InspectTarget=1 fixture.InspectReferrerA=1 fixture.InspectReferrerB=1
    fixture.InspectStackHolder=1 fixture.InspectColor=3 '[Lfixture.InspectColor;=1')

check_inspect() { # NAME : NAME-before and NAME-after
    local b="$STAGE/$1-before.histo.txt" a="$STAGE/$1-after.histo.txt" initial added h kv got want
    read -r initial added < <(sed -n 's/^GROWTH initial=\([0-9]*\) added=\([0-9]*\)$/\1 \2/p' "$LOGFILE")
    [[ -n "$initial" && -n "$added" ]] || die "$1: no 'GROWTH' line"
    want="$(printf '%s\n' "${INSPECT_COUNTS[@]%=*}" fixture.InspectGrowth '[Lfixture.InspectGrowth;' | sort)"
    for h in "$b" "$a"; do
        for kv in "${INSPECT_COUNTS[@]}"; do
            expect_count "$h" "${kv%=*}" "${kv##*=}"
        done
        got="$(awk '$4 ~ /fixture\./ { print $4 }' "$h" | sort)"
        [[ "$got" == "$want" ]] || die "$(basename "$h"): fixture.* classes are" $got
    done
    expect_count "$b" fixture.InspectGrowth "$initial"
    expect_count "$a" fixture.InspectGrowth $((initial + added))
    expect_count "$b" '[Lfixture.InspectGrowth;' 1
    expect_count "$a" '[Lfixture.InspectGrowth;' 2
    for h in before after; do
        grep -q '"inspect-stack-holder"' "$STAGE/$1-$h.info.txt" || die "$1-$h: no inspect-stack-holder thread"
        grep -q 'fixture.InspectStackHolder.hold' "$STAGE/$1-$h.info.txt" || die "$1-$h: holder not in hold()"
    done
    log "$1: histogram counts OK, InspectGrowth $initial -> $((initial + added))"
}

check_chain() { # NAME
    local h="$STAGE/$1.histo.txt"
    expect_count "$h" fixture.ChainLink 1000
    expect_count "$h" fixture.ChainTail 1
    log "$1: histogram counts OK"
}

# --- fixtures -----------------------------------------------------------------

BASE=(-Xshare:off -Xmx64m -XX:+UseSerialGC -XX:-UseTLAB)
# fixture.Inspect also logs every collection on stdout (checked by dump_inspect).
INSPECT=("${BASE[@]}" -Xlog:gc)

# The fixture.HeapShapes and fixture.OomMain fixtures (all but jdk*-inspect-*).
heapshapes_fixtures() {
    dump_jcmd jdk17-default "$JDK17" fixture.HeapShapes jdk17-gz "${BASE[@]}"
    check_heapshapes jdk17-default 1
    layout_report jdk17-default "$JDK17" "${BASE[@]}"
    check_heapshapes jdk17-gz 1

    dump_jcmd jdk17-nocoops "$JDK17" fixture.HeapShapes - "${BASE[@]}" -XX:-UseCompressedOops
    check_heapshapes jdk17-nocoops 1
    layout_report jdk17-nocoops "$JDK17" "${BASE[@]}" -XX:-UseCompressedOops

    dump_jcmd jdk17-nocoops-noccp "$JDK17" fixture.HeapShapes - "${BASE[@]}" \
        -XX:-UseCompressedOops -XX:-UseCompressedClassPointers
    check_heapshapes jdk17-nocoops-noccp 1
    layout_report jdk17-nocoops-noccp "$JDK17" "${BASE[@]}" -XX:-UseCompressedOops -XX:-UseCompressedClassPointers

    dump_jcmd jdk17-align16 "$JDK17" fixture.HeapShapes - "${BASE[@]}" -XX:ObjectAlignmentInBytes=16
    check_heapshapes jdk17-align16 1
    layout_report jdk17-align16 "$JDK17" "${BASE[@]}" -XX:ObjectAlignmentInBytes=16

    # Class data sharing left at its default (on) here, to have one dump with it.
    dump_jmap_live jdk17-jmap-live "$JDK17" -Xmx64m -XX:+UseSerialGC
    check_heapshapes jdk17-jmap-live 0

    dump_oom jdk17-oom "$JDK17"
    check_oom jdk17-oom

    if [[ -n "$JDK21" ]]; then
        dump_jcmd jdk21-default "$JDK21" fixture.HeapShapes - "${BASE[@]}"
        check_heapshapes jdk21-default 1
        layout_report jdk21-default "$JDK21" "${BASE[@]}"
    fi

    if [[ -n "$JDK25" ]]; then
        dump_jcmd jdk25-default "$JDK25" fixture.HeapShapes - "${BASE[@]}"
        check_heapshapes jdk25-default 1
        layout_report jdk25-default "$JDK25" "${BASE[@]}"
        dump_jcmd jdk25-coh "$JDK25" fixture.HeapShapes - "${BASE[@]}" -XX:+UseCompactObjectHeaders
        check_heapshapes jdk25-coh 1
        layout_report jdk25-coh "$JDK25" "${BASE[@]}" -XX:+UseCompactObjectHeaders
    fi
}

# fixture.LongChain, once its chain is built: a plain jcmd dump.
chain_fixture() {
    start_fixture jdk17-chain "$JDK17" fixture.LongChain "${BASE[@]}"
    snapshot_jcmd jdk17-chain "$JDK17" fixture.LongChain \
        "fixture.LongChain after READY: 1,000 ChainLink objects, then the ChainTail" "${BASE[@]}"
    stop_fixture
    check_chain jdk17-chain
}

case "$SECTION" in
all)
    PREFIXES=(jdk17-)
    [[ -n "$JDK21" ]] && PREFIXES+=(jdk21-)
    [[ -n "$JDK25" ]] && PREFIXES+=(jdk25-)
    heapshapes_fixtures
    ;;
inspect)
    PREFIXES=(jdk17-inspect-)
    [[ -n "$JDK25" ]] && PREFIXES+=(jdk25-inspect-)
    ;;
chain)
    PREFIXES=(jdk17-chain)
    ;;
esac

if [[ "$SECTION" != chain ]]; then
    dump_inspect jdk17-inspect "$JDK17" "${INSPECT[@]}"
    check_inspect jdk17-inspect
    if [[ -n "$JDK25" ]]; then
        dump_inspect jdk25-inspect "$JDK25" "${INSPECT[@]}"
        check_inspect jdk25-inspect
    fi
fi
if [[ "$SECTION" != inspect ]]; then
    chain_fixture
fi

# Per-fixture table of fixture.* classes from the histograms (all generated fixtures).
summarize() {
    local f name
    printf 'fixture\tclass\tinstances\tbytes\tbytes_per_instance\n'
    for f in "$@"; do
        name="$(basename "$f" .histo.txt)"
        awk -v n="$name" '$4 ~ /fixture\./ && $2 > 0 {
            printf "%s\t%s\t%d\t%d\t%d\n", n, $4, $2, $3, $3 / $2 }' "$f" | sort -t "$(printf '\t')" -k2,2
    done
}

# --- install into testdata/jvm --------------------------------------------------

mkdir -p "$OUT"
for p in "${PREFIXES[@]}"; do
    rm -f "$OUT/$p"*.hprof.gz "$OUT/$p"*.histo.txt "$OUT/$p"*.info.txt "$OUT/$p"*.layout.txt
done
chmod 0644 "$STAGE"/*
mv "$STAGE"/* "$OUT"/
mapfile -t HISTOS < <(find "$OUT" -maxdepth 1 -name 'jdk*.histo.txt' | sort)
summarize "${HISTOS[@]}" >"$OUT/fixture-classes.tsv"

log "done:"
(cd "$OUT" && ls -l -- *.hprof.gz *.histo.txt *.info.txt *.layout.txt fixture-classes.tsv >&2 && du -sh . >&2)
