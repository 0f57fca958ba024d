package proguard_test

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/proguard"
)

// FuzzRead reads arbitrary input, seeded with the hand-written sample and
// the real R8 mapping when ../shared has it: Read must not panic, must
// end in a mapping or a *FormatError whose line is within the input, and
// every class line of an input it accepts must map back as written.
func FuzzRead(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("com.A -> a:\n    1:2:3:void f() -> c\n"))
	if path, ok := testshared.Find("corpus", "android", "test-dump.map"); ok {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
			f.Add(data[:len(data)/2])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := proguard.Read(bytes.NewReader(data), "fuzz")
		lines := int64(bytes.Count(data, []byte("\n")) + 1)
		if err != nil {
			var fe *proguard.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is not a FormatError", err, err)
			}
			if fe.Line < 1 || fe.Line > lines {
				t.Fatalf("error on line %d of %d: %v", fe.Line, lines, err)
			}
			return
		}
		r := proguard.NewReader(bytes.NewReader(data), proguard.Options{})
		classes := 0
		for r.Next() {
			e := r.Entry()
			if e.Kind != proguard.Class {
				continue
			}
			classes++
			if got, ok := m.Class(e.Obfuscated); !ok || got != e.Original {
				t.Fatalf("class line %d maps %q to %q, Class gives %q, %v", e.Line, e.Obfuscated, e.Original, got, ok)
			}
		}
		if r.Err() != nil || classes != m.Classes() {
			t.Fatalf("second read: %d classes, %v; Read counted %d", classes, r.Err(), m.Classes())
		}
	})
}
