package hprofascii_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/parser/hprofascii"
)

// The records of testdata/ascii/jvmti.txt, written from the values
// gen.sh prints.
var jvmtiRecords = []string{
	`THREAD START obj=50000193 serial=200001 name="main" group="main"`,
	`THREAD START obj=500001a0 serial=200002 name="worker \"1\", (x)" group="main"`,
	`THREAD START obj=500001a4 serial=200003 name="" group=""`,
	`TRACE 300000 thread=0 phase="" frames=[]`,
	`TRACE 300001 thread=200001 phase="" frames=[java.lang.Object|wait|Object.java|-3 java.lang.Thread|join|Thread.java|-1 Demo|<init>|Demo.java|12 Demo$Inner|run||-2]`,
	`TRACE 300002 thread=200002 phase="start" frames=[Unknown_class|||-1]`,
	`TRACE 300003 thread=0 phase="dead" frames=[]`,
	`monitor event 1 (0) timeout=100 waited=0 thread=200002`,
	`monitor event 2 Ljava/lang/Object;(0) timeout=0 waited=0 thread=200001`,
	`monitor event 3 Ljava/lang/Object;(0) timeout=0 waited=15 thread=200001`,
	`monitor event 4 [Ljava/lang/String;(0) timeout=0 waited=0 thread=0`,
	`monitor event 1 (0) timeout=5 waited=0 thread=0`,
	`THREAD END serial=200003`,
	`MONITOR DUMP BEGIN #0`,
	`MONITOR DUMP thread #0 200001 trace=300001 S=false intr=false native=false state="CW"`,
	`MONITOR DUMP thread #0 200002 trace=300002 S=true intr=true native=true state="MW"`,
	`MONITOR DUMP thread #0 200003 trace=300000 S=false intr=false native=false state="ZO"`,
	`MONITOR DUMP monitor #0 Ljava/lang/Object;(0) owned=true owner=200002 entries=2 enter=[200001 0] notify=[]`,
	`MONITOR DUMP monitor #0 [I(0) owned=false owner=0 entries=0 enter=[] notify=[200001]`,
	`MONITOR DUMP END #0`,
	`MONITOR TIME BEGIN #0 total=27 2021-03-27 10:51:58`,
	`MONITOR TIME row #0 1 81.48 81.48 3 300001 java.lang.Object(0)`,
	`MONITOR TIME row #0 2 18.52 100.00 1 300002 int[](0)`,
	`MONITOR TIME END #0`,
	`HEAP DUMP BEGIN #0 objects=7 bytes=480 2021-03-27 10:51:58`,
	`ROOT #0 ROOT_THREAD_OBJ 50000193 jni=0 thread=200001 trace=300001 frame=-1 class=""`,
	`ROOT #0 ROOT_UNKNOWN 500001b0 jni=0 thread=0 trace=0 frame=-1 class=""`,
	`ROOT #0 ROOT_JNI_GLOBAL 500001b4 jni=1f thread=0 trace=300000 frame=-1 class=""`,
	`ROOT #0 ROOT_JNI_LOCAL 500001b8 jni=0 thread=200001 trace=0 frame=2 class=""`,
	`ROOT #0 ROOT_JAVA_FRAME 500001bc jni=0 thread=200001 trace=0 frame=0 class=""`,
	`ROOT #0 ROOT_NATIVE_STACK 500001c0 jni=0 thread=200002 trace=0 frame=-1 class=""`,
	`ROOT #0 ROOT_STICKY_CLASS 50000006 jni=0 thread=0 trace=0 frame=-1 class="java.lang.String"`,
	`ROOT #0 ROOT_THREAD_BLOCK 500001c4 jni=0 thread=200002 trace=0 frame=-1 class=""`,
	`ROOT #0 ROOT_MONITOR_USED 500001c8 jni=0 thread=0 trace=0 frame=-1 class=""`,
	`CLS #0 50000006 java.lang.String trace=300000 super=50000001 loader=90000001 signers=90000002 domain=90000003 statics=[CASE_INSENSITIVE_ORDER=500001cc x=500001d0] constants=[7=500001d4]`,
	`CLS #0 50000001 java.lang.Object trace=300000 super=0 loader=0 signers=0 domain=0 statics=[] constants=[]`,
	`OBJ #0 50000193 sz=96 trace=300001 java.lang.Thread@50000106 fields=[name=500001d8 contextClassLoader=90000001 group=500001dc]`,
	`OBJ #0 500001e0 sz=16 trace=0 Demo$Inner@50000200 fields=[]`,
	`ARR #0 500001e4 sz=32 trace=300000 n=4 object java.lang.String[]@5000008e ofElement=false elements=[0=500007a5 3=500007a9]`,
	`ARR #0 500001e8 sz=40 trace=300000 n=12 char char[]@0 ofElement=false elements=[]`,
	`ARR #0 500001ec sz=16 trace=300000 n=0 object int[][]@50000090 ofElement=false elements=[]`,
	`HEAP DUMP END #0`,
	`SITES BEGIN #0 by="live bytes" 2021-03-27 10:51:58`,
	`SITES row #0 1 50.00 50.00 240 3 240 3 300001 java.lang.Thread`,
	`SITES row #0 2 25.00 75.00 120 1 1234567890 123456 300000 char[]`,
	`SITES row #0 3 25.00 100.00 120 2 120 2 300002 java.lang.String[]`,
	`SITES END #0`,
	`CPU BEGIN #0 times=true total=1000 2021-03-27 10:51:58`,
	`CPU row #0 1 90.00 90.00 5 300001 Demo$Inner|run`,
	`CPU row #0 2 10.00 100.00 1 300000 |`,
	`CPU END #0`,
	`SITES BEGIN #1 by="allocated bytes" 2021-03-27 10:52:03`,
	`SITES row #1 1 100.00 100.00 240 3 480 6 300001 java.lang.Thread`,
	`SITES END #1`,
	`CPU BEGIN #1 times=true total=0 2021-03-27 10:52:03`,
	`CPU END #1`,
	`HEAP DUMP BEGIN #1 objects=1 bytes=16 2021-03-06 09:05:03`,
	`OBJ #1 500001e0 sz=16 trace=0 Demo$Inner@50000200 fields=[]`,
	`HEAP DUMP END #1`,
}

// The records of testdata/ascii/jvmpi.txt, written from the values
// gen.sh prints.
var jvmpiRecords = []string{
	`THREAD START obj=6f14b0 serial=1 name="Finalizer" group="system"`,
	`THREAD START obj=6f1260 serial=3 name="main" group="main"`,
	`TRACE 1 thread=0 phase="" frames=[]`,
	`TRACE 2 thread=3 phase="" frames=[java.lang.Object|wait|Object.java|-3 SimNet|main|SimNet.java|719]`,
	`monitor event 1 (0) timeout=100 waited=0 thread=3`,
	`monitor event 2 java.lang.Object(6f2000) timeout=0 waited=0 thread=3`,
	`monitor event 2 [I(6f2010) timeout=10 waited=0 thread=0`,
	`THREAD END serial=3`,
	`MONITOR DUMP BEGIN #0`,
	`MONITOR DUMP thread #0 1 trace=1 S=false intr=false native=false state="CW"`,
	`MONITOR DUMP thread #0 3 trace=2 S=true intr=true native=false state="MW"`,
	`MONITOR DUMP thread #0 4 trace=1 S=false intr=false native=false state="R"`,
	`MONITOR DUMP thread #0 5 trace=1 S=false intr=false native=false state=""`,
	`MONITOR DUMP monitor #0 java.lang.Object(6f2000) owned=true owner=4 entries=2 enter=[3] notify=[1]`,
	`MONITOR DUMP monitor #0 [Ljava.lang.String;(6f2020) owned=false owner=0 entries=0 enter=[] notify=[]`,
	`MONITOR DUMP monitor #0 raw "_hprof_dump_lock"(8092a10) owned=true owner=0 entries=1 enter=[3 4] notify=[]`,
	`MONITOR DUMP END #0`,
	`MONITOR TIME BEGIN #0 total=12 2001-11-28 00:10:04`,
	`MONITOR TIME row #0 1 75.00 75.00 3 2 java.lang.Object(6f2000)`,
	`MONITOR TIME row #0 2 25.00 100.00 1 1 raw "_hprof_dump_lock"(8092a10)`,
	`MONITOR TIME END #0`,
	`HEAP DUMP BEGIN #0 objects=5 bytes=200 2001-11-28 00:10:04`,
	`ROOT #0 ROOT_THREAD_OBJ 6f1260 jni=0 thread=3 trace=2 frame=-1 class=""`,
	`ROOT #0 ROOT_JNI_GLOBAL 6f3000 jni=8093000 thread=0 trace=1 frame=-1 class=""`,
	`ROOT #0 ROOT_JAVA_FRAME 6f3010 jni=0 thread=3 trace=0 frame=1 class=""`,
	`ROOT #0 ROOT_STICKY_CLASS 6f3020 jni=0 thread=0 trace=0 frame=-1 class="<Unknown>"`,
	`CLS #0 6f4000 SimNet trace=1 super=6f4010 loader=0 signers=0 domain=0 statics=[nodes=6f3030] constants=[3=6f3000]`,
	`OBJ #0 6f1260 sz=64 trace=2 java.lang.Thread@6f4020 fields=[name=6f3040]`,
	`ARR #0 6f3030 sz=24 trace=1 n=3 object SimNet$Node@6f4030 ofElement=true elements=[1=6f3050]`,
	`ARR #0 6f3040 sz=28 trace=1 n=6 char char@0 ofElement=true elements=[]`,
	`ARR #0 6f3060 sz=24 trace=1 n=2 long long@0 ofElement=true elements=[]`,
	`HEAP DUMP END #0`,
	`SITES BEGIN #0 by="live bytes" 2001-11-28 00:10:04`,
	`SITES row #0 1 50.00 50.00 100 2 100 2 2 [I`,
	`SITES row #0 2 30.00 80.00 60 1 123456789 12345 1 [L<Unknown>;`,
	`SITES row #0 3 20.00 100.00 40 1 40 1 1 SimNet$Node`,
	`SITES END #0`,
	`CPU BEGIN #0 times=false total=10 2001-11-28 00:10:04`,
	`CPU row #0 1 60.00 60.00 6 2 java.lang.Object|wait`,
	`CPU row #0 2 40.00 100.00 4 1 |`,
	`CPU END #0`,
}

var oldProfRecords = []string{
	`old prof header #0`,
	`old prof row #0 5 java.lang.String|valueOf|(I)Ljava/lang/String; SimNet|report|()V 12`,
	`old prof row #0 2 SimNet|main|([Ljava/lang/String;)V || 3`,
	`old prof row #0 1 || || 0`,
}

func TestFixtures(t *testing.T) {
	for _, tc := range []struct {
		file    string
		want    []string
		header  hprofascii.Header
		created string
	}{
		{"jvmti.txt", jvmtiRecords, hprofascii.Header{Version: "1.0.1", Generation: hprofascii.GenerationJVMTI, BodyLine: 8}, "2021-03-27 10:51:47"},
		{"jvmpi.txt", jvmpiRecords, hprofascii.Header{Version: "1.0.1", Generation: hprofascii.GenerationJVMPI, BodyLine: 8}, "2001-11-28 00:09:52"},
		{"oldprof.txt", oldProfRecords, hprofascii.Header{OldProf: true, BodyLine: 1}, ""},
	} {
		data := readFile(t, filepath.Join(fixtureDir, tc.file))
		for _, lineEnd := range []string{"LF", "CRLF"} {
			t.Run(tc.file+"/"+lineEnd, func(t *testing.T) {
				in := data
				if lineEnd == "CRLF" {
					in = crlf(data)
				}
				s := scan(t, in, hprofascii.Options{Name: tc.file})
				if s.err != nil || s.count != 0 {
					t.Fatalf("error %v, warnings %v", s.err, s.warnings)
				}
				created := tc.header
				if tc.created != "" {
					created.Created, _ = time.Parse(time.DateTime, tc.created)
				}
				if s.header != created {
					t.Errorf("header %+v, want %+v", s.header, created)
				}
				checkRecords(t, s.records, tc.want)
				checkLines(t, in, s)
			})
		}
	}
}

func checkRecords(t *testing.T, got, want []string) {
	t.Helper()
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			t.Errorf("record %d missing, want %s", i, want[i])
		case i >= len(want):
			t.Errorf("record %d is an extra %s", i, got[i])
		case got[i] != want[i]:
			t.Errorf("record %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// checkLines checks that each record's Line is the line it comes from:
// a line that starts with the text its kind is printed with.
func checkLines(t *testing.T, data []byte, s scanned) {
	t.Helper()
	lines := strings.Split(string(data), "\n")
	starts := map[hprofascii.Kind]string{
		hprofascii.KindThreadStart: "THREAD START", hprofascii.KindThreadEnd: "THREAD END", hprofascii.KindTrace: "TRACE ",
		hprofascii.KindSitesBegin: "SITES BEGIN", hprofascii.KindSitesEnd: "SITES END", hprofascii.KindCPUBegin: "CPU ",
		hprofascii.KindCPUEnd: "CPU ", hprofascii.KindOldProfBegin: "count callee", hprofascii.KindMonitorTimeBegin: "MONITOR TIME BEGIN",
		hprofascii.KindMonitorTimeEnd: "MONITOR TIME END", hprofascii.KindMonitorDumpBegin: "MONITOR DUMP BEGIN",
		hprofascii.KindMonitorDumpThread: "    THREAD ", hprofascii.KindMonitorDumpEnd: "MONITOR DUMP END",
		hprofascii.KindHeapDumpBegin: "HEAP DUMP BEGIN", hprofascii.KindRoot: "ROOT ", hprofascii.KindClass: "CLS ",
		hprofascii.KindObject: "OBJ ", hprofascii.KindObjectFields: "\t", hprofascii.KindArray: "ARR ",
		hprofascii.KindArrayElements: "\t[", hprofascii.KindHeapDumpEnd: "HEAP DUMP END",
	}
	for i, k := range s.kinds {
		line := lines[s.lines[i]-1]
		if p, ok := starts[k]; ok && !strings.HasPrefix(line, p) {
			t.Errorf("%s record at line %d, which is %q", k, s.lines[i], line)
		}
	}
}
