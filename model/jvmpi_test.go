package model

import (
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
	h, err := Load(f, LoadOptions{Dump: -1, Objects: true})
	if err == nil {
		attachDump(t, h, path)
	}
	return h, err
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
