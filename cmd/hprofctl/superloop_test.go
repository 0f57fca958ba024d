package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/jvmpi/jvmpitest"
)

// loopDeadline is how long one command may take on a dump whose
// superclass chains loop before the test calls it a hang. The commands
// take milliseconds; the margin is for a loaded machine.
const loopDeadline = 10 * time.Second

// loopCommands are the commands run on the dumps whose superclasses loop:
// every command that reads a heap dump.
var loopCommands = [][]string{
	{"info"}, {"histo"}, {"histo", "--size", "fields"}, {"dominators"}, {"dominators", "--by-class"},
	{"retainers", "--class", "^A$"}, {"leaks"}, {"sites"}, {"threads"}, {"deadlocks"},
}

// runWithin runs hprofctl with args in-process and fails the test when it
// has not returned within loopDeadline, so that a hang fails instead of
// stalling the suite (the stuck goroutine is left behind).
func runWithin(t *testing.T, args ...string) (string, error) {
	t.Helper()
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		out, err := runCLI(t, args...)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		t.Logf("hprofctl %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Microsecond))
		return r.out, r.err
	case <-time.After(loopDeadline):
		t.Fatalf("hprofctl %s: no answer within %v", strings.Join(args, " "), loopDeadline)
		return "", nil
	}
}

// loopCommandsBut returns loopCommands without the commands named.
func loopCommandsBut(names ...string) [][]string {
	var out [][]string
	for _, cmd := range loopCommands {
		if !slices.Contains(names, cmd[0]) {
			out = append(out, cmd)
		}
	}
	return out
}

// answersEveryCommand runs each of cmds on path, which must answer within
// the deadline: without an error, or for the commands wantErr names with
// an error that says what the file lacks.
func answersEveryCommand(t *testing.T, path string, cmds [][]string, wantErr map[string]string) {
	t.Helper()
	for _, cmd := range cmds {
		args := append(append([]string{cmd[0], path}, cmd[1:]...), "--bytes")
		_, err := runWithin(t, args...)
		want, ok := wantErr[cmd[0]]
		switch {
		case !ok && err != nil:
			t.Errorf("hprofctl %s: %v", strings.Join(args, " "), err)
		case ok && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("hprofctl %s: %v, want an error saying %q", strings.Join(args, " "), err, want)
		}
	}
}

// checkLoopAnomaly checks that info reports exactly one superclass loop,
// spelled as want.
func checkLoopAnomaly(t *testing.T, path, want string) {
	t.Helper()
	var in infoJSON
	runJSON(t, &in, "info", path)
	var loops []string
	for _, a := range in.Anomalies {
		if a.Kind == "superclass-loop" {
			loops = append(loops, a.Detail)
		}
	}
	if len(loops) != 1 || !strings.Contains(loops[0], want) {
		t.Errorf("superclass-loop anomalies %q, want one spelling %q", loops, want)
	}
}

// checkLoopGraph checks that y, the root, reaches x through field via,
// which only a decoding of the field of the class at the top of A's chain
// finds, and that y retains both instances: bytes each.
func checkLoopGraph(t *testing.T, path string, x, y uint64, via string, bytes int64, size string) {
	t.Helper()
	var ret retainersJSON
	runJSON(t, &ret, "retainers", path, "--class", "^A$")
	found := false
	for _, p := range ret.Paths {
		c := p.Chain
		if len(c) == 2 && c[0].ObjectID == fmt.Sprintf("0x%x", y) && c[1].ObjectID == fmt.Sprintf("0x%x", x) && c[1].Via == via {
			found = true
		}
	}
	if ret.Targets != 2 || !found {
		t.Errorf("retainers of A: %+v, want 2 targets and the path 0x%x → %s → 0x%x", ret, y, via, x)
	}
	rows := dominatorsOf(t, path, "^A$", "--size", size)
	var top *dominatorJSON
	for k := range rows {
		if rows[k].ObjectID == fmt.Sprintf("0x%x", y) {
			top = &rows[k]
		}
	}
	if top == nil || top.RetainedObjects != 2 || top.RetainedBytes != 2*bytes || top.ShallowBytes != bytes {
		t.Errorf("dominators --size %s: %+v, want 0x%x of %d bytes retaining both instances, %d bytes", size, rows, y, bytes, 2*bytes)
	}
	histo := histoByClass(t, path, "--size", size)
	if a := histo["A"]; a.Instances != 2 || a.ShallowBytes != 2*bytes {
		t.Errorf("histo --size %s: A %+v, want 2 instances of %d bytes", size, a, bytes)
	}
	var suspects []leakJSON
	runJSON(t, &suspects, "leaks", path, "--size", size)
	if len(suspects) == 0 || suspects[0].ObjectID == nil || *suspects[0].ObjectID != fmt.Sprintf("0x%x", y) || suspects[0].RetainedBytes != 2*bytes {
		t.Errorf("leaks --size %s: %+v, want 0x%x retaining %d bytes first", size, suspects, y, 2*bytes)
	}
}

// writeLoopDump writes a binary dump (8-byte ids) whose superclass links
// loop, with two instances of A: y, a JNI global root, and x. With
// selfLoop, A (field a: Object) names itself as its superclass; else C
// (c: Object) names B, B (b: int) names C and A (a: Object) names B, so
// that A → B → C → B. y references x only through the field of the last
// class of A's chain (a, or c), the other reference fields being null.
func writeLoopDump(t *testing.T, path string, selfLoop bool) (x, y hproftest.ID) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := hproftest.New(f, hproftest.Options{IDSize: 8})
	ref := hproftest.Field{Type: hproftest.TypeObject}
	w.BeginHeapDump()
	var a *hproftest.Class
	var xs, ys []hproftest.Value
	x, y = w.Alloc(32), w.Alloc(32)
	if selfLoop {
		ref.Name = "a"
		a = w.DeclareClass(hproftest.ClassSpec{Name: "A", Fields: []hproftest.Field{ref}})
		w.ClassDump(hproftest.ClassDump{ID: a.ID, SuperID: a.ID, InstanceSize: 8,
			Fields: []hproftest.FieldEntry{{NameID: a.FieldNameIDs[0], Type: hproftest.TypeObject}}})
		xs, ys = []hproftest.Value{hproftest.Ref(0)}, []hproftest.Value{hproftest.Ref(x)}
	} else {
		ref.Name = "c"
		c := w.DeclareClass(hproftest.ClassSpec{Name: "C", Fields: []hproftest.Field{ref}})
		b := w.DeclareClass(hproftest.ClassSpec{Name: "B", Super: c, Fields: []hproftest.Field{{Name: "b", Type: hproftest.TypeInt}}})
		ref.Name = "a"
		a = w.DeclareClass(hproftest.ClassSpec{Name: "A", Super: b, Fields: []hproftest.Field{ref}})
		w.ClassDump(hproftest.ClassDump{ID: c.ID, SuperID: b.ID, InstanceSize: 8,
			Fields: []hproftest.FieldEntry{{NameID: c.FieldNameIDs[0], Type: hproftest.TypeObject}}})
		w.DumpClass(b)
		w.DumpClass(a)
		xs = []hproftest.Value{hproftest.Ref(0), hproftest.Int(1), hproftest.Ref(0)}
		ys = []hproftest.Value{hproftest.Ref(0), hproftest.Int(2), hproftest.Ref(x)}
	}
	w.InstanceWithID(x, a, xs...)
	w.InstanceWithID(y, a, ys...)
	w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: y, JNIRef: 1})
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return x, y
}

// TestSuperclassLoopBinary is the acceptance: a binary dump whose
// superclass links loop answers every command, with the loop named. The
// loop is cut at the link that closes it, so A's instances are decoded
// with the fields of A, B and C once (8 + 4 + 8 field bytes), or of A
// alone (8) for the self-loop.
func TestSuperclassLoopBinary(t *testing.T) {
	for _, tc := range []struct {
		name     string
		selfLoop bool
		spelled  string
		via      string
		bytes    int64
	}{
		{"A-B-C-B", false, "A → B → C → B (cut at C → B)", "c", 20},
		{"A-A", true, "A → A (cut at A → A)", "a", 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "loop.hprof")
			x, y := writeLoopDump(t, path, tc.selfLoop)
			answersEveryCommand(t, path, loopCommands, nil)
			checkLoopAnomaly(t, path, tc.spelled)
			checkLoopGraph(t, path, uint64(x), uint64(y), tc.via, tc.bytes, "fields")
		})
	}
}

// TestSuperclassLoopASCII checks the same loop, A → B → C → B, in the
// hprof agent's ASCII HEAP DUMP, whose CLS lines name the superclasses
// and whose OBJ lines give each instance's size (24) and references.
func TestSuperclassLoopASCII(t *testing.T) {
	path := filepath.Join(t.TempDir(), "java.hprof.txt")
	const x, y = 0x50001000, 0x50001018
	text := "JAVA PROFILE 1.0.1, created Sat Mar 27 10:51:47 2021\n\n" +
		"Header for -agentlib:hprof (or -Xrunhprof) ASCII Output (JDK 5.0 JVMTI based)\n\n" +
		"\n--------\n\n" +
		"HEAP DUMP BEGIN (2 objects, 48 bytes) Sat Mar 27 10:51:58 2021\n" +
		fmt.Sprintf("ROOT %x (kind=<JNI global ref>, id=%x, trace=%d)\n", y, 0x1f, 0) +
		"CLS 500000c0 (name=C, trace=0)\n\tsuper\t\t500000b0\n" +
		"CLS 500000b0 (name=B, trace=0)\n\tsuper\t\t500000c0\n" +
		"CLS 500000a0 (name=A, trace=0)\n\tsuper\t\t500000b0\n" +
		fmt.Sprintf("OBJ %x (sz=24, trace=0, class=A@500000a0)\n", x) +
		fmt.Sprintf("OBJ %x (sz=24, trace=0, class=A@500000a0)\n\tc\t\t%x\n", y, x) +
		"HEAP DUMP END\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	answersEveryCommand(t, path, loopCommands, map[string]string{"deadlocks": "no MONITOR DUMP"})
	checkLoopAnomaly(t, path, "A → B → C → B (cut at C → B)")
	checkLoopGraph(t, path, x, y, "c", 24, "jvm")
}

// writeLoopCapture writes a level-2 JVMPI heap dump capture with classes
// C (c: Object), B (b: int) and A (a: Object) and the two instances of
// writeLoopDump: y, a JNI global root, references x through c. The
// side channel's super_id links are A → B → C when sideLoop is false and
// the buffer's class dumps name the loop A → B → C → B; with sideLoop the
// side channel has the loop too. Class dumps give A's instances 32 bytes.
func writeLoopCapture(t *testing.T, dir string, sideLoop bool) string {
	t.Helper()
	const idA, idB, idC, x, y = 0x1000, 0x1010, 0x1020, 0x2000, 0x2040
	buf := jvmpitest.NewBuffer(jvmpitest.Options{Level: 2, IDSize: 8, IDOrder: binary.LittleEndian, ScalarOrder: binary.BigEndian})
	buf.RootJNIGlobal(y, 0x00007f3a30000008)
	buf.ClassDump(jvmpitest.ClassDump{ID: idC, SuperID: idB, InstanceSize: 16})
	buf.ClassDump(jvmpitest.ClassDump{ID: idB, SuperID: idC, InstanceSize: 24})
	buf.ClassDump(jvmpitest.ClassDump{ID: idA, SuperID: idB, InstanceSize: 32})
	r, i := jvmpitest.Ref, jvmpitest.Int
	buf.InstanceDump(x, idA, r(0), i(1), r(0))
	buf.InstanceDump(y, idA, r(0), i(2), r(x))
	cSuper := jvmpitest.Hex(0)
	if sideLoop {
		cSuper = idB
	}
	ev := &jvmpitest.ClassEvents{ClassLoad: []jvmpitest.ClassLoad{
		{Name: "C", ID: idC, SuperID: cSuper, Fields: []jvmpitest.FieldInfo{{Name: "c", Signature: "Ljava/lang/Object;"}}},
		{Name: "B", ID: idB, SuperID: idC, Fields: []jvmpitest.FieldInfo{{Name: "b", Signature: "I"}}},
		{Name: "A", ID: idA, SuperID: idB, Fields: []jvmpitest.FieldInfo{{Name: "a", Signature: "Ljava/lang/Object;"}}},
	}}
	path, err := jvmpitest.WriteCapture(dir, "loop", buf, jvmpitest.Manifest{Format: jvmpitest.FormatHeapDump}, ev)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSuperclassLoopJVMPI checks a JVMPI capture: a loop in the buffer's
// class dumps is cut as in HPROF (the instances' field layout comes from
// the side channel, whose chain is whole); a loop in the side channel
// leaves no field order for the instances, so every command that reads
// the capture fails at once with an error naming it. threads reads no
// JVMPI capture (it takes HPROF, ASCII and thread dumps), so it is left
// out.
func TestSuperclassLoopJVMPI(t *testing.T) {
	path := writeLoopCapture(t, t.TempDir(), false)
	answersEveryCommand(t, path, loopCommandsBut("threads"), map[string]string{"deadlocks": "not a monitor dump"})
	checkLoopAnomaly(t, path, "A → B → C → B (cut at C → B)")
	checkLoopGraph(t, path, 0x2000, 0x2040, "c", 32, "jvm")

	bad := writeLoopCapture(t, t.TempDir(), true)
	for _, cmd := range loopCommandsBut("threads") {
		args := append([]string{cmd[0], bad}, cmd[1:]...)
		_, err := runWithin(t, args...)
		if err == nil || !strings.Contains(err.Error(), "super_id) loops: C → B → C") {
			t.Errorf("hprofctl %s: %v, want an error naming the side channel's loop C → B → C", strings.Join(args, " "), err)
		}
	}
}
