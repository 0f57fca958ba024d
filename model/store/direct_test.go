package store

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDirectWriterContent: what a directWriter is given lands in the file
// in order, whatever the sizes of the writes and wherever a Flush falls
// (a part block written through the page cache, then again with what
// follows), past the page cache, through it where the file system
// refuses that, or past it and then through it once the disk was slow.
func TestDirectWriterContent(t *testing.T) {
	for _, mode := range []string{"past the page cache", "refused", "slow"} {
		f, err := os.Create(filepath.Join(t.TempDir(), "direct"))
		if err != nil {
			t.Fatal(err)
		}
		d := newDirectWriter(f)
		if d == nil {
			t.Skip("no writes past the page cache on this system")
		}
		switch mode {
		case "refused":
			d.direct.Close()
			d.direct = nil
		case "slow":
			d.writes, d.took = probeWrites, time.Hour // the next write gives up
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
			t.Errorf("%s: the file holds %d bytes, not the %d written (or not the same)", mode, len(got), want.Len())
		}
		if mode == "slow" && d.direct != nil {
			t.Errorf("the writer went on past the page cache after slow writes")
		}
	}
}

// TestDirectSameFile: an index written past the page cache is the same
// file, byte for byte, as one written through it, with sections that
// span several buffers and a writeback started between them.
func TestDirectSameFile(t *testing.T) {
	dir := t.TempDir()
	big := make([]uint64, 3*directBufferSize/8+5)
	for i := range big {
		big[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	write := func(name string, past bool) []byte {
		defer func(was bool) { pastPageCache = was }(pastPageCache)
		pastPageCache = past
		path := filepath.Join(dir, name+Suffix)
		w, err := Create(path, testID, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		if past && w.direct == nil {
			t.Skip("no writes past the page cache on this system")
		}
		if !past && w.direct != nil {
			t.Fatal("a writer told not to write past the page cache does")
		}
		steps := []func() error{
			func() error { return WriteArray(w, "small", []uint16{1, 2, 3}) },
			w.StartWriteback,
			func() error { return WriteArray(w, "big", big) },
			func() error { return w.WriteStrings("names", []string{"a", "bc", strings.Repeat("d", 5000)}) },
			w.StartWriteback,
			func() error { return WriteArray(w, "tail", big[:777]) },
			w.Commit,
		}
		for i, step := range steps {
			if err := step(); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	buffered := write("buffered", false)
	direct := write("direct", true)
	if !bytes.Equal(buffered, direct) {
		t.Errorf("the index written past the page cache (%d bytes) differs from the one written through it (%d bytes)", len(direct), len(buffered))
	}
	ix, err := Open(filepath.Join(dir, "direct"+Suffix), testID)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	got := mustArray[uint64](t, ix, "big")
	if len(got) != len(big) || got[len(got)-1] != big[len(big)-1] {
		t.Errorf("section big reads %d values, the last %d; want %d and %d", len(got), got[len(got)-1], len(big), big[len(big)-1])
	}
}

// TestSlowDirect: writes past the page cache are given up after one that
// took very long, or once enough of them took long on average; a few
// slow ones at the start, or an idle disk's pace, are not enough.
func TestSlowDirect(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		writes int
		took   time.Duration // all the writes so far, last included
		last   time.Duration
		slow   bool
	}{
		{1, 1 * ms, 1 * ms, false},
		{1, 150 * ms, 150 * ms, true},
		{3, 60 * ms, 20 * ms, false},
		{probeWrites, probeWrites * ms, ms, false},
		{probeWrites, probeWrites * 6 * ms, 6 * ms, true},
		{1000, 1000 * ms, 2 * ms, false},
		{1000, 1000 * 23 * ms, 23 * ms, true},
	} {
		d := &directWriter{writes: c.writes, took: c.took}
		if got := d.slowDirect(c.last); got != c.slow {
			t.Errorf("%d writes in %v, the last in %v: slow %v, want %v", c.writes, c.took, c.last, got, c.slow)
		}
	}
}
