package jvmpi

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/model/thread"
	"github.com/hprofctl/hprofctl/parser/jvmpi/jvmpitest"
)

// bareCopy copies the buffer of a sample capture alone into a temporary
// directory, away from its manifest, and returns the copy's path and the
// capture's description of it.
func bareCopy(t *testing.T, manifest string) (string, *Capture) {
	t.Helper()
	c, err := LoadCapture(manifest)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(c.BufferPath)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), filepath.Base(c.BufferPath))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, c
}

// TestReadMonitorDump decodes a monitor dump written with 8-byte
// big-endian pointers and little-endian scalars: owners, entry counts and
// waiter lists of Java and raw monitors, thread names, stacks and states
// from the side channel, raw monitor names by their name pointer, a NULL
// waiter left out and a thread no event announced named by its JNIEnv*.
func TestReadMonitorDump(t *testing.T) {
	const (
		envMain, envGC, envLost = 0x00007f3a10000040, 0x00007f3a10000840, 0x00007f3a10001040
		javaObj, rawID, rawPtr  = 0x00000007c0001000, 0x00007f3a20000100, 0x00007f3a20000200
		otherPtr, runMethod     = 0x00007f3a20000300, 0x00007f3a30000010
	)
	buf := jvmpitest.NewBuffer(jvmpitest.Options{IDSize: 8, IDOrder: binary.BigEndian, ScalarOrder: binary.LittleEndian})
	buf.JavaMonitor(javaObj, jvmpitest.Monitor{Owner: envMain, EntryCount: 3, Entering: []uint64{envGC, 0}, Notified: []uint64{envLost}})
	buf.RawMonitor(rawPtr, rawID, jvmpitest.Monitor{Owner: envGC, EntryCount: 1, Notified: []uint64{envMain}})
	buf.RawMonitor(otherPtr, rawID+8, jvmpitest.Monitor{})
	ev := &jvmpitest.MonitorEvents{
		Threads: []jvmpitest.ThreadStart{{Name: "main", GroupName: "main", ThreadID: 0x7c0000000, EnvID: envMain},
			{Name: "GC Daemon", GroupName: "system", ThreadID: 0x7c0000040, EnvID: envGC}},
		RawMonitors: []jvmpitest.RawMonitorInfo{{Name: "_Heap_lock", ID: rawID, NamePtr: rawPtr}},
		ClassLoad:   []jvmpitest.ClassName{{Name: "java.util.Vector", ID: 0x7c0000800}},
		Objects:     []jvmpitest.ObjectAlloc{{ObjectID: javaObj, ClassID: 0x7c0000800, Size: 24}},
		Methods:     []jvmpitest.MethodName{{ClassName: "app.Main", Name: "run", ID: runMethod}},
		Event: jvmpitest.MonitorDumpEvent{
			Traces:        []jvmpitest.Trace{{EnvID: envMain, Frames: []jvmpitest.Frame{{Line: 17, MethodID: runMethod}}}, {EnvID: envGC}},
			ThreadsStatus: []int32{jvmpitest.ThreadRunnable, jvmpitest.ThreadMonitorWait | jvmpitest.ThreadSuspended},
		},
	}
	manifest, err := jvmpitest.WriteCapture(t.TempDir(), "monitors", buf, jvmpitest.Manifest{Format: jvmpitest.FormatMonitorDump}, ev)
	if err != nil {
		t.Fatal(err)
	}
	d, monitors, err := ReadMonitorDump(manifest)
	if err != nil {
		t.Fatal(err)
	}
	vector := thread.Lock{Kind: thread.LockMonitor, Class: "java.util.Vector", ID: javaObj}
	heap := thread.Lock{Kind: thread.LockRawMonitor, ID: rawID, Name: "_Heap_lock"}
	lost := fmt.Sprintf("JNIEnv 0x%x", uint64(envLost))
	want := []thread.Monitor{
		{Lock: vector, Owner: "main", EntryCount: 3, Entering: []string{"GC Daemon"}, Notified: []string{lost}},
		{Lock: heap, Owner: "GC Daemon", EntryCount: 1, Notified: []string{"main"}},
		{Lock: thread.Lock{Kind: thread.LockRawMonitor, ID: rawID + 8, Name: fmt.Sprintf("<raw monitor named at 0x%x>", uint64(otherPtr))}},
	}
	if !reflect.DeepEqual(monitors, want) {
		t.Errorf("monitors:\n%+v\nwant\n%+v", monitors, want)
	}
	wantThreads := []thread.Snapshot{
		{Name: "main", ID: fmt.Sprintf("0x%x", uint64(envMain)), State: "RUNNABLE",
			Frames: []thread.Frame{{Class: "app.Main", Method: "run", Line: 17}},
			Locks:  []thread.LockUse{{Lock: vector, Action: thread.Holds, Frame: -1}, {Lock: heap, Action: thread.WaitsOn, Frame: -1}}},
		{Name: "GC Daemon", ID: fmt.Sprintf("0x%x", uint64(envGC)), State: "BLOCKED", StateDetail: "suspended",
			Locks: []thread.LockUse{{Lock: vector, Action: thread.Enters, Frame: -1}, {Lock: heap, Action: thread.Holds, Frame: -1}}},
		{Name: lost, ID: fmt.Sprintf("0x%x", uint64(envLost)), Locks: []thread.LockUse{{Lock: vector, Action: thread.WaitsOn, Frame: -1}}},
	}
	if !reflect.DeepEqual(d.Threads, wantThreads) {
		t.Errorf("threads:\n%+v\nwant\n%+v", d.Threads, wantThreads)
	}
	if d.Truncated {
		t.Error("the dump is marked truncated")
	}
}

// TestMonitorSamples decodes the shared monitor dump sample at both
// pointer sizes and byte orders: both byte orders of a pointer size give
// the same monitors, named from the side channel, and every variant the
// side channel's threads with their stacks.
func TestMonitorSamples(t *testing.T) {
	dir := samplesDir(t)
	first := map[string][]thread.Monitor{}
	for _, name := range []string{"id4-be", "id4-le", "id8-be", "id8-le"} {
		d, monitors, err := ReadMonitorDump(filepath.Join(dir, "mon-nocontention-"+name+".json"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var names []string
		for _, th := range d.Threads {
			names = append(names, th.Name+" "+th.State)
		}
		if want := []string{"main RUNNABLE", "worker RUNNABLE", "gc-helper RUNNABLE"}; !reflect.DeepEqual(names, want) {
			t.Errorf("%s: threads %q, want %q", name, names, want)
		}
		if f := d.Threads[1].Frames; len(f) != 1 || f[0] != (thread.Frame{Class: "java.lang.Thread", Method: "run", Line: 603}) {
			t.Errorf("%s: worker's stack %+v, want java.lang.Thread.run line 603", name, f)
		}
		for _, m := range monitors {
			if m.Lock.Kind == thread.LockRawMonitor && m.Lock.Name != "heap lock" && m.Lock.Name != "code cache lock" {
				t.Errorf("%s: raw monitor named %q, not from the side channel", name, m.Lock.Name)
			}
		}
		if len(monitors) == 0 {
			t.Errorf("%s: no monitors", name)
		}
		size := name[:3]
		if first[size] == nil {
			first[size] = monitors
		} else if !reflect.DeepEqual(monitors, first[size]) {
			t.Errorf("%s: monitors %+v differ from %s-be's %+v", name, monitors, size, first[size])
		}
	}
}

// TestBareMonitorSamples reads the sample monitor dumps as bare
// buffers: the same monitors, their threads named by the JNIEnv* the
// side channel gives each named thread.
func TestBareMonitorSamples(t *testing.T) {
	dir := samplesDir(t)
	manifests, _ := filepath.Glob(filepath.Join(dir, "mon-*-id*-*.json"))
	if len(manifests) == 0 {
		t.Fatal("no monitor dump samples in " + dir)
	}
	for _, m := range manifests {
		path, c := bareCopy(t, m)
		env := map[string]string{}
		for _, th := range c.MonitorEvents.Threads {
			env[th.Name] = fmt.Sprintf("JNIEnv 0x%x", uint64(th.EnvID))
		}
		_, named, err := ReadMonitorDump(m)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		_, bare, err := ReadMonitorBuffer(f, path, c.Options)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if len(bare) != len(named) {
			t.Fatalf("%s: %d monitors bare, %d with the side channel", m, len(bare), len(named))
		}
		rename := func(names []string) string {
			var out []string
			for _, n := range names {
				out = append(out, env[n])
			}
			return strings.Join(out, ",")
		}
		for k, mon := range named {
			b := bare[k]
			if b.Lock.ID != mon.Lock.ID || b.Lock.Kind != mon.Lock.Kind || b.EntryCount != mon.EntryCount {
				t.Errorf("%s: monitor %d is %+v bare, %+v with the side channel", m, k, b.Lock, mon.Lock)
			}
			if owner := rename([]string{mon.Owner}); mon.Owner != "" && b.Owner != owner {
				t.Errorf("%s: monitor %d owned by %q bare, %q (%s) with the side channel", m, k, b.Owner, owner, mon.Owner)
			}
			if strings.Join(b.Entering, ",") != rename(mon.Entering) || strings.Join(b.Notified, ",") != rename(mon.Notified) {
				t.Errorf("%s: monitor %d waiters %v %v bare, %v %v with the side channel", m, k, b.Entering, b.Notified, mon.Entering, mon.Notified)
			}
		}
	}
}
