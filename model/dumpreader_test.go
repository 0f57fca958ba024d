package model

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// memoryDump is the DumpReader the tests of this package attach: a dump
// held in memory, read at offsets or streamed as internal/dumpfile reads
// a file.
type memoryDump struct {
	name string
	data []byte
	h    *Heap
}

func (m *memoryDump) Objects(o hprof.ObjectReaderOptions, fn func(*hprof.ObjectReader) error) error {
	r, err := hprof.NewObjectReader(bytes.NewReader(m.data), int64(len(m.data)), o)
	if err != nil {
		return err
	}
	return fn(r)
}

func (m *memoryDump) Records(fn func(hprof.Source) error) error {
	f, err := input.NewFile(m.name, io.NopCloser(bytes.NewReader(m.data)), int64(len(m.data)))
	if err != nil {
		return err
	}
	defer f.Close()
	src, err := m.h.OpenSource(f)
	if err != nil {
		return err
	}
	return fn(src)
}

// attachMemory attaches to h the dump data, named name, that it was
// loaded from.
func attachMemory(h *Heap, name string, data []byte) {
	h.SetDumpReader(&memoryDump{name: name, data: data, h: h})
}

// attachDump attaches to h the dump at path, read into memory.
func attachDump(t testing.TB, h *Heap, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	attachMemory(h, path, data)
}

// TestNoDumpReader: a heap that was given no DumpReader answers reads of
// values with an error saying so, and an Unreadable one with its error.
func TestNoDumpReader(t *testing.T) {
	h := loadFixture(t, "jdk17-default.hprof.gz")
	var objs []ObjectIndex
	for i := 0; i < h.NumObjects(); i += 101 {
		objs = append(objs, ObjectIndex(i))
	}
	h.SetDumpReader(nil)
	if _, err := ReadLabels(h, objs); !errors.Is(err, errNoDumpReader) {
		t.Errorf("no reader: %v, want %v", err, errNoDumpReader)
	}
	gone := errors.New("gone")
	h.SetDumpReader(Unreadable{Err: gone})
	if _, err := ReadValues(h, objs, ValueOptions{}); !errors.Is(err, gone) {
		t.Errorf("an Unreadable reader: %v, want %v", err, gone)
	}
}
