package store

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestDirectWriterContent: what a directWriter is given lands in the file
// in order, whatever the sizes of the writes and wherever a Flush falls
// (a part block written through the page cache, then again with what
// follows), past the page cache or, where the file system refuses that,
// through it.
func TestDirectWriterContent(t *testing.T) {
	for _, pastCache := range []bool{true, false} {
		f, err := os.Create(filepath.Join(t.TempDir(), "direct"))
		if err != nil {
			t.Fatal(err)
		}
		d := newDirectWriter(f)
		if d == nil {
			t.Skip("no writes past the page cache on this system")
		}
		if !pastCache {
			d.direct.Close()
			d.direct = nil
		}
		rng := rand.New(rand.NewPCG(1, 2))
		var want bytes.Buffer
		for i := range 200 {
			n := rng.IntN(directBlock * 3)
			if i%50 == 0 {
				n = directBufferSize + rng.IntN(directBlock) // past a whole buffer
			}
			chunk := make([]byte, n)
			for j := range chunk {
				chunk[j] = byte(rng.Uint32())
			}
			if written, err := d.Write(chunk); err != nil || written != n {
				t.Fatalf("write %d: %d bytes, %v; want %d", i, written, err, n)
			}
			want.Write(chunk)
			if i%7 == 0 {
				if err := d.Flush(); err != nil {
					t.Fatalf("flush after write %d: %v", i, err)
				}
			}
		}
		if err := d.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		got, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("past the page cache %v: the file holds %d bytes, not the %d written (or not the same)", pastCache, len(got), want.Len())
		}
	}
}
