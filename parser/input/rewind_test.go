package input

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// TestRewind reads part of a file, rewinds it and reads it whole: the
// bytes are the file's from its first on, its stored offset counts from
// the start again, and so for a JVM -gz file (members inflated side by
// side), a plain gzip file and a plain file; a stream Open did not open
// from a path cannot be rewound.
func TestRewind(t *testing.T) {
	data := text(5<<20, 7)
	jvm, _ := jvmGzip(t, data, 1<<20, 1)
	var plainGzip bytes.Buffer
	w := gzip.NewWriter(&plainGzip)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		stored []byte
	}{{"jvm.gz", jvm}, {"plain.gz", plainGzip.Bytes()}, {"plain", data}} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.stored, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(f, make([]byte, 3<<20)); err != nil {
			t.Fatal(err)
		}
		before := f.StoredOffset()
		if err := f.Rewind(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if after := f.StoredOffset(); after >= before && len(c.stored) > 2<<20 {
			t.Errorf("%s: stored offset %d after the rewind, %d before", c.name, after, before)
		}
		got, err := io.ReadAll(f)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s: read %d bytes after the rewind, not the file's %d", c.name, len(got), len(data))
		}
		if f.StoredOffset() != int64(len(c.stored)) {
			t.Errorf("%s: stored offset %d at the end, want %d", c.name, f.StoredOffset(), len(c.stored))
		}
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}
	f, err := NewFile("<stdin>", io.NopCloser(bytes.NewReader(data)), -1)
	if err != nil {
		t.Fatal(err)
	}
	if f.Rewindable() || f.Rewind() == nil {
		t.Error("a stream from no path rewinds")
	}
}
