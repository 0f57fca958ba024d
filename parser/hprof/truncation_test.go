package hprof_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// cutPoints describes, for a dump read in full, which records a Reader
// must deliver from a prefix of it and whether the prefix ends cleanly.
type cutPoints struct {
	offsets []int64        // where each record starts
	need    []int64        // prefix length from which each record is delivered
	clean   map[int64]bool // prefix lengths that are a whole, valid file
}

func newCutPoints(full scanned, size int64) cutPoints {
	n := len(full.items)
	c := cutPoints{offsets: full.offsets, need: make([]int64, n), clean: map[int64]bool{}}
	open := false // inside a segmented dump, before its HEAP_DUMP_END
	for i, it := range full.items {
		end := size
		if i+1 < n {
			end = full.offsets[i+1]
		}
		// A sub-record is delivered once its fixed part is read; its
		// payload is read or skipped later.
		c.need[i] = end - full.pending[i]
		if it.Sub != 0 {
			continue
		}
		c.clean[full.offsets[i]] = !open
		switch it.Tag {
		case hprof.TagHeapDumpSegment:
			open = true
		case hprof.TagHeapDumpEnd:
			open = false
		}
	}
	c.clean[size] = !open
	return c
}

// delivered is how many records a prefix of cut bytes must yield.
func (c cutPoints) delivered(cut int64) int {
	k := 0
	for k < len(c.need) && c.need[k] <= cut {
		k++
	}
	return k
}

// recordAt is the offset of the record holding byte cut-1 or starting at
// cut: the lowest offset a truncation error may report.
func (c cutPoints) recordAt(cut int64) int64 {
	start := int64(0)
	for _, off := range c.offsets {
		if off <= cut {
			start = off
		}
	}
	return start
}

// checkPrefix reads data[:cut] and checks records and error against full.
func checkPrefix(t *testing.T, data []byte, cut int64, full scanned, cp cutPoints, mode payloadMode) {
	t.Helper()
	s := scan(t, data[:cut], hprof.Options{}, mode)
	k := cp.delivered(cut)
	if cut < cp.offsets[0] {
		k = 0
	}
	if len(s.items) != k {
		t.Fatalf("cut at %d: %d records delivered, want %d (err %v)", cut, len(s.items), k, s.err)
	}
	for i, got := range s.items {
		want := full.items[i]
		if mode == skipPayloads || i == k-1 && got.Payload == nil {
			want.Payload = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("cut at %d: record %d\n got %v\nwant %v", cut, i, got, want)
		}
	}
	if cp.clean[cut] {
		if s.err != nil {
			t.Fatalf("cut at %d, a record boundary: %v", cut, s.err)
		}
		return
	}
	var fe *hprof.FormatError
	if !errors.Is(s.err, hprof.ErrTruncated) || !errors.As(s.err, &fe) {
		t.Fatalf("cut at %d: error %v, want a FormatError wrapping ErrTruncated", cut, s.err)
	}
	if lo := cp.recordAt(cut); fe.Offset < lo || fe.Offset > cut {
		t.Fatalf("cut at %d: error at offset %d, want one in [%d, %d]: %v", cut, fe.Offset, lo, cut, s.err)
	}
}

// TestTruncationAtEveryOffset cuts small dumps at every byte: the records
// before the cut are delivered, then ErrTruncated with an offset near the cut.
func TestTruncationAtEveryOffset(t *testing.T) {
	for _, tc := range []struct {
		version string
		idSize  int
		segment int
	}{{"1.0.1", 4, 0}, {"1.0.2", 8, 64}, {"1.0", 8, 0}} {
		t.Run(fmt.Sprintf("%s/id%d", tc.version, tc.idSize), func(t *testing.T) {
			t.Parallel()
			_, data := everyKindFixture(t, tc.version, tc.idSize, hproftest.HeapRecordsByVersion, tc.segment)
			full := scan(t, data, hprof.Options{}, wholePayloads)
			if full.err != nil {
				t.Fatal(full.err)
			}
			cp := newCutPoints(full, int64(len(data)))
			for cut := int64(0); cut <= int64(len(data)); cut++ {
				checkPrefix(t, data, cut, full, cp, skipPayloads)
				checkPrefix(t, data, cut, full, cp, alternatePayloads)
			}
		})
	}
}

// TestTruncationOfARealisticDump cuts a 1 MiB realistic dump at random offsets.
func TestTruncationOfARealisticDump(t *testing.T) {
	var buf bytes.Buffer
	if _, err := hproftest.WriteRealistic(&buf, 1<<20, 3, 8); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	full := scan(t, data, hprof.Options{}, wholePayloads)
	if full.err != nil {
		t.Fatal(full.err)
	}
	cp := newCutPoints(full, int64(len(data)))
	rng := rand.New(rand.NewPCG(1, 2))
	for range 60 {
		cut := rng.Int64N(int64(len(data)))
		checkPrefix(t, data, cut, full, cp, alternatePayloads)
	}
}

// lie is a malformed input whose length fields claim far more than it has.
type lie struct {
	name      string
	data      []byte
	truncated bool // the error must wrap ErrTruncated when payloads are skipped
}

// be appends big-endian fields: uint8, uint32 and uint64 values as such,
// ints as identifiers of idSize bytes.
func be(idSize int, fields ...any) []byte {
	var b []byte
	for _, f := range fields {
		switch v := f.(type) {
		case uint8:
			b = append(b, v)
		case uint16:
			b = binary.BigEndian.AppendUint16(b, v)
		case uint32:
			b = binary.BigEndian.AppendUint32(b, v)
		case uint64:
			b = binary.BigEndian.AppendUint64(b, v)
		case int:
			if idSize == 4 {
				b = binary.BigEndian.AppendUint32(b, uint32(v))
			} else {
				b = binary.BigEndian.AppendUint64(b, uint64(v))
			}
		default:
			panic(fmt.Sprintf("field of type %T", f))
		}
	}
	return b
}

func lies(idSize int) []lie {
	const huge = uint32(0xFFFFFFFF)
	dump := func(build func(w *hproftest.Writer)) []byte {
		var buf bytes.Buffer
		w := hproftest.New(&buf, hproftest.Options{IDSize: idSize})
		w.UTF8WithID(1, "a good record first")
		build(w)
		if err := w.Flush(); err != nil {
			panic(err)
		}
		return buf.Bytes()
	}
	objArray := be(idSize, uint8(0x22), 7, uint32(0), huge, 9)
	return []lie{
		{"OBJ_ARRAY_DUMP of 2^32-1 elements in an honest segment", dump(func(w *hproftest.Writer) {
			w.BeginHeapDump()
			w.Raw(objArray)
			w.EndHeapDump()
		}), false},
		{"OBJ_ARRAY_DUMP of 2^32-1 elements in a 4 GiB segment", dump(func(w *hproftest.Writer) {
			w.RecordHeader(hproftest.TagHeapDumpSegment, huge)
			w.Raw(append(objArray, make([]byte, 64)...))
		}), false},
		{"OBJ_ARRAY_DUMP of 2^32-1 elements in a HEAP_DUMP of length 0", dump(func(w *hproftest.Writer) {
			w.RecordHeader(hproftest.TagHeapDump, 0)
			w.Raw(append(objArray, make([]byte, 64)...))
		}), true},
		{"PRIM_ARRAY_DUMP of 2^32-1 longs in a HEAP_DUMP of length 0", dump(func(w *hproftest.Writer) {
			w.RecordHeader(hproftest.TagHeapDump, 0)
			w.Raw(be(idSize, uint8(0x23), 7, uint32(0), huge, uint8(11), uint64(1), uint64(2)))
		}), true},
		{"INSTANCE_DUMP of 4 GiB of fields in a 4 GiB segment", dump(func(w *hproftest.Writer) {
			w.RecordHeader(hproftest.TagHeapDumpSegment, huge)
			w.Raw(append(be(idSize, uint8(0x21), 7, uint32(0), 9, huge), make([]byte, 100)...))
		}), false},
		{"CLASS_DUMP of 65535 fields in a 4 GiB segment", dump(func(w *hproftest.Writer) {
			w.RecordHeader(hproftest.TagHeapDumpSegment, huge)
			w.Raw(be(idSize, uint8(0x20), 7, uint32(0), 0, 0, 0, 0, 0, 0, uint32(0), uint16(0), uint16(0),
				uint16(65535), 5, uint8(10), 6))
		}), true},
		{"HEAP_DUMP of 4 GiB holding one root", dump(func(w *hproftest.Writer) {
			w.RecordHeader(hproftest.TagHeapDump, huge)
			w.Raw(be(idSize, uint8(0x05), 1))
		}), true},
		{"UTF8 of 4 GiB", dump(func(w *hproftest.Writer) {
			w.RecordHeader(hproftest.TagUTF8, huge)
			w.Raw(be(idSize, 2, uint64(0x4142434445464748)))
		}), false},
		{"UTF8 of 200 MiB", dump(func(w *hproftest.Writer) {
			w.RecordHeader(hproftest.TagUTF8, 200<<20)
			w.Raw(be(idSize, 2, uint64(0x4142434445464748)))
		}), true},
		{"unknown record of 4 GiB", dump(func(w *hproftest.Writer) {
			w.RecordHeader(0x77, huge)
			w.Raw(make([]byte, 100))
		}), true},
		{"TRACE of 10^9 frames in a 12-byte body", dump(func(w *hproftest.Writer) {
			w.Record(hproftest.TagTrace, be(idSize, uint32(1), uint32(2), uint32(1e9)))
		}), false},
		{"TRACE of 10^9 frames claiming 4e9 bytes", dump(func(w *hproftest.Writer) {
			w.RecordHeader(hproftest.TagTrace, 12+4e9)
			w.Raw(be(idSize, uint32(1), uint32(2), uint32(1e9), 5, 6))
		}), false},
		{"CPU_SAMPLES of 10^9 traces", dump(func(w *hproftest.Writer) {
			w.Record(hproftest.TagCPUSamples, be(idSize, uint32(1), uint32(1e9), uint32(1), uint32(2)))
		}), false},
		{"ALLOC_SITES of 10^9 sites", dump(func(w *hproftest.Writer) {
			w.Record(hproftest.TagAllocSites, be(idSize, uint16(0), uint32(0), uint32(0), uint32(0), uint64(0), uint64(0), uint32(1e9)))
		}), false},
		{"header with an identifier size of 2^32-1", be(idSize, uint32(0x4a415641), uint32(0x2050524f), uint32(0x46494c45),
			uint32(0x20312e30), uint8(0), huge, uint64(0)), false},
	}
}

// readerOverhead bounds what a Reader allocates whatever its input: its
// initial buffer and bookkeeping.
const readerOverhead = 6 << 20

// TestLyingLengths feeds records whose length fields claim up to tens of
// GiB: each must end in an error, the records before it delivered, without
// an allocation in proportion to the claim.
func TestLyingLengths(t *testing.T) {
	for _, idSize := range []int{4, 8} {
		for _, l := range lies(idSize) {
			for _, mode := range []payloadMode{skipPayloads, wholePayloads, chunkedPayloads} {
				t.Run(fmt.Sprintf("id%d/%s/mode%d", idSize, l.name, mode), func(t *testing.T) {
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					s := scan(t, l.data, hprof.Options{}, mode)
					runtime.ReadMemStats(&after)
					var fe *hprof.FormatError
					if !errors.As(s.err, &fe) {
						t.Fatalf("error %v, want a FormatError", s.err)
					}
					if mode == skipPayloads && l.truncated != errors.Is(s.err, hprof.ErrTruncated) {
						t.Errorf("error %v: wraps ErrTruncated %v, want %v", s.err, !l.truncated, l.truncated)
					}
					if s.reader != nil && (len(s.items) == 0 || s.items[0].Tag != hprof.TagUTF8) {
						t.Errorf("the good record before the lie was not delivered: %v", s.items)
					}
					if alloc := after.TotalAlloc - before.TotalAlloc; alloc > readerOverhead+uint64(16*len(l.data)) {
						t.Errorf("%d bytes allocated reading %d bytes", alloc, len(l.data))
					}
					t.Log(s.err)
				})
			}
		}
	}
}

// failingReader returns data, then err instead of io.EOF.
type failingReader struct {
	data []byte
	err  error
}

// Read returns the data, then the error.
func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

var errDisk = errors.New("disk on fire")

// TestReadErrorsAreReported has the source fail at every offset of a dump:
// the Reader must report the failure, not a clean end nor a truncated file.
func TestReadErrorsAreReported(t *testing.T) {
	f := newFixture(hproftest.Options{IDSize: 4, Version: "1.0.1"})
	f.w.UTF8WithID(1, "before")
	f.w.BeginHeapDump()
	f.w.PrimArray(hproftest.TypeInt, hproftest.Ints(1, 2, 3))
	f.w.EndHeapDump()
	// A HEAP_DUMP whose length was never set: read to the end of the stream.
	f.w.RecordHeader(hproftest.TagHeapDump, 0)
	f.w.Raw(be(4, uint8(0x23), 5, uint32(0), uint32(2), uint8(10), uint32(7), uint32(8)))
	f.w.Raw(be(4, uint8(0x05), 6))
	data := f.finish(t)
	failures := 0
	for cut := range len(data) + 1 {
		for _, mode := range []payloadMode{skipPayloads, alternatePayloads} {
			var err error
			r, err := hprof.NewReader(&failingReader{data: data[:cut], err: errDisk}, hprof.Options{})
			if err == nil {
				for r.Next() {
					if mode != skipPayloads && r.PayloadSize() > 0 {
						if _, err = r.Payload(); err != nil {
							break
						}
					}
				}
				if err == nil {
					err = r.Err()
				}
			}
			if err == nil || errors.Is(err, hprof.ErrTruncated) || !strings.Contains(err.Error(), errDisk.Error()) {
				if failures++; failures <= 5 {
					t.Errorf("source failing after %d of %d bytes (mode %d): error %v", cut, len(data), mode, err)
				}
			}
		}
	}
	if failures > 5 {
		t.Errorf("%d more cuts where the source's error was lost", failures-5)
	}
}

// TestReadErrorInAHeapDumpOfUnknownLength: a source failing inside a
// HEAP_DUMP that is read to the end of the stream (its length was never
// set) must not pass for the end of the dump.
func TestReadErrorInAHeapDumpOfUnknownLength(t *testing.T) {
	f := newFixture(hproftest.Options{IDSize: 8, Version: "1.0.1"})
	f.w.RecordHeader(hproftest.TagHeapDump, 0)
	f.w.Raw(be(8, uint8(0xFF), 1, uint8(0x05), 2))
	r, err := hprof.NewReader(&failingReader{data: f.finish(t), err: errDisk}, hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	roots := 0
	for r.Next() {
		if r.Record().Sub.IsRoot() {
			roots++
		}
	}
	if roots != 2 || r.Err() == nil {
		t.Fatalf("%d roots, then error %v: the source's failure was taken for the end of the dump", roots, r.Err())
	}
}
