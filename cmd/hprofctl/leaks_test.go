package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

type leakJSON struct {
	Class             string  `json:"class"`
	ObjectID          *string `json:"object_id"`
	Instances         *int64  `json:"instances"`
	RetainedBytes     int64   `json:"retained_bytes"`
	Percent           float64 `json:"percent"`
	AccumulationPoint *struct {
		ObjectID      string  `json:"object_id"`
		Class         string  `json:"class"`
		RetainedBytes int64   `json:"retained_bytes"`
		Percent       float64 `json:"percent"`
	} `json:"accumulation_point"`
	BiggestClasses []struct {
		Class         string  `json:"class"`
		Objects       int64   `json:"objects"`
		RetainedBytes int64   `json:"retained_bytes"`
		Percent       float64 `json:"percent"`
	} `json:"biggest_classes"`
	Path []struct {
		ObjectID string `json:"object_id"`
		Class    string `json:"class"`
		Via      string `json:"via"`
	} `json:"path"`
	RootKind string `json:"root_kind"`
}

// jvmHistogramTotal reads the bytes of the "Total" line of a histogram the
// JVM printed.
func jvmHistogramTotal(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 3 && fields[0] == "Total" {
			n, err := strconv.ParseInt(fields[2], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("%s: no Total line", path)
	return 0
}

// registryBuckets counts the buckets of a 256-slot java.util.HashMap that
// the keys "payload-000" … "payload-099" of fixture.Registry.MAP occupy,
// by String.hashCode and HashMap's spreading of it: the table immediately
// dominates the first Node of each bucket, which dominates the others.
func registryBuckets() int64 {
	used := map[uint32]bool{}
	for k := range 100 {
		var h int32
		for _, c := range fmt.Sprintf("payload-%03d", k) {
			h = 31*h + int32(c)
		}
		u := uint32(h)
		used[(u^u>>16)&255] = true
	}
	return int64(len(used))
}

// TestLeaksRegistryMap checks the suspects of the fixture at the default
// 10%. fixture.Registry.MAP retains 113,888 bytes (EXPECTED.md), more than
// 10% of the JVM's histogram total, hence of the reachable heap, which is
// no bigger: so the top-of-tree object above the map is a suspect. Its
// memory accumulates in the map's Node[256] table (113,888 less the
// HashMap's 48 bytes), under which the 100 entries of 1,128 bytes each
// lie; its path runs through the static field MAP and the map's table.
func TestLeaksRegistryMap(t *testing.T) {
	path := fixturePath(t, "jdk17-default.hprof.gz")
	minPercent := 100 * 113888 / float64(jvmHistogramTotal(t, fixturePath(t, "jdk17-default.histo.txt")))
	if minPercent <= 10 {
		t.Fatalf("the map is %.2f%% of the JVM's total: the test's premise fails", minPercent)
	}
	var suspects []leakJSON
	runJSON(t, &suspects, "leaks", path)
	var found bool
	for k, s := range suspects {
		if s.Percent <= 10 || k > 0 && s.RetainedBytes > suspects[k-1].RetainedBytes {
			t.Errorf("suspect %d (%s) at %.2f%%: below the threshold or out of order", k, s.Class, s.Percent)
		}
		if (s.ObjectID == nil) == (s.Instances == nil) || s.Instances != nil && *s.Instances < 2 || s.ObjectID != nil && !strings.HasPrefix(*s.ObjectID, "0x") {
			t.Errorf("suspect %d (%s): object_id %v, instances %v; want exactly one", k, s.Class, s.ObjectID, s.Instances)
		}
		a := s.AccumulationPoint
		if a == nil || a.Class != "java.util.HashMap$Node[]" {
			continue
		}
		found = true
		if s.ObjectID == nil || s.RetainedBytes < 113888 || s.Percent < minPercent {
			t.Errorf("the map's suspect %+v: want one object retaining at least the map, %.2f%% or more", s, minPercent)
		}
		if a.RetainedBytes != 113888-48 {
			t.Errorf("accumulation point retains %d bytes, want the table's 113840", a.RetainedBytes)
		}
		if len(s.BiggestClasses) != 1 || s.BiggestClasses[0].Class != "java.util.HashMap$Node" ||
			s.BiggestClasses[0].Objects != registryBuckets() || s.BiggestClasses[0].RetainedBytes != 100*1128 {
			t.Errorf("biggest classes %+v, want the first Nodes of the %d buckets retaining all 100 entries, 112800 bytes", s.BiggestClasses, registryBuckets())
		}
		steps := map[string]string{}
		var throughSuspect bool
		for _, step := range s.Path {
			steps[step.Via] = step.Class
			throughSuspect = throughSuspect || step.ObjectID == *s.ObjectID
		}
		last := s.Path[len(s.Path)-1]
		if steps["static MAP"] != "java.util.HashMap" || steps["table"] != "java.util.HashMap$Node[]" || last.ObjectID != a.ObjectID {
			t.Errorf("path %+v: want static MAP, then table to the accumulation point", s.Path)
		}
		if !throughSuspect || s.Path[0].Via != "" || s.RootKind == "" {
			t.Errorf("path %+v from %q does not start at a root and pass the suspect %s", s.Path, s.RootKind, *s.ObjectID)
		}
	}
	if !found {
		t.Errorf("no suspect accumulates in the map's table: %+v", suspects)
	}
}

// writeLeakDump writes a dump with a holder retaining 1000 elements
// through an Object[], 20 Sessions of 400 bytes each held by two Object[]
// roots, and 4 fillers of 2000 bytes of distinct classes (sizes as --size
// fields counts them), and returns the holder's and the arrays' ids.
func writeLeakDump(t *testing.T, path string) (holder, array hproftest.ID, roots [2]hproftest.ID) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := hproftest.New(f, hproftest.Options{})
	w.BeginHeapDump()
	objects := w.Class("[Ljava/lang/Object;", nil)
	elem := w.Class("com/example/Elem", nil, hproftest.Field{Name: "v", Type: hproftest.TypeLong})
	elems := make([]hproftest.ID, 1000)
	for k := range elems {
		elems[k] = w.Instance(elem, hproftest.Long(int64(k)))
	}
	array = w.ObjectArray(objects, elems...)
	holderClass := w.Class("com/example/Holder", nil, hproftest.Field{Name: "elems", Type: hproftest.TypeObject})
	holder = w.Instance(holderClass, hproftest.Ref(array))
	w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: holder, JNIRef: 1})
	session := w.Class("com/example/Session", nil, hproftest.Field{Name: "buf", Type: hproftest.TypeObject})
	sessions := make([]hproftest.ID, 20)
	for k := range sessions {
		sessions[k] = w.Instance(session, hproftest.Ref(w.PrimArray(hproftest.TypeByte, make([]byte, 392))))
	}
	for k := range roots {
		roots[k] = w.ObjectArray(objects, sessions...)
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: roots[k], JNIRef: 1})
	}
	for k := range 4 {
		c := w.Class(fmt.Sprintf("com/example/Filler%d", k), nil, hproftest.Field{Name: "data", Type: hproftest.TypeObject})
		id := w.Instance(c, hproftest.Ref(w.PrimArray(hproftest.TypeByte, make([]byte, 1992))))
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: id, JNIRef: 1})
	}
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return holder, array, roots
}

// TestLeaksSynthetic checks both kinds of suspect, the JSON contract and
// the labeled path on a dump of known contents.
func TestLeaksSynthetic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "leak.hprof")
	holder, array, roots := writeLeakDump(t, path)
	const holderBytes, sessionBytes = 8 + 8*1000 + 8*1000, 20 * 400
	const total = holderBytes + sessionBytes + 2*8*20 + 4*2000
	var suspects []leakJSON
	runJSON(t, &suspects, "leaks", path, "--size", "fields")
	if len(suspects) != 2 {
		t.Fatalf("%d suspects, want the holder and the Sessions: %+v", len(suspects), suspects)
	}
	h, g := suspects[0], suspects[1]
	if h.Class != "com.example.Holder" || h.ObjectID == nil || *h.ObjectID != fmt.Sprintf("0x%x", holder) || h.Instances != nil ||
		h.RetainedBytes != holderBytes || h.Percent != 100*float64(holderBytes)/total {
		t.Errorf("first suspect %+v, want the holder retaining %d of %d bytes", h, holderBytes, total)
	}
	if a := h.AccumulationPoint; a == nil || a.ObjectID != fmt.Sprintf("0x%x", array) || a.Class != "java.lang.Object[]" {
		t.Errorf("holder's accumulation point %+v, want its array 0x%x", a, array)
	}
	if len(h.BiggestClasses) != 1 || h.BiggestClasses[0].Class != "com.example.Elem" || h.BiggestClasses[0].Objects != 1000 {
		t.Errorf("holder's biggest classes %+v, want 1000 Elem", h.BiggestClasses)
	}
	if len(h.Path) != 2 || h.Path[0].Class != "com.example.Holder" || h.Path[0].Via != "" || h.Path[1].Via != "elems" || h.RootKind != "jni-global" {
		t.Errorf("holder's path %+v from %s, want the holder (JNI global), then elems", h.Path, h.RootKind)
	}
	if g.Class != "com.example.Session" || g.Instances == nil || *g.Instances != 20 || g.ObjectID != nil || g.RetainedBytes != sessionBytes {
		t.Errorf("second suspect %+v, want the 20 Sessions retaining %d bytes", g, sessionBytes)
	}
	a := g.AccumulationPoint
	if a == nil || a.ObjectID != fmt.Sprintf("0x%x", roots[0]) && a.ObjectID != fmt.Sprintf("0x%x", roots[1]) {
		t.Fatalf("Sessions' accumulation point %+v, want an Object[] root", a)
	}
	if len(g.Path) != 2 || g.Path[0].ObjectID != a.ObjectID || !strings.HasPrefix(g.Path[1].Via, "[") || g.Path[1].Class != "com.example.Session" {
		t.Errorf("Sessions' path %+v, want the array, then [i] a Session", g.Path)
	}
	table, err := runCLI(t, "leaks", path, "--size", "fields", "--bytes", "--classes", "1")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"20 instances", "com.example.Holder", "→ elems", fmt.Sprint(holderBytes)} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	csv, err := runCLI(t, "leaks", path, "--size", "fields", "-o", "csv")
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(csv), "\n"); len(lines) != 3 {
		t.Errorf("csv: %d lines, want a header and 2 suspects:\n%s", len(lines), csv)
	}
}

// TestLeaksThreshold checks --threshold: nothing retains more than the
// whole heap, a trailing % is allowed, and values outside (0, 100] fail.
func TestLeaksThreshold(t *testing.T) {
	path := fixturePath(t, "jdk17-default.hprof.gz")
	var suspects []leakJSON
	runJSON(t, &suspects, "leaks", path, "--threshold", "100%")
	if suspects == nil || len(suspects) != 0 {
		t.Errorf("--threshold 100: %+v, want []", suspects)
	}
	out, err := runCLI(t, "leaks", path, "--threshold", "100")
	if err != nil || !strings.Contains(out, "No leak suspect") {
		t.Errorf("--threshold 100 table: %v\n%s", err, out)
	}
	for _, bad := range []string{"0", "-5", "101", "ten"} {
		if _, err := runCLI(t, "leaks", path, "--threshold", bad); err == nil {
			t.Errorf("--threshold %s: no error", bad)
		}
	}
}

// TestLeaksOOMDump checks the -XX:+HeapDumpOnOutOfMemoryError dump: the
// static ArrayList OomMain.CHUNKS (capacity 8192) holds the 1881 chunks
// that filled the heap, each an OomChunk (its size from the JVM's
// histogram) with its own long[1024] (16 + 8 × 1024 bytes). The suspect
// accumulates in the list's elementData, an Object[8192] of 16 + 4 × 8192
// bytes, beneath which lie the chunks.
func TestLeaksOOMDump(t *testing.T) {
	jvm := readJVMHistogram(t, fixturePath(t, "jdk17-oom.histo.txt"))
	const chunks = 1881
	chunkBytes := jvm["fixture.OomChunk"].ShallowBytes/chunks + 16 + 8*1024
	var suspects []leakJSON
	runJSON(t, &suspects, "leaks", fixturePath(t, "jdk17-oom.hprof.gz"))
	if len(suspects) == 0 || suspects[0].AccumulationPoint == nil {
		t.Fatalf("suspects %+v, want the chunks' holder first", suspects)
	}
	s := suspects[0]
	if a := s.AccumulationPoint; a.Class != "java.lang.Object[]" || a.RetainedBytes != 16+4*8192+chunks*chunkBytes {
		t.Errorf("accumulation point %+v, want the Object[8192] retaining %d", a, 16+4*8192+chunks*chunkBytes)
	}
	if len(s.BiggestClasses) == 0 || s.BiggestClasses[0].Class != "fixture.OomChunk" || s.BiggestClasses[0].Objects != chunks ||
		s.BiggestClasses[0].RetainedBytes != chunks*chunkBytes {
		t.Errorf("biggest classes %+v, want the %d chunks of %d bytes", s.BiggestClasses, chunks, chunkBytes)
	}
	if n := len(s.Path); n < 2 || s.Path[n-2].Via != "static CHUNKS" || s.Path[n-1].Via != "elementData" {
		t.Errorf("path %+v, want static CHUNKS, then elementData", s.Path)
	}
}
