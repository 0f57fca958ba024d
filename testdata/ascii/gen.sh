#!/usr/bin/env bash
# Writes the synthetic hprof ASCII fixtures of this directory. Every line
# is printed with the printf format the agents use for it
# (docs/hprof-ascii.md), so widths, separators and TABs are the agents' own.
set -euo pipefail
cd "$(dirname "$0")"

created() { printf 'JAVA PROFILE 1.0.1, created %s\n\n' "$1"; }
separator() { printf '\n--------\n\n'; }
thread_start() { printf 'THREAD START (obj=%x, id = %d, name="%s", group="%s")\n' "$@"; }
thread_end() { printf 'THREAD END (id = %d)\n' "$1"; }
frame() { printf '\t%s.%s(%s:%s)\n' "$@"; }
site_columns_jvmti() {
	printf '          percent          live          alloc'"'"'ed  stack class\n'
	printf ' rank   self  accum     bytes objs     bytes  objs trace name\n'
}
site_jvmti() { printf '%5u %5.2f%% %5.2f%% %9u %4u %9u %5u %5u %s\n' "$@"; }
site_columns_jvmpi() {
	printf '          percent         live       alloc'"'"'ed  stack class\n'
	printf ' rank   self  accum    bytes objs   bytes objs trace name\n'
}
site_jvmpi() { printf '%5u %5.2f%% %5.2f%% %8u %4u %7u %4u %5u %s\n' "$@"; }
cpu_row() { printf '%4u %5.2f%% %5.2f%% %7u %5u %s\n' "$@"; }
monitor_row() { printf '%4u %5.2f%% %5.2f%% %7u %5u %s\n' "$@"; }

jvmti() {
	created 'Sat Mar 27 10:51:47 2021'
	printf 'Header for -agentlib:hprof (or -Xrunhprof) ASCII Output (JDK 5.0 JVMTI based)\n\n'
	printf 'Synthetic hprofctl fixture: the records of the JVMTI agent (JDK 5-8).\n'
	separator
	thread_start 0x50000193 200001 main main
	thread_start 0x500001a0 200002 'worker "1", (x)' main
	thread_start 0x500001a4 200003 '' ''
	printf 'TRACE %u:\n\t<empty>\n' 300000
	printf 'TRACE %u: (thread=%d)\n' 300001 200001
	frame java.lang.Object wait Object.java 'Native method'
	frame java.lang.Thread join Thread.java 'Unknown line'
	frame Demo '<init>' Demo.java 12
	frame 'Demo$Inner' run '<Unknown Source>' 'Compiled method'
	printf 'TRACE %u: (thread=%d) (from %s phase of JVM)\n' 300002 200002 start
	frame Unknown_class '<Unknown Method>' '<Unknown Source>' 'Unknown line'
	printf 'TRACE %u: (from %s phase of JVM)\n\t<empty>\n' 300003 dead
	printf 'SLEEP: timeout=%d, thread %d\n' 100 200002
	printf 'WAIT: MONITOR %s, timeout=%d, thread %d\n' 'Ljava/lang/Object;' 0 200001
	printf 'WAITED: MONITOR %s, time_waited=%d, thread %d\n' 'Ljava/lang/Object;' 15 200001
	printf 'EXIT: MONITOR %s, <unknown thread>\n' '[Ljava/lang/String;'
	printf 'SLEEP: timeout=%d, <unknown thread>\n' 5
	thread_end 200003
	printf 'MONITOR DUMP BEGIN\n'
	printf '    THREAD %d, trace %d, status: %s\n' 200001 300001 CW 200002 300002 'S|intr|native|MW' 200003 300000 ZO
	printf '    MONITOR %s\n' 'Ljava/lang/Object;'
	printf '\towner: thread %d, entry count: %d\n' 200002 2
	printf '\twaiting to enter: thread %d, <unknown thread>\n' 200001
	printf '\twaiting to be notified:\n'
	printf '    MONITOR %s unowned\n' '[I'
	printf '\twaiting to enter:\n'
	printf '\twaiting to be notified: thread %d\n' 200001
	printf 'MONITOR DUMP END\n'
	printf 'MONITOR TIME BEGIN (total = %u ms) %s\n' 27 'Sat Mar 27 10:51:58 2021'
	printf 'rank   self  accum   count trace monitor\n'
	monitor_row 1 81.48 81.48 3 300001 'java.lang.Object (Java)'
	monitor_row 2 18.52 100.00 1 300002 'int[] (Java)'
	printf 'MONITOR TIME END\n'
	printf 'HEAP DUMP BEGIN (%u objects, %u bytes) %s\n' 7 480 'Sat Mar 27 10:51:58 2021'
	printf 'ROOT %x (kind=<thread>, id=%u, trace=%u)\n' 0x50000193 200001 300001
	printf 'ROOT %x (kind=<unknown>)\n' 0x500001b0
	printf 'ROOT %x (kind=<JNI global ref>, id=%x, trace=%u)\n' 0x500001b4 0x1f 300000
	printf 'ROOT %x (kind=<JNI local ref>, thread=%u, frame=%d)\n' 0x500001b8 200001 2
	printf 'ROOT %x (kind=<Java stack>, thread=%u, frame=%d)\n' 0x500001bc 200001 0
	printf 'ROOT %x (kind=<native stack>, thread=%u)\n' 0x500001c0 200002
	printf 'ROOT %x (kind=<system class>, name=%s)\n' 0x50000006 java.lang.String
	printf 'ROOT %x (kind=<thread block>, thread=%u)\n' 0x500001c4 200002
	printf 'ROOT %x (kind=<busy monitor>)\n' 0x500001c8
	printf 'CLS %x (name=%s, trace=%u)\n' 0x50000006 java.lang.String 300000
	printf '\tsuper\t\t%x\n\tloader\t\t%x\n\tsigners\t\t%x\n\tdomain\t\t%x\n' 0x50000001 0x90000001 0x90000002 0x90000003
	printf '\tstatic %s\t%x\n' CASE_INSENSITIVE_ORDER 0x500001cc x 0x500001d0
	printf '\tconstant pool entry %d\t%x\n' 7 0x500001d4
	printf 'CLS %x (name=%s, trace=%u)\n' 0x50000001 java.lang.Object 300000
	printf 'OBJ %x (sz=%u, trace=%u, class=%s@%x)\n' 0x50000193 96 300001 java.lang.Thread 0x50000106
	printf '\t%s\t\t%x\n' name 0x500001d8
	printf '\t%s\t%x\n' contextClassLoader 0x90000001
	printf '\t%s\t\t%x\n' group 0x500001dc
	printf 'OBJ %x (sz=%u, trace=%u, class=%s@%x)\n' 0x500001e0 16 0 'Demo$Inner' 0x50000200
	printf 'ARR %x (sz=%u, trace=%u, nelems=%u, elem type=%s@%x)\n' 0x500001e4 32 300000 4 'java.lang.String[]' 0x5000008e
	printf '\t[%u]\t\t%x\n' 0 0x500007a5 3 0x500007a9
	printf 'ARR %x (sz=%u, trace=%u, nelems=%u, elem type=%s)\n' 0x500001e8 40 300000 12 'char[]'
	printf 'ARR %x (sz=%u, trace=%u, nelems=%u, elem type=%s@%x)\n' 0x500001ec 16 300000 0 'int[][]' 0x50000090
	printf 'HEAP DUMP END\n'
	printf 'SITES BEGIN (ordered by %s) %s\n' 'live bytes' 'Sat Mar 27 10:51:58 2021'
	site_columns_jvmti
	site_jvmti 1 50.00 50.00 240 3 240 3 300001 java.lang.Thread
	site_jvmti 2 25.00 75.00 120 1 1234567890 123456 300000 'char[]'
	site_jvmti 3 25.00 100.00 120 2 120 2 300002 'java.lang.String[]'
	printf 'SITES END\n'
	printf '%s BEGIN (total = %d) %s\n' 'CPU TIME (ms)' 1000 'Sat Mar 27 10:51:58 2021'
	printf 'rank   self  accum   count trace method\n'
	cpu_row 1 90.00 90.00 5 300001 'Demo$Inner.run'
	cpu_row 2 10.00 100.00 1 300000 '<empty trace>'
	printf '%s END\n' 'CPU TIME (ms)'
	printf 'SITES BEGIN (ordered by %s) %s\n' 'allocated bytes' 'Sat Mar 27 10:52:03 2021'
	site_columns_jvmti
	site_jvmti 1 100.00 100.00 240 3 480 6 300001 java.lang.Thread
	printf 'SITES END\n'
	printf '%s BEGIN (total = %d) %s\n' 'CPU TIME (ms)' 0 'Sat Mar 27 10:52:03 2021'
	printf '%s END\n' 'CPU TIME (ms)'
	printf 'HEAP DUMP BEGIN (%u objects, %u bytes) %s\n' 1 16 'Sat Mar  6 09:05:03 2021'
	printf 'OBJ %x (sz=%u, trace=%u, class=%s@%x)\n' 0x500001e0 16 0 'Demo$Inner' 0x50000200
	printf 'HEAP DUMP END\n'
}

jvmpi() {
	created 'Wed Nov 28 00:09:52 2001'
	printf 'Header for -Xhprof ASCII Output\n\n'
	printf 'Synthetic hprofctl fixture: the records of the JVMPI agent (JDK 1.2-1.4).\n'
	separator
	thread_start 0x6f14b0 1 Finalizer system
	thread_start 0x6f1260 3 main main
	printf 'TRACE %u:\n\t<empty>\n' 1
	printf 'TRACE %u: (thread=%d)\n' 2 3
	frame java.lang.Object wait Object.java 'Native method'
	frame SimNet main SimNet.java 719
	printf 'SLEEP:'; printf ' timeout=%d,' 100; printf ' thread %d' 3; printf '\n'
	printf 'WAIT: MONITOR'; printf ' %s(%x)' java.lang.Object 0x6f2000; printf ', timeout=%d,' 0; printf ' thread %d' 3; printf '\n'
	printf 'WAIT: MONITOR'; printf ' %s(%x)' '[I' 0x6f2010; printf ', timeout=%d,' 10; printf ' <unknown thread>'; printf '\n'
	thread_end 3
	printf 'MONITOR DUMP BEGIN\n'
	printf '    THREAD %d, trace %d, status: %s\n' 1 1 CW 3 2 'S|intr|MW' 4 1 R
	printf '    THREAD %d, trace %d, status: \n' 5 1
	printf '    MONITOR'; printf ' %s(%x)' java.lang.Object 0x6f2000
	printf '\n\towner:'; printf ' thread %d' 4; printf ', entry count: %d' 2
	printf '\n\twaiting to enter:'; printf ' thread %d' 3
	printf '\n\twaiting to be notified:'; printf ' thread %d' 1; printf '\n'
	printf '    MONITOR'; printf ' %s(%x)' '[Ljava.lang.String;' 0x6f2020; printf ' unowned'; printf '\n'
	printf '    RAW MONITOR'; printf ' "%s"(0x%x)' _hprof_dump_lock 0x8092a10
	printf '\n\towner:'; printf ' <unknown thread>'; printf ', entry count: %d' 1
	printf '\n\twaiting to enter:'; printf ' thread %d' 3; printf ','; printf ' thread %d' 4; printf '\n'
	printf 'MONITOR DUMP END\n'
	printf 'MONITOR TIME BEGIN (total = %u ms) %s\n' 12 'Wed Nov 28 00:10:04 2001'
	printf 'rank   self  accum   count trace monitor\n'
	printf '%4u %5.2f%% %5.2f%% %7u %5u' 1 75.00 75.00 3 2; printf ' %s(%x)' java.lang.Object 0x6f2000; printf ' (Java)\n'
	printf '%4u %5.2f%% %5.2f%% %7u %5u' 2 25.00 100.00 1 1; printf ' "%s"(%x) (Raw)\n' _hprof_dump_lock 0x8092a10
	printf 'MONITOR TIME END\n'
	printf 'HEAP DUMP BEGIN (%u objects, %u bytes) %s\n' 5 200 'Wed Nov 28 00:10:04 2001'
	printf 'ROOT %x (kind=<thread>, id=%u, trace=%u)\n' 0x6f1260 3 2
	printf 'ROOT %x (kind=<JNI global ref>, id=%x, trace=%u)\n' 0x6f3000 0x8093000 1
	printf 'ROOT %x (kind=<Java stack>, thread=%u, frame=%d)\n' 0x6f3010 3 1
	printf 'ROOT %x (kind=<system class>, name=%s)\n' 0x6f3020 '<Unknown>'
	printf 'CLS %x (name=%s, trace=%u)\n' 0x6f4000 SimNet 1
	printf '\tsuper\t\t%x\n' 0x6f4010
	printf '\tconstant[%u]\t%x\n' 3 0x6f3000
	printf '\tstatic %s\t%x\n' nodes 0x6f3030
	printf 'OBJ %x (sz=%u, trace=%u, class=%s@%x)\n' 0x6f1260 64 2 java.lang.Thread 0x6f4020
	printf '\t%s\t\t%x\n' name 0x6f3040
	printf 'ARR %x (sz=%u, trace=%u, nelems=%u, elem type=%s@%x)\n' 0x6f3030 24 1 3 'SimNet$Node' 0x6f4030
	printf '\t[%u]\t\t%x\n' 1 0x6f3050
	printf 'ARR %x (sz=%u, trace=%u, nelems=%u, elem type=' 0x6f3040 28 1 6; printf 'char)\n'
	printf 'ARR %x (sz=%u, trace=%u, nelems=%u, elem type=' 0x6f3060 24 1 2; printf 'long)\n'
	printf 'HEAP DUMP END\n'
	printf 'SITES BEGIN (ordered by %s) %s\n' 'live bytes' 'Wed Nov 28 00:10:04 2001'
	site_columns_jvmpi
	site_jvmpi 1 50.00 50.00 100 2 100 2 2 '[I'
	site_jvmpi 2 30.00 80.00 60 1 123456789 12345 1 '[L<Unknown>;'
	site_jvmpi 3 20.00 100.00 40 1 40 1 1 'SimNet$Node'
	printf 'SITES END\n'
	printf '%s BEGIN (total = %u) %s\n' 'CPU SAMPLES' 10 'Wed Nov 28 00:10:04 2001'
	printf 'rank   self  accum   count trace method\n'
	cpu_row 1 60.00 60.00 6 2 java.lang.Object.wait
	cpu_row 2 40.00 100.00 4 1 '<empty trace>'
	printf '%s END\n' 'CPU SAMPLES'
}

oldprof() {
	printf 'count callee caller time\n'
	printf '%d ' 5; printf '%s.%s%s ' java.lang.String valueOf '(I)Ljava/lang/String;'; printf '%s.%s%s ' SimNet report '()V'; printf '%d\n' 12
	printf '%d ' 2; printf '%s.%s%s ' SimNet main '([Ljava/lang/String;)V'; printf '%s ' '<unknown caller>'; printf '%d\n' 3
	printf '%d ' 1; printf '%s ' '<unknown callee>'; printf '%s ' '<unknown caller>'; printf '%d\n' 0
}

jvmti >jvmti.txt
jvmpi >jvmpi.txt
oldprof >oldprof.txt
