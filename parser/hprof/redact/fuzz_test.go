package redact

import (
	"bytes"
	"io"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// FuzzRedact redacts arbitrary input: it fails with an error or writes a
// dump that reads back whole, with the same header.
func FuzzRedact(f *testing.F) {
	for _, idSize := range []int{4, 8} {
		var buf bytes.Buffer
		if _, err := hproftest.WriteRealistic(&buf, 64<<10, 1, idSize); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		var out bytes.Buffer
		if _, err := Redact(open, "fuzz", &out, Options{Key: []byte("fuzz key, 16+ bytes"), Keep: DefaultKeep, Names: len(data)%2 == 0}); err != nil {
			return
		}
		r, err := hprof.NewReader(bytes.NewReader(out.Bytes()), hprof.Options{Name: "out"})
		if err != nil {
			t.Fatalf("the redacted dump has no valid header: %v", err)
		}
		for r.Next() {
		}
		if err := r.Err(); err != nil {
			t.Fatalf("the redacted dump does not read back: %v", err)
		}
	})
}
