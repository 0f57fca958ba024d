#!/usr/bin/env bash
# Writes the synthetic MONITOR DUMP fixtures of this directory: java.hprof.txt
# files of the classic hprof agent whose monitors deadlock. No real file with
# a MONITOR DUMP section is known, so every line is printed with the printf
# format the agent uses for it (docs/hprof-ascii.md, file structure and
# MONITOR DUMP): widths, separators and TABs are the agents' own, the
# values are chosen by hand.
#
#   bash testdata/threads/agent-gen.sh      (from anywhere)
set -euo pipefail
cd "$(dirname "$0")"

created() { printf 'JAVA PROFILE 1.0.1, created %s\n\n' "$1"; }
separator() { printf '\n--------\n\n'; }
thread_start() { printf 'THREAD START (obj=%x, id = %d, name="%s", group="%s")\n' "$@"; }
frame() { printf '\t%s.%s(%s:%s)\n' "$@"; }

# JVMTI (JDK 5-8) reports only Java monitors, and only owned ones: the cycle
# goes through the monitors of two objects. holder-left owns Cycle$Left and
# waits to enter Cycle$Right, holder-right the reverse; notified-waiter
# waits to be notified on Cycle$Right (no wait-for edge); main runs.
jvmti() {
	created 'Mon Mar 29 14:02:11 2021'
	printf 'Header for -agentlib:hprof (or -Xrunhprof) ASCII Output (JDK 5.0 JVMTI based)\n\n'
	printf 'Synthetic hprofctl fixture: a MONITOR DUMP of the JVMTI agent with a deadlock.\n'
	separator
	thread_start 0x50000193 200001 main main
	thread_start 0x500001a0 200002 holder-left main
	thread_start 0x500001a4 200003 holder-right main
	thread_start 0x500001a8 200004 notified-waiter main
	printf 'TRACE %u: (thread=%d)\n' 300001 200001
	frame java.lang.Thread sleep Thread.java 'Native method'
	frame Cycle main Cycle.java 40
	printf 'TRACE %u: (thread=%d)\n' 300002 200002
	frame Cycle lockRight Cycle.java 21
	frame Cycle lockLeft Cycle.java 17
	frame 'Cycle$1' run Cycle.java 30
	printf 'TRACE %u: (thread=%d)\n' 300003 200003
	frame Cycle lockLeft Cycle.java 16
	frame Cycle lockRight Cycle.java 22
	frame 'Cycle$2' run Cycle.java 33
	printf 'TRACE %u: (thread=%d)\n' 300004 200004
	frame java.lang.Object wait Object.java 'Native method'
	frame Cycle awaitRight Cycle.java 26
	printf 'MONITOR DUMP BEGIN\n'
	printf '    THREAD %d, trace %d, status: %s\n' 200001 300001 SL 200002 300002 MW 200003 300003 MW 200004 300004 CW
	printf '    MONITOR %s\n' 'LCycle$Left;'
	printf '\towner: thread %d, entry count: %d\n' 200002 1
	printf '\twaiting to enter: thread %d\n' 200003
	printf '\twaiting to be notified:\n'
	printf '    MONITOR %s\n' 'LCycle$Right;'
	printf '\towner: thread %d, entry count: %d\n' 200003 1
	printf '\twaiting to enter: thread %d\n' 200002
	printf '\twaiting to be notified: thread %d\n' 200004
	printf 'MONITOR DUMP END\n'
}

# JVMPI (JDK 1.2-1.4) reports Java and raw monitors, owned or not: raw-holder
# owns the raw monitor cycle_lock and waits to enter the monitor of a
# Cycle$Guard, which java-holder owns while it waits to enter cycle_lock;
# notified-waiter waits to be notified on the Guard. Entry counts are
# waiters plus contenders, as HotSpot's JVMPI filled them in.
jvmpi() {
	created 'Thu Nov 29 09:14:27 2001'
	printf 'Header for -Xhprof ASCII Output\n\n'
	printf 'Synthetic hprofctl fixture: a MONITOR DUMP of the JVMPI agent with a deadlock.\n'
	separator
	thread_start 0x6f1260 1 main main
	thread_start 0x6f14b0 2 raw-holder main
	thread_start 0x6f14c0 3 java-holder main
	thread_start 0x6f14d0 4 notified-waiter main
	printf 'TRACE %u: (thread=%d)\n' 1 1
	frame java.lang.Thread sleep Thread.java 'Native method'
	frame Cycle main Cycle.java 40
	printf 'TRACE %u: (thread=%d)\n' 2 2
	frame Cycle enterGuard Cycle.java 18
	frame Cycle nativeLocked Cycle.java 'Native method'
	printf 'TRACE %u: (thread=%d)\n' 3 3
	frame Cycle nativeLock Cycle.java 'Native method'
	frame Cycle guarded Cycle.java 24
	printf 'TRACE %u: (thread=%d)\n' 4 4
	frame java.lang.Object wait Object.java 'Native method'
	frame Cycle awaitGuard Cycle.java 29
	printf 'MONITOR DUMP BEGIN\n'
	printf '    THREAD %d, trace %d, status: %s\n' 1 1 R 2 2 MW 3 3 MW 4 4 CW
	printf '    MONITOR'; printf ' %s(%x)' 'Cycle$Guard' 0x6f2000
	printf '\n\towner:'; printf ' thread %d' 3; printf ', entry count: %d' 2
	printf '\n\twaiting to enter:'; printf ' thread %d' 2
	printf '\n\twaiting to be notified:'; printf ' thread %d' 4; printf '\n'
	printf '    RAW MONITOR'; printf ' "%s"(0x%x)' cycle_lock 0x8092a10
	printf '\n\towner:'; printf ' thread %d' 2; printf ', entry count: %d' 1
	printf '\n\twaiting to enter:'; printf ' thread %d' 3; printf '\n'
	printf 'MONITOR DUMP END\n'
}

jvmti >agent-jvmti-monitor-cycle.hprof.txt
jvmpi >agent-jvmpi-monitor-cycle.hprof.txt
