package hprofascii_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/hprofascii"
)

// corpusSeedSize is how much of each real file seeds the fuzzer.
const corpusSeedSize = 4 << 10

// fuzzMaxLine is the line limit of half the fuzz runs, small enough for
// the fuzzer to reach.
const fuzzMaxLine = 300

// readerOverhead is what a Reader may allocate whatever its input: its
// first buffer and the growth of its record slices.
const readerOverhead = 256 << 10

// FuzzReader reads arbitrary input: the Reader must not panic, must
// deliver records in increasing line order, must end in nil or a
// FormatError, must yield the same records however its source splits
// the input, and must not allocate beyond a small multiple of its input.
func FuzzReader(f *testing.F) {
	for _, name := range []string{"jvmti.txt", "jvmpi.txt", "oldprof.txt"} {
		data, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(crlf(data))
	}
	f.Add([]byte(jvmtiHead + "HEAP DUMP BEGIN (1 objects, 16 bytes) Sat Mar 27 10:51:58 2021\n" +
		"ARR 1 (sz=16, trace=0, nelems=3, elem type=X[]@2)\n\t[0]\t\t3\n\t[7]\t\t4\nOBJ 5 (sz=16, trace=0, class=X@2)\n\tf\t\t1\n"))
	for _, dir := range []string{"WardCunningham_SimNet", "kevinlights_jvm-learn", "AngiWANG_Java-program-performance-optimize"} {
		path, ok := testshared.Find("corpus", dir, "java.hprof.txt")
		if !ok {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), corpusSeedSize)])
		f.Add(data[max(0, len(data)-corpusSeedSize):])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := hprofascii.Options{}
		if len(data)%2 == 1 {
			opt.MaxLine = fuzzMaxLine
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n := countRecords(t, bytes.NewReader(data), opt)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > readerOverhead+uint64(32*len(data)) {
			t.Fatalf("%d bytes allocated reading %d bytes", alloc, len(data))
		}
		if n < 0 || len(data) > 64<<10 {
			return
		}
		whole := scan(t, data, opt)
		split := scanFrom(t, iotest.OneByteReader(bytes.NewReader(data)), opt)
		if !slices.Equal(whole.records, split.records) || whole.count != split.count || (whole.err == nil) != (split.err == nil) {
			t.Fatalf("read whole: %d records, %d warnings, error %v; byte by byte: %d, %d, %v",
				len(whole.records), whole.count, whole.err, len(split.records), split.count, split.err)
		}
	})
}

// countRecords reads every record, touching no text, and returns their
// number, or -1 if NewReader refused the input.
func countRecords(t *testing.T, src io.Reader, opt hprofascii.Options) int {
	r, err := hprofascii.NewReader(src, opt)
	if err != nil {
		checkFormatError(t, err)
		return -1
	}
	n := 0
	for r.Next() {
		n++
	}
	checkFormatError(t, r.Err())
	return n
}

// TestSplitReads reads the fixtures through sources that return one byte
// or half the request at a time: the records must not change.
func TestSplitReads(t *testing.T) {
	for _, name := range []string{"jvmti.txt", "jvmpi.txt", "oldprof.txt"} {
		data := readFile(t, filepath.Join(fixtureDir, name))
		want := scan(t, data, hprofascii.Options{})
		for _, src := range []io.Reader{iotest.OneByteReader(bytes.NewReader(data)), iotest.HalfReader(bytes.NewReader(data)),
			iotest.DataErrReader(bytes.NewReader(data))} {
			got := scanFrom(t, src, hprofascii.Options{})
			if got.err != nil {
				t.Fatal(got.err)
			}
			checkRecords(t, got.records, want.records)
		}
	}
}

// TestSourceError checks that a failing source stops the Reader with an
// error that is not a truncation.
func TestSourceError(t *testing.T) {
	data := readFile(t, filepath.Join(fixtureDir, "jvmti.txt"))
	failure := errors.New("disk on fire")
	src := io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(failure))
	r, err := hprofascii.NewReader(src, hprofascii.Options{Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	if err := r.Err(); err == nil || errors.Is(err, hprofascii.ErrTruncated) || !bytes.Contains([]byte(err.Error()), []byte("disk on fire")) {
		t.Errorf("error %v, want the source's", err)
	}
}
