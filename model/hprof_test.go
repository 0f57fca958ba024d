package model

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/input"
)

func loadFixture(t *testing.T, name string) *Heap {
	t.Helper()
	path := filepath.Join("..", "testdata", "jvm", name)
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := Load(f, LoadOptions{Dump: -1, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	attachDump(t, h, path)
	return h
}

func classNamed(t *testing.T, h *Heap, name string) ClassIndex {
	t.Helper()
	for i := range h.Classes {
		if h.Classes[i].Name == name {
			return ClassIndex(i)
		}
	}
	t.Fatalf("no class %s", name)
	return NoClass
}

func instancesOf(h *Heap, c ClassIndex) []ObjectIndex {
	var out []ObjectIndex
	for i := 0; i < h.NumObjects(); i++ {
		if h.ClassOf(ObjectIndex(i)) == c {
			out = append(out, ObjectIndex(i))
		}
	}
	return out
}

// TestGraphOfFixture checks the graph against what the fixture program
// built (testdata/jvm/EXPECTED.md).
func TestGraphOfFixture(t *testing.T) {
	h := loadFixture(t, "jdk17-default.hprof.gz")
	incoming := map[ObjectIndex]int{}
	for i := 0; i < h.NumObjects(); i++ {
		for _, r := range h.Refs(ObjectIndex(i)) {
			incoming[r]++
		}
	}

	// fixture.WeakOnly is referenced only by a WeakReference's referent.
	weak := instancesOf(h, classNamed(t, h, "fixture.WeakOnly"))
	if len(weak) != 1 {
		t.Fatalf("%d WeakOnly objects, want 1", len(weak))
	}
	if incoming[weak[0]] != 0 {
		t.Errorf("WeakOnly has %d strong references, want 0", incoming[weak[0]])
	}
	var from []ObjectIndex
	for _, w := range h.Referents() {
		if w.To == weak[0] {
			from = append(from, w.From)
		}
	}
	if len(from) != 1 || h.Classes[h.ClassOf(from[0])].Name != "java.lang.ref.WeakReference" {
		t.Errorf("WeakOnly is the referent of %v, want one WeakReference", from)
	}

	// fixture.Registry.MAP: a HashMap whose table is a Node[256]; its 100
	// entries hang off the table, directly or behind other nodes, each
	// value a Payload owning a byte[1000].
	reg := h.Classes[classNamed(t, h, "fixture.Registry")]
	var mapID uint64
	for _, s := range reg.Statics {
		if s.Name == "MAP" {
			mapID = s.Value
		}
	}
	m, ok := h.Lookup(mapID)
	if !ok || h.Classes[h.ClassOf(m)].Name != "java.util.HashMap" {
		t.Fatalf("Registry.MAP = 0x%x is no HashMap in the dump", mapID)
	}
	var table ObjectIndex = NoObject
	for _, r := range h.Refs(m) {
		if h.Classes[h.ClassOf(r)].Name == "java.util.HashMap$Node[]" {
			table = r
		}
	}
	if table == NoObject || h.ArrayLength(table) != 256 {
		t.Fatalf("MAP's table: %v, want a Node[256]", table)
	}
	nodes := map[ObjectIndex]bool{}
	var walk func(ObjectIndex)
	walk = func(n ObjectIndex) {
		if nodes[n] {
			return
		}
		nodes[n] = true
		for _, r := range h.Refs(n) {
			if h.Classes[h.ClassOf(r)].Name == "java.util.HashMap$Node" {
				walk(r)
			}
		}
	}
	for _, r := range h.Refs(table) {
		walk(r)
	}
	if len(nodes) != 100 {
		t.Errorf("MAP holds %d nodes, want 100", len(nodes))
	}
	payloads := 0
	for n := range nodes {
		for _, r := range h.Refs(n) {
			if h.Classes[h.ClassOf(r)].Name == "fixture.Payload" {
				payloads++
				var data ObjectIndex = NoObject
				for _, d := range h.Refs(r) {
					data = d
				}
				if data == NoObject || h.ArrayLength(data) != 1000 || h.ShallowBytes(data, SizeJVM) != 1016 {
					t.Errorf("a Payload's data: %v, want a byte[1000] of 1016 bytes", data)
				}
			}
		}
	}
	if payloads != 100 {
		t.Errorf("%d Payload values, want 100", payloads)
	}

	// fixture.StackOnly is held only by a Java frame of the holder thread.
	stack := instancesOf(h, classNamed(t, h, "fixture.StackOnly"))
	if len(stack) != 1 || incoming[stack[0]] != 0 {
		t.Fatalf("StackOnly: %v objects, %d strong references; want 1 object, 0", stack, incoming[stack[0]])
	}
	var roots []Root
	for _, r := range h.Roots {
		if r.Object == stack[0] {
			roots = append(roots, r)
		}
	}
	if len(roots) != 1 || roots[0].Kind != RootJavaFrame || roots[0].Thread < 0 {
		t.Errorf("StackOnly roots %+v, want one java-frame root of a thread", roots)
	}
}

// TestNoRecordAfterHeader: a binary dump whose header is good but after
// which nothing decodes is an error naming the offset and what was
// found, never an empty heap.
func TestNoRecordAfterHeader(t *testing.T) {
	header := append([]byte("JAVA PROFILE 1.0.2\x00"), 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0)
	for _, tc := range []struct {
		name string
		body []byte
		want string
	}{
		{"header only", nil, "x.hprof: no record could be decoded after the header: offset 31: the file ends there"},
		{"unknown tag", []byte{0xEE, 0, 0, 0, 0, 0x7F, 0, 0, 0, 1, 2, 3},
			"x.hprof: no record could be decoded after the header: offset 31: unknown record tag 0xEE (2130706432 bytes) skipped; then offset 40: "},
		{"first record cut", []byte{0x01, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0},
			"x.hprof: no record could be decoded after the header: offset 40: "},
	} {
		data := append(append([]byte(nil), header...), tc.body...)
		f, err := input.NewFile("x.hprof", io.NopCloser(bytes.NewReader(data)), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Load(f, LoadOptions{Dump: -1, Objects: true})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one starting %q", tc.name, err, tc.want)
		}
	}
}
