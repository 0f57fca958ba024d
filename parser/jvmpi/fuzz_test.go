package jvmpi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
)

// fuzzOptions derives buffer options from the first input byte: bits 0-1
// the level, bit 2 the id size, bits 3 and 4 the byte orders of ids and
// scalars.
func fuzzOptions(kind Kind, b byte, classes map[int]*ClassTable) Options {
	opt := Options{Kind: kind, Level: int(b&3) % 3, IDSize: 4, IDOrder: binary.BigEndian, ScalarOrder: binary.BigEndian}
	if b&4 != 0 {
		opt.IDSize = 8
	}
	if b&8 != 0 {
		opt.IDOrder = binary.LittleEndian
	}
	if b&16 != 0 {
		opt.ScalarOrder = binary.LittleEndian
	}
	opt.Classes = classes[opt.IDSize]
	return opt
}

// optionByte is the first input byte fuzzOptions turns into opt.
func optionByte(opt Options) byte {
	b := byte(opt.Level)
	if opt.IDSize == 8 {
		b |= 4
	}
	if opt.IDOrder == binary.LittleEndian {
		b |= 8
	}
	if opt.ScalarOrder == binary.LittleEndian {
		b |= 16
	}
	return b
}

// fuzzSeeds adds the samples of one buffer kind as seeds and returns the
// class tables of their side channels by id size.
func fuzzSeeds(f *testing.F, format string) map[int]*ClassTable {
	classes := map[int]*ClassTable{}
	dir, _ := testshared.Find("jvmpi-samples")
	manifests, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, m := range manifests {
		c, err := LoadCapture(m)
		if err != nil || c.Manifest.Format != format {
			continue
		}
		data, err := os.ReadFile(c.BufferPath)
		if err != nil {
			f.Fatal(err)
		}
		if c.Options.Classes != nil {
			classes[c.Options.IDSize] = c.Options.Classes
		}
		f.Add(append([]byte{optionByte(c.Options)}, data...))
	}
	f.Add([]byte{0})
	f.Add([]byte{1, 0x21, 0, 0, 0, 1, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{4, 0x23, 0, 0, 0, 0, 0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff, 10})
	return classes
}

// fuzzRead reads a buffer and checks the reader's promises: no panic, a
// *FormatError with an offset inside the input on failure, and records
// whose offsets increase.
func fuzzRead(t *testing.T, data []byte, opt Options) {
	r, err := NewReader(bytes.NewReader(data), opt)
	if err != nil {
		t.Fatal(err)
	}
	last := int64(-1)
	for r.Next() {
		rec := r.Record()
		if rec.Offset <= last {
			t.Fatalf("record at offset %d after one at %d", rec.Offset, last)
		}
		last = rec.Offset
		if rec.Type == InstanceDump && opt.Classes != nil {
			_ = r.InstanceFields(func(*ClassInfo, int, Type, uint64) {})
		}
	}
	if err := r.Err(); err != nil {
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("error %v is not a *FormatError", err)
		}
		if fe.Offset < 0 || fe.Offset > int64(len(data)) {
			t.Fatalf("error offset %d outside the %d-byte buffer: %v", fe.Offset, len(data), err)
		}
		if !strings.Contains(err.Error(), "offset") {
			t.Fatalf("error without an offset: %v", err)
		}
	} else if r.Offset() != int64(len(data)) {
		t.Fatalf("clean end at offset %d of %d bytes", r.Offset(), len(data))
	}
}

func FuzzHeapDump(f *testing.F) {
	classes := fuzzSeeds(f, FormatHeapDump)
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		fuzzRead(t, in[1:], fuzzOptions(HeapDump, in[0], classes))
	})
}

func FuzzObjectDump(f *testing.F) {
	classes := fuzzSeeds(f, FormatObjectDump)
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		fuzzRead(t, in[1:], fuzzOptions(ObjectDump, in[0], classes))
	})
}

func FuzzMonitorDump(f *testing.F) {
	fuzzSeeds(f, FormatMonitorDump)
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		fuzzRead(t, in[1:], fuzzOptions(MonitorDump, in[0], nil))
	})
}
