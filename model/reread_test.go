package model

import (
	"bytes"
	"io"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

// TestRereadTruncatedDump: the second read of a dump cut short (field
// labels for retainers and leaks, Thread objects for threads and
// deadlocks) keeps what came before the cut, as the first read did,
// instead of failing on the cut the first read already reported. The
// dump is held in memory: the heap reads it again through a fake
// DumpReader.
func TestRereadTruncatedDump(t *testing.T) {
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{IDSize: 8})
	w.BeginHeapDump()
	object := w.Class("java/lang/Object", nil)
	node := w.Class("com/example/Node", object, hproftest.Field{Name: "next", Type: hproftest.TypeObject})
	tail := w.Instance(node, hproftest.Ref(0))
	head := w.Instance(node, hproftest.Ref(tail))
	cut := w.Written() + 5
	w.Instance(node, hproftest.Ref(head))
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()[:cut]
	f, err := input.NewFile("cut.hprof", io.NopCloser(bytes.NewReader(data)), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := Load(f, LoadOptions{Dump: -1, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	attachMemory(h, "cut.hprof", data)
	if !h.Truncated {
		t.Fatal("the dump cut inside its last instance is not reported as truncated")
	}
	from, ok := h.Lookup(uint64(head))
	if !ok {
		t.Fatal("the instance before the cut is not in the heap")
	}
	to, _ := h.Lookup(uint64(tail))
	labels, err := ReadLabels(h, []ObjectIndex{from})
	if err != nil {
		t.Fatalf("second read: %v", err)
	}
	if got := labels[from]; len(got) != 1 || got[0].Label != "next" || got[0].To != to {
		t.Errorf("labels of the instance before the cut: %+v, want next -> %d", got, to)
	}
}
