package model

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// histoRow is one class line of a JVM class histogram.
type histoRow struct{ instances, bytes int64 }

// histoLine matches a class line of `jcmd GC.class_histogram`:
// "   3:          7088         170112  java.lang.String (java.base@17.0.15)".
var histoLine = regexp.MustCompile(`^\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)`)

// readHistogram parses a committed JVM histogram, keyed by Java class name.
func readHistogram(t *testing.T, name string) map[string]histoRow {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "jvm", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]histoRow{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := histoLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		b, _ := strconv.ParseInt(m[2], 10, 64)
		rows[JavaClassName(m[3])] = histoRow{n, b}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// growthCounts reads the line fixture.Inspect printed before READY:
// "GROWTH initial=1000 added=10000".
func growthCounts(t *testing.T, info string) (initial, added int64) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "jvm", info))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^GROWTH initial=(\d+) added=(\d+)$`).FindSubmatch(data)
	if m == nil {
		t.Fatalf("%s: no GROWTH line", info)
	}
	initial, _ = strconv.ParseInt(string(m[1]), 10, 64)
	added, _ = strconv.ParseInt(string(m[2]), 10, 64)
	return initial, added
}

// payloads returns the INSTANCE_DUMP field bytes or primitive array
// elements of objs, read again from the dump.
func payloads(t *testing.T, h *Heap, objs []ObjectIndex) map[ObjectIndex][]byte {
	t.Helper()
	want := map[uint64]ObjectIndex{}
	for _, o := range objs {
		want[h.ObjectID(o)] = o
	}
	out := map[ObjectIndex][]byte{}
	err := h.visitObjects(objs, func(r hprof.Source, rec *hprof.Record) error {
		var id uint64
		switch rec.Sub {
		case hprof.SubInstanceDump:
			id = rec.Instance.ID
		case hprof.SubPrimArrayDump:
			id = rec.PrimArray.ID
		default:
			return nil
		}
		o, ok := want[id]
		if !ok {
			return nil
		}
		data, err := r.Payload()
		out[o] = append([]byte(nil), data...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// staticRef is the object a static reference field of class cls holds.
func staticRef(t *testing.T, h *Heap, cls, field string) ObjectIndex {
	t.Helper()
	for _, s := range h.Classes[classNamed(t, h, cls)].Statics {
		if s.Name == field {
			o, ok := h.Lookup(s.Value)
			if !ok {
				t.Fatalf("%s.%s = 0x%x is not in the dump", cls, field, s.Value)
			}
			return o
		}
	}
	t.Fatalf("no static %s.%s", cls, field)
	return NoObject
}

// TestInspectFixtures checks the fixture.Inspect dumps (before and after
// the growth step, JDK 17 and 25) against the program that made them and
// the JVM's histograms (testdata/jvm/EXPECTED.md, "fixture.Inspect").
func TestInspectFixtures(t *testing.T) {
	for _, jdk := range []string{"jdk17", "jdk25"} {
		t.Run(jdk, func(t *testing.T) {
			name := jdk + "-inspect-"
			initial, added := growthCounts(t, name+"before.info.txt")
			before := loadFixture(t, name+"before.hprof.gz")
			after := loadFixture(t, name+"after.hprof.gz")
			beforeHisto := readHistogram(t, name+"before.histo.txt")
			afterHisto := readHistogram(t, name+"after.histo.txt")
			checkInspectHistogram(t, before, beforeHisto)
			checkInspectHistogram(t, after, afterHisto)

			growth := "fixture.InspectGrowth"
			if n := before.Classes[classNamed(t, before, growth)].Instances; n != initial {
				t.Errorf("before: %d InspectGrowth, the program made %d", n, initial)
			}
			if n := after.Classes[classNamed(t, after, growth)].Instances; n != initial+added {
				t.Errorf("after: %d InspectGrowth, the program made %d", n, initial+added)
			}
			if d := afterHisto[growth].instances - beforeHisto[growth].instances; d != added {
				t.Errorf("the histograms' InspectGrowth delta is %d, the program added %d", d, added)
			}
			checkInspectDeltas(t, before, after, beforeHisto, afterHisto)

			// No GC ran between the dumps: every object keeps its id and class.
			for i := 0; i < before.NumObjects(); i++ {
				o, ok := after.Lookup(before.ObjectID(ObjectIndex(i)))
				if !ok || after.Classes[after.ClassOf(o)].Name != before.Classes[before.ClassOf(ObjectIndex(i))].Name {
					t.Fatalf("object 0x%x of the first dump is not in the second", before.ObjectID(ObjectIndex(i)))
				}
			}

			checkInspectTarget(t, before)
			checkInspectStack(t, before)
			checkInspectStack(t, after)
			checkInspectStrings(t, before)
			checkInspectCollections(t, before)
		})
	}
}

// classTotals sums instances and JVM bytes per class name.
func classTotals(h *Heap) map[string]histoRow {
	out := map[string]histoRow{}
	for c := range h.Classes {
		r := out[h.Classes[c].Name]
		r.instances += h.Classes[c].Instances
		r.bytes += h.ClassBytes(ClassIndex(c), SizeJVM)
		out[h.Classes[c].Name] = r
	}
	return out
}

// checkInspectDeltas: per class, what the second dump has more than the
// first is what the second histogram has more than the first.
func checkInspectDeltas(t *testing.T, before, after *Heap, beforeHisto, afterHisto map[string]histoRow) {
	t.Helper()
	b, a := classTotals(before), classTotals(after)
	names := map[string]bool{}
	for _, m := range []map[string]histoRow{a, b, afterHisto, beforeHisto} {
		for name := range m {
			names[name] = true
		}
	}
	for name := range names {
		dump := histoRow{a[name].instances - b[name].instances, a[name].bytes - b[name].bytes}
		jvm := histoRow{afterHisto[name].instances - beforeHisto[name].instances, afterHisto[name].bytes - beforeHisto[name].bytes}
		if dump != jvm {
			t.Errorf("%s: the dumps differ by %+v, the histograms by %+v", name, dump, jvm)
		}
	}
}

// checkInspectHistogram compares the fixture.Inspect* classes of h with the
// JVM's histogram: the same classes, instances and bytes.
func checkInspectHistogram(t *testing.T, h *Heap, histo map[string]histoRow) {
	t.Helper()
	seen := 0
	for c := range h.Classes {
		name := h.Classes[c].Name
		if !strings.HasPrefix(name, "fixture.Inspect") || h.Classes[c].Instances == 0 {
			continue
		}
		seen++
		got := histoRow{h.Classes[c].Instances, h.ClassBytes(ClassIndex(c), SizeJVM)}
		if got != histo[name] {
			t.Errorf("%s: %+v in the dump, %+v in the JVM's histogram", name, got, histo[name])
		}
	}
	want := 0
	for name := range histo {
		if strings.HasPrefix(name, "fixture.Inspect") {
			want++
		}
	}
	// InspectTarget, ReferrerA, ReferrerB, StackHolder, Color, Color[],
	// Growth and Growth[]: the other fixture.Inspect* classes hold statics only.
	if seen != want || want != 8 {
		t.Errorf("%d fixture.Inspect* classes with instances in the dump, %d in the histogram, want 8", seen, want)
	}
}

// checkInspectTarget: one InspectTarget, referenced by exactly the two
// referrers' fields, holding the values the program set.
func checkInspectTarget(t *testing.T, h *Heap) {
	targets := instancesOf(h, classNamed(t, h, "fixture.InspectTarget"))
	if len(targets) != 1 {
		t.Fatalf("%d InspectTarget objects, want 1", len(targets))
	}
	target := targets[0]
	a := staticRef(t, h, "fixture.Inspect", "referrerA")
	b := staticRef(t, h, "fixture.Inspect", "referrerB")
	var from []ObjectIndex
	for i := 0; i < h.NumObjects(); i++ {
		for _, r := range h.Refs(ObjectIndex(i)) {
			if r == target {
				from = append(from, ObjectIndex(i))
			}
		}
	}
	labels, err := ReadLabels(h, []ObjectIndex{a, b})
	if err != nil {
		t.Fatal(err)
	}
	label := func(o ObjectIndex) string {
		for _, l := range labels[o] {
			if l.To == target {
				return l.Label
			}
		}
		return ""
	}
	if len(from) != 2 || label(a) != "target" || label(b) != "held" {
		t.Errorf("InspectTarget referenced by %v, want referrerA.target and referrerB.held", from)
	}
	for _, r := range h.Roots {
		if r.Object == target {
			t.Errorf("InspectTarget is a GC root: %+v", r)
		}
	}

	fields := map[string][]byte{}
	h.eachField(h.ClassOf(target), payloads(t, h, []ObjectIndex{target})[target], func(f *Field, _ bool, v []byte) {
		fields[f.Name] = v
	})
	be := binary.BigEndian
	prims := []struct {
		field string
		got   uint64
		want  uint64
	}{
		{"flag", uint64(fields["flag"][0]), 1},
		{"tiny", uint64(fields["tiny"][0]), 0xF9}, // -7
		{"letter", uint64(be.Uint16(fields["letter"])), 'Q'},
		{"shortValue", uint64(be.Uint16(fields["shortValue"])), 1234},
		{"intValue", uint64(be.Uint32(fields["intValue"])), 0x12345678},
		{"longValue", be.Uint64(fields["longValue"]), 0x1122334455667788},
		{"floatValue", uint64(be.Uint32(fields["floatValue"])), uint64(math.Float32bits(1.5))},
		{"doubleValue", be.Uint64(fields["doubleValue"]), math.Float64bits(-2.25)},
	}
	for _, p := range prims {
		if p.got != p.want {
			t.Errorf("InspectTarget.%s = 0x%x, want 0x%x", p.field, p.got, p.want)
		}
	}
	ref := func(field string) ObjectIndex {
		o, ok := h.Lookup(idOf(fields[field]))
		if !ok {
			return NoObject
		}
		return o
	}
	if id := idOf(fields["nothing"]); id != 0 {
		t.Errorf("InspectTarget.nothing = 0x%x, want null", id)
	}
	strs, err := ReadStrings(h, []ObjectIndex{ref("text"), ref("latin1Text"), ref("utf16Text")})
	if err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]string{"text": "inspect-target-text", "latin1Text": "café", "utf16Text": "utf16-Ω-text"} {
		if got := strs[ref(field)]; got != want {
			t.Errorf("InspectTarget.%s = %q, want %q", field, got, want)
		}
	}
	arrays := payloads(t, h, []ObjectIndex{ref("ints"), ref("asciiBytes"), ref("chars")})
	var ints []int32
	for k := 0; k+4 <= len(arrays[ref("ints")]); k += 4 {
		ints = append(ints, int32(be.Uint32(arrays[ref("ints")][k:])))
	}
	if want := []int32{1, 2, 3, 5, 8, 13, 21, 34}; !equalInts(ints, want) {
		t.Errorf("InspectTarget.ints = %v, want %v", ints, want)
	}
	if got := string(arrays[ref("asciiBytes")]); got != "hello, inspect!" {
		t.Errorf("InspectTarget.asciiBytes = %q", got)
	}
	if got := arrays[ref("chars")]; !bytes.Equal(got, []byte{0, 'h', 0, 'p', 0, 'r', 0, 'o', 0, 'f'}) {
		t.Errorf("InspectTarget.chars = %v", got)
	}
	for field, class := range map[string]string{"boxedInt": "java.lang.Integer", "boxedLong": "java.lang.Long", "color": "fixture.InspectColor"} {
		if o := ref(field); o == NoObject || h.Classes[h.ClassOf(o)].Name != class {
			t.Errorf("InspectTarget.%s is not a %s", field, class)
		}
	}
}

// idOf decodes an object id field of 4 or 8 bytes.
func idOf(b []byte) uint64 {
	if len(b) == 4 {
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}

func equalInts(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkInspectStack: thread inspect-stack-holder is in
// InspectStackHolder.hold, and the long[1 << 20] is held by its frame only.
func checkInspectStack(t *testing.T, h *Heap) {
	object := threadObjectNamed(t, h, "inspect-stack-holder")
	thread := int32(-1)
	for i, th := range h.Threads {
		if object != NoObject && th.ID == h.ObjectID(object) {
			thread = int32(i)
		}
	}
	if thread < 0 {
		t.Fatal("no thread inspect-stack-holder")
	}
	hold := false
	if tr := h.Threads[thread].Trace; tr >= 0 {
		for _, f := range h.Traces[tr].Frames {
			hold = hold || f.Class == "fixture.InspectStackHolder" && f.Method == "hold"
		}
	}
	if !hold {
		t.Error("inspect-stack-holder has no frame InspectStackHolder.hold")
	}
	var big []ObjectIndex
	for _, o := range instancesOf(h, classNamed(t, h, "long[]")) {
		if h.ArrayLength(o) == 1<<20 {
			big = append(big, o)
		}
	}
	if len(big) != 1 {
		t.Fatalf("%d long[1048576], want 1", len(big))
	}
	for i := 0; i < h.NumObjects(); i++ {
		for _, r := range h.Refs(ObjectIndex(i)) {
			if r == big[0] {
				t.Errorf("the long[1048576] is referenced by object %d", i)
			}
		}
	}
	var roots []Root
	for _, r := range h.Roots {
		if r.Object == big[0] {
			roots = append(roots, r)
		}
	}
	if len(roots) != 1 || roots[0].Kind != RootJavaFrame || roots[0].Thread != thread {
		t.Errorf("the long[1048576]'s roots are %+v, want one frame of inspect-stack-holder", roots)
	}
}

// threadObjectNamed returns the java.lang.Thread object whose name field
// is the String name, NoObject when there is none.
func threadObjectNamed(t *testing.T, h *Heap, name string) ObjectIndex {
	t.Helper()
	var threads []ObjectIndex
	for i := range h.NumObjects() {
		if c := h.ClassOf(ObjectIndex(i)); c != NoClass {
			for s := range h.Supers(c) {
				if h.Classes[s].Name == "java.lang.Thread" {
					threads = append(threads, ObjectIndex(i))
				}
			}
		}
	}
	vals, err := ReadValues(h, threads, ValueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var strs []ObjectIndex
	for _, v := range vals {
		if f, ok := v.Field("name"); ok && f.Ref != NoObject {
			strs = append(strs, f.Ref)
		}
	}
	names, err := ReadStrings(h, strs)
	if err != nil {
		t.Fatal(err)
	}
	for o, v := range vals {
		if f, ok := v.Field("name"); ok && f.Ref != NoObject && names[f.Ref] == name {
			return o
		}
	}
	return NoObject
}

// checkInspectStrings counts the String values fixture.InspectStrings
// copied; every copy has its own value array.
func checkInspectStrings(t *testing.T, h *Heap) {
	strs := instancesOf(h, classNamed(t, h, "java.lang.String"))
	values, err := ReadStrings(h, strs)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	arrays := map[string]map[ObjectIndex]bool{}
	for s, v := range values {
		counts[v]++
		if arrays[v] == nil {
			arrays[v] = map[ObjectIndex]bool{}
		}
		arrays[v][h.Refs(s)[0]] = true
	}
	for v, n := range map[string]int{"duplicate-value-42": 5000, "duplicate-value-7": 300, "duplicate-value-1234": 20, "duplicate-Ω-9": 50} {
		if counts[v] != n || len(arrays[v]) != n {
			t.Errorf("%q: %d Strings with %d value arrays, want %d of each", v, counts[v], len(arrays[v]), n)
		}
	}
}

// checkInspectCollections: the backing arrays of the collections in
// fixture.InspectCollections have the lengths the JDK sources give them.
func checkInspectCollections(t *testing.T, h *Heap) {
	const cls = "fixture.InspectCollections"
	backing := []struct {
		static, field string
		length        int // -1: the field is null
	}{
		{"map1024", "table", 1024},
		{"mapNeverPut", "table", -1},
		{"mapGrown", "table", 32},
		{"listEmpty", "elementData", 0},
		{"listEmptySized", "elementData", 0},
		{"listOversized", "elementData", 1000},
		{"listFull", "elementData", 10},
		{"listGrown", "elementData", 15},
		{"deque", "elements", 17},
		{"linkedMap", "table", 16},
		{"concurrentMap", "table", 16},
		{"vector", "elementData", 10},
		{"hashtable", "table", 11},
		{"copyOnWrite", "array", 14},
		{"priorityQueue", "queue", 11},
		{"weakMap", "table", 16},
		{"identityMap", "table", 64},
	}
	var objs []ObjectIndex
	for _, b := range backing {
		objs = append(objs, staticRef(t, h, cls, b.static))
	}
	labels, err := ReadLabels(h, objs)
	if err != nil {
		t.Fatal(err)
	}
	for k, b := range backing {
		length := -1
		for _, l := range labels[objs[k]] {
			if l.Label == b.field {
				length = int(h.ArrayLength(l.To))
			}
		}
		if length != b.length {
			t.Errorf("%s.%s: length %d, want %d", b.static, b.field, length, b.length)
		}
	}
	for static, length := range map[string]uint32{"emptyArray": 0, "nullArray": 100, "sevens": 1000} {
		if n := h.ArrayLength(staticRef(t, h, cls, static)); n != length {
			t.Errorf("%s: length %d, want %d", static, n, length)
		}
	}
}
