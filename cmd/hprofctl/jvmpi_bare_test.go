package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
	"github.com/hprofctl/hprofctl/parser/jvmpi/jvmpitest"
	"github.com/spf13/pflag"
)

// writeBare writes the buffer b to a .bin file of its own, with no
// manifest beside it.
func writeBare(t *testing.T, b *jvmpitest.Buffer) string {
	t.Helper()
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bare.bin")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBareLevelZeroHeap reads a level-0 heap dump with 4-byte
// little-endian ids and big-endian scalars from the flags alone: the
// objects are counted by their level-0 type.
func TestBareLevelZeroHeap(t *testing.T) {
	b := jvmpitest.NewBuffer(jvmpitest.Options{Level: 0, IDSize: 4, IDOrder: binary.LittleEndian})
	for _, id := range []uint64{0x1000, 0x1040, 0x1080} {
		b.LevelZero(jvmpitest.NormalObject, id)
	}
	b.LevelZero(jvmpitest.TypeObject, 0x2000)
	b.LevelZero(jvmpitest.TypeObject, 0x2040)
	b.LevelZero(jvmpitest.TypeInt, 0x3000)
	path := writeBare(t, b)
	flags := []string{"--jvmpi", "heap", "--level", "0", "--id-size", "4", "--byte-order", "ids-little"}

	got := histoByClass(t, append([]string{path}, flags...)...)
	want := map[string]int64{"<unknown>": 3, "<unknown>[]": 2, "int[]": 1}
	for class, n := range want {
		if got[class].Instances != n {
			t.Errorf("%s: %d instances, the writer wrote %d", class, got[class].Instances, n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("classes %v, want %v", got, want)
	}

	var in infoJSON
	runJSON(t, &in, append([]string{"info", path}, flags...)...)
	if in.Format != "jvmpi" || in.IDSize != 4 || in.Threads != 0 || len(in.GCRoots) != 0 {
		t.Errorf("info: format %q, id size %d, %d threads, roots %v; want jvmpi, 4, none, none", in.Format, in.IDSize, in.Threads, in.GCRoots)
	}
	unknown := false
	for _, a := range in.Anomalies {
		unknown = unknown || strings.Contains(a.Detail, "classes are unknown")
	}
	if !unknown {
		t.Errorf("info: no anomaly says the classes are unknown: %+v", in.Anomalies)
	}
}

// TestBareLevelTwoStopsAtClassDump reads a level-2 heap dump whose roots,
// instance and arrays come before a class dump: the error names the
// offset at which the writer began the class dump.
func TestBareLevelTwoStopsAtClassDump(t *testing.T) {
	for _, level := range []int{1, 2} {
		b := jvmpitest.NewBuffer(jvmpitest.Options{Level: level, IDSize: 8})
		b.RootUnknown(0x1000)
		b.InstanceDump(0x1000, 0x5000, jvmpitest.Ref(0x2000), jvmpitest.Int(7))
		b.ObjArrayDump(0x2000, 0, 0x1000)
		b.PrimArrayDump(0x3000, jvmpitest.TypeChar, 'h', 'i')
		classAt := len(b.Bytes())
		b.ClassDump(jvmpitest.ClassDump{ID: 0x5000, InstanceSize: 24})
		path := writeBare(t, b)
		_, err := runCLI(t, "histo", path, "--jvmpi", "heap", "--level", fmt.Sprint(level), "--id-size", "8")
		var fe *jvmpi.FormatError
		if !errors.Is(err, jvmpi.ErrNeedClasses) || !errors.As(err, &fe) {
			t.Fatalf("level %d: error %v, want one saying class layouts are needed", level, err)
		}
		if fe.Offset != int64(classAt) || !strings.Contains(err.Error(), fmt.Sprintf("offset %d", classAt)) {
			t.Errorf("level %d: %v; the class dump begins at offset %d", level, err, classAt)
		}
		if !strings.Contains(err.Error(), "class-load side channel") {
			t.Errorf("level %d: %v does not say what gives the class layouts", level, err)
		}
	}
}

// TestBareMonitorDump finds the deadlock of a bare monitor dump: two
// threads, each owning the monitor the other waits to enter, named by
// their JNIEnv*.
func TestBareMonitorDump(t *testing.T) {
	const envA, envB, rawName, rawID, obj = 0x10000040, 0x10000840, 0x20000200, 0x20000100, 0x3000
	b := jvmpitest.NewBuffer(jvmpitest.Options{IDSize: 8, IDOrder: binary.LittleEndian, ScalarOrder: binary.LittleEndian})
	b.RawMonitor(rawName, rawID, jvmpitest.Monitor{Owner: envA, EntryCount: 1, Entering: []uint64{envB}})
	b.JavaMonitor(obj, jvmpitest.Monitor{Owner: envB, EntryCount: 1, Entering: []uint64{envA}})
	path := writeBare(t, b)
	flags := []string{"--jvmpi", "monitor", "--id-size", "8", "--byte-order", "little"}
	var r deadlockReport
	runJSON(t, &r, append([]string{"deadlocks", path}, flags...)...)
	if len(r.Deadlocks) != 1 || len(r.Deadlocks[0].Threads) != 2 {
		t.Fatalf("%+v, want one deadlock of two threads", r.Deadlocks)
	}
	waits := map[string]string{}
	for _, th := range r.Deadlocks[0].Threads {
		waits[th.Name] = fmt.Sprintf("%s %s %s held by %s", th.WaitingFor.Kind, th.WaitingFor.Name, th.WaitingFor.ID, th.HeldBy)
	}
	a, bn := fmt.Sprintf("JNIEnv 0x%x", envA), fmt.Sprintf("JNIEnv 0x%x", envB)
	want := map[string]string{
		a:  fmt.Sprintf("monitor  0x%x held by %s", obj, bn),
		bn: fmt.Sprintf("raw_monitor <raw monitor named at 0x%x> 0x%x held by %s", rawName, rawID, a),
	}
	if fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Errorf("deadlock %v, want %v", waits, want)
	}
	if _, err := runCLI(t, "histo", path, "--jvmpi", "monitor", "--id-size", "8"); err == nil || !strings.Contains(err.Error(), "no heap") {
		t.Errorf("histo of a monitor dump: %v, want an error saying it holds no heap", err)
	}
}

// TestJVMPIFlagMisuse checks the flag combinations that are refused.
func TestJVMPIFlagMisuse(t *testing.T) {
	path := writeBare(t, jvmpitest.NewBuffer(jvmpitest.Options{IDSize: 8}))
	for _, args := range [][]string{
		{"--level", "0"},
		{"--id-size", "8"},
		{"--jvmpi", "heap"},
		{"--jvmpi", "heap", "--id-size", "6"},
		{"--jvmpi", "heap", "--id-size", "8", "--level", "3"},
		{"--jvmpi", "object", "--id-size", "8", "--level", "0"},
		{"--jvmpi", "thread", "--id-size", "8"},
		{"--jvmpi", "heap", "--id-size", "8", "--byte-order", "middle"},
	} {
		if _, err := runCLI(t, append([]string{"histo", path}, args...)...); err == nil {
			t.Errorf("histo %s: no error", strings.Join(args, " "))
		}
	}
}

// TestJVMPIFlagsWithManifest checks that a capture manifest beside the
// file wins over the JVMPI flags, with a note where they disagree.
func TestJVMPIFlagsWithManifest(t *testing.T) {
	bin := testshared.Path(t, "jvmpi-samples", "heap-small-l2-id4-be.bin")
	for _, c := range []struct {
		args []string
		note string
	}{
		{[]string{"--jvmpi", "heap", "--level", "2", "--id-size", "4"}, ""},
		{[]string{"--jvmpi", "heap", "--level", "0", "--id-size", "8", "--byte-order", "little"}, "level 0, the manifest says 2; id size 8, the manifest says 4; little-endian pointers"},
	} {
		var j jvmpiFlags
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		j.add(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		opt, err := j.options(bin, &stderr)
		if err != nil || opt != nil {
			t.Errorf("%v: options %+v, %v; want the manifest's", c.args, opt, err)
		}
		if c.note == "" && stderr.Len() != 0 || !strings.Contains(stderr.String(), c.note) || c.note != "" && !strings.Contains(stderr.String(), "wins") {
			t.Errorf("%v: stderr %q, want a note saying %q", c.args, stderr.String(), c.note)
		}
	}
}
