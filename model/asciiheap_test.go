package model

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/input"
)

// asciiFile assembles an hprof ASCII file: the header and prelude of the
// given agent generation, then body, whose lines follow
// docs/hprof-ascii.md#heap-dump.
func asciiFile(jvmpi bool, body ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "JAVA PROFILE 1.0.1, created %s\n\n", "Sat Mar 27 10:51:47 2021")
	if jvmpi {
		b.WriteString("Header for -Xhprof ASCII Output\n\n")
	} else {
		b.WriteString("Header for -agentlib:hprof (or -Xrunhprof) ASCII Output (JDK 5.0 JVMTI based)\n\n")
	}
	b.WriteString("\n--------\n\n")
	for _, l := range body {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

func loadASCIIHeap(t *testing.T, text string, dump int) *Heap {
	t.Helper()
	f, err := input.NewFile("test.txt", io.NopCloser(bytes.NewReader([]byte(text))), int64(len(text)))
	if err != nil {
		t.Fatal(err)
	}
	h, err := Load(f, LoadOptions{Dump: dump, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func idsOf(h *Heap, objs []ObjectIndex) []uint64 {
	var ids []uint64
	for _, o := range objs {
		ids = append(ids, h.ObjectID(o))
	}
	return ids
}

// TestASCIIHeapDumps: each Ctrl-\ appends a HEAP DUMP; the last is the
// heap unless --dump picks another, as for binary dumps.
func TestASCIIHeapDumps(t *testing.T) {
	text := asciiFile(false,
		"HEAP DUMP BEGIN (2 objects, 40 bytes) Sat Mar 27 10:51:58 2021",
		"CLS 50000010 (name=Demo, trace=300000)",
		"OBJ 50000100 (sz=16, trace=0, class=Demo@50000010)",
		"OBJ 50000104 (sz=24, trace=0, class=Demo@50000010)",
		"HEAP DUMP END",
		"HEAP DUMP BEGIN (1 objects, 16 bytes) Sat Mar 27 10:52:58 2021",
		"CLS 50000010 (name=Demo, trace=300000)",
		"OBJ 50000108 (sz=16, trace=0, class=Demo@50000010)",
		"HEAP DUMP END",
	)
	last := loadASCIIHeap(t, text, -1)
	if last.Source.Format != "hprof-ascii" || last.Source.Dumps != 2 || last.Source.Dump != 1 {
		t.Fatalf("format %q, dump %d of %d; want hprof-ascii, dump 1 of 2", last.Source.Format, last.Source.Dump, last.Source.Dumps)
	}
	if c := classNamed(t, last, "Demo"); last.Classes[c].Instances != 1 || last.ClassBytes(c, SizeJVM) != 16 {
		t.Errorf("last dump: %d Demo of %d bytes, want 1 of 16", last.Classes[c].Instances, last.ClassBytes(c, SizeJVM))
	}
	first := loadASCIIHeap(t, text, 0)
	c := classNamed(t, first, "Demo")
	if first.Classes[c].Instances != 2 {
		t.Errorf("first dump: %d Demo, want 2", first.Classes[c].Instances)
	}
	// The two OBJ lines of one class disagree on sz=: the first counts.
	if got := first.InstanceBytes(c, SizeJVM); got != 16 {
		t.Errorf("Demo instance size %d, want the first sz= 16", got)
	}
	found := false
	for _, a := range first.Anomalies {
		found = found || a.Kind == "instance-size-differs"
	}
	if !found {
		t.Errorf("no instance-size-differs anomaly: %+v", first.Anomalies)
	}
}

// TestASCIIHeapJVMPIArrays: the JDK 1.2-1.4 agent prints an object array's
// element class, and a primitive array's element type without [].
func TestASCIIHeapJVMPIArrays(t *testing.T) {
	h := loadASCIIHeap(t, asciiFile(true,
		"HEAP DUMP BEGIN (3 objects, 64 bytes) Wed Nov 28 00:10:04 2001",
		"ROOT 6f3030 (kind=<JNI global ref>, id=8093000, trace=1)",
		"CLS 6f4030 (name=Node, trace=1)",
		"ARR 6f3030 (sz=24, trace=1, nelems=3, elem type=Node@6f4030)",
		"\t[1]\t\t6f3050",
		"OBJ 6f3050 (sz=16, trace=1, class=Node@6f4030)",
		"ARR 6f3060 (sz=24, trace=1, nelems=2, elem type=int)",
		"HEAP DUMP END",
	), -1)
	arr := classNamed(t, h, "Node[]")
	if h.Classes[arr].Instances != 1 || h.Classes[arr].Elem != TypeObject {
		t.Errorf("Node[]: %d instances, element type %d", h.Classes[arr].Instances, h.Classes[arr].Elem)
	}
	if n := h.Classes[classNamed(t, h, "Node")].Instances; n != 1 {
		t.Errorf("Node: %d instances, want 1", n)
	}
	if n := h.Classes[classNamed(t, h, "int[]")].Instances; n != 1 {
		t.Errorf("int[]: %d instances, want 1", n)
	}
	a, _ := h.Lookup(0x6f3030)
	if got := idsOf(h, h.Refs(a)); len(got) != 1 || got[0] != 0x6f3050 {
		t.Errorf("array references %x, want [6f3050]", got)
	}
	// Element [1] of 3, the others null: the array keeps its length.
	if h.ArrayLength(a) != 3 {
		t.Errorf("array length %d, want 3", h.ArrayLength(a))
	}
}

// TestASCIIHeapReferences: an OBJ's printed fields are its references,
// except that a java.lang.ref.Reference's referent is weak; sizes are the
// sz= under SizeJVM, and the dump records no field bytes.
func TestASCIIHeapReferences(t *testing.T) {
	h := loadASCIIHeap(t, asciiFile(false,
		"HEAP DUMP BEGIN (4 objects, 96 bytes) Sat Mar 27 10:51:58 2021",
		"CLS 50000001 (name=java.lang.Object, trace=300000)",
		"CLS 50000002 (name=java.lang.ref.Reference, trace=300000)",
		"\tsuper\t\t50000001",
		"CLS 50000003 (name=java.lang.ref.WeakReference, trace=300000)",
		"\tsuper\t\t50000002",
		"CLS 50000004 (name=Entry, trace=300000)",
		"\tsuper\t\t50000003",
		"CLS 50000005 (name=Holder, trace=300000)",
		"\tsuper\t\t50000001",
		"\tstatic INSTANCE\t50000100",
		"OBJ 50000100 (sz=16, trace=0, class=Holder@50000005)",
		"\tentry\t\t50000104",
		"OBJ 50000104 (sz=40, trace=0, class=Entry@50000004)",
		"\tvalue\t\t50000108",
		"\treferent\t5000010c",
		"OBJ 50000108 (sz=16, trace=0, class=java.lang.Object@50000001)",
		"OBJ 5000010c (sz=16, trace=0, class=java.lang.Object@50000001)",
		"HEAP DUMP END",
	), -1)
	e, _ := h.Lookup(0x50000104)
	if got := idsOf(h, h.Refs(e)); len(got) != 1 || got[0] != 0x50000108 {
		t.Errorf("Entry references %x, want [50000108]", got)
	}
	weak := h.Referents()
	if len(weak) != 1 || weak[0].From != e || h.ObjectID(weak[0].To) != 0x5000010c {
		t.Errorf("referents %+v, want Entry -> 5000010c", weak)
	}
	c := classNamed(t, h, "Entry")
	if got := h.ShallowBytes(e, SizeJVM); got != 40 {
		t.Errorf("Entry: %d bytes, want its sz= 40", got)
	}
	if got := h.ShallowBytes(e, SizeFields); got != 0 {
		t.Errorf("Entry: %d field bytes, want 0 (none recorded)", got)
	}
	if h.Classes[c].Instances != 1 {
		t.Errorf("Entry: %d instances", h.Classes[c].Instances)
	}
	holder, _ := h.Lookup(0x50000005)
	if got := idsOf(h, h.Refs(holder)); !slices.Contains(got, 0x50000100) {
		t.Errorf("class Holder references %x, want its static INSTANCE 50000100", got)
	}
}

// TestASCIIHeapTruncated: a file cut inside its HEAP DUMP keeps the
// objects before the cut.
func TestASCIIHeapTruncated(t *testing.T) {
	h := loadASCIIHeap(t, asciiFile(false,
		"HEAP DUMP BEGIN (2 objects, 32 bytes) Sat Mar 27 10:51:58 2021",
		"OBJ 50000100 (sz=16, trace=0, class=Demo@50000010)",
		"OBJ 50000104 (sz=16, trace=0, class=Demo@50000010)",
	), -1)
	if !h.Truncated || h.NumObjects() != 2 {
		t.Errorf("truncated %v with %d objects, want true with 2", h.Truncated, h.NumObjects())
	}
}

// TestASCIIReferentBeforeItsClass: the agent may print the CLS lines of a
// class after the OBJ lines of its instances. A WeakReference printed
// before the CLS lines that make it a java.lang.ref.Reference still holds
// its referent weakly, while a field named referent of another class is a
// strong reference.
func TestASCIIReferentBeforeItsClass(t *testing.T) {
	h := loadASCIIHeap(t, asciiFile(false,
		"HEAP DUMP BEGIN (4 objects, 80 bytes) Sat Mar 27 10:51:58 2021",
		"ROOT 50000100 (kind=<JNI global ref>, id=1, trace=0)",
		"ROOT 50000300 (kind=<JNI global ref>, id=2, trace=0)",
		"OBJ 50000100 (sz=32, trace=0, class=java.lang.ref.WeakReference@50000020)",
		"\treferent\t50000200",
		"OBJ 50000200 (sz=16, trace=0, class=Payload@50000030)",
		"OBJ 50000300 (sz=16, trace=0, class=Holder@50000040)",
		"\treferent\t50000400",
		"OBJ 50000400 (sz=16, trace=0, class=Payload@50000030)",
		"CLS 50000020 (name=java.lang.ref.WeakReference, trace=0)",
		"\tsuper\t\t50000010",
		"CLS 50000010 (name=java.lang.ref.Reference, trace=0)",
		"CLS 50000030 (name=Payload, trace=0)",
		"CLS 50000040 (name=Holder, trace=0)",
		"HEAP DUMP END",
	), -1)
	weak, _ := h.Lookup(0x50000100)
	holder, _ := h.Lookup(0x50000300)
	if refs := idsOf(h, h.Refs(weak)); len(refs) != 0 {
		t.Errorf("the WeakReference strongly references %x", refs)
	}
	if ws := h.Referents(); len(ws) != 1 || ws[0].From != weak || h.ObjectID(ws[0].To) != 0x50000200 {
		t.Errorf("referents %+v, want the WeakReference's 0x50000200", ws)
	}
	if refs := idsOf(h, h.Refs(holder)); !slices.Equal(refs, []uint64{0x50000400}) {
		t.Errorf("Holder references %x, want its field referent 0x50000400 as a strong reference", refs)
	}
}
