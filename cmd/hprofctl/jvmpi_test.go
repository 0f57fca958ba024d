package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/jvmpi/jvmpitest"
)

// idClass is a class of the identity heap: its fields and statics in the
// order both dumps write their values.
type idClass struct {
	name, source    string
	id, super       uint64
	fields, statics []jvmpitest.FieldInfo
	staticValues    []jvmpitest.Value
	constants       []jvmpitest.Constant
	methods         []jvmpitest.MethodInfo
}

// idInstance is an instance with its field values in dump order: its
// class's fields, then the superclass's.
type idInstance struct {
	id, class uint64
	values    []jvmpitest.Value
}

type idObjArray struct {
	id, elem uint64
	elems    []uint64
}

type idPrimArray struct {
	id    uint64
	t     jvmpitest.Type
	elems []uint64
}

type idRoot struct {
	kind       hproftest.SubTag
	obj, other uint64 // other: the JNIEnv* of a thread, or a global ref
	frame      int32
}

type idThread struct {
	name   string
	object uint64
	env    uint64
	frames []jvmpitest.Frame
}

// identityHeap is one small heap, described once and written both as a
// JVMPI capture and as an HPROF dump.
type identityHeap struct {
	classes    []idClass
	instances  []idInstance
	objArrays  []idObjArray
	primArrays []idPrimArray
	roots      []idRoot
	threads    []idThread
}

func field(name, sig string) jvmpitest.FieldInfo {
	return jvmpitest.FieldInfo{Name: name, Signature: sig}
}

const (
	idObject   = 0x1000
	idClassCls = 0x1010
	idThreadC  = 0x1020
	idNode     = 0x1030
	idLeaf     = 0x1040
	idRegistry = 0x1050

	objThreadMain   = 0x2000
	objThreadWorker = 0x2040
	objRegistry     = 0x3000
	objItems        = 0x3100
	objN1           = 0x4000
	objN2           = 0x4040
	objN3           = 0x4080
	objLeaf         = 0x5000
	objShared       = 0x6000
	objBytes        = 0x7000
	objInts         = 0x7040
	objChars        = 0x7080
	objNodeArray    = 0x7100

	envMain   = 0x00007f3a10000040
	envWorker = 0x00007f3a10000840

	methodRun  = 0x00007f3a20000010
	methodMain = 0x00007f3a20000020
	methodWork = 0x00007f3a20000030
)

func newIdentityHeap() *identityHeap {
	r, i, l, b, d := jvmpitest.Ref, jvmpitest.Int, jvmpitest.Long, jvmpitest.Boolean, jvmpitest.Double
	return &identityHeap{
		classes: []idClass{
			{name: "java.lang.Object", source: "Object.java", id: idObject},
			{name: "java.lang.Class", source: "Class.java", id: idClassCls, super: idObject},
			{name: "java.lang.Thread", source: "Thread.java", id: idThreadC, super: idObject,
				fields: []jvmpitest.FieldInfo{field("priority", "I"), field("target", "Ljava/lang/Object;")}},
			{name: "app.Node", source: "Node.java", id: idNode, super: idObject,
				fields:  []jvmpitest.FieldInfo{field("payload", "[B"), field("value", "I"), field("next", "Lapp/Node;")},
				methods: []jvmpitest.MethodInfo{{Name: "run", Signature: "()V", StartLine: 40, EndLine: 50, ID: methodRun}}},
			{name: "app.Leaf", source: "Leaf.java", id: idLeaf, super: idNode,
				fields: []jvmpitest.FieldInfo{field("count", "J"), field("owner", "Ljava/lang/Object;"), field("tag", "Z"), field("weight", "D")}},
			{name: "app.Registry", source: "Registry.java", id: idRegistry, super: idObject,
				fields:       []jvmpitest.FieldInfo{field("size", "I"), field("items", "[Ljava/lang/Object;")},
				statics:      []jvmpitest.FieldInfo{field("COUNT", "I"), field("INSTANCE", "Lapp/Registry;")},
				staticValues: []jvmpitest.Value{i(3), r(objRegistry)},
				constants:    []jvmpitest.Constant{{Index: 7, Value: r(objShared)}},
				methods: []jvmpitest.MethodInfo{{Name: "main", Signature: "([Ljava/lang/String;)V", StartLine: 5, EndLine: 20, ID: methodMain},
					{Name: "work", Signature: "()V", StartLine: 22, EndLine: 30, ID: methodWork}}},
		},
		instances: []idInstance{
			{objThreadMain, idThreadC, []jvmpitest.Value{i(5), r(0)}},
			{objThreadWorker, idThreadC, []jvmpitest.Value{i(5), r(objRegistry)}},
			{objRegistry, idRegistry, []jvmpitest.Value{i(3), r(objItems)}},
			{objN1, idNode, []jvmpitest.Value{r(objBytes), i(1), r(objN2)}},
			{objN2, idNode, []jvmpitest.Value{r(0), i(2), r(objN3)}},
			{objN3, idNode, []jvmpitest.Value{r(objInts), i(3), r(0)}},
			{objLeaf, idLeaf, []jvmpitest.Value{l(-7), r(objShared), b(true), d(2.5), r(0), i(9), r(objN3)}},
			{objShared, idObject, nil},
		},
		objArrays: []idObjArray{
			{objItems, idObject, []uint64{objN1, objLeaf, 0}},
			{objNodeArray, idNode, []uint64{objN1, 0}},
		},
		primArrays: []idPrimArray{
			{objBytes, jvmpitest.TypeByte, []uint64{1, 2, 3, 4, 0xff}},
			{objInts, jvmpitest.TypeInt, []uint64{10, 20, 0xfffffffd}},
			{objChars, jvmpitest.TypeChar, []uint64{'j', 'v', 'm', 'p'}},
		},
		roots: []idRoot{
			{kind: hproftest.RootStickyClass, obj: idRegistry},
			{kind: hproftest.RootJNIGlobal, obj: objChars, other: 0x00007f3a30000008},
			{kind: hproftest.RootJavaFrame, obj: objLeaf, other: envMain, frame: 1},
			{kind: hproftest.RootJNILocal, obj: objNodeArray, other: envWorker, frame: 0},
			{kind: hproftest.RootNativeStack, obj: objInts, other: envWorker},
			{kind: hproftest.RootThreadBlock, obj: objThreadWorker, other: envWorker},
			{kind: hproftest.RootMonitorUsed, obj: objRegistry},
			{kind: hproftest.RootUnknown, obj: objShared},
		},
		threads: []idThread{
			{name: "main", object: objThreadMain, env: envMain,
				frames: []jvmpitest.Frame{{Line: 44, MethodID: methodRun}, {Line: 12, MethodID: methodMain}}},
			{name: "worker-1", object: objThreadWorker, env: envWorker,
				frames: []jvmpitest.Frame{{Line: 25, MethodID: methodWork}}},
		},
	}
}

// sigType is the basic type of a field signature.
func sigType(sig string) jvmpitest.Type {
	switch sig[0] {
	case 'L', '[':
		return jvmpitest.TypeObject
	case 'Z':
		return jvmpitest.TypeBoolean
	case 'C':
		return jvmpitest.TypeChar
	case 'F':
		return jvmpitest.TypeFloat
	case 'D':
		return jvmpitest.TypeDouble
	case 'B':
		return jvmpitest.TypeByte
	case 'S':
		return jvmpitest.TypeShort
	case 'I':
		return jvmpitest.TypeInt
	}
	return jvmpitest.TypeLong
}

func (h *identityHeap) className(id uint64) string {
	for _, c := range h.classes {
		if c.id == id {
			return c.name
		}
	}
	return ""
}

// writeJVMPI writes the heap as a level-2 heap dump capture with
// little-endian pointers and big-endian scalars (HotSpot on x86) and
// returns its manifest's path.
func (h *identityHeap) writeJVMPI(t *testing.T, dir string) string {
	t.Helper()
	buf := jvmpitest.NewBuffer(jvmpitest.Options{Level: 2, IDSize: 8, IDOrder: binary.LittleEndian, ScalarOrder: binary.BigEndian})
	for _, r := range h.roots {
		switch r.kind {
		case hproftest.RootStickyClass:
			buf.RootStickyClass(r.obj)
		case hproftest.RootJNIGlobal:
			buf.RootJNIGlobal(r.obj, r.other)
		case hproftest.RootJavaFrame:
			buf.RootJavaFrame(r.obj, r.other, r.frame)
		case hproftest.RootJNILocal:
			buf.RootJNILocal(r.obj, r.other, r.frame)
		case hproftest.RootNativeStack:
			buf.RootNativeStack(r.obj, r.other)
		case hproftest.RootThreadBlock:
			buf.RootThreadBlock(r.obj, r.other)
		case hproftest.RootMonitorUsed:
			buf.RootMonitorUsed(r.obj)
		case hproftest.RootUnknown:
			buf.RootUnknown(r.obj)
		}
	}
	ev := &jvmpitest.ClassEvents{}
	for _, c := range h.classes {
		size := 8
		for _, f := range c.fields {
			size += sigType(f.Signature).Size(8)
		}
		buf.ClassDump(jvmpitest.ClassDump{ID: c.id, SuperID: c.super, InstanceSize: uint32(size),
			Constants: c.constants, Statics: c.staticValues})
		ev.ClassLoad = append(ev.ClassLoad, jvmpitest.ClassLoad{Name: c.name, SourceName: c.source, Methods: c.methods,
			Statics: c.statics, Fields: c.fields, ID: jvmpitest.Hex(c.id), SuperID: jvmpitest.Hex(c.super)})
	}
	for _, in := range h.instances {
		buf.InstanceDump(in.id, in.class, in.values...)
	}
	for _, a := range h.objArrays {
		buf.ObjArrayDump(a.id, a.elem, a.elems...)
	}
	for _, a := range h.primArrays {
		buf.PrimArrayDump(a.id, a.t, a.elems...)
	}
	hd := &jvmpitest.HeapDumpEvent{}
	for _, th := range h.threads {
		ev.Threads = append(ev.Threads, jvmpitest.ThreadStart{Name: th.name, GroupName: "main", ParentName: "system",
			ThreadID: jvmpitest.Hex(th.object), EnvID: jvmpitest.Hex(th.env)})
		hd.Traces = append(hd.Traces, jvmpitest.Trace{EnvID: jvmpitest.Hex(th.env), Frames: th.frames})
	}
	path, err := jvmpitest.WriteCapture(dir, "heap", buf, jvmpitest.Manifest{Format: jvmpitest.FormatHeapDump, HeapDumpEvent: hd}, ev)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func hprofValues(vals []jvmpitest.Value) []hproftest.Value {
	out := make([]hproftest.Value, len(vals))
	for k, v := range vals {
		out[k] = hproftest.Value{Type: hproftest.Type(v.Type), Bits: v.Bits}
	}
	return out
}

// writeHPROF writes the heap as a "JAVA PROFILE 1.0.2" dump as the hprof
// agent would translate it: class, thread and frame serials numbered in
// side-channel order, each thread a ROOT_THREAD_OBJ, object array classes
// declared without a class dump.
func (h *identityHeap) writeHPROF(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "heap.hprof")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := hproftest.New(f, hproftest.Options{IDSize: 8})
	methods := map[uint64]struct {
		serial uint32
		class  idClass
		method jvmpitest.MethodInfo
	}{}
	for k, c := range h.classes {
		w.LoadClass(hproftest.LoadClass{Serial: uint32(k + 1), ClassID: c.id, NameID: w.Name(c.name)})
		for _, m := range c.methods {
			methods[uint64(m.ID)] = struct {
				serial uint32
				class  idClass
				method jvmpitest.MethodInfo
			}{uint32(k + 1), c, m}
		}
	}
	for k, a := range h.objArrays {
		w.LoadClass(hproftest.LoadClass{Serial: uint32(100 + k), ClassID: a.elem | 1, NameID: w.Name(h.className(a.elem) + "[]")})
	}
	for k, th := range h.threads {
		var frames []hproftest.ID
		for _, fr := range th.frames {
			m := methods[uint64(fr.MethodID)]
			frames = append(frames, w.StackFrame(m.method.Name, m.method.Signature, m.class.source, m.serial, fr.Line))
		}
		trace := w.StackTrace(uint32(k+1), frames...)
		w.StartThread(hproftest.StartThread{ThreadSerial: uint32(k + 1), ThreadID: th.object, TraceSerial: trace,
			NameID: w.Name(th.name), GroupNameID: w.Name("main"), ParentGroupNameID: w.Name("system")})
	}
	serialOf := map[uint64]uint32{}
	w.BeginHeapDump()
	for k, th := range h.threads {
		serialOf[th.env] = uint32(k + 1)
		w.Root(hproftest.Root{Kind: hproftest.RootThreadObj, ID: th.object, ThreadSerial: uint32(k + 1), TraceSerial: uint32(k + 1)})
	}
	for _, r := range h.roots {
		root := hproftest.Root{Kind: r.kind, ID: r.obj, FrameDepth: r.frame}
		if r.kind == hproftest.RootJNIGlobal {
			root.JNIRef = r.other
		} else {
			root.ThreadSerial = serialOf[r.other]
		}
		w.Root(root)
	}
	for _, c := range h.classes {
		d := hproftest.ClassDump{ID: c.id, SuperID: c.super}
		for _, f := range c.fields {
			d.InstanceSize += uint32(sigType(f.Signature).Size(8))
			d.Fields = append(d.Fields, hproftest.FieldEntry{NameID: w.Name(f.Name), Type: hproftest.Type(sigType(f.Signature))})
		}
		for k, s := range c.statics {
			d.Statics = append(d.Statics, hproftest.StaticEntry{NameID: w.Name(s.Name), Value: hprofValues(c.staticValues)[k]})
		}
		for _, k := range c.constants {
			d.Constants = append(d.Constants, hproftest.ConstantEntry{Index: k.Index, Value: hprofValues([]jvmpitest.Value{k.Value})[0]})
		}
		w.ClassDump(d)
	}
	for _, in := range h.instances {
		w.InstanceDump(hproftest.InstanceDump{ID: in.id, ClassID: in.class, Fields: hproftest.AppendValues(nil, 8, hprofValues(in.values)...)})
	}
	for _, a := range h.objArrays {
		w.ObjArrayDump(hproftest.ObjArrayDump{ID: a.id, ClassID: a.elem | 1, Elements: a.elems})
	}
	for _, a := range h.primArrays {
		vals := make([]jvmpitest.Value, len(a.elems))
		for k, e := range a.elems {
			vals[k] = jvmpitest.Value{Type: a.t, Bits: e}
		}
		w.PrimArrayDump(hproftest.PrimArrayDump{ID: a.id, Type: hproftest.Type(a.t), Data: hproftest.AppendValues(nil, 8, hprofValues(vals)...)})
	}
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestJVMPIHeapMatchesHPROF writes one heap as a level-2 JVMPI capture and
// as an HPROF dump and checks that histo, dominators and retainers print
// the same JSON for both under --size fields.
func TestJVMPIHeapMatchesHPROF(t *testing.T) {
	h := newIdentityHeap()
	dir := t.TempDir()
	capture, dump := h.writeJVMPI(t, dir), h.writeHPROF(t, dir)
	for _, args := range [][]string{
		{"histo"},
		{"dominators", "--top", "0", "--children", "20"},
		{"retainers", "--class", `^app\.`, "--paths", "10"},
		{"retainers", "--object", "0x4080", "--paths", "5"},
		{"retainers", "--object", "0x6000", "--paths", "5"},
	} {
		run := func(file string) string {
			out, err := runCLI(t, append(args, file, "--size", "fields", "-o", "json")...)
			if err != nil {
				t.Fatalf("hprofctl %s %s: %v", strings.Join(args, " "), file, err)
			}
			return out
		}
		if a, b := run(capture), run(dump); a != b {
			t.Errorf("hprofctl %s: the JVMPI capture and the HPROF dump differ:\nJVMPI: %s\nHPROF: %s", strings.Join(args, " "), a, b)
		}
	}
	// Field bytes as the class-load events declare them (8-byte ids).
	histo := histoByClass(t, capture, "--size", "fields")
	for class, want := range map[string]histoRow{
		"app.Node":     {Instances: 3, ShallowBytes: 3 * (8 + 4 + 8)},
		"app.Leaf":     {Instances: 1, ShallowBytes: 8 + 8 + 1 + 8 + (8 + 4 + 8)},
		"byte[]":       {Instances: 1, ShallowBytes: 5},
		"int[]":        {Instances: 1, ShallowBytes: 12},
		"char[]":       {Instances: 1, ShallowBytes: 8},
		"app.Node[]":   {Instances: 1, ShallowBytes: 16},
		"app.Registry": {Instances: 1, ShallowBytes: 4 + 8},
	} {
		got := histo[class]
		if got.Instances != want.Instances || got.ShallowBytes != want.ShallowBytes {
			t.Errorf("histo %s: %d instances, %d bytes; want %d, %d", class, got.Instances, got.ShallowBytes, want.Instances, want.ShallowBytes)
		}
	}
	// The Leaf is held by frame 1 of main's trace: Registry.main, line 12.
	var r retainersJSON
	runJSON(t, &r, "retainers", capture, "--object", "0x5000", "--size", "fields")
	if len(r.Paths) == 0 || len(r.Paths[0].Chain) != 1 {
		t.Fatalf("retainers of the Leaf: %+v, want the Java-frame root first", r.Paths)
	}
	if p := r.Paths[0]; p.RootKind != "java-frame" || p.RootThread != "main" || p.RootFrame != "app.Registry.main(Registry.java:12)" {
		t.Errorf("the Leaf's root: %s, thread %q, frame %q; want java-frame, main, app.Registry.main(Registry.java:12)", p.RootKind, p.RootThread, p.RootFrame)
	}
}

// TestDeadlocksJVMPIMonitorDump reads a JVMPI monitor dump capture in
// which worker-A owns the raw monitor "registry lock" and waits to enter
// the monitor of a Registry that worker-B owns, while worker-B waits to
// enter the raw monitor; and in which poller waits to be notified on the
// monitor of a Queue whose owner, consumer, waits to enter a monitor
// poller owns. The first is a deadlock through a raw monitor; the second
// is not, because a thread waiting to be notified waits for nobody.
func TestDeadlocksJVMPIMonitorDump(t *testing.T) {
	const (
		envA, envB, envPoller, envConsumer = 0x10000040, 0x10000840, 0x10001040, 0x10001840
		rawID, rawName                     = 0x20000100, 0x20000200
		registry, queue, lockObj           = 0x3000, 0x3040, 0x3080
	)
	buf := jvmpitest.NewBuffer(jvmpitest.Options{IDSize: 4, IDOrder: binary.LittleEndian})
	buf.RawMonitor(rawName, rawID, jvmpitest.Monitor{Owner: envA, EntryCount: 1, Entering: []uint64{envB}})
	buf.JavaMonitor(registry, jvmpitest.Monitor{Owner: envB, EntryCount: 1, Entering: []uint64{envA}})
	buf.JavaMonitor(queue, jvmpitest.Monitor{Owner: envConsumer, EntryCount: 1, Notified: []uint64{envPoller}})
	buf.JavaMonitor(lockObj, jvmpitest.Monitor{Owner: envPoller, EntryCount: 1, Entering: []uint64{envConsumer}})
	ev := &jvmpitest.MonitorEvents{
		RawMonitors: []jvmpitest.RawMonitorInfo{{Name: "registry lock", ID: rawID, NamePtr: rawName}},
		ClassLoad:   []jvmpitest.ClassName{{Name: "app.Registry", ID: 0x1000}, {Name: "app.Queue", ID: 0x1040}},
		Objects: []jvmpitest.ObjectAlloc{{ObjectID: registry, ClassID: 0x1000, Size: 16},
			{ObjectID: queue, ClassID: 0x1040, Size: 16}},
		Event: jvmpitest.MonitorDumpEvent{ThreadsStatus: []int32{2, 2, 3, 2}},
	}
	for k, th := range []struct {
		name string
		env  uint64
	}{{"worker-A", envA}, {"worker-B", envB}, {"poller", envPoller}, {"consumer", envConsumer}} {
		ev.Threads = append(ev.Threads, jvmpitest.ThreadStart{Name: th.name, GroupName: "main", ThreadID: jvmpitest.Hex(0x4000 + 0x40*k), EnvID: jvmpitest.Hex(th.env)})
		ev.Event.Traces = append(ev.Event.Traces, jvmpitest.Trace{EnvID: jvmpitest.Hex(th.env)})
	}
	capture, err := jvmpitest.WriteCapture(t.TempDir(), "monitors", buf, jvmpitest.Manifest{Format: jvmpitest.FormatMonitorDump}, ev)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{capture, strings.TrimSuffix(capture, ".json") + ".bin"} {
		var r deadlockReport
		runJSON(t, &r, "deadlocks", file)
		if len(r.Deadlocks) != 1 || len(r.Deadlocks[0].Threads) != 2 {
			t.Fatalf("%s: %+v, want one deadlock of two threads", file, r.Deadlocks)
		}
		waits := map[string]string{}
		for _, th := range r.Deadlocks[0].Threads {
			w := th.WaitingFor
			waits[th.Name] = fmt.Sprintf("%s %s %s %s held by %s", w.Kind, w.Class, w.Name, w.ID, th.HeldBy)
		}
		want := map[string]string{
			"worker-A": "monitor app.Registry  0x3000 held by worker-B",
			"worker-B": "raw_monitor  registry lock 0x20000100 held by worker-A",
		}
		if !reflect.DeepEqual(waits, want) {
			t.Errorf("%s: deadlock %v, want %v", file, waits, want)
		}
		if len(r.BlockedBehind) != 0 {
			t.Errorf("%s: blocked behind the deadlock: %+v, want nobody", file, r.BlockedBehind)
		}
	}
	if _, err := runCLI(t, "deadlocks", "--exit-code", capture); err == nil {
		t.Error("deadlocks --exit-code: no error for a deadlock")
	}
}

// TestThreadsOfJVMPICaptures: threads of a heap-dump capture are the
// threads its side channel saw start; those of a monitor-dump capture too,
// with the states of the dump.
func TestThreadsOfJVMPICaptures(t *testing.T) {
	dir := testshared.Path(t, "jvmpi-samples")
	for _, c := range []struct{ manifest, side string }{
		{"heap-small-l2-id4-be.json", "heap-small-id4.classes.json"},
		{"mon-nocontention-id4-be.json", "mon-nocontention-id4.events.json"},
	} {
		data, err := os.ReadFile(filepath.Join(dir, c.side))
		if err != nil {
			t.Fatal(err)
		}
		var side struct {
			ThreadStart []struct {
				Name string `json:"thread_name"`
			} `json:"thread_start"`
		}
		if err := json.Unmarshal(data, &side); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, ts := range side.ThreadStart {
			want = append(want, ts.Name)
		}
		var rows []struct {
			Name string `json:"name"`
		}
		runJSON(t, &rows, "threads", filepath.Join(dir, c.manifest))
		var got []string
		for _, r := range rows {
			got = append(got, r.Name)
		}
		slices.Sort(got)
		slices.Sort(want)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: threads %q, the side channel starts %q", c.manifest, got, want)
		}
	}
}
