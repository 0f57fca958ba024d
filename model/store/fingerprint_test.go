package store

import (
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// randomFile writes size pseudo-random bytes to a new file and returns its
// path and contents.
func randomFile(t *testing.T, name string, size int) (string, []byte) {
	t.Helper()
	data := make([]byte, size)
	r := rand.NewChaCha8([32]byte{byte(size), byte(size >> 8), byte(size >> 16)})
	r.Read(data)
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

func TestFingerprintWholeSmallFile(t *testing.T) {
	for _, size := range []int{0, 1, 100_000, 18 * 65536} {
		path, data := randomFile(t, "small", size)
		fp, err := FingerprintFile(path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(path)
		want := Fingerprint{Size: int64(size), ModTime: st.ModTime().UnixNano(), Sample: sha256.Sum256(data)}
		if fp != want {
			t.Errorf("%d bytes: fingerprint %+v, want %+v", size, fp, want)
		}
	}
}

func TestFingerprintSampledBlocks(t *testing.T) {
	for _, size := range []int{18*65536 + 1, 5_000_003} {
		path, data := randomFile(t, "large", size)
		fp, err := FingerprintFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// 18 blocks of 64 KiB: block i starts at i*(size-65536)/17.
		h := sha256.New()
		for i := range 18 {
			off := i * (size - 65536) / 17
			h.Write(data[off : off+65536])
		}
		if fp.Size != int64(size) || [32]byte(h.Sum(nil)) != fp.Sample {
			t.Errorf("%d bytes: fingerprint %+v, want the size and the hash of the 18 blocks", size, fp)
		}
	}
}

func TestFingerprintNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := FingerprintFile(dir); !errors.Is(err, ErrNoFile) {
		t.Errorf("FingerprintFile(directory): %v, want ErrNoFile", err)
	}
	if _, err := FingerprintFile(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("FingerprintFile(absent): %v, want ErrNotExist", err)
	}
}

// indexDump builds an index for the dump at path where Locate places it.
func indexDump(t *testing.T, dump string) Identity {
	t.Helper()
	fp, err := FingerprintFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	id := Identity{Content: 3, Dump: fp}
	place, err := Locate(dump, "")
	if err != nil {
		t.Fatal(err)
	}
	w, err := place.Create(id)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := WriteArray(w, "a", []uint32{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return id
}

// openForDump opens the index of the dump at path as a command would:
// fingerprint the dump, then open the index where Locate places it.
func openForDump(t *testing.T, dump string) error {
	t.Helper()
	fp, err := FingerprintFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	place, err := Locate(dump, "")
	if err != nil {
		t.Fatal(err)
	}
	ix, err := place.Open(Identity{Content: 3, Dump: fp})
	if err == nil {
		ix.Close()
	}
	return err
}

// TestStaleDump changes a dump after indexing it: rewritten in a sampled
// block with the same size and time (stale), rewritten outside the samples
// and touched (both still served: the fingerprint's limit, and a time
// that says nothing of the content).
func TestStaleDump(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	const size = 3_000_000
	dump, data := randomFile(t, "heap.hprof", size)
	st, _ := os.Stat(dump)
	mtime := st.ModTime()
	rewrite := func(off int) {
		t.Helper()
		data[off] ^= 0x55
		if err := os.WriteFile(dump, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(dump, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	indexDump(t, dump)
	if err := openForDump(t, dump); err != nil {
		t.Fatalf("fresh index: %v", err)
	}

	// Block 9 of 18 starts at 9*(size-65536)/17; change a byte inside it.
	inBlock := 9*(size-65536)/17 + 1000
	rewrite(inBlock)
	if err := openForDump(t, dump); !errors.Is(err, ErrStale) {
		t.Errorf("dump rewritten in a sampled block, same size and time: %v, want ErrStale", err)
	}
	rewrite(inBlock) // back as it was
	if err := openForDump(t, dump); err != nil {
		t.Errorf("dump restored: %v", err)
	}

	// Between blocks 0 and 1 nothing is sampled: the fingerprint's limit.
	between := 65536 + 100
	if 1*(size-65536)/17 <= between {
		t.Fatal("the test's offset is inside a sampled block")
	}
	rewrite(between)
	if err := openForDump(t, dump); err != nil {
		t.Errorf("dump rewritten outside the sampled blocks, same size and time: %v, want the index to be used", err)
	}

	// Touched: only the modification time changes, the index serves.
	later := mtime.Add(time.Second)
	if err := os.Chtimes(dump, later, later); err != nil {
		t.Fatal(err)
	}
	if err := openForDump(t, dump); err != nil {
		t.Errorf("dump touched: %v, want the index used", err)
	}
}
