package jvmpi

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/input"
)

// samplesDir returns the shared JVMPI samples directory (see testshared).
func samplesDir(t *testing.T) string {
	t.Helper()
	return testshared.Path(t, "jvmpi-samples")
}

// heapView is what a heap or object dump says, independent of level, id
// size order and byte order: objects by kind, references, roots, classes.
type heapView struct {
	objects map[uint64]string   // id -> "instance", "class", "object[]", "int[]"... ("instance|class" at level 0)
	lengths map[uint64]uint32   // array lengths (levels 1-2)
	refs    map[uint64][]uint64 // non-null references, sorted
	prims   map[uint64][]uint64 // primitive values (level 2)
	roots   []string
	classes map[uint64]Class
	counts  map[RecordType]int
	end     int64
}

var primNames = map[Type]string{TypeBoolean: "boolean", TypeChar: "char", TypeFloat: "float", TypeDouble: "double",
	TypeByte: "byte", TypeShort: "short", TypeInt: "int", TypeLong: "long"}

// readView reads a capture's buffer into a heapView.
func readView(t *testing.T, c *Capture) heapView {
	t.Helper()
	in, err := c.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, err := NewReader(in, c.Options)
	if err != nil {
		t.Fatal(err)
	}
	v := heapView{objects: map[uint64]string{}, lengths: map[uint64]uint32{}, refs: map[uint64][]uint64{},
		prims: map[uint64][]uint64{}, classes: map[uint64]Class{}, counts: map[RecordType]int{}}
	ref := func(from, to uint64) {
		if to != 0 {
			v.refs[from] = append(v.refs[from], to)
		}
	}
	for r.Next() {
		rec := r.Record()
		v.counts[rec.Type]++
		switch rec.Type {
		case LevelZeroObject:
			kind := "instance|class"
			switch {
			case rec.Object.Type == TypeObject:
				kind = "object[]"
			case rec.Object.Type.IsPrimitive():
				kind = primNames[rec.Object.Type] + "[]"
			}
			v.objects[rec.Object.ID] = kind
		case ClassDump:
			c := rec.Class
			v.objects[c.ID] = "class"
			for _, id := range append([]uint64{c.SuperID, c.LoaderID, c.SignersID, c.ProtectionDomainID}, c.Interfaces...) {
				ref(c.ID, id)
			}
			for _, k := range c.Constants {
				if k.Type == TypeObject {
					ref(c.ID, k.Value)
				}
			}
			for i, f := range c.Layout.Statics {
				if f.Type() == TypeObject {
					ref(c.ID, c.Statics[i])
				} else if c.Statics[i] != 0 {
					v.prims[c.ID] = append(v.prims[c.ID], c.Statics[i])
				}
			}
			c.Interfaces = append([]uint64{}, c.Interfaces...)
			c.Constants = append([]Constant{}, c.Constants...)
			c.Statics, c.Layout = nil, nil
			v.classes[c.ID] = c
		case InstanceDump:
			id := rec.Instance.ID
			v.objects[id] = "instance"
			if err := r.InstanceFields(func(_ *ClassInfo, _ int, ty Type, val uint64) {
				if ty == TypeObject {
					ref(id, val)
				} else if val != 0 {
					v.prims[id] = append(v.prims[id], val)
				}
			}); err != nil {
				t.Fatal(err)
			}
		case ObjArrayDump:
			a := rec.ObjArray
			v.objects[a.ID], v.lengths[a.ID] = "object[]", a.Length
			for _, e := range a.Elements {
				ref(a.ID, e)
			}
		case PrimArrayDump:
			a := rec.PrimArray
			v.objects[a.ID], v.lengths[a.ID] = primNames[a.ElemType]+"[]", a.Length
			size := a.ElemType.Size(r.IDSize())
			for p := 0; p+size <= len(a.Data); p += size {
				if x := r.Scalar(a.Data[p:], a.ElemType); x != 0 {
					v.prims[a.ID] = append(v.prims[a.ID], x)
				}
			}
		default:
			if !rec.Type.IsRoot() {
				t.Fatalf("unexpected %s", rec.Type)
			}
			rt := rec.Root
			v.roots = append(v.roots, fmt.Sprintf("%s obj=%x ref=%x env=%x frame=%d", rec.Type, rt.ID, rt.GlobalRef, rt.Thread, rt.Frame))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for id := range v.refs {
		slices.Sort(v.refs[id])
	}
	slices.Sort(v.roots)
	v.end = r.Offset()
	return v
}

// loadSamples loads every capture of the samples whose name matches prefix.
func loadSamples(t *testing.T, prefix string) map[string]*Capture {
	t.Helper()
	dir := samplesDir(t)
	manifests, err := filepath.Glob(filepath.Join(dir, prefix+"*.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Capture{}
	for _, m := range manifests {
		if _, ok := input.CaptureManifest(m); !ok {
			continue
		}
		c, err := LoadCapture(m)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(m), ".json")] = c
	}
	if len(out) == 0 {
		t.Fatalf("no %s* captures in %s", prefix, dir)
	}
	return out
}

func TestSampleHeapDumps(t *testing.T) {
	caps := loadSamples(t, "heap-")
	views := map[string]heapView{}
	for name, c := range caps {
		v := readView(t, c)
		views[name] = v
		if v.end != *c.Manifest.Length {
			t.Errorf("%s: read %d bytes, the manifest says %d", name, v.end, *c.Manifest.Length)
		}
		if c.Manifest.HeapDumpEvent.Level != c.Manifest.Level {
			t.Errorf("%s: event level %d, manifest level %d", name, c.Manifest.HeapDumpEvent.Level, c.Manifest.Level)
		}
		checkAgainstSideChannel(t, name, c, v)
	}
	for _, ids := range []string{"id4", "id8"} {
		ref := views["heap-small-l2-"+ids+"-be"]
		for name, v := range views {
			if !strings.Contains(name, "-"+ids+"-") {
				continue
			}
			level := caps[name].Options.Level
			if level == 0 {
				for id, kind := range ref.objects {
					want := kind
					if kind == "instance" || kind == "class" {
						want = "instance|class"
					}
					if v.objects[id] != want {
						t.Errorf("%s: object 0x%x is %q, at level 2 %q", name, id, v.objects[id], kind)
					}
				}
				if len(v.objects) != len(ref.objects) {
					t.Errorf("%s: %d objects, %d at level 2", name, len(v.objects), len(ref.objects))
				}
				continue
			}
			for what, pair := range map[string][2]any{
				"objects": {v.objects, ref.objects}, "lengths": {v.lengths, ref.lengths},
				"references": {v.refs, ref.refs}, "roots": {v.roots, ref.roots}, "classes": {v.classes, ref.classes},
			} {
				if !reflect.DeepEqual(pair[0], pair[1]) {
					t.Errorf("%s: %s differ from level 2 big-endian:\n%v\n%v", name, what, pair[0], pair[1])
				}
			}
			if level == 2 && !reflect.DeepEqual(v.prims, ref.prims) {
				t.Errorf("%s: primitive values differ from the big-endian capture's", name)
			}
			if level == 1 && len(v.prims) != 0 {
				t.Errorf("%s: level 1 holds primitive values %v", name, v.prims)
			}
		}
	}
}

// checkAgainstSideChannel checks a heap dump against its side channel and
// dump event: class dumps match the class-load events, JNI global roots the
// global-ref events, thread roots the thread-start events and traces.
func checkAgainstSideChannel(t *testing.T, name string, c *Capture, v heapView) {
	t.Helper()
	ev := c.ClassEvents
	if c.Options.Level == 0 {
		for _, cl := range ev.Classes {
			if v.objects[uint64(cl.ID)] != "instance|class" {
				t.Errorf("%s: class object of %s (0x%x) is %q", name, cl.Name, uint64(cl.ID), v.objects[uint64(cl.ID)])
			}
		}
		if len(v.roots) != 0 {
			t.Errorf("%s: level 0 has roots", name)
		}
		return
	}
	if len(v.classes) != len(ev.Classes) {
		t.Errorf("%s: %d class dumps, %d class-load events", name, len(v.classes), len(ev.Classes))
	}
	for _, cl := range ev.Classes {
		cd, ok := v.classes[uint64(cl.ID)]
		if !ok {
			t.Errorf("%s: no class dump of %s", name, cl.Name)
			continue
		}
		if cd.SuperID != uint64(cl.SuperID) || len(cd.Interfaces) != cl.NumInterfaces {
			t.Errorf("%s: %s: super 0x%x, %d interfaces; its class-load event: 0x%x, %d", name, cl.Name, cd.SuperID, len(cd.Interfaces), uint64(cl.SuperID), cl.NumInterfaces)
		}
	}
	for _, g := range ev.GlobalRefs {
		want := fmt.Sprintf("%s obj=%x ref=%x env=0 frame=-1", RootJNIGlobal, uint64(g.ObjectID), uint64(g.RefID))
		if !slices.Contains(v.roots, want) {
			t.Errorf("%s: no root %q in %v", name, want, v.roots)
		}
	}
	frames := map[uint64]int{}
	for _, tr := range c.Manifest.HeapDumpEvent.Traces {
		frames[uint64(tr.EnvID)] = len(tr.Frames)
	}
	threads := map[uint64]uint64{}
	for _, th := range ev.Threads {
		threads[uint64(th.EnvID)] = uint64(th.ThreadID)
		if _, ok := frames[uint64(th.EnvID)]; !ok {
			t.Errorf("%s: no trace for thread %s", name, th.Name)
		}
	}
	for _, s := range v.roots {
		var kind string
		var obj, ref, env uint64
		var frame int32
		if _, err := fmt.Sscanf(s, "%s obj=%x ref=%x env=%x frame=%d", &kind, &obj, &ref, &env, &frame); err != nil {
			t.Fatal(err)
		}
		if env == 0 {
			continue
		}
		thread, ok := threads[env]
		switch {
		case !ok:
			t.Errorf("%s: root %s names an unknown thread", name, s)
		case kind == RootThreadBlock.String() && obj != thread:
			t.Errorf("%s: %s: the thread object of that JNIEnv* is 0x%x", name, s, thread)
		case frame >= int32(frames[env]):
			t.Errorf("%s: %s: the thread's trace has %d frames", name, s, frames[env])
		}
	}
}

func TestSampleObjectDumps(t *testing.T) {
	heaps := loadSamples(t, "heap-small-l2-")
	for name, c := range loadSamples(t, "obj-") {
		v := readView(t, c)
		if v.end != c.Manifest.ObjectDumpEvent.DataLen {
			t.Errorf("%s: read %d bytes, data_len is %d", name, v.end, c.Manifest.ObjectDumpEvent.DataLen)
		}
		if len(v.objects) != 1 {
			t.Fatalf("%s: %d objects", name, len(v.objects))
		}
		kind := strings.Split(strings.TrimPrefix(name, "obj-small-"), "-")[0]
		want := map[string]RecordType{"class": ClassDump, "instance": InstanceDump, "objarray": ObjArrayDump, "primarray": PrimArrayDump}[kind]
		if v.counts[want] != 1 {
			t.Errorf("%s: records %v, want one %s", name, v.counts, want)
		}
		heapName := "heap-small-l2-" + strings.Join(strings.Split(name, "-")[len(strings.Split(name, "-"))-2:], "-")
		h := readView(t, heaps[heapName])
		for id, k := range v.objects {
			if h.objects[id] != k || !reflect.DeepEqual(h.refs[id], v.refs[id]) || !reflect.DeepEqual(h.prims[id], v.prims[id]) ||
				h.lengths[id] != v.lengths[id] {
				t.Errorf("%s: object 0x%x (%s, refs %v) differs from the same object in %s (%s, refs %v)", name, id, k, v.refs[id], heapName, h.objects[id], h.refs[id])
			}
			if k == "class" && !reflect.DeepEqual(h.classes[id], v.classes[id]) {
				t.Errorf("%s: class dump differs from %s's:\n%+v\n%+v", name, heapName, v.classes[id], h.classes[id])
			}
		}
	}
}

func TestSampleMonitorDumps(t *testing.T) {
	for name, c := range loadSamples(t, "mon-") {
		ev := c.MonitorEvents
		envs := map[uint64]bool{}
		for _, th := range ev.Threads {
			envs[uint64(th.EnvID)] = true
		}
		objects := map[uint64]bool{}
		for _, o := range ev.Objects {
			objects[uint64(o.ObjectID)] = true
		}
		raws := map[[2]uint64]bool{}
		for _, m := range ev.RawMonitors {
			raws[[2]uint64{uint64(m.NamePtr), uint64(m.ID)}] = true
		}
		in, err := c.Open()
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(in, c.Options)
		if err != nil {
			t.Fatal(err)
		}
		javaSeen, rawSeen := map[uint64]bool{}, map[[2]uint64]bool{}
		for r.Next() {
			m := r.Record().Monitor
			switch m.Kind {
			case MonitorJava:
				if !objects[m.Object] {
					t.Errorf("%s: Java monitor of 0x%x, an object no allocation event names", name, m.Object)
				}
				javaSeen[m.Object] = true
			case MonitorRaw:
				if !raws[[2]uint64{m.NamePtr, m.RawID}] {
					t.Errorf("%s: raw monitor 0x%x (name at 0x%x) is not in the side channel", name, m.RawID, m.NamePtr)
				}
				rawSeen[[2]uint64{m.NamePtr, m.RawID}] = true
			}
			if m.Owner != 0 && !envs[m.Owner] {
				t.Errorf("%s: owner 0x%x is no thread", name, m.Owner)
			}
			if (m.Owner == 0) != (m.EntryCount == 0) {
				t.Errorf("%s: owner 0x%x with entry count %d", name, m.Owner, m.EntryCount)
			}
			if len(m.Entering)+len(m.Notified) != 0 {
				t.Errorf("%s: waiters in a dump without contention: %v %v", name, m.Entering, m.Notified)
			}
		}
		in.Close()
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		if r.Offset() != *c.Manifest.Length {
			t.Errorf("%s: read %d bytes, the manifest says %d", name, r.Offset(), *c.Manifest.Length)
		}
		if len(javaSeen) != len(objects) || len(rawSeen) != len(raws) {
			t.Errorf("%s: %d Java and %d raw monitors, the side channel names %d objects and %d raw monitors", name, len(javaSeen), len(rawSeen), len(objects), len(raws))
		}
	}
}

// TestSampleDamage cuts, inflates and strips the samples and checks that
// each failure names its byte offset.
func TestSampleDamage(t *testing.T) {
	c := loadSamples(t, "heap-small-l2-id8-mx")["heap-small-l2-id8-mx"]
	data, err := os.ReadFile(c.BufferPath)
	if err != nil {
		t.Fatal(err)
	}
	read := func(b []byte, opt Options) error {
		r, err := NewReader(strings.NewReader(string(b)), opt)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			if r.Record().Type == InstanceDump {
				if err := r.InstanceFields(func(*ClassInfo, int, Type, uint64) {}); err != nil {
					return err
				}
			}
		}
		return r.Err()
	}
	for cut := 1; cut < len(data); cut += 97 {
		err := read(data[:cut], c.Options)
		var fe *FormatError
		if err == nil {
			continue // the cut fell between records
		}
		if !errors.Is(err, ErrTruncated) || !errors.As(err, &fe) || fe.Offset > int64(cut) {
			t.Errorf("cut at %d: %v", cut, err)
		}
	}
	// The first primitive array's element count made huge: the count is
	// larger than the buffer.
	opt := c.Options
	r, _ := NewReader(strings.NewReader(string(data)), opt)
	var at int64 = -1
	for r.Next() {
		if r.Record().Type == PrimArrayDump {
			at = r.Record().Offset
			break
		}
	}
	big := slices.Clone(data)
	copy(big[at+1+8:], []byte{0x7f, 0xff, 0xff, 0xff})
	err = read(big, opt)
	if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), fmt.Sprintf("GC_PRIM_ARRAY_DUMP at offset %d", at)) {
		t.Errorf("huge count: %v", err)
	}
	// Without class layouts: records up to the first class dump, then a
	// clear error.
	bare := opt
	bare.Classes = nil
	err = read(data, bare)
	if !errors.Is(err, ErrNeedClasses) || !strings.Contains(err.Error(), "class layouts are needed") {
		t.Errorf("no classes: %v", err)
	}
	// A class missing from the side channel.
	var partial []ClassInfo
	for _, ci := range c.ClassEvents.Classes {
		if ci.Name != "com.example.Node" {
			partial = append(partial, ci)
		}
	}
	missing := opt
	missing.Classes, _ = NewClassTable(partial)
	err = read(data, missing)
	if !errors.Is(err, ErrNeedClasses) || !strings.Contains(err.Error(), "missing from the class-load side channel") || !strings.Contains(err.Error(), "offset") {
		t.Errorf("missing class: %v", err)
	}
}
