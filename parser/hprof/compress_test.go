package hprof_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

// gzipMembers compresses data as JDK 15+ writers do: one complete gzip
// member per block, the first carrying the "HPROF BLOCKSIZE" comment.
func gzipMembers(t *testing.T, data []byte, block int) []byte {
	t.Helper()
	var out bytes.Buffer
	for off := 0; off < len(data); off += block {
		zw, err := gzip.NewWriterLevel(&out, gzip.BestSpeed)
		if err != nil {
			t.Fatal(err)
		}
		if off == 0 {
			zw.Comment = "HPROF BLOCKSIZE=" + strconv.Itoa(block)
		}
		if _, err := zw.Write(data[off:min(off+block, len(data))]); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// scanFile reads path through parser/input and returns the records.
func scanFile(t *testing.T, path string, want input.Compression) scanned {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Compression != want {
		t.Fatalf("%s: compression %q, want %q", path, f.Compression, want)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return scan(t, data, hprof.Options{Name: path}, alternatePayloads)
}

// scanStream reads path through parser/input straight into a Reader, the
// way the command does, and every payload, the big ones in chunks.
func scanStream(t *testing.T, path string) (records int, err error) {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := hprof.NewReader(f, hprof.Options{Name: path})
	if err != nil {
		return 0, err
	}
	for r.Next() {
		records++
		switch size := r.PayloadSize(); {
		case size > 1<<20:
			if err := r.PayloadChunks(func([]byte) error { return nil }); err != nil {
				return records, err
			}
		case size > 0:
			if _, err := r.Payload(); err != nil {
				return records, err
			}
		}
	}
	return records, r.Err()
}

func realisticDump(t *testing.T, size int64, idSize int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := hproftest.WriteRealistic(&buf, size, 11, idSize); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestGzipMultiMember reads a dump compressed in 1 MiB gzip members, as JDK
// 15+ writes them, through parser/input.
func TestGzipMultiMember(t *testing.T) {
	data := realisticDump(t, 3<<20, 8)
	want := scan(t, data, hprof.Options{}, alternatePayloads)
	if want.err != nil {
		t.Fatal(want.err)
	}
	path := filepath.Join(t.TempDir(), "dump.hprof.gz")
	if err := os.WriteFile(path, gzipMembers(t, data, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	got := scanFile(t, path, input.Gzip)
	if got.err != nil {
		t.Fatal(got.err)
	}
	compareItems(t, got.items, want.items)
	n, err := scanStream(t, path)
	if err != nil || n != len(want.items) {
		t.Fatalf("streamed %d records, want %d: %v", n, len(want.items), err)
	}
}

// TestGzipMultiMemberTruncated reads a multi-member gzip cut inside a member.
func TestGzipMultiMemberTruncated(t *testing.T) {
	data := realisticDump(t, 2<<20, 4)
	z := gzipMembers(t, data, 1<<20)
	path := filepath.Join(t.TempDir(), "cut.hprof.gz")
	if err := os.WriteFile(path, z[:len(z)*3/4], 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := scanStream(t, path)
	var fe *hprof.FormatError
	if n < 1000 || err == nil || !errors.As(err, &fe) {
		t.Fatalf("%d records, error %v: want many records, then a FormatError", n, err)
	}
}

// TestBzip2 reads a bzip2-compressed dump through parser/input.
func TestBzip2(t *testing.T) {
	bzip2, err := exec.LookPath("bzip2")
	if err != nil {
		t.Skip("no bzip2 command to compress the dump with")
	}
	data := realisticDump(t, 1<<20, 4)
	want := scan(t, data, hprof.Options{}, alternatePayloads)
	cmd := exec.Command(bzip2, "-c", "-1")
	cmd.Stdin = bytes.NewReader(data)
	z, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dump.hprof.bz2")
	if err := os.WriteFile(path, z, 0o644); err != nil {
		t.Fatal(err)
	}
	got := scanFile(t, path, input.Bzip2)
	if got.err != nil {
		t.Fatal(got.err)
	}
	compareItems(t, got.items, want.items)
	if n, err := scanStream(t, path); err != nil || n != len(want.items) {
		t.Fatalf("streamed %d records, want %d: %v", n, len(want.items), err)
	}
}

// TestCorpusFilesRead reads every binary dump of the shared corpus, the
// compressed ones through parser/input.
func TestCorpusFilesRead(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testshared.Path(t, "corpus"), "*", "*"))
	read := 0
	for _, path := range files {
		name := filepath.Base(path)
		if !strings.Contains(name, ".hprof") && !strings.Contains(name, ".bin") ||
			strings.Contains(name, ".TMP") || strings.HasSuffix(name, ".txt") {
			continue
		}
		read++
		t.Run(name, func(t *testing.T) {
			n, err := scanStream(t, path)
			if err != nil || n == 0 {
				t.Errorf("%d records: %v", n, err)
			}
		})
	}
	if read == 0 {
		t.Error("the corpus holds no binary dump")
	}
}
