package hproftest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"testing"

	"github.com/hprofctl/hprofctl/parser/input"
)

// TestJVMGzipWriter writes a realistic dump of 3.5 MiB through
// JVMGzipWriter and reads it back member by member with compress/gzip:
// four members, 1 MiB each but the last, the first one's comment giving
// the block size and the later headers bare, and together the bytes of the
// plain dump. parser/input reads it as a JVM file, a checkpoint per
// member.
func TestJVMGzipWriter(t *testing.T) {
	var plain, packed bytes.Buffer
	if _, err := WriteRealistic(&plain, 7<<19, 3, 8); err != nil {
		t.Fatal(err)
	}
	w := NewJVMGzipWriter(&packed, 1)
	// Written in odd pieces, so that blocks are cut inside writes.
	for data := plain.Bytes(); len(data) > 0; {
		n := min(len(data), 300_007)
		if _, err := w.Write(data[:n]); err != nil {
			t.Fatal(err)
		}
		data = data[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	members := (plain.Len() + JVMGzipBlock - 1) / JVMGzipBlock
	br := bufio.NewReader(bytes.NewReader(packed.Bytes()))
	var got []byte
	for k := 0; ; k++ {
		zr, err := gzip.NewReader(br)
		if errors.Is(err, io.EOF) && k > 0 {
			if k != members {
				t.Errorf("%d members, want %d", k, members)
			}
			break
		}
		if err != nil {
			t.Fatalf("member %d: %v", k, err)
		}
		zr.Multistream(false)
		data, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("member %d: %v", k, err)
		}
		if k < members-1 && len(data) != JVMGzipBlock {
			t.Errorf("member %d holds %d bytes, want %d", k, len(data), JVMGzipBlock)
		}
		wantComment := ""
		if k == 0 {
			wantComment = "HPROF BLOCKSIZE=1048576"
		}
		if zr.Comment != wantComment || zr.Name != "" || !zr.ModTime.IsZero() || zr.Extra != nil {
			t.Errorf("member %d header: comment %q, name %q, time %v, extra %x", k, zr.Comment, zr.Name, zr.ModTime, zr.Extra)
		}
		got = append(got, data...)
	}
	if !bytes.Equal(got, plain.Bytes()) {
		t.Fatalf("the members hold %d bytes unlike the plain dump's %d", len(got), plain.Len())
	}
	in, err := input.NewFile("packed", io.NopCloser(bytes.NewReader(packed.Bytes())), int64(packed.Len()))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := io.Copy(io.Discard, in); err != nil {
		t.Fatal(err)
	}
	if n := len(in.Checkpoints()); n != members {
		t.Errorf("parser/input found %d checkpoints, want one per member (%d)", n, members)
	}
}

// TestJVMGzipWriterError: a destination that fails makes Write or Close
// fail with its error.
func TestJVMGzipWriterError(t *testing.T) {
	broken := errors.New("disk full")
	w := NewJVMGzipWriter(failingWriter{broken}, 1)
	var err error
	for range 64 {
		if _, err = w.Write(make([]byte, 1<<19)); err != nil {
			break
		}
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if !errors.Is(err, broken) {
		t.Errorf("error %v, want %v", err, broken)
	}
}

// failingWriter fails every write with err.
type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }
