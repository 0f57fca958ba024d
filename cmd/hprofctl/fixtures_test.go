package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// layoutClasses are the fixture.Layout* classes of testdata/java in the
// order of HeapShapes.LAYOUT_NAMES: class k has 11+k instances.
var layoutClasses = []string{
	"LayoutEmpty", "LayoutBoolean", "LayoutByte", "LayoutChar", "LayoutShort", "LayoutInt",
	"LayoutFloat", "LayoutLong", "LayoutDouble", "LayoutRef", "LayoutByteLong", "LayoutIntByteRef",
	"LayoutBoolShortDouble", "LayoutAllPrims", "LayoutIntLong", "LayoutThreeBytes", "LayoutFiveRefs",
	"LayoutP1", "LayoutC1", "LayoutA1", "LayoutA2", "LayoutA3", "LayoutPBool", "LayoutPBoolChildIntRef",
	"LayoutPEmpty", "LayoutPEmptyChildInt", "LayoutPLong", "LayoutPLongChildByte", "LayoutPIntLong",
	"LayoutPIntLongChildByte", "LayoutPRef", "LayoutPRefChildLong", "LayoutPShort",
	"LayoutPShortChildRefByte", "LayoutStaticOnly",
}

// fixtureCounts is how many instances of each fixture.* class the
// HeapShapes program creates (testdata/jvm/EXPECTED.md).
func fixtureCounts(withWeakOnly bool) map[string]int64 {
	m := map[string]int64{
		"fixture.Payload": 100, "fixture.ArrayElem": 5, "fixture.StackOnly": 1, "fixture.StackHolder": 1,
		"fixture.Payload[]": 2, "fixture.Payload[][]": 1,
	}
	if withWeakOnly {
		m["fixture.WeakOnly"] = 1
	}
	for k, name := range layoutClasses {
		m["fixture."+name] = int64(11 + k)
	}
	return m
}

// heapShapesDumps are the HeapShapes fixtures whose histogram the JVM
// printed right after the dump, with no allocation in between that the
// dump could miss.
var heapShapesDumps = []string{
	"jdk17-default", "jdk17-gz", "jdk17-nocoops", "jdk17-nocoops-noccp", "jdk17-align16",
	"jdk17-jmap-live", "jdk25-default", "jdk25-coh",
}

func fixturePath(t *testing.T, name string) string {
	return filepath.Join(repoRoot(t), "testdata", "jvm", name)
}

// TestHistoFixtureClassCounts checks the instance counts of the classes the
// fixture program creates against the program itself, and their bytes
// against the JVM's own histogram of the same process.
func TestHistoFixtureClassCounts(t *testing.T) {
	for _, name := range heapShapesDumps {
		t.Run(name, func(t *testing.T) {
			ours := histoByClass(t, fixturePath(t, name+".hprof.gz"), "--match", `^fixture\.`)
			jvm := readJVMHistogram(t, fixturePath(t, name+".histo.txt"))
			want := fixtureCounts(name != "jdk17-jmap-live")
			for class, n := range want {
				got := ours[class]
				if got.Instances != n {
					t.Errorf("%s: %d instances, the program made %d", class, got.Instances, n)
				}
				if got.ShallowBytes != jvm[class].ShallowBytes {
					t.Errorf("%s: %d bytes, the JVM's histogram says %d", class, got.ShallowBytes, jvm[class].ShallowBytes)
				}
			}
			for class := range ours {
				if _, ok := want[class]; !ok {
					t.Errorf("unexpected class %s in the histogram", class)
				}
			}
		})
	}
}

// undumpedClasses are classes whose class objects the JDK 25 dumper left
// out: JFR's event-class transformer replaced them with instrumented
// copies, and the dumper writes LOAD_CLASS but no CLASS_DUMP for a class
// no longer marked loaded. The JVM's histogram still counts their mirrors.
var undumpedClasses = map[string][]string{
	"jdk25-default": {"jdk.internal.event.Event", "jdk.internal.event.ThreadSleepEvent"},
	"jdk25-coh":     {"jdk.internal.event.Event", "jdk.internal.event.ThreadSleepEvent"},
}

// TestHistoEqualsJVMHistogram compares every class of the JVM's histogram,
// JDK classes included, with ours: same instances, same bytes — but for
// the class objects a dump lacks, which info must name.
func TestHistoEqualsJVMHistogram(t *testing.T) {
	for _, name := range heapShapesDumps {
		t.Run(name, func(t *testing.T) {
			ours := histoByClass(t, fixturePath(t, name+".hprof.gz"))
			jvm := readJVMHistogram(t, fixturePath(t, name+".histo.txt"))
			if missing := undumpedClasses[name]; missing != nil {
				var in infoJSON
				runJSON(t, &in, "info", fixturePath(t, name+".hprof.gz"))
				var detail string
				for _, a := range in.Anomalies {
					if a.Kind == "class-not-dumped" {
						detail = a.Detail
					}
				}
				for _, c := range missing {
					if !strings.Contains(detail, c) {
						t.Errorf("info does not name %s among the classes not dumped: %q", c, detail)
					}
				}
				if o, j := ours["java.lang.Class"].Instances, jvm["java.lang.Class"].Instances; o+int64(len(missing)) != j {
					t.Errorf("java.lang.Class: ours %d + %d not dumped, JVM %d", o, len(missing), j)
				}
				delete(jvm, "java.lang.Class")
				delete(ours, "java.lang.Class")
			}
			for class, j := range jvm {
				if o := ours[class]; o != j {
					t.Errorf("%s: ours %d instances %d bytes, JVM %d instances %d bytes", class, o.Instances, o.ShallowBytes, j.Instances, j.ShallowBytes)
				}
			}
			for class, o := range ours {
				if _, ok := jvm[class]; !ok {
					t.Errorf("%s: %d instances that the JVM's histogram does not list", class, o.Instances)
				}
			}
		})
	}
}

// TestHistoOOMDump checks the -XX:+HeapDumpOnOutOfMemoryError dump: the
// program filled a list with OomChunk objects until the error and printed
// how many it made (1881, in jdk17-oom.info.txt).
func TestHistoOOMDump(t *testing.T) {
	ours := histoByClass(t, fixturePath(t, "jdk17-oom.hprof.gz"), "--match", `^fixture\.`)
	jvm := readJVMHistogram(t, fixturePath(t, "jdk17-oom.histo.txt"))
	if got := ours["fixture.OomChunk"]; got.Instances != 1881 || got.ShallowBytes != jvm["fixture.OomChunk"].ShallowBytes {
		t.Errorf("OomChunk: %+v, want 1881 instances and the JVM's %d bytes", got, jvm["fixture.OomChunk"].ShallowBytes)
	}
}

// TestHistoFieldSizes checks --size fields: only the field bytes the dump
// records, references counted at the dump's 8-byte id size.
func TestHistoFieldSizes(t *testing.T) {
	ours := histoByClass(t, fixturePath(t, "jdk17-default.hprof.gz"), "--size", "fields", "--match", `^fixture\.Layout(C1|Long|FiveRefs|Empty)$`)
	want := map[string]int64{
		"fixture.LayoutC1":       29 * (1 + 8), // byte b (LayoutP1) + long l
		"fixture.LayoutLong":     18 * 8,
		"fixture.LayoutFiveRefs": 27 * 5 * 8,
		"fixture.LayoutEmpty":    0,
	}
	for class, b := range want {
		if ours[class].ShallowBytes != b {
			t.Errorf("%s: %d field bytes, want %d", class, ours[class].ShallowBytes, b)
		}
	}
}

type infoJSON struct {
	Format       string           `json:"format"`
	Version      string           `json:"version"`
	IDSize       int              `json:"id_size"`
	Compression  string           `json:"compression"`
	Objects      int64            `json:"objects"`
	ClassObjects int64            `json:"class_objects"`
	Classes      int              `json:"classes"`
	GCRoots      map[string]int64 `json:"gc_roots"`
	Threads      int              `json:"threads"`
	ShallowBytes int64            `json:"shallow_bytes"`
	Truncated    bool             `json:"truncated"`
	Anomalies    []struct {
		Kind   string `json:"kind"`
		Count  int64  `json:"count"`
		Detail string `json:"detail"`
	} `json:"anomalies"`
}

// jvmTotals reads, from a histogram the JVM printed, its Total line and
// the java.lang.Class line: objects and bytes in all, and class objects.
func jvmTotals(t *testing.T, path string) (objects, bytes, classObjects int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	total := regexp.MustCompile(`(?m)^Total\s+(\d+)\s+(\d+)\s*$`).FindSubmatch(data)
	mirrors := regexp.MustCompile(`(?m)^\s*\d+:\s+(\d+)\s+\d+\s+java\.lang\.Class(?:\s|$)`).FindSubmatch(data)
	if total == nil || mirrors == nil {
		t.Fatalf("%s: no Total or java.lang.Class line", path)
	}
	objects, _ = strconv.ParseInt(string(total[1]), 10, 64)
	bytes, _ = strconv.ParseInt(string(total[2]), 10, 64)
	classObjects, _ = strconv.ParseInt(string(mirrors[1]), 10, 64)
	return objects, bytes, classObjects
}

// TestInfoMatchesJVMTotals compares info's totals with the Total and
// java.lang.Class lines of the JVM's histogram of the same process, taken
// right after the dump. JDK 25 loads two classes it never dumps (JFR's
// instrumented event classes): info names them in a class-not-dumped
// anomaly, and only they may differ. The OOM fixture is left out: its
// histogram was taken after the dump, once the heap had changed.
func TestInfoMatchesJVMTotals(t *testing.T) {
	cases := []struct {
		name      string
		notDumped int64
	}{
		{"jdk17-default", 0}, {"jdk17-gz", 0}, {"jdk17-nocoops", 0}, {"jdk17-nocoops-noccp", 0},
		{"jdk17-align16", 0}, {"jdk17-jmap-live", 0}, {"jdk25-default", 2}, {"jdk25-coh", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objects, bytes, mirrors := jvmTotals(t, fixturePath(t, c.name+".histo.txt"))
			var in infoJSON
			runJSON(t, &in, "info", fixturePath(t, c.name+".hprof.gz"))
			if in.Format != "hprof" || in.Version != "1.0.2" || in.IDSize != 8 || in.Compression != "gzip" {
				t.Errorf("format %s %s id %d compression %s", in.Format, in.Version, in.IDSize, in.Compression)
			}
			var notDumped int64
			for _, a := range in.Anomalies {
				switch a.Kind {
				case "class-not-dumped":
					notDumped = a.Count
				case "dangling-root":
					// JDK 25 roots the mirrors of the classes it did not dump.
					if c.notDumped == 0 {
						t.Errorf("anomaly %s: %s", a.Kind, a.Detail)
					}
				default:
					t.Errorf("anomaly %s: %s", a.Kind, a.Detail)
				}
			}
			if notDumped != c.notDumped {
				t.Errorf("%d classes not dumped, want %d", notDumped, c.notDumped)
			}
			if in.Objects+notDumped != objects || in.ClassObjects+notDumped != mirrors {
				t.Errorf("objects %d, class objects %d (+%d not dumped); the JVM counted %d, %d",
					in.Objects, in.ClassObjects, notDumped, objects, mirrors)
			}
			if notDumped == 0 && in.ShallowBytes != bytes {
				t.Errorf("shallow bytes %d; the JVM counted %d", in.ShallowBytes, bytes)
			}
			if in.Truncated {
				t.Error("truncated")
			}
			if in.GCRoots["java_frame"] == 0 || in.GCRoots["thread_object"] == 0 || in.Threads == 0 {
				t.Errorf("roots %v, threads %d", in.GCRoots, in.Threads)
			}
		})
	}
}

// TestOutputFormats checks that every format renders the same numbers.
func TestOutputFormats(t *testing.T) {
	path := fixturePath(t, "jdk17-default.hprof.gz")
	csv, err := runCLI(t, "histo", path, "--match", `^fixture\.Payload$`, "-o", "csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := "instances,shallow_bytes,class\n100,2400,fixture.Payload\n"; csv != want {
		t.Errorf("csv:\n%s\nwant:\n%s", csv, want)
	}
	table, err := runCLI(t, "histo", path, "--match", `^fixture\.Payload$`, "--bytes")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table, "fixture.Payload") || !strings.Contains(table, "2400") {
		t.Errorf("table lacks the row:\n%s", table)
	}
	if _, err := runCLI(t, "histo", path, "-o", "yaml"); err == nil {
		t.Error("-o yaml: no error")
	}
}
