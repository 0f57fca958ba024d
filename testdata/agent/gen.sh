#!/usr/bin/env bash
# Regenerates the classic hprof agent fixtures in testdata/agent/: genuine
# output of the JDK 5-8 hprof agent (rebuilt for JDK 17, ../shared/hprof-agent)
# for small programs with known contents, each with the JVM's own class
# histogram and thread dump of the same process.
#
#   bash testdata/agent/gen.sh      (from anywhere)
#
# Needs a JDK 17 (java, javac, jcmd) first on PATH (the agent's launcher runs
# `java`) and the agent launcher: HPROF_AGENT, or ../shared/hprof-agent/java-hprof
# beside the repository root. Each program prints READY once its heap or its
# threads are in place; the script then takes `jcmd PID GC.class_histogram
# -all` (no GC) and `jcmd PID Thread.print`, and only then triggers the
# agent's output: SIGQUIT, or a go file on which the program exits. It checks
# the known counts against the JVM's histogram and the agent's output (the
# binary files read by its own agentcheck.BinaryCounts, not by hprofctl) and
# fails on any mismatch; the files in testdata/agent/ are replaced only after
# every fixture of the run was produced and checked. It takes about 2 minutes.
# See testdata/agent/EXPECTED.md for the facts known by construction.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
SRC="$HERE/java/src"
OUT="$HERE"
AGENT="${HPROF_AGENT:-$ROOT/../shared/hprof-agent/java-hprof}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/agent-fixtures.XXXXXXXX")"
CLASSES="$WORK/classes"
STAGE="$WORK/out"
mkdir -p "$CLASSES" "$STAGE"

PID=""
cleanup() {
    if [[ -n "$PID" ]] && kill -0 "$PID" 2>/dev/null; then
        kill -9 "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

log() { printf '[agent/gen.sh] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[[ -x "$AGENT" ]] || die "no hprof agent launcher at $AGENT (set HPROF_AGENT)"
command -v java >/dev/null && command -v javac >/dev/null && command -v jcmd >/dev/null ||
    die "java, javac and jcmd must be on PATH"
MAJOR="$(java -version 2>&1 | sed -n 's/.*version "\([0-9][0-9]*\).*/\1/p' | head -n1)"
[[ "$MAJOR" == 17 ]] || die "java on PATH is JDK $MAJOR; the agent launcher needs JDK 17"
log "java: $(command -v java) (JDK $MAJOR), agent: $AGENT"

mapfile -t SOURCES < <(find "$SRC" -name '*.java' | sort)
javac -Xlint:all -Werror --release 17 -encoding UTF-8 -d "$CLASSES" "${SOURCES[@]}"

# Small heap, no class data sharing (fewer classes and symbols in the output),
# no TLABs, as the other fixtures; serial GC so that System.gc() is one full GC.
FLAGS=(-Xshare:off -Xmx32m -XX:+UseSerialGC -XX:-UseTLAB)
# Allocation and stack traces 6 frames deep: Sub's allocation trace is
# Base.<init>, Mid.<init>, Sub.<init>, Tree.makeSubs, Shapes.main.
DEPTH=6

# --- helpers ----------------------------------------------------------------------

NAME=""
LOGFILE=""
ERRFILE=""
AGENTOUT=""
GOFILE=""
COMMAND=""

# start NAME OUTFILE AGENTOPTS MAIN [JAVA FLAGS...] -- [PROGRAM ARGS...]
# Starts the program under the agent (agent output in $WORK/OUTFILE), sets
# PID, waits for READY on its stdout.
start() {
    NAME="$1"
    AGENTOUT="$WORK/$2"
    local opts="$3,file=$AGENTOUT" main="$4"
    shift 4
    local jflags=() args=()
    while [[ $# -gt 0 && "$1" != -- ]]; do jflags+=("$1"); shift; done
    [[ $# -gt 0 ]] && shift
    args=("$@")
    LOGFILE="$WORK/$NAME.stdout"
    ERRFILE="$WORK/$NAME.stderr"
    GOFILE="$WORK/$NAME.go"
    local shown=(java-hprof "$opts" "${FLAGS[@]}" "${jflags[@]}" -cp '$CLASSES' "$main" "${args[@]}")
    COMMAND="${shown[*]}"
    "$AGENT" "$opts" "${FLAGS[@]}" "${jflags[@]}" -cp "$CLASSES" "$main" "${args[@]}" \
        >"$LOGFILE" 2>"$ERRFILE" &
    PID=$!
    local i
    for ((i = 0; i < 1200; i++)); do
        if grep -qx READY "$LOGFILE" 2>/dev/null; then
            return 0
        fi
        kill -0 "$PID" 2>/dev/null || { cat "$ERRFILE" >&2; die "$NAME: JVM exited before READY"; }
        sleep 0.1
    done
    die "$NAME: no READY after 120 s"
}

# The JVM's own view, taken at READY, before the agent is asked for anything.
jvm_views() {
    jcmd "$PID" GC.class_histogram -all >"$STAGE/$NAME.histo.txt"
    jcmd "$PID" Thread.print >"$STAGE/$NAME.threads.txt"
    jcmd "$PID" VM.flags >"$WORK/$NAME.flags"
}

# wait_for FILE PATTERN WHAT: waits (at most 120 s) for a line matching PATTERN.
wait_for() {
    local i
    for ((i = 0; i < 1200; i++)); do
        if grep -q "$2" "$1" 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    die "$NAME: no $3 after 120 s"
}

# SIGQUIT: the agent writes its heap dump, sites or monitor dump (doe=n: and
# nothing at exit); the JVM prints its own thread dump on stdout.
sigquit() { # DONEPATTERN (on the agent's stderr)
    kill -QUIT "$PID"
    wait_for "$ERRFILE" "$1" "'$1' on stderr after SIGQUIT"
}

# Ends the JVM with SIGTERM (the agent closes its file at VM death) and waits.
stop() {
    kill "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
    PID=""
}

# The program exits by itself once the go file exists; wait for it.
go_and_wait() {
    touch "$GOFILE"
    local rc=0
    wait "$PID" || rc=$?
    PID=""
    [[ "$rc" == 0 ]] || { cat "$ERRFILE" >&2; die "$NAME: JVM exited with status $rc"; }
}

# Replace scratch paths by placeholders in recorded text.
scrub() { sed -e "s|$CLASSES|\$CLASSES|g" -e "s|$WORK|\$WORK|g"; }

write_info() { # OUTPUTNAME TRIGGER
    {
        echo "fixture:   $NAME"
        echo "generator: testdata/agent/gen.sh"
        echo "output:    $1 (the agent's file, committed as written except for gzip -9 -n)"
        echo "command:   $COMMAND"
        echo "launcher:  java-hprof is ../shared/hprof-agent/java-hprof (see its README.md)"
        echo "histogram: jcmd PID GC.class_histogram -all ($NAME.histo.txt.gz), taken at READY"
        echo "threads:   jcmd PID Thread.print ($NAME.threads.txt), taken at READY"
        echo "trigger:   $2"
        echo
        echo "== java -version"
        java -version 2>&1
        echo
        echo "== jcmd PID VM.flags (at READY)"
        cat "$WORK/$NAME.flags"
        echo
        echo "== program stdout"
        cat "$LOGFILE"
        echo
        echo "== program stderr (the agent's messages)"
        cat "$ERRFILE"
    } | scrub >"$STAGE/$NAME.info.txt"
}

# Copies the agent's output into the stage, compressed.
keep_output() { # STAGENAME
    gzip -9 -n -c "$AGENTOUT" >"$STAGE/$1.gz"
    gzip -9 -n "$STAGE/$NAME.histo.txt"
}

# --- checks -------------------------------------------------------------------------

histo_count() { # HISTOFILE CLASSNAME -> instance count (0 if absent)
    awk -v c="$2" '$4 == c { print $2; found = 1 } END { if (!found) print 0 }' "$1"
}

expect_count() { # WHAT GOT WANT
    [[ "$2" == "$3" ]] || die "$NAME: $1 is $2, expected $3"
}

# Instance counts of Shapes, by construction (class name as jcmd prints it).
SHAPES_COUNTS=(
    agentfix.Leaf 1000 agentfix.Twig 100 agentfix.Base 100 agentfix.Mid 200
    agentfix.Sub 500 agentfix.Entry 100 agentfix.Elem 4 agentfix.WeakOnly 1
    agentfix.StackOnly 1 agentfix.StackChild 1 agentfix.StackHolder 1 agentfix.Litter 50
    '[Lagentfix.Base;' 1 '[Lagentfix.Elem;' 1 '[Lagentfix.Twig;' 1
)

check_shapes_jvm() {
    local h="$STAGE/$NAME.histo.txt" k
    for ((k = 0; k < ${#SHAPES_COUNTS[@]}; k += 2)); do
        expect_count "histogram ${SHAPES_COUNTS[k]}" "$(histo_count "$h" "${SHAPES_COUNTS[k]}")" "${SHAPES_COUNTS[k + 1]}"
    done
    grep -q '^"stack-holder"' "$STAGE/$NAME.threads.txt" || die "$NAME: no stack-holder thread"
    grep -q 'agentfix.StackHolder.hold' "$STAGE/$NAME.threads.txt" || die "$NAME: stack-holder not in hold()"
}

# Java name of a histogram class name: [Lagentfix.Base; -> agentfix.Base[].
java_name() {
    local c="$1"
    if [[ "$c" == '[L'* ]]; then
        c="${c#\[L}"
        c="${c%;}[]"
    fi
    printf '%s' "$c"
}

# The agent's heap dump holds exactly the known number of each fixture
# object (instances and object arrays): counted from the ASCII OBJ and ARR
# lines, or by agentcheck.BinaryCounts from the binary records.
check_heap_counts() { # a|b
    local k cls got listing="$WORK/$NAME.counts"
    if [[ "$1" == b ]]; then
        java -cp "$CLASSES" agentcheck.BinaryCounts heap "$AGENTOUT" >"$listing"
    else
        grep -q '^HEAP DUMP END' "$AGENTOUT" || die "$NAME: no HEAP DUMP END"
        sed -n -e 's/^OBJ .*class=\([^@]*\)@.*/\1/p' -e 's/^ARR .*elem type=\([^@]*\[\]\)@.*/\1/p' "$AGENTOUT" |
            sort | uniq -c | awk '{ print $2, $1 }' >"$listing"
    fi
    for ((k = 0; k < ${#SHAPES_COUNTS[@]}; k += 2)); do
        cls="$(java_name "${SHAPES_COUNTS[k]}")"
        got="$(awk -v c="$cls" '$1 == c { print $2; found = 1 } END { if (!found) print 0 }' "$listing")"
        expect_count "agent heap dump $cls" "$got" "${SHAPES_COUNTS[k + 1]}"
    done
}

# SITES rows (live bytes, live objs, alloc'ed bytes, alloc'ed objs, class)
# known by construction; sizes are the JVM's (GetObjectSize) for JDK 17 with
# compressed oops: Leaf, Twig, Base, Litter 16, Mid 24, Sub 32, byte[16384]
# 16400, byte[1024] 1040. A site with no live object (the 250 temporary Leaf)
# is not listed.
# ASCII rows are rank, self, accum, live bytes, live objs, alloc'ed bytes,
# alloc'ed objs, trace, class; agentcheck.BinaryCounts prints the binary
# ALLOC_SITES entries as the five compared columns.
check_sites() { # a|b
    local listing="$WORK/$NAME.sites" row
    if [[ "$1" == b ]]; then
        java -cp "$CLASSES" agentcheck.BinaryCounts sites "$AGENTOUT" >"$listing"
    else
        grep -q '^SITES END' "$AGENTOUT" || die "$NAME: no SITES END"
        awk '/^SITES BEGIN/ { in_ = 1; next } /^SITES END/ { in_ = 0 }
            in_ && $1 ~ /^[0-9]+$/ { print $4, $5, $6, $7, $9 }' "$AGENTOUT" >"$listing"
    fi
    for row in '16000 1000 16000 1000 agentfix.Leaf' '1600 100 4800 300 agentfix.Twig' \
        '1600 100 1600 100 agentfix.Base' '4800 200 4800 200 agentfix.Mid' \
        '16000 500 16000 500 agentfix.Sub' '800 50 800 50 agentfix.Litter' \
        '262400 16 262400 16 byte[]' '8320 8 8320 8 byte[]'; do
        grep -qxF "$row" "$listing" || die "$NAME: no SITES row '$row'"
    done
}

check_cpu() { # SECTION
    local f="$AGENTOUT"
    grep -q "^$1 BEGIN" "$f" || die "$NAME: no $1 section"
    local first
    first="$(awk -v s="$1 BEGIN" 'index($0, s) == 1 { in_ = 1; next }
        in_ && $1 == "1" { print $6; exit }' "$f")"
    expect_count "rank 1 method of $1" "$first" agentfix.Hot.spin
    grep -q "^rounds 4000, spin 90000, light 10000" "$LOGFILE" || die "$NAME: unexpected program output"
}

check_cpu_times_counts() {
    local m got
    for m in agentfix.Hot.spin agentfix.Hot.light; do
        got="$(awk -v m="$m" '/^CPU TIME \(ms\) BEGIN/ { in_ = 1; next } in_ && $6 == m { print $4 }' "$AGENTOUT")"
        expect_count "CPU TIME count of $m" "$got" 4000
    done
}

check_deadlock() {
    local t="$STAGE/$NAME.threads.txt" f="$AGENTOUT" c
    grep -q '^Found one Java-level deadlock:' "$t" || die "$NAME: the JVM reports no deadlock"
    for c in cycle-a cycle-b cycle-c bystander mail-waiter mail-owner; do
        grep -q "^\"$c\"" "$t" || die "$NAME: no thread $c"
    done
    for c in LockA LockB LockC Mailbox; do
        grep -q "^    MONITOR Lagentfix/$c;\$" "$f" || die "$NAME: no MONITOR DUMP entry for $c"
    done
    expect_count "MONITOR DUMP monitors" "$(grep -c '^    MONITOR ' "$f")" 4
}

check_contention() {
    local f="$AGENTOUT" rows bad
    grep -q '^lock entries 100 (expected 100)$' "$LOGFILE" || die "$NAME: unexpected lock entries"
    bad="$(awk -F'\t' '$1 ~ /^mc-waiter-/ && $2 != 2' "$LOGFILE")"
    [[ -z "$bad" ]] || die "$NAME: a waiter's JVM blocked count is not 2: $bad"
    expect_count "waiter lines" "$(grep -c '^mc-waiter-' "$LOGFILE")" 50
    grep -q '^MONITOR TIME BEGIN (total = [1-9]' "$f" || die "$NAME: no MONITOR TIME with a total"
    rows="$(awk '/^MONITOR TIME BEGIN/ { in_ = 1; next } /^MONITOR TIME END/ { in_ = 0 }
        in_ && $6 == "agentfix.ContendedLock" && $4 == 2' "$f" | wc -l)"
    expect_count "MONITOR TIME rows of ContendedLock with count 2" "$rows" 50
    expect_count "MONITOR DUMP sections" "$(grep -c '^MONITOR DUMP BEGIN' "$f")" 2
}

# --- fixtures ------------------------------------------------------------------------

heap_fixture() { # NAME FORMAT(a|b)
    local file opts
    if [[ "$2" == b ]]; then
        file="$1.hprof"
        opts="heap=dump,format=b,depth=$DEPTH,doe=n"
    else
        file="$1.hprof.txt"
        opts="heap=dump,depth=$DEPTH,doe=n"
    fi
    start "$1" "$file" "$opts" agentfix.Shapes --
    jvm_views
    check_shapes_jvm
    sigquit 'Dumping Java heap ... done'
    stop
    check_heap_counts "$2"
    write_info "$file.gz" "kill -QUIT PID after the jcmd commands; agent's heap dump written; then kill PID (SIGTERM)"
    keep_output "$file"
    log "$1: OK"
}

sites_fixture() { # NAME FORMAT(a|b)
    local file opts
    if [[ "$2" == b ]]; then
        file="$1.hprof"
        opts="heap=sites,format=b,depth=$DEPTH,doe=n"
    else
        file="$1.hprof.txt"
        opts="heap=sites,depth=$DEPTH,doe=n"
    fi
    start "$1" "$file" "$opts" agentfix.Shapes --
    jvm_views
    check_shapes_jvm
    sigquit 'Dumping allocation sites ... done'
    stop
    check_sites "$2"
    write_info "$file.gz" "kill -QUIT PID after the jcmd commands; agent's sites written; then kill PID (SIGTERM)"
    keep_output "$file"
    log "$1: OK"
}

cpu_fixture() { # NAME cpu=samples|cpu=times SECTION
    local file="$1.hprof.txt"
    start "$1" "$file" "$2,depth=$DEPTH" agentfix.Hot -Xint -- "$WORK/$1.go"
    jvm_views
    go_and_wait
    check_cpu "$3"
    if [[ "$2" == cpu=times ]]; then check_cpu_times_counts; fi
    write_info "$file.gz" "go file created after the jcmd commands; the program exits (System.exit(0)) and the agent writes $3 at exit"
    keep_output "$file"
    log "$1: OK"
}

heap_fixture heap-ascii a
heap_fixture heap-binary b
sites_fixture sites-ascii a
sites_fixture sites-binary b

cpu_fixture cpu-samples cpu=samples 'CPU SAMPLES'
cpu_fixture cpu-times cpu=times 'CPU TIME (ms)'

start monitor-deadlock monitor-deadlock.hprof.txt "monitor=y,thread=y,depth=$DEPTH,doe=n" agentfix.Deadlock --
jvm_views
sigquit 'Dumping contended monitor usage ... done'
wait_for "$AGENTOUT" '^MONITOR DUMP END' 'MONITOR DUMP END'
stop
check_deadlock
write_info monitor-deadlock.hprof.txt.gz "kill -QUIT PID after the jcmd commands; agent's MONITOR DUMP written; then kill PID (SIGTERM)"
keep_output monitor-deadlock.hprof.txt
log "monitor-deadlock: OK"

start monitor-contention monitor-contention.hprof.txt "monitor=y,thread=y,depth=$DEPTH" agentfix.Contention -- "$WORK/monitor-contention.go"
jvm_views
sigquit 'Dumping contended monitor usage ... done'
wait_for "$AGENTOUT" '^MONITOR DUMP END' 'MONITOR DUMP END'
go_and_wait
check_contention
write_info monitor-contention.hprof.txt.gz "kill -QUIT PID after the jcmd commands, with every waiter BLOCKED (first MONITOR DUMP); then the go file: the program runs its two rounds and exits, and the agent writes a second MONITOR DUMP and MONITOR TIME at exit"
keep_output monitor-contention.hprof.txt
log "monitor-contention: OK"

# --- install into testdata/agent ------------------------------------------------------

for n in heap-ascii heap-binary sites-ascii sites-binary cpu-samples cpu-times monitor-deadlock monitor-contention; do
    rm -f "$OUT/$n".*
done
chmod 0644 "$STAGE"/*
mv "$STAGE"/* "$OUT"/
log "done:"
(cd "$OUT" && ls -l -- *.gz *.threads.txt *.info.txt >&2 && du -ch -- *.gz *.txt | tail -n1 >&2)
