package hprof_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// fixture writes records with a hproftest.Writer and keeps, record by
// record, what a Reader must deliver for them.
type fixture struct {
	w       *hproftest.Writer
	buf     bytes.Buffer
	opt     hproftest.Options
	want    []item
	heapTag hprof.Tag
	dump    int
}

func newFixture(opt hproftest.Options) *fixture {
	f := &fixture{opt: opt, heapTag: hprof.TagHeapDumpSegment}
	if opt.HeapRecords == hproftest.HeapRecordsSingle ||
		opt.HeapRecords == hproftest.HeapRecordsByVersion && (opt.Version == "1.0" || opt.Version == "1.0.1") {
		f.heapTag = hprof.TagHeapDump
	}
	f.w = hproftest.New(&f.buf, opt)
	return f
}

// id returns the n-th test identifier: wide in 8-byte dumps, so that a
// reader decoding only 4 bytes is caught.
func (f *fixture) id(n uint64) uint64 {
	if f.w.IDSize() == 4 {
		return 0x8000_0000 + n*8
	}
	return 0x7f12_3456_0000_0000 + n*8
}

func (f *fixture) top(tag hprof.Tag, time uint32, v any) {
	f.want = append(f.want, item{Tag: tag, Time: time, Value: v})
}

func (f *fixture) sub(s hprof.SubTag, v any, payload []byte) {
	f.want = append(f.want, item{Tag: f.heapTag, Sub: s, Dump: f.dump, Value: v, Payload: payload})
}

// finish closes the Writer and returns the dump.
func (f *fixture) finish(t testing.TB) []byte {
	t.Helper()
	if err := f.w.Close(); err != nil {
		t.Fatal(err)
	}
	return f.buf.Bytes()
}

// everyPrimitive is one value of every primitive type, extremes included.
var everyPrimitive = []hproftest.Value{
	hproftest.Boolean(true), hproftest.Char(0xFFFF), hproftest.Float(-1.5), hproftest.Double(6.02e23),
	hproftest.Byte(-128), hproftest.Short(-32768), hproftest.Int(-2147483648), hproftest.Long(-1),
}

// writeEveryKind writes every top-level record kind, an unknown one, and a
// heap dump with every sub-record kind, all with distinct values.
func writeEveryKind(f *fixture) {
	w, id := f.w, f.id
	w.ControlSettings(3, 16)
	f.top(hprof.TagControlSettings, 0, hprof.ControlSettings{Flags: 3, MaxDepth: 16})
	w.SetRecordTime(1234567)
	names := []string{"", "java/lang/Object", "com/example/Every", "main", "()V", "Main.java",
		"worker-1", "system", "main-group", "app", "h\u00e9llo \u4e16\u754c"}
	for i, s := range names[1:] {
		w.UTF8WithID(id(uint64(i+1)), s)
		f.top(hprof.TagUTF8, 1234567, hprof.UTF8{ID: id(uint64(i + 1)), Text: []byte(s)})
	}
	w.UTF8WithID(id(50), "")
	f.top(hprof.TagUTF8, 1234567, hprof.UTF8{ID: id(50)})
	w.SetRecordTime(0xFFFFFFFF)
	for i, c := range []uint64{100, 101} {
		lc := hprof.LoadClass{Serial: uint32(i + 1), ClassID: id(c), TraceSerial: 7, NameID: id(uint64(i + 1))}
		w.LoadClass(hproftest.LoadClass{Serial: lc.Serial, ClassID: lc.ClassID, TraceSerial: 7, NameID: lc.NameID})
		f.top(hprof.TagLoadClass, 0xFFFFFFFF, lc)
	}
	w.SetRecordTime(0)
	w.UnloadClass(77)
	f.top(hprof.TagUnloadClass, 0, uint32(77))
	for i, line := range []int32{42, -1, -2, -3} {
		fr := hprof.Frame{ID: id(200 + uint64(i)), MethodID: id(3), SignatureID: id(4), SourceID: id(5), ClassSerial: 2, Line: line}
		w.Frame(hproftest.Frame{ID: fr.ID, MethodID: fr.MethodID, SignatureID: fr.SignatureID, SourceID: fr.SourceID,
			ClassSerial: 2, Line: line})
		f.top(hprof.TagFrame, 0, fr)
	}
	w.Trace(hproftest.Trace{Serial: 7, ThreadSerial: 3, FrameIDs: []uint64{id(200), id(201), id(203)}})
	f.top(hprof.TagTrace, 0, hprof.Trace{Serial: 7, ThreadSerial: 3, FrameIDs: []uint64{id(200), id(201), id(203)}})
	w.Trace(hproftest.Trace{Serial: 1})
	f.top(hprof.TagTrace, 0, hprof.Trace{Serial: 1})
	sites := hproftest.AllocSites{Flags: 2, CutoffRatio: 0x3c23d70a, LiveBytes: 1000, LiveInstances: 10,
		AllocatedBytes: 1 << 40, AllocatedInstances: 1 << 33, Sites: []hproftest.AllocSite{
			{ArrayType: 0, ClassSerial: 2, TraceSerial: 7, LiveBytes: 600, LiveInstances: 6, AllocBytes: 6000, AllocInstances: 60},
			{ArrayType: 10, ClassSerial: 0, TraceSerial: 1, LiveBytes: 400, LiveInstances: 4, AllocBytes: 0xFFFFFFFF, AllocInstances: 1}}}
	w.AllocSites(sites)
	f.top(hprof.TagAllocSites, 0, hprof.AllocSites{Flags: 2, CutoffRatio: 0x3c23d70a, LiveBytes: 1000, LiveInstances: 10,
		AllocatedBytes: 1 << 40, AllocatedInstances: 1 << 33, Sites: []hprof.AllocSite{
			{ArrayType: 0, ClassSerial: 2, TraceSerial: 7, LiveBytes: 600, LiveInstances: 6, AllocBytes: 6000, AllocInstances: 60},
			{ArrayType: 10, ClassSerial: 0, TraceSerial: 1, LiveBytes: 400, LiveInstances: 4, AllocBytes: 0xFFFFFFFF, AllocInstances: 1}}})
	w.HeapSummary(hproftest.HeapSummary{LiveBytes: 1, LiveInstances: 2, AllocatedBytes: 1<<63 + 3, AllocatedInstances: 4})
	f.top(hprof.TagHeapSummary, 0, hprof.HeapSummary{LiveBytes: 1, LiveInstances: 2, AllocatedBytes: 1<<63 + 3, AllocatedInstances: 4})
	w.StartThread(hproftest.StartThread{ThreadSerial: 3, ThreadID: id(300), TraceSerial: 7, NameID: id(6), GroupNameID: id(7), ParentGroupNameID: id(8)})
	f.top(hprof.TagStartThread, 0, hprof.StartThread{ThreadSerial: 3, ThreadID: id(300), TraceSerial: 7, NameID: id(6), GroupNameID: id(7), ParentGroupNameID: id(8)})
	w.CPUSamples(hproftest.CPUSamples{Total: 100, Samples: []hproftest.CPUSample{{Count: 60, TraceSerial: 7}, {Count: 40, TraceSerial: 1}}})
	f.top(hprof.TagCPUSamples, 0, hprof.CPUSamples{Total: 100, Samples: []hprof.CPUSample{{Count: 60, TraceSerial: 7}, {Count: 40, TraceSerial: 1}}})
	w.CPUSamples(hproftest.CPUSamples{})
	f.top(hprof.TagCPUSamples, 0, hprof.CPUSamples{})
	w.Record(0x42, []byte("unknown body"))
	f.top(0x42, 0, nil)

	w.BeginHeapDump()
	w.HeapDumpInfo('A', id(9))
	f.sub(hprof.SubHeapDumpInfo, hprof.HeapDumpInfo{HeapID: 'A', NameID: id(9)}, nil)
	for i, kind := range hproftest.RootKinds() {
		r := hproftest.Root{Kind: kind, ID: id(400 + uint64(i)), JNIRef: id(500 + uint64(i)),
			ThreadSerial: 3 + uint32(i), FrameDepth: int32(i) - 1, TraceSerial: 7}
		w.Root(r)
		want := hprof.Root{Kind: hprof.SubTag(kind), ID: r.ID, FrameDepth: -1}
		switch kind {
		case hproftest.RootJNIGlobal:
			want.JNIRef = r.JNIRef
		case hproftest.RootJNILocal, hproftest.RootJavaFrame, hproftest.RootJNIMonitor:
			want.ThreadSerial, want.FrameDepth = r.ThreadSerial, r.FrameDepth
		case hproftest.RootNativeStack, hproftest.RootThreadBlock:
			want.ThreadSerial = r.ThreadSerial
		case hproftest.RootThreadObj:
			want.ThreadSerial, want.TraceSerial = r.ThreadSerial, 7
		}
		f.sub(hprof.SubTag(kind), want, nil)
	}

	w.ClassDump(hproftest.ClassDump{ID: id(100), TraceSerial: 7})
	f.sub(hprof.SubClassDump, hprof.ClassDump{ID: id(100), TraceSerial: 7}, nil)
	class := hproftest.ClassDump{ID: id(101), TraceSerial: 7, SuperID: id(100), LoaderID: id(600),
		SignersID: id(601), ProtectionDomainID: id(602), Reserved1: id(603), Reserved2: id(604)}
	want := hprof.ClassDump{ID: id(101), TraceSerial: 7, SuperID: id(100), LoaderID: id(600),
		SignersID: id(601), ProtectionDomainID: id(602), Reserved1: id(603), Reserved2: id(604)}
	values := append([]hproftest.Value{hproftest.Ref(id(700))}, everyPrimitive...)
	for i, v := range values {
		class.Constants = append(class.Constants, hproftest.ConstantEntry{Index: uint16(i * 1000), Value: v})
		want.Constants = append(want.Constants, hprof.Constant{Index: uint16(i * 1000), Type: hprof.Type(v.Type), Value: v.Bits})
		class.Statics = append(class.Statics, hproftest.StaticEntry{NameID: id(uint64(20 + i)), Value: v})
		want.Statics = append(want.Statics, hprof.Static{NameID: id(uint64(20 + i)), Type: hprof.Type(v.Type), Value: v.Bits})
		class.Fields = append(class.Fields, hproftest.FieldEntry{NameID: id(uint64(30 + i)), Type: v.Type})
		want.Fields = append(want.Fields, hprof.Field{NameID: id(uint64(30 + i)), Type: hprof.Type(v.Type)})
		class.InstanceSize += uint32(v.Type.Size(w.IDSize()))
	}
	want.InstanceSize = class.InstanceSize
	w.ClassDump(class)
	f.sub(hprof.SubClassDump, want, nil)

	fields := hproftest.AppendValues(nil, w.IDSize(), values...)
	w.InstanceDump(hproftest.InstanceDump{ID: id(800), TraceSerial: 7, ClassID: id(101), Fields: fields})
	f.sub(hprof.SubInstanceDump, hprof.InstanceDump{ID: id(800), TraceSerial: 7, ClassID: id(101), Size: uint32(len(fields))}, fields)
	w.InstanceDump(hproftest.InstanceDump{ID: id(801), TraceSerial: 7, ClassID: id(100)})
	f.sub(hprof.SubInstanceDump, hprof.InstanceDump{ID: id(801), TraceSerial: 7, ClassID: id(100)}, nil)

	elems := []uint64{id(800), 0, id(802)}
	w.ObjArrayDump(hproftest.ObjArrayDump{ID: id(802), TraceSerial: 7, ClassID: id(102), Elements: elems})
	f.sub(hprof.SubObjArrayDump, hprof.ObjArrayDump{ID: id(802), TraceSerial: 7, Length: 3, ClassID: id(102)},
		hproftest.AppendValues(nil, w.IDSize(), hproftest.Ref(elems[0]), hproftest.Ref(0), hproftest.Ref(elems[2])))
	w.ObjArrayDump(hproftest.ObjArrayDump{ID: id(803), ClassID: id(102)})
	f.sub(hprof.SubObjArrayDump, hprof.ObjArrayDump{ID: id(803), ClassID: id(102)}, nil)

	for i, v := range everyPrimitive {
		data := hproftest.AppendValues(nil, w.IDSize(), v, hproftest.Value{Type: v.Type}, v)
		arr := id(810 + uint64(i))
		w.PrimArrayDump(hproftest.PrimArrayDump{ID: arr, TraceSerial: 7, Type: v.Type, Data: data})
		f.sub(hprof.SubPrimArrayDump, hprof.PrimArrayDump{ID: arr, TraceSerial: 7, Length: 3, ElemType: hprof.Type(v.Type)}, data)
	}
	w.PrimArrayDump(hproftest.PrimArrayDump{ID: id(820), Type: hproftest.TypeInt})
	f.sub(hprof.SubPrimArrayDump, hprof.PrimArrayDump{ID: id(820), ElemType: hprof.TypeInt}, nil)
	w.PrimArrayNoData(id(821), 7, 1000, hproftest.TypeLong)
	f.sub(hprof.SubPrimArrayNoData, hprof.PrimArrayDump{ID: id(821), TraceSerial: 7, Length: 1000, ElemType: hprof.TypeLong}, nil)
	w.EndHeapDump()

	w.EndThread(3)
	f.top(hprof.TagEndThread, 0, uint32(3))
}

// framings are the heap-record layouts the round trips are run with.
var framings = []struct {
	name    string
	version string
	heap    hproftest.HeapRecords
	segment int
}{
	{"1.0", "1.0", hproftest.HeapRecordsByVersion, 0},
	{"1.0.1", "1.0.1", hproftest.HeapRecordsByVersion, 0},
	{"1.0.2", "1.0.2", hproftest.HeapRecordsByVersion, 0},
	{"1.0.2-tiny-segments", "1.0.2", hproftest.HeapRecordsByVersion, 40},
	{"1.0.3-art-segments", "1.0.3", hproftest.HeapRecordsByVersion, 4096},
	{"1.0.1-segmented", "1.0.1", hproftest.HeapRecordsSegmented, 100},
	{"1.0.2-single", "1.0.2", hproftest.HeapRecordsSingle, 0},
}

func everyKindFixture(t testing.TB, version string, idSize int, heap hproftest.HeapRecords, segment int) (*fixture, []byte) {
	f := newFixture(hproftest.Options{Version: version, IDSize: idSize, HeapRecords: heap, SegmentSize: segment,
		Time: time.Date(2021, 3, 27, 2, 43, 45, 201e6, time.UTC)})
	writeEveryKind(f)
	return f, f.finish(t)
}

// TestRoundTripEveryRecordKind reads every record kind back, in every version
// and framing, with both identifier sizes.
func TestRoundTripEveryRecordKind(t *testing.T) {
	for _, fr := range framings {
		for _, idSize := range []int{4, 8} {
			for _, mode := range []payloadMode{wholePayloads, chunkedPayloads} {
				t.Run(fmt.Sprintf("%s/id%d/mode%d", fr.name, idSize, mode), func(t *testing.T) {
					f, data := everyKindFixture(t, fr.version, idSize, fr.heap, fr.segment)
					s := scan(t, data, hprof.Options{Name: "every.hprof"}, mode)
					if s.err != nil {
						t.Fatal(s.err)
					}
					wantHeader := hprof.Header{Version: fr.version, IDSize: idSize, Time: time.Date(2021, 3, 27, 2, 43, 45, 201e6, time.UTC)}
					if s.header != wantHeader {
						t.Errorf("header %+v, want %+v", s.header, wantHeader)
					}
					compareItems(t, content(s.items), f.want)
					checkFraming(t, s, f.heapTag, 1)
					if len(s.warnings) != 1 || !strings.Contains(s.warnings[0].Msg, "0x42") || s.reader.WarningCount() != 1 {
						t.Errorf("warnings %+v, want one about tag 0x42", s.warnings)
					}
					if s.reader.Dumps() != 1 || s.reader.Offset() != int64(len(data)) || s.reader.IDSize() != idSize {
						t.Errorf("Dumps() = %d, Offset() = %d, IDSize() = %d; want 1, %d, %d",
							s.reader.Dumps(), s.reader.Offset(), s.reader.IDSize(), len(data), idSize)
					}
				})
			}
		}
	}
}

// checkFraming checks the heap records of s: their lengths add up to the
// bytes of their sub-records, segments are closed by HEAP_DUMP_END, and
// there are dumps heap dumps.
func checkFraming(t *testing.T, s scanned, heapTag hprof.Tag, dumps int) {
	t.Helper()
	ends := 0
	for i, it := range s.items {
		if it.Tag == hprof.TagHeapDumpEnd {
			ends++
		}
		if !it.isHeapRecord() {
			continue
		}
		if it.Tag != heapTag {
			t.Fatalf("heap record %v, want %v", it, heapTag)
		}
		end := s.offsets[i] + 9 + int64(it.Value.(uint32))
		j := i + 1
		for j < len(s.items) && s.items[j].Sub != 0 {
			j++
		}
		next := int64(-1)
		if j < len(s.items) {
			next = s.offsets[j]
		}
		if next != end && !(j == len(s.items) && next == -1) {
			t.Fatalf("heap record at %d ends at %d, next record at %d", s.offsets[i], end, next)
		}
	}
	if heapTag == hprof.TagHeapDumpSegment && ends != dumps {
		t.Errorf("%d HEAP_DUMP_END records, want %d", ends, dumps)
	}
	if s.reader != nil && s.reader.Dumps() != dumps {
		t.Errorf("Dumps() = %d, want %d", s.reader.Dumps(), dumps)
	}
}

// TestSegmentsAreSplitAtTheLimit checks the Writer's segments as the Reader
// sees them.
func TestSegmentsAreSplitAtTheLimit(t *testing.T) {
	const limit = 300
	f := newFixture(hproftest.Options{IDSize: 8, SegmentSize: limit})
	f.w.BeginHeapDump()
	j := f.w.DefineJDK()
	for i := range 200 {
		f.w.Instance(j.HashMapNode, hproftest.Int(int32(i)), hproftest.Ref(0), hproftest.Ref(0), hproftest.Ref(0))
	}
	f.w.PrimArray(hproftest.TypeByte, make([]byte, 1000))
	f.w.Instance(j.HashMapNode, hproftest.Int(0), hproftest.Ref(0), hproftest.Ref(0), hproftest.Ref(0))
	f.w.EndHeapDump()
	data := f.finish(t)
	s := scan(t, data, hprof.Options{}, skipPayloads)
	if s.err != nil {
		t.Fatal(s.err)
	}
	checkFraming(t, s, hprof.TagHeapDumpSegment, 1)
	// Each segment is as full as it can be: it holds one sub-record only
	// when that is larger than the limit, and the first sub-record of the
	// next segment would not have fitted.
	segments := 0
	prev := -1 // length of the previous segment
	for i, it := range s.items {
		if !it.isHeapRecord() {
			continue
		}
		segments++
		n := int(it.Value.(uint32))
		if n > limit && s.items[i+2].Sub != 0 {
			t.Errorf("segment at %d of %d bytes holds several sub-records", s.offsets[i], n)
		}
		first := int(s.offsets[i+2] - s.offsets[i+1])
		if i+2 == len(s.items) || s.items[i+2].Sub == 0 {
			first = n
		}
		if prev >= 0 && prev+first <= limit {
			t.Errorf("segment at %d starts with a %d-byte sub-record that fitted the previous %d-byte segment", s.offsets[i], first, prev)
		}
		prev = n
	}
	if f.w.HeapRecords() != segments || segments < 20 {
		t.Errorf("%d segments read, writer wrote %d", segments, f.w.HeapRecords())
	}
}

// TestDumpNumbering writes several dumps with top-level records between them.
func TestDumpNumbering(t *testing.T) {
	write := func(f *fixture, dumps int) {
		for d := range dumps {
			f.w.UTF8WithID(f.id(uint64(d)), fmt.Sprint("between dumps ", d))
			f.w.BeginHeapDump()
			for i := range 30 {
				f.w.Root(hproftest.Root{Kind: hproftest.RootUnknown, ID: f.id(uint64(100*d + i))})
			}
			f.w.EndHeapDump()
		}
	}
	for _, tc := range []struct {
		name    string
		opt     hproftest.Options
		heapTag hprof.Tag
	}{
		{"HEAP_DUMP records", hproftest.Options{Version: "1.0.1", IDSize: 4}, hprof.TagHeapDump},
		{"segments", hproftest.Options{Version: "1.0.2", IDSize: 8, SegmentSize: 50}, hprof.TagHeapDumpSegment},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(tc.opt)
			write(f, 3)
			s := scan(t, f.finish(t), hprof.Options{}, skipPayloads)
			if s.err != nil {
				t.Fatal(s.err)
			}
			checkFraming(t, s, tc.heapTag, 3)
			for _, it := range s.items {
				if it.Sub == hprof.RootUnknown {
					if want := int((it.Value.(hprof.Root).ID - f.id(0)) / 8 / 100); it.Dump != want {
						t.Fatalf("root %v in dump %d, want %d", it.Value, it.Dump, want)
					}
				}
			}
		})
	}
}

// TestDumpNumberingOfConsecutiveHeapDumps has HEAP_DUMP records right after
// one another: each is a dump of its own, whereas segments run on until
// HEAP_DUMP_END.
func TestDumpNumberingOfConsecutiveHeapDumps(t *testing.T) {
	f := newFixture(hproftest.Options{Version: "1.0.1", IDSize: 4})
	for d := range 3 {
		f.w.BeginHeapDump()
		f.w.Root(hproftest.Root{Kind: hproftest.RootStickyClass, ID: uint64(d)})
		f.w.EndHeapDump()
	}
	f.w.RecordHeader(hproftest.TagHeapDumpSegment, 5)
	f.w.Raw([]byte{0x05, 0, 0, 0, 3})
	f.w.RecordHeader(hproftest.TagHeapDumpSegment, 5)
	f.w.Raw([]byte{0x05, 0, 0, 0, 4})
	f.w.RecordHeader(hproftest.TagHeapDumpEnd, 0)
	f.w.RecordHeader(hproftest.TagHeapDumpSegment, 5)
	f.w.Raw([]byte{0x05, 0, 0, 0, 5})
	f.w.RecordHeader(hproftest.TagHeapDumpEnd, 0)
	s := scan(t, f.finish(t), hprof.Options{}, skipPayloads)
	if s.err != nil {
		t.Fatal(s.err)
	}
	wantDump := []int{0, 1, 2, 3, 3, 4}
	var got []int
	for _, it := range s.items {
		if it.Sub == hprof.RootStickyClass {
			got = append(got, it.Dump)
			if it.Value.(hprof.Root).ID != uint64(len(got)-1) {
				t.Errorf("root %v out of order", it.Value)
			}
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(wantDump) || s.reader.Dumps() != 5 {
		t.Errorf("dumps %v (Dumps() = %d), want %v and 5", got, s.reader.Dumps(), wantDump)
	}
}

// TestMissingHeapDumpEnd: a segmented dump that the stream ends without
// HEAP_DUMP_END is truncated, its records delivered.
func TestMissingHeapDumpEnd(t *testing.T) {
	f := newFixture(hproftest.Options{IDSize: 8, SegmentSize: 30})
	f.w.BeginHeapDump()
	for i := range 10 {
		f.w.Root(hproftest.Root{Kind: hproftest.RootStickyClass, ID: uint64(i)})
	}
	if err := f.w.Flush(); err != nil {
		t.Fatal(err)
	}
	data := f.buf.Bytes()
	s := scan(t, data, hprof.Options{}, skipPayloads)
	roots := 0
	for _, it := range s.items {
		if it.Sub == hprof.RootStickyClass {
			roots++
		}
	}
	var fe *hprof.FormatError
	if !errors.Is(s.err, hprof.ErrTruncated) || !errors.As(s.err, &fe) || fe.Offset != int64(len(data)) || roots != 10 {
		t.Fatalf("err %v, %d roots; want ErrTruncated at %d after 10 roots", s.err, roots, len(data))
	}
}

// TestStrayHeapDumpEndIsAWarning: HEAP_DUMP_END with no dump open is odd but
// harmless.
func TestStrayHeapDumpEndIsAWarning(t *testing.T) {
	f := newFixture(hproftest.Options{IDSize: 8})
	f.w.Record(hproftest.TagHeapDumpEnd, nil)
	f.w.UTF8WithID(1, "after")
	s := scan(t, f.finish(t), hprof.Options{}, skipPayloads)
	if s.err != nil || len(s.items) != 2 || len(s.warnings) != 1 || !strings.Contains(s.warnings[0].Msg, "HEAP_DUMP_END") {
		t.Fatalf("err %v, items %v, warnings %+v", s.err, s.items, s.warnings)
	}
	if s.warnings[0].Offset != 31 {
		t.Errorf("warning at offset %d, want 31 (after the header)", s.warnings[0].Offset)
	}
}

// TestUnknownTopLevelTagIsSkipped: an unknown record is skipped by its length
// with a warning at its offset.
func TestUnknownTopLevelTagIsSkipped(t *testing.T) {
	f := newFixture(hproftest.Options{IDSize: 4, Version: "1.0.1"})
	f.w.UTF8WithID(1, "before")
	at := f.w.Written()
	f.w.Record(0x99, bytes.Repeat([]byte{0x21}, 5000))
	f.w.Record(0x10, []byte{1, 2, 3}) // LOCKSTATS_WAIT_TIME: known, no layout
	f.w.UTF8WithID(2, "after")
	s := scan(t, f.finish(t), hprof.Options{}, skipPayloads)
	if s.err != nil {
		t.Fatal(s.err)
	}
	want := []item{
		{Tag: hprof.TagUTF8, Value: hprof.UTF8{ID: 1, Text: []byte("before")}},
		{Tag: 0x99},
		{Tag: hprof.TagLockStatsWait},
		{Tag: hprof.TagUTF8, Value: hprof.UTF8{ID: 2, Text: []byte("after")}},
	}
	compareItems(t, s.items, want)
	if len(s.warnings) != 1 || s.warnings[0].Offset != at || !strings.Contains(s.warnings[0].Msg, "0x99") {
		t.Errorf("warnings %+v, want one at %d about 0x99", s.warnings, at)
	}
	if s.offsets[1] != at {
		t.Errorf("unknown record at offset %d, want %d", s.offsets[1], at)
	}
}

// TestWarningsAreCapped: the first 100 warnings are kept, all are counted.
func TestWarningsAreCapped(t *testing.T) {
	f := newFixture(hproftest.Options{IDSize: 4})
	var offsets []int64
	for i := range 150 {
		offsets = append(offsets, f.w.Written())
		f.w.Record(0x50+hproftest.Tag(i%16), []byte{byte(i)})
	}
	s := scan(t, f.finish(t), hprof.Options{}, skipPayloads)
	if s.err != nil || len(s.items) != 150 {
		t.Fatalf("%d records, %v", len(s.items), s.err)
	}
	if len(s.warnings) != 100 || s.reader.WarningCount() != 150 {
		t.Fatalf("%d warnings kept, %d counted; want 100 and 150", len(s.warnings), s.reader.WarningCount())
	}
	for i, w := range s.warnings {
		if w.Offset != offsets[i] {
			t.Fatalf("warning %d at offset %d, want %d", i, w.Offset, offsets[i])
		}
	}
}

// TestUnknownSubTagSkipsTheRestOfItsRecord: an unknown sub-record tag loses the
// rest of its heap record, with a warning, and reading goes on after it.
func TestUnknownSubTagSkipsTheRestOfItsRecord(t *testing.T) {
	for _, single := range []bool{false, true} {
		t.Run(fmt.Sprint("single=", single), func(t *testing.T) {
			opt := hproftest.Options{IDSize: 8}
			if single {
				opt.HeapRecords = hproftest.HeapRecordsSingle
			}
			f := newFixture(opt)
			w := f.w
			w.BeginHeapDump()
			w.Root(hproftest.Root{Kind: hproftest.RootStickyClass, ID: 1})
			w.Raw([]byte{0x77, 1, 2, 3, 4, 5, 6, 7, 8, 9})
			w.Root(hproftest.Root{Kind: hproftest.RootStickyClass, ID: 2}) // lost with the rest
			if single {
				w.EndHeapDump()
				w.BeginHeapDump()
			} else {
				w.EndSegment()
			}
			w.Root(hproftest.Root{Kind: hproftest.RootStickyClass, ID: 3})
			w.EndHeapDump()
			w.UTF8WithID(4, "after")
			s := scan(t, f.finish(t), hprof.Options{}, skipPayloads)
			if s.err != nil {
				t.Fatal(s.err)
			}
			var roots []uint64
			for _, it := range s.items {
				if it.Sub == hprof.RootStickyClass {
					roots = append(roots, it.Value.(hprof.Root).ID)
				}
			}
			if fmt.Sprint(roots) != "[1 3]" {
				t.Errorf("roots %v, want [1 3]", roots)
			}
			if last := s.items[len(s.items)-1]; last.Tag != hprof.TagUTF8 {
				t.Errorf("last record %v, want the UTF8", last)
			}
			if len(s.warnings) != 1 || !strings.Contains(s.warnings[0].Msg, "0x77") || s.warnings[0].Offset != 31+9+9 {
				t.Errorf("warnings %+v, want one about 0x77 at offset %d", s.warnings, 31+9+9)
			}
		})
	}
}

// TestPayloadChunksOfAnArrayBiggerThanTheBuffer reads a 9 MiB array in chunks,
// and a payload larger than Options.MaxPayload.
func TestPayloadChunksOfAnArrayBiggerThanTheBuffer(t *testing.T) {
	big := make([]byte, 9<<20+8)
	for i := range big {
		big[i] = byte(i * 7)
	}
	f := newFixture(hproftest.Options{IDSize: 8})
	f.w.BeginHeapDump()
	arr := f.w.PrimArray(hproftest.TypeLong, big)
	f.w.PrimArray(hproftest.TypeInt, big[:4000])
	f.w.EndHeapDump()
	data := f.finish(t)
	for _, tc := range []struct {
		maxPayload   int
		payloadError bool
	}{{0, false}, {1024, true}} {
		r, err := hprof.NewReader(bytes.NewReader(data), hprof.Options{MaxPayload: tc.maxPayload})
		if err != nil {
			t.Fatal(err)
		}
		arrays := 0
		for r.Next() {
			rec := r.Record()
			if rec.Sub != hprof.SubPrimArrayDump {
				continue
			}
			arrays++
			if rec.PrimArray.ID == arr {
				var got []byte
				chunks := 0
				err := r.PayloadChunks(func(c []byte) error {
					if len(c)%8 != 0 {
						t.Fatalf("chunk of %d bytes in a long[]", len(c))
					}
					chunks++
					got = append(got, c...)
					return nil
				})
				if err != nil || !bytes.Equal(got, big) || chunks < 2 {
					t.Fatalf("PayloadChunks: %v, %d bytes in %d chunks, equal %v", err, len(got), chunks, bytes.Equal(got, big))
				}
				continue
			}
			p, err := r.Payload()
			if tc.payloadError {
				if err == nil {
					t.Fatal("Payload of 4000 bytes with MaxPayload 1024 succeeded")
				}
				if err := r.PayloadChunks(func([]byte) error { return nil }); err != nil {
					t.Fatalf("PayloadChunks after a refused Payload: %v", err)
				}
			} else if err != nil || !bytes.Equal(p, big[:4000]) {
				t.Fatalf("Payload: %v, equal %v", err, bytes.Equal(p, big[:4000]))
			}
		}
		if r.Err() != nil || arrays != 2 {
			t.Fatalf("MaxPayload %d: %v after %d arrays", tc.maxPayload, r.Err(), arrays)
		}
	}
}

// TestPayloadChunksStopsOnTheCallbackError: the callback's error stops
// PayloadChunks, and Next skips the rest of the payload.
func TestPayloadChunksStopsOnTheCallbackError(t *testing.T) {
	f := newFixture(hproftest.Options{IDSize: 4})
	f.w.BeginHeapDump()
	f.w.PrimArray(hproftest.TypeByte, make([]byte, 10<<20))
	f.w.Root(hproftest.Root{Kind: hproftest.RootStickyClass, ID: 9})
	f.w.EndHeapDump()
	r, err := hprof.NewReader(bytes.NewReader(f.finish(t)), hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	var roots []uint64
	for r.Next() {
		switch r.Record().Sub {
		case hprof.SubPrimArrayDump:
			calls := 0
			if err := r.PayloadChunks(func([]byte) error { calls++; return stop }); err != stop || calls != 1 {
				t.Fatalf("PayloadChunks returned %v after %d calls", err, calls)
			}
		case hprof.RootStickyClass:
			roots = append(roots, r.Record().Root.ID)
		}
	}
	if r.Err() != nil || len(roots) != 1 || roots[0] != 9 {
		t.Fatalf("after a stopped PayloadChunks: err %v, roots %v", r.Err(), roots)
	}
}

// TestRecordOffsets checks Record.Offset against where the Writer put records.
func TestRecordOffsets(t *testing.T) {
	f := newFixture(hproftest.Options{IDSize: 8, SegmentSize: 64})
	var want []int64
	mark := func() { want = append(want, f.w.Written()) }
	mark()
	f.w.UTF8WithID(1, "x")
	mark()
	f.w.BeginHeapDump()
	for i := range 10 {
		f.w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: uint64(i), JNIRef: 1})
	}
	f.w.EndHeapDump()
	s := scan(t, f.finish(t), hprof.Options{}, skipPayloads)
	if s.err != nil {
		t.Fatal(s.err)
	}
	if s.offsets[0] != want[0] || s.offsets[1] != want[1] || s.offsets[2] != want[1]+9 {
		t.Fatalf("offsets %v, want UTF8 at %d, segment at %d, first root at %d", s.offsets[:3], want[0], want[1], want[1]+9)
	}
	for i := 1; i < len(s.offsets); i++ {
		if s.offsets[i] <= s.offsets[i-1] {
			t.Fatalf("offsets not increasing: %v", s.offsets)
		}
	}
}
