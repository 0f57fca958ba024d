package hproftest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
	"testing"
	"time"
)

// unhex decodes hex digits, ignoring spaces and newlines.
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func checkBytes(t *testing.T, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("bytes differ\n got %x\nwant %x", got, want)
	}
}

var goldenTime = time.UnixMilli(0x0102030405)

// TestSingleHeapDumpBytes checks a 1.0.1 dump with 4-byte identifiers
// against bytes laid out by hand from docs/hprof.md (file header, record
// framing, top-level records, heap-dump sub-records).
func TestSingleHeapDumpBytes(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf, Options{Version: "1.0.1", IDSize: 4, Time: goldenTime})
	w.SetRecordTime(0x10)
	w.UTF8WithID(0x11223344, "ab")
	w.BeginHeapDump()
	w.Root(Root{Kind: RootJNIGlobal, ID: 0xA, JNIRef: 0xB})
	w.Root(Root{Kind: RootJavaFrame, ID: 0xC, ThreadSerial: 2, FrameDepth: -1})
	w.UTF8WithID(0x55, "c") // goes before the HEAP_DUMP record, still held
	w.InstanceDump(InstanceDump{ID: 0xD, TraceSerial: 1, ClassID: 0xE, Fields: AppendValues(nil, 4, Ref(0xF), Short(-2))})
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := unhex(t, `
		4a415641 2050524f 46494c45 20312e30 2e3100  00000004  00000001 02030405
		01 00000010 00000006 11223344 6162
		01 00000010 00000005 00000055 63
		0c 00000010 0000002d
		  01 0000000a 0000000b
		  03 0000000c 00000002 ffffffff
		  21 0000000d 00000001 0000000e 00000006 0000000f fffe`)
	checkBytes(t, buf.Bytes(), want)
}

// TestSegmentBytes checks how sub-records are split into segments with 8-byte
// identifiers and a 20-byte segment bound.
func TestSegmentBytes(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf, Options{IDSize: 8, Time: goldenTime, SegmentSize: 20})
	w.BeginHeapDump()
	w.Root(Root{Kind: RootStickyClass, ID: 1})                                // 9 bytes
	w.Root(Root{Kind: RootThreadObj, ID: 2, ThreadSerial: 3, TraceSerial: 4}) // 17: new segment
	w.PrimArrayDump(PrimArrayDump{ID: 5, Type: TypeLong, Data: Longs(6, 7)})  // 18+16: own segment
	w.Root(Root{Kind: RootMonitorUsed, ID: 8})
	w.EndHeapDump()
	w.Record(0x42, []byte{9})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := unhex(t, `
		4a415641 2050524f 46494c45 20312e30 2e3200  00000008  00000001 02030405
		1c 00000000 00000009  05 0000000000000001
		1c 00000000 00000011  08 0000000000000002 00000003 00000004
		1c 00000000 00000022  23 0000000000000005 00000000 00000002 0b 0000000000000006 0000000000000007
		1c 00000000 00000009  07 0000000000000008
		2c 00000000 00000000
		42 00000000 00000001 09`)
	checkBytes(t, buf.Bytes(), want)
	if w.HeapRecords() != 4 {
		t.Errorf("HeapRecords = %d, want 4", w.HeapRecords())
	}
}

// TestVersion10Bytes checks the "JAVA PROFILE 1.0" encodings: signature
// characters in CLASS_DUMP and primitive arrays as OBJ_ARRAY_DUMP.
func TestVersion10Bytes(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf, Options{Version: "1.0", IDSize: 4, Time: goldenTime})
	w.BeginHeapDump()
	w.ClassDump(ClassDump{ID: 1, SuperID: 2, InstanceSize: 5,
		Constants: []ConstantEntry{{Index: 3, Value: Char('x')}},
		Statics:   []StaticEntry{{NameID: 4, Value: Double(1)}},
		Fields:    []FieldEntry{{NameID: 5, Type: TypeObject}, {NameID: 6, Type: TypeBoolean}}})
	w.PrimArrayDump(PrimArrayDump{ID: 7, TraceSerial: 8, Type: TypeChar, Data: UTF16("hi")})
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := unhex(t, `
		4a415641 2050524f 46494c45 20312e30 00  00000004  00000001 02030405
		0c 00000000 0000005c
		  20 00000001 00000000 00000002 00000000 00000000 00000000 00000000 00000000 00000005
		     0001 0003 43 0078
		     0001 00000004 44 3ff0000000000000
		     0002 00000005 4c 00000006 5a
		  22 00000007 00000008 00000002 00000005 0068 0069`)
	checkBytes(t, buf.Bytes(), want)
}

// TestTopLevelBytes checks the bodies of the agent records.
func TestTopLevelBytes(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf, Options{IDSize: 4, Time: goldenTime})
	start := w.Written()
	w.ControlSettings(3, 9)
	w.LoadClass(LoadClass{Serial: 1, ClassID: 2, TraceSerial: 3, NameID: 4})
	w.UnloadClass(5)
	w.Frame(Frame{ID: 1, MethodID: 2, SignatureID: 3, SourceID: 4, ClassSerial: 5, Line: -2})
	w.Trace(Trace{Serial: 6, ThreadSerial: 7, FrameIDs: []ID{1, 8}})
	w.AllocSites(AllocSites{Flags: 1, CutoffRatio: 2, LiveBytes: 3, LiveInstances: 4, AllocatedBytes: 5,
		AllocatedInstances: 6, Sites: []AllocSite{{ArrayType: 10, ClassSerial: 1, TraceSerial: 2,
			LiveBytes: 3, LiveInstances: 4, AllocBytes: 5, AllocInstances: 6}}})
	w.HeapSummary(HeapSummary{LiveBytes: 1, LiveInstances: 2, AllocatedBytes: 3, AllocatedInstances: 4})
	w.StartThread(StartThread{ThreadSerial: 1, ThreadID: 2, TraceSerial: 3, NameID: 4, GroupNameID: 5, ParentGroupNameID: 6})
	w.EndThread(1)
	w.CPUSamples(CPUSamples{Total: 9, Samples: []CPUSample{{Count: 9, TraceSerial: 6}}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := unhex(t, `
		0e 00000000 00000006 00000003 0009
		02 00000000 00000010 00000001 00000002 00000003 00000004
		03 00000000 00000004 00000005
		04 00000000 00000018 00000001 00000002 00000003 00000004 00000005 fffffffe
		05 00000000 00000014 00000006 00000007 00000002 00000001 00000008
		06 00000000 0000003b 0001 00000002 00000003 00000004 0000000000000005 0000000000000006 00000001
		   0a 00000001 00000002 00000003 00000004 00000005 00000006
		07 00000000 00000018 00000001 00000002 0000000000000003 0000000000000004
		0a 00000000 00000018 00000001 00000002 00000003 00000004 00000005 00000006
		0b 00000000 00000004 00000001
		0d 00000000 00000010 00000009 00000001 00000009 00000006`)
	checkBytes(t, buf.Bytes()[start:], want)
}

// TestHelpersAddressesAndChecks checks that helper objects lie back to back
// under the chosen layout and that field values are checked against the class.
func TestHelpersAddressesAndChecks(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf, Options{IDSize: 8, Sizes: Layout64})
	w.BeginHeapDump()
	j := w.DefineJDK()
	first := w.NextAddress()
	s, v := j.NewString("héllo")
	node := w.Instance(j.HashMapNode, Int(1), Ref(s), Ref(v), Ref(0))
	arr := w.ObjectArray(j.NodeArray, node, 0, 0)
	ints := w.PrimArray(TypeInt, Ints(1, 2, 3))
	if v != first || s != v+32 || node != s+32 || arr != node+48 || ints != arr+48 {
		t.Errorf("addresses %#x %#x %#x %#x %#x from %#x do not follow Layout64 sizes", v, s, node, arr, ints, first)
	}
	if j.String.FieldBytes() != 8+1+4+1 || j.HashMap.FieldBytes() != 4*8+4*4 {
		t.Errorf("FieldBytes String %d HashMap %d", j.String.FieldBytes(), j.HashMap.FieldBytes())
	}
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	w.Instance(j.String, Ref(v), Int(0), Int(0), Boolean(false))
	if w.Err() == nil || !strings.Contains(w.Err().Error(), "java/lang/String") {
		t.Errorf("a value of the wrong type gave error %v", w.Err())
	}
	if w.Close() == nil {
		t.Error("Close does not report the sticky error")
	}
}

// TestWriterMisuse checks that misuse ends in a sticky error.
func TestWriterMisuse(t *testing.T) {
	for name, misuse := range map[string]func(w *Writer){
		"sub-record outside a heap dump": func(w *Writer) { w.Root(Root{Kind: RootStickyClass, ID: 1}) },
		"wide id in a 4-byte dump":       func(w *Writer) { w.UTF8WithID(1<<32, "x") },
		"root kind that is no root":      func(w *Writer) { w.BeginHeapDump(); w.Root(Root{Kind: SubClassDump}) },
		"EndSegment in a HEAP_DUMP":      func(w *Writer) { w.BeginHeapDump(); w.EndSegment() },
		"odd primitive array length":     func(w *Writer) { w.BeginHeapDump(); w.PrimArray(TypeInt, []byte{1, 2}) },
		"nested BeginHeapDump":           func(w *Writer) { w.BeginHeapDump(); w.BeginHeapDump() },
	} {
		w := New(io.Discard, Options{Version: "1.0.1", IDSize: 4})
		misuse(w)
		if w.Err() == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if New(io.Discard, Options{IDSize: 2}).Err() == nil {
		t.Error("identifier size 2 accepted")
	}
}

// TestWriteRealisticIsDeterministic checks that the seed alone decides the output.
func TestWriteRealisticIsDeterministic(t *testing.T) {
	digest := func(seed int64) (string, Stats) {
		h := sha256.New()
		st, err := WriteRealistic(h, 1<<20, seed, 4)
		if err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(h.Sum(nil)), st
	}
	a, st := digest(7)
	b, _ := digest(7)
	c, _ := digest(8)
	if a != b || a == c {
		t.Errorf("seed 7 twice: %s %s, seed 8: %s", a, b, c)
	}
	if st.Bytes < 1<<20-(64<<10) || st.Bytes > 1<<20+(256<<10) {
		t.Errorf("1 MiB requested, %d bytes written", st.Bytes)
	}
}

// BenchmarkWriteRealistic measures WriteRealistic, 64 MiB per iteration.
func BenchmarkWriteRealistic(b *testing.B) {
	const size = 64 << 20
	b.SetBytes(size)
	for b.Loop() {
		if _, err := WriteRealistic(io.Discard, size, 1, 8); err != nil {
			b.Fatal(err)
		}
	}
}
