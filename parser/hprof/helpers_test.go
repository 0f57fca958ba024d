package hprof_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// item is what a test compares of one record: the kind, and the field that
// kind makes meaningful, copied out of the Reader's reused buffers.
type item struct {
	Tag     hprof.Tag
	Sub     hprof.SubTag
	Time    uint32 // top-level records only
	Dump    int    // heap records only
	Value   any    // hprof.UTF8, hprof.Root, …; the length of a heap record
	Payload []byte
}

// String shows an item in failure messages.
func (it item) String() string {
	kind := it.Tag.String()
	if it.Sub != 0 {
		kind += "/" + it.Sub.String()
	}
	return fmt.Sprintf("%s time=%d dump=%d %+v payload=%x", kind, it.Time, it.Dump, it.Value, it.Payload)
}

// isHeapRecord reports whether it is a HEAP_DUMP or HEAP_DUMP_SEGMENT record
// itself (not one of its sub-records).
func (it item) isHeapRecord() bool {
	return it.Sub == 0 && (it.Tag == hprof.TagHeapDump || it.Tag == hprof.TagHeapDumpSegment)
}

func clone[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return append([]T(nil), s...)
}

// snapshot copies the meaningful part of rec.
func snapshot(rec *hprof.Record) item {
	it := item{Tag: rec.Tag, Sub: rec.Sub}
	heap := rec.Tag == hprof.TagHeapDump || rec.Tag == hprof.TagHeapDumpSegment
	if heap {
		it.Dump = rec.Dump
	}
	if rec.Sub == 0 {
		it.Time = rec.Time
	}
	switch rec.Sub {
	case 0:
		switch rec.Tag {
		case hprof.TagHeapDump, hprof.TagHeapDumpSegment:
			it.Value = rec.Length
		case hprof.TagUTF8:
			it.Value = hprof.UTF8{ID: rec.UTF8.ID, Text: clone(rec.UTF8.Text)}
		case hprof.TagLoadClass:
			it.Value = rec.LoadClass
		case hprof.TagUnloadClass:
			it.Value = rec.UnloadClass
		case hprof.TagFrame:
			it.Value = rec.Frame
		case hprof.TagTrace:
			t := rec.Trace
			t.FrameIDs = clone(t.FrameIDs)
			it.Value = t
		case hprof.TagAllocSites:
			a := rec.AllocSites
			a.Sites = clone(a.Sites)
			it.Value = a
		case hprof.TagHeapSummary:
			it.Value = rec.HeapSummary
		case hprof.TagStartThread:
			it.Value = rec.StartThread
		case hprof.TagEndThread:
			it.Value = rec.EndThread
		case hprof.TagCPUSamples:
			c := rec.CPUSamples
			c.Samples = clone(c.Samples)
			it.Value = c
		case hprof.TagControlSettings:
			it.Value = rec.ControlSettings
		}
	case hprof.SubClassDump:
		c := rec.Class
		c.Constants, c.Statics, c.Fields = clone(c.Constants), clone(c.Statics), clone(c.Fields)
		it.Value = c
	case hprof.SubInstanceDump:
		it.Value = rec.Instance
	case hprof.SubObjArrayDump:
		it.Value = rec.ObjArray
	case hprof.SubPrimArrayDump, hprof.SubPrimArrayNoData:
		it.Value = rec.PrimArray
	case hprof.SubHeapDumpInfo:
		it.Value = rec.HeapInfo
	default:
		it.Value = rec.Root
	}
	return it
}

// payloadMode says how scan reads payloads.
type payloadMode int

const (
	skipPayloads payloadMode = iota
	wholePayloads
	chunkedPayloads
	alternatePayloads // Payload and PayloadChunks in turn
)

// scanned is everything a Reader delivered from one input.
type scanned struct {
	header   hprof.Header
	items    []item
	offsets  []int64 // Record.Offset of each item
	pending  []int64 // payload size of each item when it was delivered
	err      error   // from NewReader, Payload, PayloadChunks or Err
	warnings []hprof.Warning
	reader   *hprof.Reader
}

// elemSize is the size of one payload element of rec.
func elemSize(rec *hprof.Record, idSize int) int {
	switch rec.Sub {
	case hprof.SubObjArrayDump:
		return idSize
	case hprof.SubPrimArrayDump:
		return rec.PrimArray.ElemType.Size(idSize)
	}
	return 1
}

// scan reads every record of data. It fails t if a chunk is not a whole
// number of elements or a payload's size is not what its header says.
func scan(t testing.TB, data []byte, opt hprof.Options, mode payloadMode) scanned {
	t.Helper()
	var s scanned
	r, err := hprof.NewReader(bytes.NewReader(data), opt)
	if err != nil {
		s.err = err
		return s
	}
	s.reader, s.header = r, r.Header()
	for n := 0; r.Next(); n++ {
		rec := r.Record()
		it := snapshot(rec)
		s.offsets = append(s.offsets, rec.Offset)
		s.pending = append(s.pending, r.PayloadSize())
		size := r.PayloadSize()
		if want := declaredPayload(rec, r.IDSize()); want != size {
			t.Fatalf("record at %d (%v): PayloadSize %d, header declares %d", rec.Offset, it, size, want)
		}
		if size > 0 && mode != skipPayloads {
			chunked := mode == chunkedPayloads || (mode == alternatePayloads && n%2 == 1)
			var p []byte
			if chunked {
				es := elemSize(rec, r.IDSize())
				err = r.PayloadChunks(func(c []byte) error {
					if len(c) == 0 || len(c)%es != 0 {
						t.Fatalf("record at %d: chunk of %d bytes, element size %d", rec.Offset, len(c), es)
					}
					p = append(p, c...)
					return nil
				})
			} else {
				p, err = r.Payload()
			}
			if err != nil {
				s.items = append(s.items, it)
				s.err = err
				break
			}
			if int64(len(p)) != size {
				t.Fatalf("record at %d: payload of %d bytes, %d declared", rec.Offset, len(p), size)
			}
			it.Payload = clone(p)
		}
		s.items = append(s.items, it)
	}
	if s.err == nil {
		s.err = r.Err()
	}
	s.warnings = r.Warnings()
	return s
}

// declaredPayload is the payload size the header of rec declares.
func declaredPayload(rec *hprof.Record, idSize int) int64 {
	switch rec.Sub {
	case hprof.SubInstanceDump:
		return int64(rec.Instance.Size)
	case hprof.SubObjArrayDump:
		return int64(rec.ObjArray.Length) * int64(idSize)
	case hprof.SubPrimArrayDump:
		return int64(rec.PrimArray.Length) * int64(rec.PrimArray.ElemType.Size(idSize))
	}
	return 0
}

// content drops the HEAP_DUMP, HEAP_DUMP_SEGMENT and HEAP_DUMP_END records,
// whose number depends on how a dump was framed.
func content(items []item) []item {
	var out []item
	for _, it := range items {
		if !it.isHeapRecord() && it.Tag != hprof.TagHeapDumpEnd {
			out = append(out, it)
		}
	}
	return out
}

// compareItems reports the first difference between got and want.
func compareItems(t testing.TB, got, want []item) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("record %d:\n got %v\nwant %v", i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
}
