package hprofascii_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprofascii"
)

// jvmtiHead is the start of a JVMTI file, up to the body.
const jvmtiHead = "JAVA PROFILE 1.0.1, created Sat Mar 27 10:51:47 2021\n\n" +
	"Header for -agentlib:hprof (or -Xrunhprof) ASCII Output (JDK 5.0 JVMTI based)\n\n--------\n\n"

// replaceLine returns data with its line n (from 1) replaced by text,
// which may hold several lines or none.
func replaceLine(t *testing.T, data []byte, n int, text string) []byte {
	t.Helper()
	lines := strings.SplitAfter(string(data), "\n")
	if n < 1 || n > len(lines) {
		t.Fatalf("no line %d", n)
	}
	lines[n-1] = text
	return []byte(strings.Join(lines, ""))
}

// lineOf returns the number of the first line of data that starts with p.
func lineOf(t *testing.T, data []byte, p string) int {
	t.Helper()
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, p) {
			return i + 1
		}
	}
	t.Fatalf("no line starts with %q", p)
	return 0
}

// without returns the records of want except those for which drop is true.
func without(want []string, drop func(string) bool) []string {
	var out []string
	for _, w := range want {
		if !drop(w) {
			out = append(out, w)
		}
	}
	return out
}

func warningLines(ws []hprofascii.Warning) []int64 {
	var lines []int64
	for _, w := range ws {
		lines = append(lines, w.Line)
	}
	return lines
}

// TestGarbledRecords spoils single lines of the JVMTI fixture: each is
// reported at its line and skipped with the lines that continue it; every
// other record is read as usual, in every section.
func TestGarbledRecords(t *testing.T) {
	data := readFile(t, filepath.Join(fixtureDir, "jvmti.txt"))
	for _, tc := range []struct {
		line, garbage string
		drop          func(string) bool
	}{
		{"OBJ 50000193", "OBJ 5000zz93 (sz=96, trace=300001, class=java.lang.Thread@50000106)\n",
			func(s string) bool { return strings.HasPrefix(s, "OBJ #0 50000193") }},
		{"CLS 50000006", "CLS 50000006 (name=java.lang.String, trace=300000\n",
			func(s string) bool { return strings.HasPrefix(s, "CLS #0 50000006") }},
		{"ROOT 500001b4", "ROOT 500001b4 (kind=<JNI weak ref>, id=1f, trace=300000)\n",
			func(s string) bool { return strings.Contains(s, "ROOT_JNI_GLOBAL") }},
		{"    2 25.00% 75.00%", "    2 25.00 75.00%       120    1 1234567890 123456 300000 char[]\n",
			func(s string) bool { return strings.HasPrefix(s, "SITES row #0 2 ") }},
		{"TRACE 300001:", "TRACE 300001 (thread=200001)\n",
			func(s string) bool { return strings.HasPrefix(s, "TRACE 300001 ") }},
		{"    MONITOR Ljava/lang/Object;", "    MONITOR\n",
			func(s string) bool { return strings.Contains(s, "monitor #0 Ljava/lang/Object;") }},
		{"THREAD START (obj=500001a0", "THREAD START (obj=500001a0, id = 200002, name=\"worker\n",
			func(s string) bool { return strings.Contains(s, "serial=200002 name=") }},
		{"   1 90.00%", "\x00\x01\x02 binary garbage \xff\xfe\n\x03\x04\n",
			func(s string) bool { return strings.HasPrefix(s, "CPU row #0 1 ") }},
	} {
		t.Run(tc.line, func(t *testing.T) {
			n := lineOf(t, data, tc.line)
			in := replaceLine(t, data, n, tc.garbage)
			for _, variant := range [][]byte{in, crlf(in)} {
				s := scan(t, variant, hprofascii.Options{})
				if s.err != nil {
					t.Fatal(s.err)
				}
				if s.count != 1 || s.warnings[0].Line != int64(n) {
					t.Fatalf("warnings %v, want one at line %d", s.warnings, n)
				}
				checkRecords(t, s.records, without(jvmtiRecords, tc.drop))
			}
		})
	}
}

// TestGarbledContinuations spoils continuation lines: the record keeps
// its readable lines and each stretch of bad ones is reported once.
func TestGarbledContinuations(t *testing.T) {
	body := "TRACE 300001:\n\tDemo.run(Demo.java:7)\n\tnot a frame\n\talso not\n\tDemo.main(Demo.java:Native method)\n" +
		"HEAP DUMP BEGIN (1 objects, 16 bytes) Sat Mar 27 10:51:58 2021\n" +
		"OBJ 50000193 (sz=16, trace=0, class=Demo@50000106)\n\ta\t\t50000001\n\tb\t\tzz\n\tc\t\t50000003\n" +
		"ARR 500001e4 (sz=32, trace=0, nelems=2, elem type=Demo[]@5000008e)\n\t[0]\t\t500007a5\n\t[2]\t\t500007a9\n" +
		"CLS 50000006 (name=Demo, trace=0)\n\tsuper\t\t50000001\n\tparent\t\t50000002\n" +
		"ARR 500001e8 (sz=40, trace=0, nelems=12, elem type=char[])\n\t[0]\t\t500007a5\n" +
		"HEAP DUMP END\n" +
		"THREAD END (id = 200001)\n\t[0]\t\t500007a5\n"
	s := scan(t, []byte(jvmtiHead+body), hprofascii.Options{})
	if s.err != nil {
		t.Fatal(s.err)
	}
	want := []string{
		`TRACE 300001 thread=0 phase="" frames=[Demo|run|Demo.java|7 Demo|main|Demo.java|-3]`,
		`HEAP DUMP BEGIN #0 objects=1 bytes=16 2021-03-27 10:51:58`,
		`OBJ #0 50000193 sz=16 trace=0 Demo@50000106 fields=[a=50000001 c=50000003]`,
		`ARR #0 500001e4 sz=32 trace=0 n=2 object Demo[]@5000008e ofElement=false elements=[0=500007a5]`,
		`CLS #0 50000006 Demo trace=0 super=50000001 loader=0 signers=0 domain=0 statics=[] constants=[]`,
		`ARR #0 500001e8 sz=40 trace=0 n=12 char char[]@0 ofElement=false elements=[]`,
		`HEAP DUMP END #0`,
		`THREAD END serial=200001`,
	}
	checkRecords(t, s.records, want)
	// Body lines start at line 7: the bad frames (9, 10: one stretch), the
	// bad field (15), the element index out of range (19), the unknown CLS
	// line (22), element lines of a primitive array (24) and after a
	// THREAD END (27).
	if got, want := warningLines(s.warnings), []int64{9, 15, 19, 22, 24, 27}; !slices.Equal(got, want) {
		t.Errorf("warnings at lines %v, want %v: %v", got, want, s.warnings)
	}
}

// TestGarbledSections covers sections that are left open, closed without
// being opened, or interrupted by other records.
func TestGarbledSections(t *testing.T) {
	body := "SITES BEGIN (ordered by live bytes) Sat Mar 27 10:51:58 2021\n" +
		"    1 50.00% 50.00%       240    3       240     3 300001 Demo\n" +
		"THREAD START (obj=50000193, id = 200001, name=\"main\", group=\"main\")\n" +
		"    2 50.00% 100.00%       240    3       240     3 300002 Demo\n" +
		"CPU SAMPLES BEGIN (total = 5) Sat Mar 27 10:51:58 2021\n" +
		"   1 100.00% 100.00%       5 300001 Demo.run\n" +
		"SITES END\n" +
		"CPU SAMPLES END\n" +
		"MONITOR TIME END\n" +
		"10000  0.00% 99.99% 1234567890 12345 1234567890 123456 300001 x\n" +
		"count callee caller time\n" +
		"3 Demo.run()V <unknown caller> 7\n" +
		"HEAP DUMP BEGIN (-1 objects, 4294967295 bytes) not a date\n" +
		"HEAP DUMP END\n"
	s := scan(t, []byte(jvmtiHead+body), hprofascii.Options{})
	if s.err != nil {
		t.Fatal(s.err)
	}
	want := []string{
		`SITES BEGIN #0 by="live bytes" 2021-03-27 10:51:58`,
		`SITES row #0 1 50.00 50.00 240 3 240 3 300001 Demo`,
		`THREAD START obj=50000193 serial=200001 name="main" group="main"`,
		`SITES row #0 2 50.00 100.00 240 3 240 3 300002 Demo`,
		`CPU BEGIN #0 times=false total=5 2021-03-27 10:51:58`,
		`CPU row #0 1 100.00 100.00 5 300001 Demo|run`,
		`CPU END #0`,
		`old prof header #0`,
		`old prof row #0 3 Demo|run|()V || 7`,
		`HEAP DUMP BEGIN #0 objects=4294967295 bytes=4294967295 0001-01-01 00:00:00`,
		`HEAP DUMP END #0`,
	}
	checkRecords(t, s.records, want)
	// CPU SAMPLES BEGIN leaves SITES open (11), SITES END has no BEGIN
	// (13), MONITOR TIME END neither (15), and the row outside any section
	// right after it (16) is part of the same garbled stretch.
	if got, want := warningLines(s.warnings), []int64{11, 13, 15}; !slices.Equal(got, want) {
		t.Errorf("warnings at lines %v, want %v: %v", got, want, s.warnings)
	}
	wide := "SITES BEGIN (ordered by live bytes) Sat Mar 27 10:51:58 2021\n" +
		"10000  0.00% 99.99% 1234567890 12345 1234567890 123456 300001 x\n"
	s = scan(t, []byte(jvmtiHead+wide), hprofascii.Options{})
	if !errors.Is(s.err, hprofascii.ErrTruncated) || len(s.records) != 2 ||
		s.records[1] != "SITES row #0 10000 0.00 99.99 1234567890 12345 1234567890 123456 300001 x" {
		t.Errorf("records %v, error %v", s.records, s.err)
	}
}

// TestLongLines checks that a line longer than MaxLine is skipped with a
// warning, without being buffered, and the file read on.
func TestLongLines(t *testing.T) {
	long := "   1 100.00% 100.00%       5 300001 " + strings.Repeat("x", 10<<20) + "\n"
	body := "CPU SAMPLES BEGIN (total = 5) Sat Mar 27 10:51:58 2021\n" + long +
		"   2 100.00% 100.00%       5 300001 Demo.run\nCPU SAMPLES END\n" +
		"TRACE 1:\n\tDemo.run(Demo.java:1)\n\t" + strings.Repeat("y", 2<<20) + "\n\tDemo.main(Demo.java:2)\n"
	data := []byte(jvmtiHead + body)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s := scan(t, data, hprofascii.Options{MaxLine: 1 << 20})
	runtime.ReadMemStats(&after)
	if s.err != nil {
		t.Fatal(s.err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("%d bytes allocated reading lines of 10 MiB with a 1 MiB limit", alloc)
	}
	want := []string{
		`CPU BEGIN #0 times=false total=5 2021-03-27 10:51:58`,
		`CPU row #0 2 100.00 100.00 5 300001 Demo|run`,
		`CPU END #0`,
		`TRACE 1 thread=0 phase="" frames=[Demo|run|Demo.java|1 Demo|main|Demo.java|2]`,
	}
	checkRecords(t, s.records, want)
	if got, want := warningLines(s.warnings), []int64{8, 13}; !slices.Equal(got, want) {
		t.Errorf("warnings at lines %v, want %v: %v", got, want, s.warnings)
	}
}

// TestBatches checks that the lines of a very large object or array come
// in several records, all of them delivered.
func TestBatches(t *testing.T) {
	var b strings.Builder
	b.WriteString(jvmtiHead + "HEAP DUMP BEGIN (2 objects, 96 bytes) Sat Mar 27 10:51:58 2021\n")
	const elements, fields = 10000, 5000
	fmt.Fprintf(&b, "ARR 50000001 (sz=40016, trace=0, nelems=%d, elem type=java.lang.Object[]@50000002)\n", elements)
	for i := range elements {
		fmt.Fprintf(&b, "\t[%d]\t\t%x\n", i, 0x60000000+i)
	}
	b.WriteString("OBJ 50000003 (sz=20000, trace=0, class=Big@50000004)\n")
	for i := range fields {
		fmt.Fprintf(&b, "\tf%d\t\t%x\n", i, 0x70000000+i)
	}
	b.WriteString("HEAP DUMP END\n")
	r, err := hprofascii.NewReader(strings.NewReader(b.String()), hprofascii.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []hprofascii.Kind
	var gotElements, gotFields int
	for r.Next() {
		rec := r.Record()
		kinds = append(kinds, rec.Kind)
		switch rec.Kind {
		case hprofascii.KindArray, hprofascii.KindArrayElements:
			if rec.Array.ID != 0x50000001 || rec.Array.Length != elements || string(rec.Array.TypeName) != "java.lang.Object[]" {
				t.Fatalf("%s record carries the array %x %d %s", rec.Kind, rec.Array.ID, rec.Array.Length, rec.Array.TypeName)
			}
			for _, e := range rec.Array.Elements {
				if e.Index != uint32(gotElements) || e.ID != 0x60000000+uint64(gotElements) {
					t.Fatalf("element %d is %d=%x", gotElements, e.Index, e.ID)
				}
				gotElements++
			}
			if want := int64(9 + gotElements - len(rec.Array.Elements)); rec.Kind == hprofascii.KindArrayElements && rec.Line != want {
				t.Errorf("elements from line %d, want %d", rec.Line, want)
			}
		case hprofascii.KindObject, hprofascii.KindObjectFields:
			if rec.Object.ID != 0x50000003 || string(rec.Object.ClassName) != "Big" {
				t.Fatalf("%s record carries the object %x %s", rec.Kind, rec.Object.ID, rec.Object.ClassName)
			}
			for _, f := range rec.Object.Fields {
				if string(f.Name) != fmt.Sprint("f", gotFields) || f.ID != 0x70000000+uint64(gotFields) {
					t.Fatalf("field %d is %s=%x", gotFields, f.Name, f.ID)
				}
				gotFields++
			}
		}
	}
	if r.Err() != nil || r.WarningCount() != 0 {
		t.Fatalf("error %v, warnings %v", r.Err(), r.Warnings())
	}
	want := []hprofascii.Kind{hprofascii.KindHeapDumpBegin, hprofascii.KindArray, hprofascii.KindArrayElements,
		hprofascii.KindArrayElements, hprofascii.KindObject, hprofascii.KindObjectFields, hprofascii.KindHeapDumpEnd}
	if !slices.Equal(kinds, want) || gotElements != elements || gotFields != fields {
		t.Errorf("kinds %v, %d elements, %d fields; want %v, %d, %d", kinds, gotElements, gotFields, want, elements, fields)
	}
}

// TestNotASCII checks the files NewReader refuses, and why.
func TestNotASCII(t *testing.T) {
	for _, tc := range []struct {
		name, data, msg string
		truncated       bool
	}{
		{"empty", "", "empty", true},
		{"binary", "JAVA PROFILE 1.0.2\x00\x00\x00\x00\x04\x00\x00\x01\x7c\x00\x00\x00\x00\n", "binary HPROF", false},
		{"text", "hello\nworld\n", "not an hprof ASCII file", false},
		{"first line cut", "JAVA PROFILE 1.0.1, cre", "first line", true},
		{"prelude cut", "JAVA PROFILE 1.0.1, created Sat Mar 27 10:51:47 2021\n\nHeader for -Xhprof ASCII Output\n", "prelude", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := hprofascii.NewReader(strings.NewReader(tc.data), hprofascii.Options{Name: "f.txt"})
			checkFormatError(t, err)
			if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "f.txt: line ") ||
				errors.Is(err, hprofascii.ErrTruncated) != tc.truncated {
				t.Errorf("error %v, want one saying %q (truncated: %t)", err, tc.msg, tc.truncated)
			}
		})
	}
}

// TestNoSeparator reads a file whose prelude lacks its -------- line.
func TestNoSeparator(t *testing.T) {
	data := "JAVA PROFILE 1.0.1, created Wed Nov 28 00:09:52 2001\n\nHeader for -Xhprof ASCII Output\n\n" +
		"THREAD START     mentioned in the prelude\nTHREAD START (obj=6f1260, id = 3, name=\"main\", group=\"main\")\n"
	s := scan(t, []byte(data), hprofascii.Options{})
	if s.err != nil || len(s.records) != 1 || s.header.BodyLine != 6 || s.header.Generation != hprofascii.GenerationJVMPI ||
		s.count != 1 || s.warnings[0].Line != 6 {
		t.Errorf("records %v, header %+v, error %v, warnings %v", s.records, s.header, s.err, s.warnings)
	}
}

// TestNoHeader reads a file whose beginning is missing: it starts with
// a body line.
func TestNoHeader(t *testing.T) {
	s := scan(t, []byte("TRACE 7:\n\t<empty>\nTHREAD END (id = 3)\n"), hprofascii.Options{})
	want := []string{`TRACE 7 thread=0 phase="" frames=[]`, `THREAD END serial=3`}
	if s.err != nil || s.header != (hprofascii.Header{BodyLine: 1}) || s.count != 1 || s.warnings[0].Line != 1 {
		t.Errorf("header %+v, error %v, warnings %v", s.header, s.err, s.warnings)
	}
	checkRecords(t, s.records, want)
}

func TestJavaName(t *testing.T) {
	for printed, want := range map[string]string{
		"Ljava/lang/Object;":       "java.lang.Object",
		"[I":                       "int[]",
		"[[D":                      "double[][]",
		"[Ljava/lang/String;":      "java.lang.String[]",
		"[Ljava.lang.String;":      "java.lang.String[]",
		"[L<Unknown>;":             "<Unknown>[]",
		"java.util.HashMap$Node[]": "java.util.HashMap$Node[]",
		"java/lang/Thread":         "java.lang.Thread",
		"int":                      "int",
		"I":                        "I",
	} {
		if got := hprofascii.JavaName([]byte(printed)); got != want {
			t.Errorf("JavaName(%q) = %q, want %q", printed, got, want)
		}
	}
}

// TestNoRecordAfterHeader: a good header followed by nothing readable is
// an error (not a truncation, not an empty file) naming where reading
// failed.
func TestNoRecordAfterHeader(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"", "line 6: no record after the header: the file ends here"},
		{"\x00\x01binary junk\n\tmore junk\nstill junk\n", "line 7: no record could be read after the header: unreadable line outside any section"},
		{"THREAD START (obj=5000", "line 7: no record after the header: the file ends inside this line"},
	} {
		s := scan(t, []byte(jvmtiHead+tc.body), hprofascii.Options{Name: "x.txt"})
		if s.err == nil || errors.Is(s.err, hprofascii.ErrTruncated) || !strings.Contains(s.err.Error(), "x.txt: "+tc.want) || len(s.records) != 0 {
			t.Errorf("body %q: %d records, error %v; want one containing %q", tc.body, len(s.records), s.err, tc.want)
		}
	}
}
