package hprof_test

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

// corpusSeedSize is how much of each real dump seeds the fuzzer.
const corpusSeedSize = 12 << 10

// FuzzReader reads arbitrary input with every payload, by Payload and
// PayloadChunks in turn: the Reader must not panic, must end in nil or a
// FormatError, and must not allocate in proportion to what lengths claim.
func FuzzReader(f *testing.F) {
	for _, fr := range framings {
		for _, idSize := range []int{4, 8} {
			_, data := everyKindFixture(f, fr.version, idSize, fr.heap, fr.segment)
			f.Add(data)
		}
	}
	for _, idSize := range []int{4, 8} {
		var buf bytes.Buffer
		if _, err := hproftest.WriteRealistic(&buf, 64<<10, 1, idSize); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes()[:corpusSeedSize])
		for _, l := range lies(idSize) {
			f.Add(l.data)
		}
	}
	corpus, _ := testshared.Find("corpus")
	files, _ := filepath.Glob(filepath.Join(corpus, "*", "*"))
	for _, path := range files {
		name := filepath.Base(path)
		if !strings.Contains(name, ".hprof") && !strings.Contains(name, ".bin") || strings.HasSuffix(name, ".txt") {
			continue
		}
		in, err := input.Open(path)
		if err != nil {
			continue
		}
		seed, _ := io.ReadAll(io.LimitReader(in, corpusSeedSize))
		in.Close()
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		fuzzRead(t, data)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > readerOverhead+uint64(16*len(data)) {
			t.Fatalf("%d bytes allocated reading %d bytes", alloc, len(data))
		}
	})
}

func fuzzRead(t *testing.T, data []byte) {
	r, err := hprof.NewReader(bytes.NewReader(data), hprof.Options{})
	if err != nil {
		checkFuzzError(t, err)
		return
	}
	last := int64(-1)
	for n := 0; r.Next(); n++ {
		rec := r.Record()
		if rec.Offset <= last || rec.Offset >= int64(len(data)) {
			t.Fatalf("record %d at offset %d after one at %d, in %d bytes", n, rec.Offset, last, len(data))
		}
		last = rec.Offset
		size := r.PayloadSize()
		if size == 0 {
			continue
		}
		if want := declaredPayload(rec, r.IDSize()); size != want {
			t.Fatalf("record at %d: PayloadSize %d, header declares %d", rec.Offset, size, want)
		}
		got := int64(0)
		if n%2 == 0 {
			p, err := r.Payload()
			if err != nil {
				checkFuzzError(t, err)
				continue
			}
			got = int64(len(p))
		} else {
			es := elemSize(rec, r.IDSize())
			err := r.PayloadChunks(func(c []byte) error {
				if len(c) == 0 || len(c)%es != 0 {
					t.Fatalf("record at %d: chunk of %d bytes, element size %d", rec.Offset, len(c), es)
				}
				got += int64(len(c))
				return nil
			})
			if err != nil {
				checkFuzzError(t, err)
				continue
			}
		}
		if got != size {
			t.Fatalf("record at %d: %d payload bytes read, %d declared", rec.Offset, got, size)
		}
	}
	if r.Offset() > int64(len(data)) {
		t.Fatalf("Offset %d past the %d bytes of input", r.Offset(), len(data))
	}
	checkFuzzError(t, r.Err())
}

func checkFuzzError(t *testing.T, err error) {
	var fe *hprof.FormatError
	if err != nil && !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is no FormatError", err, err)
	}
}
