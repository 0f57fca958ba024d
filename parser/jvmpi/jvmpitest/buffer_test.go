package jvmpitest_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hprofctl/hprofctl/parser/jvmpi"
	"github.com/hprofctl/hprofctl/parser/jvmpi/jvmpitest"
)

// TestBytes checks records against their layout in docs/jvmpi.md (level-2
// records, monitor dump buffer), written out by hand: pointers in the id
// byte order, counts and primitives in the scalar byte order.
func TestBytes(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	for _, c := range []struct {
		name  string
		opt   jvmpitest.Options
		write func(b *jvmpitest.Buffer)
		want  []byte
	}{
		{"java frame root", jvmpitest.Options{Level: 2, IDSize: 4, IDOrder: le, ScalarOrder: be},
			func(b *jvmpitest.Buffer) { b.RootJavaFrame(0x11223344, 0x55667788, 2) },
			[]byte{0x03, 0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, 0, 0, 0, 2}},
		{"level-2 instance", jvmpitest.Options{Level: 2, IDSize: 4, IDOrder: be, ScalarOrder: le},
			func(b *jvmpitest.Buffer) { b.InstanceDump(0x10, 0x20, jvmpitest.Short(1), jvmpitest.Ref(0x30)) },
			[]byte{0x21, 0, 0, 0, 0x10, 0, 0, 0, 0x20, 6, 0, 0, 0, 1, 0, 0, 0, 0, 0x30}},
		{"level-1 instance", jvmpitest.Options{Level: 1, IDSize: 4},
			func(b *jvmpitest.Buffer) { b.InstanceDump(0x10, 0x20, jvmpitest.Short(1), jvmpitest.Ref(0x30)) },
			[]byte{0x21, 0, 0, 0, 0x10, 0, 0, 0, 0x20, 0, 0, 0, 4, 0, 0, 0, 0x30}},
		{"level-1 primitive array", jvmpitest.Options{Level: 1, IDSize: 4},
			func(b *jvmpitest.Buffer) { b.PrimArrayDump(0x10, jvmpitest.TypeInt, 7, 8) },
			[]byte{0x23, 0, 0, 0, 0x10, 0, 0, 0, 2, 10}},
		{"level 0", jvmpitest.Options{IDSize: 8},
			func(b *jvmpitest.Buffer) { b.LevelZero(jvmpitest.TypeObject, 0x1000) },
			[]byte{2, 0, 0, 0, 0, 0, 0, 0x10, 0}},
		{"raw monitor", jvmpitest.Options{IDSize: 4, IDOrder: le, ScalarOrder: be},
			func(b *jvmpitest.Buffer) {
				b.RawMonitor(0xA0, 0xB0, jvmpitest.Monitor{Owner: 0xC0, EntryCount: 1, Entering: []uint64{0xD0}})
			},
			[]byte{0x02, 0xA0, 0, 0, 0, 0xB0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0xD0, 0, 0, 0, 0, 0, 0, 0}},
	} {
		b := jvmpitest.NewBuffer(c.opt)
		c.write(b)
		if b.Err() != nil || !bytes.Equal(b.Bytes(), c.want) {
			t.Errorf("%s: % x (err %v), want % x", c.name, b.Bytes(), b.Err(), c.want)
		}
	}
}

// TestCaptureRoundTrip writes one heap at every level, pointer size and
// pair of byte orders, and an object dump of one of its instances, as
// captures, and reads them back with parser/jvmpi.
func TestCaptureRoundTrip(t *testing.T) {
	orders := []binary.ByteOrder{binary.BigEndian, binary.LittleEndian}
	for level := 0; level <= 2; level++ {
		for _, ids := range []int{4, 8} {
			for _, idOrder := range orders {
				for _, scOrder := range orders {
					name := fmt.Sprintf("level%d-id%d-%v-%v", level, ids, idOrder, scOrder)
					t.Run(name, func(t *testing.T) {
						roundTrip(t, jvmpitest.Options{Level: level, IDSize: ids, IDOrder: idOrder, ScalarOrder: scOrder})
					})
				}
			}
		}
	}
}

func roundTrip(t *testing.T, opt jvmpitest.Options) {
	const class, super, obj, arr, env = 0x1040, 0x1000, 0x2000, 0x2040, 0x3000
	ev := &jvmpitest.ClassEvents{
		ClassLoad: []jvmpitest.ClassLoad{
			{Name: "java.lang.Object", ID: super},
			{Name: "app.Point", NumInterfaces: 1, ID: class, SuperID: super,
				Statics: []jvmpitest.FieldInfo{{Name: "ORIGIN", Signature: "Lapp/Point;"}, {Name: "N", Signature: "J"}},
				Fields:  []jvmpitest.FieldInfo{{Name: "y", Signature: "S"}, {Name: "next", Signature: "Lapp/Point;"}, {Name: "x", Signature: "D"}}},
		},
		Threads: []jvmpitest.ThreadStart{{Name: "main", ThreadID: 0x2080, EnvID: env}},
	}
	b := jvmpitest.NewBuffer(opt)
	if opt.Level == 0 {
		b.LevelZero(jvmpitest.NormalObject, obj)
		b.LevelZero(jvmpitest.TypeChar, arr)
	} else {
		b.RootJNILocal(obj, env, -1)
		b.ClassDump(jvmpitest.ClassDump{ID: class, SuperID: super, InstanceSize: 32, Interfaces: []uint64{0x1080},
			Constants: []jvmpitest.Constant{{Index: 4, Value: jvmpitest.Long(-2)}},
			Statics:   []jvmpitest.Value{jvmpitest.Ref(obj), jvmpitest.Long(99)}})
		b.InstanceDump(obj, class, jvmpitest.Short(-3), jvmpitest.Ref(obj), jvmpitest.Double(1.5))
		b.PrimArrayDump(arr, jvmpitest.TypeChar, 'h', 'i')
	}
	dir := t.TempDir()
	manifest, err := jvmpitest.WriteCapture(dir, "heap", b, jvmpitest.Manifest{Format: jvmpitest.FormatHeapDump}, ev)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	read(t, manifest, func(r *jvmpi.Reader, rec *jvmpi.Record) {
		switch rec.Type {
		case jvmpi.LevelZeroObject:
			got = append(got, fmt.Sprintf("object %d 0x%x", rec.Object.Type, rec.Object.ID))
		case jvmpi.RootJNILocal:
			got = append(got, fmt.Sprintf("root 0x%x 0x%x %d", rec.Root.ID, rec.Root.Thread, rec.Root.Frame))
		case jvmpi.ClassDump:
			c := rec.Class
			var constants []string
			for _, k := range c.Constants {
				constants = append(constants, fmt.Sprintf("{%d %d %d}", k.Index, uint8(k.Type), k.Value))
			}
			got = append(got, fmt.Sprintf("class 0x%x 0x%x %d %x %v %x", c.ID, c.SuperID, c.InstanceSize, c.Interfaces, constants, c.Statics))
		case jvmpi.InstanceDump:
			s := fmt.Sprintf("instance 0x%x 0x%x", rec.Instance.ID, rec.Instance.ClassID)
			if err := r.InstanceFields(func(c *jvmpi.ClassInfo, i int, _ jvmpi.Type, v uint64) {
				s += fmt.Sprintf(" %s=%x", c.Fields[i].Name, v)
			}); err != nil {
				t.Error(err)
			}
			got = append(got, s)
		case jvmpi.PrimArrayDump:
			got = append(got, fmt.Sprintf("array 0x%x %d %d % x", rec.PrimArray.ID, rec.PrimArray.Length, rec.PrimArray.ElemType, rec.PrimArray.Data))
		}
	})
	chars := "00 68 00 69"
	if opt.ScalarOrder == binary.LittleEndian {
		chars = "68 00 69 00"
	}
	want := map[int][]string{
		0: {"object 0 0x2000", "object 5 0x2040"},
		1: {"root 0x2000 0x3000 -1", "class 0x1040 0x1000 32 [1080] [{4 11 18446744073709551614}] [2000 0]",
			"instance 0x2000 0x1040 next=2000", "array 0x2040 2 5 "},
		2: {"root 0x2000 0x3000 -1", "class 0x1040 0x1000 32 [1080] [{4 11 18446744073709551614}] [2000 63]",
			"instance 0x2000 0x1040 y=fffd next=2000 x=3ff8000000000000", "array 0x2040 2 5 " + chars},
	}[opt.Level]
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%q\nwant\n%q", got, want)
	}
	if opt.Level != 2 {
		return
	}
	ob := jvmpitest.NewBuffer(opt)
	ob.InstanceDump(obj, class, jvmpitest.Short(-3), jvmpitest.Ref(0), jvmpitest.Double(1.5))
	om, err := jvmpitest.WriteCapture(dir, "object", ob, jvmpitest.Manifest{Format: jvmpitest.FormatObjectDump}, ev)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	read(t, om, func(_ *jvmpi.Reader, rec *jvmpi.Record) {
		if n++; rec.Type != jvmpi.InstanceDump || rec.Instance.ID != obj || rec.Instance.Size != uint32(2+opt.IDSize+8) {
			t.Errorf("object dump: %s of 0x%x, %d bytes", rec.Type, rec.Instance.ID, rec.Instance.Size)
		}
	})
	if n != 1 {
		t.Errorf("object dump: %d records, want 1", n)
	}
	if err := os.WriteFile(filepath.Join(dir, "object.bin"), append(ob.Bytes(), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := jvmpi.LoadCapture(om)
	if err != nil {
		t.Fatal(err)
	}
	in, err := c.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := io.ReadAll(in); err == nil {
		t.Error("a buffer one byte longer than its manifest says was read without an error")
	}
}

// read loads a capture and hands each record to fn.
func read(t *testing.T, manifest string, fn func(r *jvmpi.Reader, rec *jvmpi.Record)) {
	t.Helper()
	c, err := jvmpi.LoadCapture(manifest)
	if err != nil {
		t.Fatal(err)
	}
	in, err := c.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, err := jvmpi.NewReader(in, c.Options)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		fn(r, r.Record())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestMonitorCaptureSideChannel checks the monitor side channel's keys
// and id strings as docs/jvmpi.md#monitor-side-channel names them.
func TestMonitorCaptureSideChannel(t *testing.T) {
	b := jvmpitest.NewBuffer(jvmpitest.Options{IDSize: 8})
	b.JavaMonitor(0x7c0001000, jvmpitest.Monitor{})
	ev := &jvmpitest.MonitorEvents{
		Threads:     []jvmpitest.ThreadStart{{Name: "main", EnvID: 0x7f3a10000040}},
		RawMonitors: []jvmpitest.RawMonitorInfo{{Name: "_Heap_lock", ID: 0x10, NamePtr: 0x20}},
		Event:       jvmpitest.MonitorDumpEvent{Traces: []jvmpitest.Trace{{EnvID: 0x7f3a10000040}}, ThreadsStatus: []int32{1}},
	}
	dir := t.TempDir()
	manifest, err := jvmpitest.WriteCapture(dir, "m", b, jvmpitest.Manifest{Format: jvmpitest.FormatMonitorDump}, ev)
	if err != nil {
		t.Fatal(err)
	}
	c, err := jvmpi.LoadCapture(manifest)
	if err != nil {
		t.Fatal(err)
	}
	me := c.MonitorEvents
	if me.Format != "jvmpi-monitor-side-channel" || me.IDSize != 8 || len(me.Threads) != 1 || me.Threads[0].EnvID != 0x7f3a10000040 ||
		me.Threads[0].ThreadID != 0 || len(me.RawMonitors) != 1 || me.RawMonitors[0].NamePtr != 0x20 || len(me.Event.ThreadsStatus) != 1 {
		t.Errorf("side channel read back as %+v", me)
	}
	side, err := os.ReadFile(filepath.Join(dir, c.Manifest.Events))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(side, []byte(`"thread_env_id":"0x00007f3a10000040"`)) || !bytes.Contains(side, []byte(`"thread_id":null`)) {
		t.Errorf("side channel ids are not written as docs/jvmpi.md says: %s", side)
	}
}
