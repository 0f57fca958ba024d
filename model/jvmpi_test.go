package model

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/jvmpi/jvmpitest"
	"github.com/hprofctl/hprofctl/parser/threaddump"
)

// jvmpiSamples returns the shared JVMPI samples directory (see testshared).
func jvmpiSamples(t *testing.T) string {
	t.Helper()
	return testshared.Path(t, "jvmpi-samples")
}

func loadPath(t *testing.T, path string) (*Heap, error) {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Load(f, LoadOptions{Dump: -1, Objects: true})
}

// heapSummary is a heap reduced to what must not depend on the level (1
// or 2), the id byte order or the scalar byte order of a capture.
type heapSummary struct {
	Classes map[string]int64    // instances by class name
	Refs    map[uint64][]uint64 // references by object id
	Roots   []string
	Threads []string
}

func summarize(h *Heap) heapSummary {
	s := heapSummary{Classes: map[string]int64{}, Refs: map[uint64][]uint64{}}
	for _, c := range h.Classes {
		if c.Instances > 0 {
			s.Classes[c.Name] += c.Instances
		}
	}
	for i := 0; i < h.NumObjects(); i++ {
		for _, r := range h.Refs(ObjectIndex(i)) {
			s.Refs[h.ObjectID(ObjectIndex(i))] = append(s.Refs[h.ObjectID(ObjectIndex(i))], h.ObjectID(r))
		}
	}
	for id := range s.Refs {
		slices.Sort(s.Refs[id])
	}
	for _, r := range h.Roots {
		thread := ""
		if r.Thread >= 0 {
			thread = h.Threads[r.Thread].Name
		}
		s.Roots = append(s.Roots, fmt.Sprintf("%s 0x%x %s %d", r.Kind, r.ID, thread, r.Frame))
	}
	slices.Sort(s.Roots)
	for _, th := range h.Threads {
		s.Threads = append(s.Threads, th.Name)
	}
	return s
}

// sideChannel reads the parts of a class-load side channel the tests
// check the model against.
type sideChannel struct {
	Classes []struct {
		Name string `json:"class_name"`
	} `json:"class_load"`
	Threads []struct {
		Name string `json:"thread_name"`
	} `json:"thread_start"`
}

func TestJVMPISamplesLoad(t *testing.T) {
	dir := jvmpiSamples(t)
	for _, ids := range []string{"id4", "id8"} {
		var side sideChannel
		b, err := os.ReadFile(filepath.Join(dir, "heap-small-"+ids+".classes.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &side); err != nil {
			t.Fatal(err)
		}
		bins, _ := filepath.Glob(filepath.Join(dir, "heap-small-l*-"+ids+"-*.bin"))
		var ref *heapSummary
		var refName string
		for _, bin := range bins {
			h, err := loadPath(t, bin)
			if err != nil {
				t.Fatalf("%s: %v", bin, err)
			}
			if h.Source.Format != "jvmpi" || h.Source.Producer != "jvmpi" {
				t.Errorf("%s: format %q, producer %q", bin, h.Source.Format, h.Source.Producer)
			}
			s := summarize(h)
			if strings.Contains(bin, "-l0-") {
				if len(h.Roots) != 0 || h.NumRefs() != 0 {
					t.Errorf("%s: level 0 gives %d roots and %d references", bin, len(h.Roots), h.NumRefs())
				}
				if got := s.Classes["java.lang.Class"]; got != int64(len(side.Classes)) {
					t.Errorf("%s: %d class objects, the side channel loads %d classes", bin, got, len(side.Classes))
				}
				continue
			}
			for _, c := range side.Classes {
				if _, ok := h.ClassByID(classID(t, h, c.Name)); !ok {
					t.Errorf("%s: class %s missing", bin, c.Name)
				}
			}
			var names []string
			for _, th := range side.Threads {
				names = append(names, th.Name)
			}
			if !reflect.DeepEqual(s.Threads, names) {
				t.Errorf("%s: threads %v, the side channel starts %v", bin, s.Threads, names)
			}
			if ref == nil {
				ref, refName = &s, bin
				continue
			}
			if !reflect.DeepEqual(s, *ref) {
				t.Errorf("%s and %s give different models:\n%+v\n%+v", bin, refName, s, *ref)
			}
		}
	}
}

// classID returns the class id of the class named name.
func classID(t *testing.T, h *Heap, name string) uint64 {
	t.Helper()
	for _, c := range h.Classes {
		if c.Name == name {
			return c.ID
		}
	}
	t.Errorf("no class %s", name)
	return 0
}

func TestJVMPIManifestAndBufferOpenAlike(t *testing.T) {
	dir := jvmpiSamples(t)
	base := filepath.Join(dir, "heap-small-l2-id4-le")
	a, err := loadPath(t, base+".json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadPath(t, base+".bin")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(summarize(a), summarize(b)) {
		t.Error("the manifest and the buffer of one capture load differently")
	}
}

func TestJVMPIMissingClass(t *testing.T) {
	dir := jvmpiSamples(t)
	tmp := t.TempDir()
	for _, name := range []string{"heap-small-l2-id8-le.json", "heap-small-l2-id8-le.bin", "heap-small-id8.classes.json"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".classes.json") {
			var side map[string]any
			if err := json.Unmarshal(b, &side); err != nil {
				t.Fatal(err)
			}
			var kept []any
			for _, c := range side["class_load"].([]any) {
				if c.(map[string]any)["class_name"] != "com.example.Node" {
					kept = append(kept, c)
				}
			}
			side["class_load"] = kept
			if b, err = json.Marshal(side); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := loadPath(t, filepath.Join(tmp, "heap-small-l2-id8-le.bin"))
	if err == nil || !strings.Contains(err.Error(), "missing from the class-load side channel") || !strings.Contains(err.Error(), "offset ") {
		t.Errorf("got %v, want an error naming the missing class and its offset", err)
	}
}

// TestReadJVMPIMonitorDump decodes a monitor dump written with 8-byte
// big-endian pointers and little-endian scalars: owners, entry counts and
// waiter lists of Java and raw monitors, thread names, stacks and states
// from the side channel, raw monitor names by their name pointer, a NULL
// waiter left out and a thread no event announced named by its JNIEnv*.
func TestReadJVMPIMonitorDump(t *testing.T) {
	const (
		envMain, envGC, envLost = 0x00007f3a10000040, 0x00007f3a10000840, 0x00007f3a10001040
		javaObj, rawID, rawPtr  = 0x00000007c0001000, 0x00007f3a20000100, 0x00007f3a20000200
		otherPtr, runMethod     = 0x00007f3a20000300, 0x00007f3a30000010
	)
	buf := jvmpitest.NewBuffer(jvmpitest.Options{IDSize: 8, IDOrder: binary.BigEndian, ScalarOrder: binary.LittleEndian})
	buf.JavaMonitor(javaObj, jvmpitest.Monitor{Owner: envMain, EntryCount: 3, Entering: []uint64{envGC, 0}, Notified: []uint64{envLost}})
	buf.RawMonitor(rawPtr, rawID, jvmpitest.Monitor{Owner: envGC, EntryCount: 1, Notified: []uint64{envMain}})
	buf.RawMonitor(otherPtr, rawID+8, jvmpitest.Monitor{})
	ev := &jvmpitest.MonitorEvents{
		Threads: []jvmpitest.ThreadStart{{Name: "main", GroupName: "main", ThreadID: 0x7c0000000, EnvID: envMain},
			{Name: "GC Daemon", GroupName: "system", ThreadID: 0x7c0000040, EnvID: envGC}},
		RawMonitors: []jvmpitest.RawMonitorInfo{{Name: "_Heap_lock", ID: rawID, NamePtr: rawPtr}},
		ClassLoad:   []jvmpitest.ClassName{{Name: "java.util.Vector", ID: 0x7c0000800}},
		Objects:     []jvmpitest.ObjectAlloc{{ObjectID: javaObj, ClassID: 0x7c0000800, Size: 24}},
		Methods:     []jvmpitest.MethodName{{ClassName: "app.Main", Name: "run", ID: runMethod}},
		Event: jvmpitest.MonitorDumpEvent{
			Traces:        []jvmpitest.Trace{{EnvID: envMain, Frames: []jvmpitest.Frame{{Line: 17, MethodID: runMethod}}}, {EnvID: envGC}},
			ThreadsStatus: []int32{jvmpitest.ThreadRunnable, jvmpitest.ThreadMonitorWait | jvmpitest.ThreadSuspended},
		},
	}
	manifest, err := jvmpitest.WriteCapture(t.TempDir(), "monitors", buf, jvmpitest.Manifest{Format: jvmpitest.FormatMonitorDump}, ev)
	if err != nil {
		t.Fatal(err)
	}
	d, monitors, err := ReadJVMPIMonitorDump(manifest)
	if err != nil {
		t.Fatal(err)
	}
	vector := threaddump.Lock{Kind: threaddump.LockMonitor, Class: "java.util.Vector", ID: javaObj}
	heap := threaddump.Lock{Kind: threaddump.LockRawMonitor, ID: rawID, Name: "_Heap_lock"}
	lost := fmt.Sprintf("JNIEnv 0x%x", uint64(envLost))
	want := []JVMPIMonitor{
		{Lock: vector, Owner: "main", EntryCount: 3, Entering: []string{"GC Daemon"}, Notified: []string{lost}},
		{Lock: heap, Owner: "GC Daemon", EntryCount: 1, Notified: []string{"main"}},
		{Lock: threaddump.Lock{Kind: threaddump.LockRawMonitor, ID: rawID + 8, Name: fmt.Sprintf("<raw monitor named at 0x%x>", uint64(otherPtr))}},
	}
	if !reflect.DeepEqual(monitors, want) {
		t.Errorf("monitors:\n%+v\nwant\n%+v", monitors, want)
	}
	wantThreads := []threaddump.ThreadSnapshot{
		{Name: "main", ID: fmt.Sprintf("0x%x", uint64(envMain)), State: "RUNNABLE",
			Frames: []Frame{{Class: "app.Main", Method: "run", Line: 17}},
			Locks:  []threaddump.ThreadLock{{Lock: vector, Action: threaddump.Holds, Frame: -1}, {Lock: heap, Action: threaddump.WaitsOn, Frame: -1}}},
		{Name: "GC Daemon", ID: fmt.Sprintf("0x%x", uint64(envGC)), State: "BLOCKED", StateDetail: "suspended",
			Locks: []threaddump.ThreadLock{{Lock: vector, Action: threaddump.Enters, Frame: -1}, {Lock: heap, Action: threaddump.Holds, Frame: -1}}},
		{Name: lost, ID: fmt.Sprintf("0x%x", uint64(envLost)), Locks: []threaddump.ThreadLock{{Lock: vector, Action: threaddump.WaitsOn, Frame: -1}}},
	}
	if !reflect.DeepEqual(d.Threads, wantThreads) {
		t.Errorf("threads:\n%+v\nwant\n%+v", d.Threads, wantThreads)
	}
	if d.Truncated {
		t.Error("the dump is marked truncated")
	}
}

// TestJVMPIMonitorSamples decodes the shared monitor dump sample at both
// pointer sizes and byte orders: both byte orders of a pointer size give
// the same monitors, named from the side channel, and every variant the
// side channel's threads with their stacks.
func TestJVMPIMonitorSamples(t *testing.T) {
	dir := jvmpiSamples(t)
	first := map[string][]JVMPIMonitor{}
	for _, name := range []string{"id4-be", "id4-le", "id8-be", "id8-le"} {
		d, monitors, err := ReadJVMPIMonitorDump(filepath.Join(dir, "mon-nocontention-"+name+".json"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var names []string
		for _, th := range d.Threads {
			names = append(names, th.Name+" "+th.State)
		}
		if want := []string{"main RUNNABLE", "worker RUNNABLE", "gc-helper RUNNABLE"}; !reflect.DeepEqual(names, want) {
			t.Errorf("%s: threads %q, want %q", name, names, want)
		}
		if f := d.Threads[1].Frames; len(f) != 1 || f[0] != (Frame{Class: "java.lang.Thread", Method: "run", Line: 603}) {
			t.Errorf("%s: worker's stack %+v, want java.lang.Thread.run line 603", name, f)
		}
		for _, m := range monitors {
			if m.Lock.Kind == threaddump.LockRawMonitor && m.Lock.Name != "heap lock" && m.Lock.Name != "code cache lock" {
				t.Errorf("%s: raw monitor named %q, not from the side channel", name, m.Lock.Name)
			}
		}
		if len(monitors) == 0 {
			t.Errorf("%s: no monitors", name)
		}
		size := name[:3]
		if first[size] == nil {
			first[size] = monitors
		} else if !reflect.DeepEqual(monitors, first[size]) {
			t.Errorf("%s: monitors %+v differ from %s-be's %+v", name, monitors, size, first[size])
		}
	}
}
