package model

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/input"
)

// countingDumps are the real dumps CountClasses is checked on: HotSpot
// JDK 17 and 25 (segmented) and, from ../shared/corpus, older JDKs and
// the hprof agent, which it must leave to Load.
func countingDumps(t *testing.T) []string {
	dumps, err := filepath.Glob(filepath.Join("..", "testdata", "jvm", "*.hprof.gz"))
	if err != nil || len(dumps) == 0 {
		t.Fatalf("no JVM dumps in testdata/jvm: %v", err)
	}
	dumps = append(dumps, filepath.Join("..", "testdata", "agent", "heap-binary.hprof.gz"))
	if dir, ok := testshared.Find("corpus", "eclipse-mat_mat"); ok {
		more, _ := filepath.Glob(filepath.Join(dir, "*.hprof.gz"))
		dumps = append(dumps, more...)
	}
	return dumps
}

// gunzipTo writes the decompressed gz file to dir and returns its path.
func gunzipTo(t *testing.T, gz, dir string) string {
	t.Helper()
	in, err := os.Open(gz)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.Base(gz[:len(gz)-len(".gz")]))
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCountClassesAsLoad checks that counting the segments side by side
// gives every class the counts, sizes and layout one pass of Load gives
// it, with each segment a job of its own read in windows of 64 bytes
// (grown for the class dumps) or 4 KiB (so that gaps and observations
// cross every job boundary, and records every window's end) and with the
// default jobs, on 1 to 3 workers; and that dumps it does not count (not in segments, the hprof
// agent's) are refused with ErrNotCountable.
func TestCountClassesAsLoad(t *testing.T) {
	dir := t.TempDir()
	counted := 0
	for _, gz := range countingDumps(t) {
		path := gunzipTo(t, gz, dir)
		f, err := input.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Load(f, LoadOptions{Dump: -1})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", gz, err)
		}
		for _, sizes := range [][2]int64{{1, 64}, {1, 4096}, {batchBytes, windowBytes}} {
			for workers := 1; workers <= 3; workers++ {
				savedBatch, savedWindow := batchBytes, windowBytes
				batchBytes, windowBytes = sizes[0], sizes[1]
				got, err := CountClasses(path, workers)
				batchBytes, windowBytes = savedBatch, savedWindow
				if errors.Is(err, ErrNotCountable) {
					t.Logf("%s: %v", filepath.Base(gz), err)
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", gz, err)
				}
				counted++
				sameCounts(t, filepath.Base(gz), got, want)
			}
		}
	}
	if counted < 9*12 {
		t.Errorf("%d countings of the JDK 17 and 25 dumps, want them all", counted)
	}
}

// sameCounts compares what a histogram reads of two heaps.
func sameCounts(t *testing.T, name string, got, want *Heap) {
	t.Helper()
	if len(got.Classes) != len(want.Classes) {
		t.Fatalf("%s: %d classes, want %d", name, len(got.Classes), len(want.Classes))
	}
	if got.Layout != want.Layout || got.LayoutReason != want.LayoutReason {
		t.Errorf("%s: layout %+v (%s), want %+v (%s)", name, got.Layout, got.LayoutReason, want.Layout, want.LayoutReason)
	}
	if got.Source.Bytes != want.Source.Bytes || got.Source.Dumps != want.Source.Dumps {
		t.Errorf("%s: source %+v, want %+v", name, got.Source, want.Source)
	}
	for i := range want.Classes {
		g, w := &got.Classes[i], &want.Classes[i]
		c := ClassIndex(i)
		if g.Name != w.Name || g.Instances != w.Instances || g.ArrayElements != w.ArrayElements || g.Elem != w.Elem ||
			got.ClassBytes(c, SizeJVM) != want.ClassBytes(c, SizeJVM) || got.ClassBytes(c, SizeFields) != want.ClassBytes(c, SizeFields) {
			t.Errorf("%s: class %d %s: %d instances, %d elements, %d/%d bytes; want %s %d, %d, %d/%d", name, i, g.Name,
				g.Instances, g.ArrayElements, got.ClassBytes(c, SizeJVM), got.ClassBytes(c, SizeFields),
				w.Name, w.Instances, w.ArrayElements, want.ClassBytes(c, SizeJVM), want.ClassBytes(c, SizeFields))
		}
	}
	for tag, n := range want.SubRecordCounts {
		if got.SubRecordCounts[tag] != n {
			t.Errorf("%s: %d %s, want %d", name, got.SubRecordCounts[tag], tag, n)
		}
	}
}
