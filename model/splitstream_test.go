package model

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

// gzipDumps compresses each of paths into dir, as the JVM's -gz does (a
// gzip member per block) for the even ones and as one gzip member for
// the odd ones.
func gzipDumps(t *testing.T, dir string, paths []string) []string {
	t.Helper()
	var out []string
	for k, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		gz := filepath.Join(dir, filepath.Base(path)+".gz")
		if err := os.WriteFile(gz, gzipped(t, data, k%2 == 0), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, gz)
	}
	return out
}

// gzipped compresses data as the JVM's -gz does with jvm, else as one
// gzip member.
func gzipped(t testing.TB, data []byte, jvm bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser = gzip.NewWriter(&buf)
	if jvm {
		w = hproftest.NewJVMGzipWriter(&buf, 1)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// loadStreamBoth loads the compressed dump path in pieces from its stream
// and with one reader. When the pieces give errNotSplit, the one reader
// reads from the same File, which must have been rewound: it must give
// what a fresh File gives. Else it reads from a File of its own.
func loadStreamBoth(t *testing.T, path string) (pieces, stream *Heap, streamErr error) {
	t.Helper()
	opt := LoadOptions{Dump: -1, Objects: true}
	f := openFresh(t, path)
	pieces, err := loadStreamInPieces(f, opt)
	if errors.Is(err, errNotSplit) {
		t.Logf("%s: %v", filepath.Base(path), err)
		stream, streamErr = loadStream(f, opt)
		fresh, freshErr := loadStream(openFresh(t, path), opt)
		if fmt.Sprint(streamErr) != fmt.Sprint(freshErr) || (streamErr == nil && !reflect.DeepEqual(stream, fresh)) {
			t.Errorf("%s: read again after the pieces gave up: %v; from a fresh file: %v\n%s", filepath.Base(path), streamErr, freshErr, heapDiff(stream, fresh))
		}
		return nil, stream, streamErr
	} else if err != nil {
		t.Fatalf("%s in pieces: %v", path, err)
	}
	// As Load sets them for either.
	if pieces.offsets != nil {
		pieces.checkpoints = f.Checkpoints()
	}
	stream, streamErr = loadStream(openFresh(t, path), opt)
	return pieces, stream, streamErr
}

// TestLoadStreamInPiecesMatchesStream loads every dump of
// TestLoadInPiecesMatchesStream, gzipped, in pieces from its stream,
// parsed by four workers, and with one reader: the heaps must be equal
// in every table, for batches of one sub-record each and of 64 KiB. The
// HotSpot dumps must be read in pieces; the others must give, after the
// File rewound, the heap a File of their own gives.
func TestLoadStreamInPiecesMatchesStream(t *testing.T) {
	defer func(saved int64) { splitBatchBytes = saved }(splitBatchBytes)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	dir := t.TempDir()
	paths := gzipDumps(t, dir, splitDumps(t, dir))
	for _, batch := range []int64{1, 64 << 10} {
		splitBatchBytes = batch
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) { compareLoads(t, paths, loadStreamBoth) })
	}
}

// FuzzLoadStreamInPieces loads arbitrary bytes, gzipped, in pieces from
// their stream, one sub-record a batch on three workers, and with one
// reader: where the pieces give a heap, the reader must give the same
// one; where they give up, the File must read from its start again and
// give what a fresh one gives; where they give another error, the reader
// must give the same error. Seeded with small realistic dumps.
func FuzzLoadStreamInPieces(f *testing.F) {
	addSplitSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer splitFuzzSettings()()
		path := filepath.Join(t.TempDir(), "dump.gz")
		if err := os.WriteFile(path, gzipped(t, data, false), 0o644); err != nil {
			t.Fatal(err)
		}
		opt := LoadOptions{Dump: -1, Objects: true}
		in, err := input.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		pieces, piecesErr := loadStreamInPieces(in, opt)
		if errors.Is(piecesErr, errNotSplit) {
			again, againErr := loadStream(in, opt)
			fresh, freshErr := loadStream(openFresh(t, path), opt)
			if fmt.Sprint(againErr) != fmt.Sprint(freshErr) || (againErr == nil && !reflect.DeepEqual(again, fresh)) {
				t.Fatalf("read again after the pieces gave up: %v; from a fresh file: %v", againErr, freshErr)
			}
			return
		}
		if pieces != nil && pieces.offsets != nil {
			pieces.checkpoints = in.Checkpoints() // as Load sets them
		}
		stream, streamErr := loadStream(openFresh(t, path), opt)
		sameLoad(t, pieces, stream, piecesErr, streamErr)
	})
}

// openFresh opens path, closed when the test ends.
func openFresh(t *testing.T, path string) *input.File {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
