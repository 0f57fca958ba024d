package hprof

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// heapBodies returns the bodies of the heap dump records of an HPROF
// file, with the offset of each body.
func heapBodies(t testing.TB, data []byte) (bodies [][]byte, offsets []int64) {
	t.Helper()
	p := bytes.IndexByte(data, 0) + 13
	for p+9 <= len(data) {
		tag, n := Tag(data[p]), int(binary.BigEndian.Uint32(data[p+5:]))
		if tag == TagHeapDump || tag == TagHeapDumpSegment {
			bodies, offsets = append(bodies, data[p+9:p+9+n]), append(offsets, int64(p+9))
		}
		p += 9 + n
	}
	return bodies, offsets
}

// TestSkimmerAsReader checks that the Skimmer finds every heap sub-record
// the Reader reads in a synthetic dump, at the same offset, with the same
// id, class and length, whether it sees each body whole or in windows of
// 4 KiB.
func TestSkimmerAsReader(t *testing.T) {
	for _, idSize := range []int{4, 8} {
		var buf bytes.Buffer
		if _, err := hproftest.WriteRealistic(&buf, 4<<20, 1, idSize); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		r, err := NewReader(bytes.NewReader(data), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var want []Skimmed
		for r.Next() {
			rec := r.Record()
			if rec.Sub == 0 {
				continue
			}
			s := Skimmed{Sub: rec.Sub, Start: int(rec.Offset)}
			switch rec.Sub {
			case SubInstanceDump:
				s.ID, s.ClassID, s.Length = rec.Instance.ID, rec.Instance.ClassID, rec.Instance.Size
			case SubObjArrayDump:
				s.ID, s.ClassID, s.Length = rec.ObjArray.ID, rec.ObjArray.ClassID, rec.ObjArray.Length
			case SubPrimArrayDump:
				s.ID, s.Elem, s.Length = rec.PrimArray.ID, rec.PrimArray.ElemType, rec.PrimArray.Length
			}
			want = append(want, s)
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		for _, window := range []int{4096, 1 << 30} {
			got := skimAll(t, data, idSize, window)
			if len(got) != len(want) {
				t.Fatalf("ids %d, window %d: %d sub-records skimmed, the reader read %d", idSize, window, len(got), len(want))
			}
			for k := range want {
				if got[k] != want[k] {
					t.Fatalf("ids %d, window %d: sub-record %d is %+v, the reader's %+v", idSize, window, k, got[k], want[k])
				}
			}
		}
	}
}

// skimAll skims every heap record of data in windows of the given size
// and returns the records found, Start as an offset in data, End zero.
func skimAll(t testing.TB, data []byte, idSize, window int) []Skimmed {
	var out []Skimmed
	bodies, offsets := heapBodies(t, data)
	sk := NewSkimmer(idSize)
	for k, body := range bodies {
		for cursor := 0; cursor < len(body); {
			sk.Reset(body[cursor:min(cursor+window, len(body))], int64(len(body)-cursor))
			for sk.Next() {
				r := *sk.Record()
				r.Start += int(offsets[k]) + cursor
				r.End = 0
				out = append(out, r)
			}
			if err := sk.Err(); err != nil {
				t.Fatal(err)
			}
			if !sk.More() {
				break
			}
			if sk.Pos() == 0 {
				t.Fatalf("a record larger than the %d-byte window", window)
			}
			cursor += int(sk.Pos())
		}
	}
	return out
}

// FuzzSkimmer feeds the Skimmer arbitrary bodies, whole and in windows:
// it must end without a panic, every record inside the body and after
// the one before.
func FuzzSkimmer(f *testing.F) {
	var buf bytes.Buffer
	if _, err := hproftest.WriteRealistic(&buf, 64<<10, 1, 8); err != nil {
		f.Fatal(err)
	}
	bodies, _ := heapBodies(f, buf.Bytes())
	for _, b := range bodies {
		f.Add(b[:min(len(b), 4096)], 8, 100)
	}
	f.Fuzz(func(t *testing.T, body []byte, idSize, window int) {
		if idSize != 4 {
			idSize = 8
		}
		window = max(1, window&0xffff)
		sk := NewSkimmer(idSize)
		sk.Reset(body[:min(window, len(body))], int64(len(body)))
		last := 0
		for sk.Next() {
			r := sk.Record()
			if r.Start < last || r.End <= r.Start || r.End > len(body) {
				t.Fatalf("record %+v after offset %d in a body of %d bytes", *r, last, len(body))
			}
			last = r.End
		}
	})
}
