package model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
)

// bareCopy copies the buffer of a sample capture alone into a temporary
// directory, away from its manifest, and returns the copy's path and the
// capture's description of it.
func bareCopy(t *testing.T, manifest string) (string, *jvmpi.Capture) {
	t.Helper()
	c, err := jvmpi.LoadCapture(manifest)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(c.BufferPath)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), filepath.Base(c.BufferPath))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, c
}

func loadBare(t *testing.T, path string, opt jvmpi.Options) (*Heap, error) {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Load(f, LoadOptions{Dump: -1, Objects: true, JVMPI: &opt})
}

// firstClassDump returns the offset of the first class dump of a capture's
// buffer, read with its class-load side channel; -1 when it has none.
func firstClassDump(t *testing.T, c *jvmpi.Capture) int64 {
	t.Helper()
	in, err := c.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, err := jvmpi.NewReader(in, c.Options)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		if r.Record().Type == jvmpi.ClassDump {
			return r.Record().Offset
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return -1
}

// TestBareJVMPIHeapSamples reads the sample heap dumps as bare buffers,
// described as their manifests describe them but without side channel.
// Level 0 gives every object, each record being a type byte and an id;
// levels 1 and 2 stop at the first class dump, saying why.
func TestBareJVMPIHeapSamples(t *testing.T) {
	dir := jvmpiSamples(t)
	manifests, _ := filepath.Glob(filepath.Join(dir, "heap-small-l*.json"))
	if len(manifests) == 0 {
		t.Fatal("no heap dump samples in " + dir)
	}
	for _, m := range manifests {
		path, c := bareCopy(t, m)
		h, err := loadBare(t, path, c.Options)
		if c.Options.Level > 0 {
			var fe *jvmpi.FormatError
			if !errors.Is(err, jvmpi.ErrNeedClasses) || !errors.As(err, &fe) {
				t.Errorf("%s: error %v, want one saying class layouts are needed", m, err)
				continue
			}
			if want := firstClassDump(t, c); fe.Offset != want || !strings.Contains(err.Error(), fmt.Sprintf("offset %d:", want)) {
				t.Errorf("%s: %v; the first class dump is at offset %d", m, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", m, err)
			continue
		}
		var total int64
		for _, cl := range h.Classes {
			total += cl.Instances
		}
		if want := *c.Manifest.Length / int64(1+c.Options.IDSize); total != want {
			t.Errorf("%s: %d objects, the %d-byte buffer of level-0 records holds %d", m, total, *c.Manifest.Length, want)
		}
		withSide, err := loadPath(t, m)
		if err != nil {
			t.Fatal(err)
		}
		// Every object of the buffer, and nothing the translation made up.
		if want := *c.Manifest.Length / int64(1+c.Options.IDSize); int64(h.NumObjects()) != want || int64(withSide.NumObjects()) != want {
			t.Errorf("%s: %d objects bare, %d with the side channel; the buffer holds %d", m, h.NumObjects(), withSide.NumObjects(), want)
		}
		got, ref := summarize(h).Classes, summarize(withSide).Classes
		if n := len(c.ClassEvents.Classes); ref["java.lang.Class"] != int64(n) || got["<unknown>"] != ref["<unknown>"]+int64(n) {
			t.Errorf("%s: %d <unknown>, with the side channel %d <unknown> and %d class objects; %d classes loaded", m, got["<unknown>"], ref["<unknown>"], ref["java.lang.Class"], n)
		}
		for name, n := range ref {
			if name != "<unknown>" && name != "java.lang.Class" && got[name] != n {
				t.Errorf("%s: %d %s, with the side channel %d", m, got[name], name, n)
			}
		}
		if len(h.Threads) != 0 || len(h.Roots) != 0 {
			t.Errorf("%s: %d threads and %d roots from a level-0 buffer without side channel", m, len(h.Threads), len(h.Roots))
		}
	}
}
