package model

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model/bigmem"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

// splitDumps are the dumps the load in pieces is compared on: the real
// dumps of countingDumps and of more projects of ../shared/corpus
// (Android, older JDKs, the hprof agent), decompressed into dir, and
// realistic synthetic ones with 4- and 8-byte ids.
func splitDumps(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	gz := countingDumps(t)
	for _, project := range []string{"android", "agourlay_hprof-slurp", "kevinlights_jvm-learn", "GrapheneOS_platform_art"} {
		if dir, ok := testshared.Find("corpus", project); ok {
			more, _ := filepath.Glob(filepath.Join(dir, "*.gz"))
			gz = append(gz, more...)
		}
	}
	for _, path := range gz {
		paths = append(paths, gunzipTo(t, path, dir))
	}
	for _, idSize := range []int{4, 8} {
		path := filepath.Join(dir, "realistic-"+string(rune('0'+idSize))+".hprof")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hproftest.WriteRealistic(f, 4<<20, 7, idSize); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// loadBoth loads path in pieces and with one reader; the heap read in
// pieces is nil when the file is no dump for it, the one read with one
// reader nil (and streamErr set) when the file cannot be loaded.
func loadBoth(t *testing.T, path string) (pieces, stream *Heap, streamErr error) {
	t.Helper()
	opt := LoadOptions{Dump: -1, Objects: true}
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	pieces, err = loadInPieces(f, opt)
	f.Close()
	if errors.Is(err, errNotSplit) {
		t.Logf("%s: %v", filepath.Base(path), err)
		pieces = nil
	} else if err != nil {
		t.Fatalf("%s in pieces: %v", path, err)
	}
	if f, err = input.Open(path); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stream, streamErr = loadStream(f, opt)
	return pieces, stream, streamErr
}

// TestLoadInPiecesMatchesStream loads every HotSpot dump at hand in
// pieces, parsed by four workers, and with one reader: the heaps must be
// equal in every table. The batches are one sub-record each (every
// segment cut by the skimming pass) and 64 KiB (segments joined, the
// larger ones and HEAP_DUMP records cut). The JDK 11, 17 and 25 dumps,
// in segments, and the older JDKs' in one HEAP_DUMP record must be read
// in pieces (not those the hprof agent wrote).
func TestLoadInPiecesMatchesStream(t *testing.T) {
	defer func(saved int64) { splitBatchBytes = saved }(splitBatchBytes)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	paths := splitDumps(t, t.TempDir())
	for _, batch := range []int64{1, 64 << 10} {
		splitBatchBytes = batch
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) { compareLoads(t, paths, loadBoth) })
	}
}

// compareLoads loads each of paths in pieces and with one reader (both)
// and compares the heaps.
func compareLoads(t *testing.T, paths []string, both func(*testing.T, string) (pieces, stream *Heap, streamErr error)) {
	for _, path := range paths {
		pieces, stream, err := both(t, path)
		name := filepath.Base(path)
		if err != nil {
			if pieces != nil {
				t.Errorf("%s read in pieces, but with one reader: %v", name, err)
			}
			continue
		}
		if pieces == nil {
			if hotspot := strings.HasPrefix(name, "jdk") || strings.HasPrefix(name, "realistic") || strings.Contains(name, "_jdk"); hotspot && !strings.Contains(name, "hprofagent") {
				t.Errorf("%s was not read in pieces", name)
			}
			continue
		}
		if stream.NumObjects() == 0 {
			t.Errorf("%s: no objects", name)
		}
		if !reflect.DeepEqual(pieces, stream) {
			t.Errorf("%s: the heap read in pieces differs from the one read with one reader:\n%s", name, heapDiff(pieces, stream))
		}
	}
}

// heapDiff names the fields of Heap in which a and b differ.
func heapDiff(a, b *Heap) string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	var diff []string
	field := func(v reflect.Value, i int) any {
		f := v.Field(i)
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface()
	}
	for i := range va.NumField() {
		if !reflect.DeepEqual(field(va, i), field(vb, i)) {
			diff = append(diff, va.Type().Field(i).Name)
		}
	}
	return strings.Join(diff, ", ")
}

// FuzzLoadInPieces loads arbitrary bytes in pieces, one segment a batch
// on three workers, and with one reader: where the pieces give a heap, the
// reader must give the same one; where they give an error that is not
// errNotSplit, the reader must give the same error. Seeded with small
// realistic dumps.
func FuzzLoadInPieces(f *testing.F) {
	addSplitSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer splitFuzzSettings()()
		path := filepath.Join(t.TempDir(), "dump")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opt := LoadOptions{Dump: -1, Objects: true}
		in, err := input.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		pieces, piecesErr := loadInPieces(in, opt)
		in.Close()
		if errors.Is(piecesErr, errNotSplit) {
			return
		}
		if in, err = input.Open(path); err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		stream, streamErr := loadStream(in, opt)
		sameLoad(t, pieces, stream, piecesErr, streamErr)
	})
}

// sameLoad fails a fuzz target unless a dump read in pieces gave what
// the single reader gave: the same error, or none and the same heap.
func sameLoad(t *testing.T, pieces, stream *Heap, piecesErr, streamErr error) {
	t.Helper()
	switch {
	case piecesErr != nil || streamErr != nil:
		if fmt.Sprint(piecesErr) != fmt.Sprint(streamErr) {
			t.Fatalf("in pieces: %v; with one reader: %v", piecesErr, streamErr)
		}
	case !reflect.DeepEqual(pieces, stream):
		t.Fatalf("the heap read in pieces differs from the one read with one reader: %s", heapDiff(pieces, stream))
	}
}

// addSplitSeeds seeds a fuzz target of the load in pieces with small
// realistic dumps.
func addSplitSeeds(f *testing.F) {
	for _, idSize := range []int{4, 8} {
		var buf bytes.Buffer
		if _, err := hproftest.WriteRealistic(&buf, 64<<10, 3, idSize); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
}

// splitFuzzSettings cuts the fuzz targets' dumps into batches of one
// sub-record, parsed on three workers, until the function it returns is
// called.
func splitFuzzSettings() (restore func()) {
	saved, procs := splitBatchBytes, runtime.GOMAXPROCS(3)
	splitBatchBytes = 1
	return func() {
		splitBatchBytes = saved
		runtime.GOMAXPROCS(procs)
	}
}

// TestSplitBatchWithinBudget checks the batch size splitBatchFor gives:
// never above splitBatchBytes, the full size without a budget, and small
// enough that the pieces in flight take at most an eighth of the budget,
// unless the batches are already at their least.
func TestSplitBatchWithinBudget(t *testing.T) {
	for _, budget := range []int64{0, 64 << 20, 256 << 20, 3 << 30} {
		restore := bigmem.SetBudget(budget, t.TempDir())
		for _, workers := range []int{1, 2, 4, 16, 64} {
			size := splitBatchFor(workers)
			inFlight := int64(piecesAhead(workers)) * size
			switch {
			case size > splitBatchBytes || size <= 0:
				t.Errorf("budget %d, %d workers: batches of %d bytes, want 1 to %d", budget, workers, size, splitBatchBytes)
			case budget == 0 && size != splitBatchBytes:
				t.Errorf("no budget, %d workers: batches of %d bytes, want %d", workers, size, splitBatchBytes)
			case budget > 0 && size > minSplitBatchBytes && inFlight > budget/8:
				t.Errorf("budget %d, %d workers: %d bytes in flight, more than an eighth", budget, workers, inFlight)
			}
		}
		restore()
	}
	restore := bigmem.SetBudget(256<<20, t.TempDir())
	defer restore()
	if got := splitBatchFor(16); got != minSplitBatchBytes {
		t.Errorf("16 workers under 256 MiB: batches of %d bytes, want the least, %d", got, minSplitBatchBytes)
	}
}
