package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hprofctl/hprofctl/model"
)

// TestHistoCountedOnEveryCore checks the histogram of a plain HotSpot dump,
// which histo counts on every core (model.CountClasses): for each JVM
// fixture, decompressed, it is the histogram of the same dump read in one
// pass (the gzip file, which is not counted so), row for row in every
// size mode, and its fixture classes have the bytes of the JVM's own
// histogram.
func TestHistoCountedOnEveryCore(t *testing.T) {
	dir := t.TempDir()
	for _, name := range heapShapesDumps {
		t.Run(name, func(t *testing.T) {
			gz := fixturePath(t, name+".hprof.gz")
			plain := gunzipFixture(t, gz, dir)
			if _, err := model.CountClasses(plain, 2); err != nil {
				t.Fatalf("the dump is not counted on every core: %v", err)
			}
			for _, size := range []string{"jvm", "fields"} {
				want, err := runCLI(t, "histo", "--no-index", "--size", size, "-o", "csv", gz)
				if err != nil {
					t.Fatal(err)
				}
				got, err := runCLI(t, "histo", "--no-index", "--size", size, "-o", "csv", plain)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("--size %s: counted histogram differs from the one-pass one:\n%s\nwant:\n%s", size, got, want)
				}
			}
			ours := histoByClass(t, "--no-index", "--match", `^fixture\.`, plain)
			jvm := readJVMHistogram(t, fixturePath(t, name+".histo.txt"))
			for class, o := range ours {
				if j := jvm[class]; o.ShallowBytes != j.ShallowBytes {
					t.Errorf("%s: %d bytes, the JVM's histogram says %d", class, o.ShallowBytes, j.ShallowBytes)
				}
			}
		})
	}
}

// gunzipFixture writes the decompressed gzip file to dir and returns its
// path.
func gunzipFixture(t *testing.T, gz, dir string) string {
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
