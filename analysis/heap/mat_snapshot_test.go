package heap_test

import (
	"testing"
	"unicode"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
)

// matSnapshots are the HPROF dumps MAT's GeneralSnapshotTests runs on
// (GeneralSnapshotTests.java:120-139; oracle_jdk9_01_x64 is not in the
// corpus) and whether MAT expects stack frames with their local objects
// (Stacks.FRAMES_AND_OBJECTS) of each.
var matSnapshots = []struct {
	dump   string
	frames bool
}{
	{"sun_jdk6_32bit.hprof.gz", false},
	{"sun_jdk5_64bit.hprof.gz", false},
	{"sun_jdk6_18_x32.hprof.gz", true},
	{"sun_jdk6_18_x64.hprof.gz", true},
	{"sun_jdk5_13_x32.hprof.gz", false},
	{"oracle_jdk7_21_x64.hprof.gz", true},
	{"oracle_jdk8_05_x64.hprof.gz", true},
	{"java_pid1884.0001.hprof.gz", true},
}

// TestMATGeneralSnapshot ports the HPROF assertions of MAT's
// GeneralSnapshotTests (plugins/org.eclipse.mat.tests/src/org/eclipse/mat/
// tests/snapshot/GeneralSnapshotTests.java): the counts and sizes of a
// dump agree however they are summed, threads have stacks with their
// frames' objects, there are class loaders, and Strings read as text.
func TestMATGeneralSnapshot(t *testing.T) {
	for _, tc := range matSnapshots {
		t.Run(tc.dump, func(t *testing.T) {
			if tc.dump == "java_pid1884.0001.hprof.gz" && testing.Short() {
				t.Skip("inflates to 522 MB")
			}
			h := matDump(t, tc.dump)
			info := heap.Summarize(h, model.SizeJVM)
			histo, err := heap.Histogram(h, heap.HistoOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkMATTotals(t, h, info, histo)
			checkMATObjectSizes(t, h, info)
			checkMATStacks(t, h, tc.frames)
			checkMATClassLoaders(t, h)
			checkMATStrings(t, h)
		})
	}
}

// checkMATTotals: GeneralSnapshotTests.totalClasses (:294-300), every
// class the dump holds counts once, those of its objects and those with
// a class object; totalObjects (:302-312), the histogram's instances add
// up to the objects; totalHeapSize (:314-324), its bytes to the heap's.
func checkMATTotals(t *testing.T, h *model.Heap, info heap.Info, histo heap.Histo) {
	t.Helper()
	classes := map[model.ClassIndex]bool{}
	for c := range h.Classes {
		if h.Classes[c].Object != model.NoObject {
			classes[model.ClassIndex(c)] = true
		}
	}
	for i := range h.NumObjects() {
		if c := h.ClassOf(model.ObjectIndex(i)); c != model.NoClass {
			classes[c] = true
		}
	}
	if len(classes) != info.Classes {
		t.Errorf("GeneralSnapshotTests.java:299: %d classes of objects and class objects, the summary counts %d", len(classes), info.Classes)
	}
	if histo.Total.Instances != info.Objects || info.Objects != int64(h.NumObjects()) {
		t.Errorf("GeneralSnapshotTests.java:311: the histogram counts %d objects, the summary %d, the heap %d", histo.Total.Instances, info.Objects, h.NumObjects())
	}
	if histo.Total.ShallowBytes != info.ShallowBytes {
		t.Errorf("GeneralSnapshotTests.java:323: the histogram sums %d bytes, the summary %d", histo.Total.ShallowBytes, info.ShallowBytes)
	}
}

// checkMATObjectSizes: GeneralSnapshotTests.objectSizes (:326-364), the
// instances of a class that is no array all have one size, and the
// objects' sizes add up to the heap's.
func checkMATObjectSizes(t *testing.T, h *model.Heap, info heap.Info) {
	t.Helper()
	size := map[model.ClassIndex]int64{}
	var total int64
	classClass := h.ClassClass()
	for i := range h.NumObjects() {
		obj := model.ObjectIndex(i)
		n := h.ShallowBytes(obj, model.SizeJVM)
		total += n
		c := h.ClassOf(obj)
		if c == model.NoClass || c == classClass || h.Classes[c].IsArray() {
			continue
		}
		if prev, ok := size[c]; ok && prev != n {
			t.Errorf("GeneralSnapshotTests.java:351: %s: instances of %d and %d bytes", h.Classes[c].Name, prev, n)
		}
		size[c] = n
	}
	if total != info.ShallowBytes {
		t.Errorf("GeneralSnapshotTests.java:363: the objects sum %d bytes, the summary %d", total, info.ShallowBytes)
	}
}

// checkMATStacks: GeneralSnapshotTests.stacks1 (:232-292), the threads'
// stacks have frames, and (FRAMES_AND_OBJECTS) some frames local
// objects (Java frame and JNI local roots), the topmost frames among them
// when deeper ones have any.
func checkMATStacks(t *testing.T, h *model.Heap, frames bool) {
	t.Helper()
	nframes := 0
	for _, th := range h.Threads {
		if th.Trace >= 0 && int(th.Trace) < len(h.Traces) {
			nframes += len(h.Traces[th.Trace].Frames)
		}
	}
	top, deeper := 0, 0
	for _, rt := range h.Roots {
		// MAT hangs JNI locals on their frames too: a thread waiting in
		// a native method holds its monitor there.
		if rt.Kind != model.RootJavaFrame && rt.Kind != model.RootJNILocal || rt.Thread < 0 {
			continue
		}
		switch {
		case rt.Frame == 0:
			top++
		case rt.Frame > 0:
			deeper++
		}
	}
	if nframes > 0 && deeper > 0 && top == 0 {
		t.Errorf("GeneralSnapshotTests.java:284: %d locals in deeper frames, none in a topmost one", deeper)
	}
	if frames && (nframes == 0 || top+deeper == 0) {
		t.Errorf("GeneralSnapshotTests.java:288-290: %d frames, %d locals in them", nframes, top+deeper)
	}
}

// checkMATClassLoaders: GeneralSnapshotTests.testClassLoaders
// (:486-490) expects more than one class loader. MAT counts its
// synthetic system class loader at 0x0, the loader of the classes the
// dump gives none (docs/mat-conventions.md): the dump's own loaders are
// one fewer.
func checkMATClassLoaders(t *testing.T, h *model.Heap) {
	t.Helper()
	loaders := map[uint64]bool{}
	for _, c := range h.Classes {
		if c.Loader != 0 {
			loaders[c.Loader] = true
		}
	}
	if mat := len(loaders) + 1; len(loaders) < 1 || mat <= 1 {
		t.Errorf("GeneralSnapshotTests.java:489: %d class loaders in the dump (%d with MAT's at 0x0), MAT more than 1", len(loaders), mat)
	}
}

// checkMATStrings: GeneralSnapshotTests.stringToString (:1713-1741), at
// least two thirds of the Strings have a text, and some text holds a
// character MAT would escape (one that does not print) unless every
// String has one.
func checkMATStrings(t *testing.T, h *model.Heap) {
	t.Helper()
	var strs []model.ObjectIndex
	for i := range h.NumObjects() {
		if c := h.ClassOf(model.ObjectIndex(i)); c != model.NoClass && h.Classes[c].Name == "java.lang.String" {
			strs = append(strs, model.ObjectIndex(i))
		}
	}
	texts, err := model.ReadStrings(h, strs)
	if err != nil {
		t.Fatal(err)
	}
	printables, escaped := 0, 0
	for _, s := range strs {
		text := texts[s]
		if text == "" {
			continue
		}
		printables++
		for _, r := range text {
			if !unicode.IsPrint(r) {
				escaped++
				break
			}
		}
	}
	if printables < len(strs)*2/3 {
		t.Errorf("GeneralSnapshotTests.java:1738: %d of %d Strings have a text, MAT two thirds at least", printables, len(strs))
	}
	if escaped == 0 && escaped != len(strs) {
		t.Errorf("GeneralSnapshotTests.java:1740: no String of %d holds a character to escape", len(strs))
	}
}
