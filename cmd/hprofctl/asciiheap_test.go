package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// twinObject is one object of the heap written both ways: an instance
// (fields in the class's declaration order, 0 for null) or an array.
type twinObject struct {
	id    hproftest.ID
	class *hproftest.Class
	refs  []hproftest.ID // instance reference fields, or object array elements
	value int32          // the instance's int field
	chars string         // char[] contents
	array bool
	size  int64 // the JVM's size: the Writer's layout, which spaces the ids
}

// writeTwinDumps writes one heap as a binary HPROF dump and as the JVMTI
// hprof agent's ASCII HEAP DUMP (docs/hprof-ascii.md#heap-dump, each line
// in the agent's printf format), with the same object ids; the ASCII sz=
// of every object is the address gap the binary dump leaves after it (the
// Writer's compressed-oops layout).
func writeTwinDumps(t *testing.T) (bin, txt string) {
	t.Helper()
	dir := t.TempDir()
	bin, txt = filepath.Join(dir, "twin.hprof"), filepath.Join(dir, "twin.txt")
	f, err := os.Create(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := hproftest.New(f, hproftest.Options{IDSize: 8, Version: "1.0.2"})
	lay := hproftest.LayoutCompressedOops
	object := w.DeclareClass(hproftest.ClassSpec{Name: "java/lang/Object"})
	class := w.DeclareClass(hproftest.ClassSpec{Name: "java/lang/Class", Super: object})
	node := w.DeclareClass(hproftest.ClassSpec{Name: "Node", Super: object, Fields: []hproftest.Field{
		{Name: "next", Type: hproftest.TypeObject}, {Name: "name", Type: hproftest.TypeObject}, {Name: "value", Type: hproftest.TypeInt}}})
	holder := w.DeclareClass(hproftest.ClassSpec{Name: "Holder", Super: object,
		Fields:  []hproftest.Field{{Name: "items", Type: hproftest.TypeObject}},
		Statics: []hproftest.Static{{Name: "INSTANCE", Value: hproftest.Ref(0)}}})
	nodes := w.DeclareClass(hproftest.ClassSpec{Name: "[LNode;", Super: object})
	chars := w.DeclareClass(hproftest.ClassSpec{Name: "[C", Super: object})
	classes := []*hproftest.Class{object, class, node, holder, nodes, chars}

	inst := func(c *hproftest.Class) *twinObject {
		return &twinObject{class: c, size: lay.InstanceSize(c)}
	}
	arr := func(c *hproftest.Class, n int) *twinObject {
		return &twinObject{class: c, array: true, size: lay.ArraySize(hproftest.TypeObject, n)}
	}
	str := func(s string) *twinObject {
		return &twinObject{class: chars, array: true, chars: s, size: lay.ArraySize(hproftest.TypeChar, len(s))}
	}
	h, a := inst(holder), arr(nodes, 3)
	n1, n2, n3, n4, loose := inst(node), inst(node), inst(node), inst(node), inst(node)
	s1, s3 := str("alpha"), str("abc")
	objs := []*twinObject{h, a, n1, s1, n2, n3, s3, n4, loose}
	for _, o := range objs {
		o.id = w.Alloc(o.size)
	}
	h.refs = []hproftest.ID{a.id}
	a.refs = []hproftest.ID{n1.id, n2.id, n3.id}
	n1.refs, n1.value = []hproftest.ID{n2.id, s1.id}, 1
	n2.refs, n2.value = []hproftest.ID{n3.id, 0}, 2
	n3.refs, n3.value = []hproftest.ID{0, s3.id}, 3
	n4.refs, n4.value = []hproftest.ID{n3.id, 0}, 4
	loose.refs = []hproftest.ID{n1.id, 0}
	holder.Statics[0].Value = hproftest.Ref(h.id)

	var b strings.Builder
	fmt.Fprintf(&b, "JAVA PROFILE 1.0.1, created %s\n\n", "Sat Mar 27 10:51:47 2021")
	b.WriteString("Header for -agentlib:hprof (or -Xrunhprof) ASCII Output (JDK 5.0 JVMTI based)\n\n")
	b.WriteString("\n--------\n\n")
	var total int64
	for _, o := range objs {
		total += o.size
	}
	fmt.Fprintf(&b, "HEAP DUMP BEGIN (%d objects, %d bytes) %s\n", len(objs), total, "Sat Mar 27 10:51:58 2021")

	w.BeginHeapDump()
	w.Root(hproftest.Root{Kind: hproftest.RootStickyClass, ID: holder.ID})
	fmt.Fprintf(&b, "ROOT %x (kind=<system class>, name=%s)\n", holder.ID, "Holder")
	w.Root(hproftest.Root{Kind: hproftest.RootJavaFrame, ID: n4.id, ThreadSerial: 200001, FrameDepth: 0})
	fmt.Fprintf(&b, "ROOT %x (kind=<Java stack>, thread=%d, frame=%d)\n", n4.id, 200001, 0)
	for _, c := range classes {
		w.DumpClass(c)
		fmt.Fprintf(&b, "CLS %x (name=%s, trace=%d)\n", c.ID, asciiClassName(c.Name), 0)
		if c.Super != nil {
			fmt.Fprintf(&b, "\tsuper\t\t%x\n", c.Super.ID)
		}
		for _, s := range c.Statics {
			fmt.Fprintf(&b, "\tstatic %s\t%x\n", s.Name, s.Value.Bits)
		}
	}
	for _, o := range objs {
		switch {
		case o.chars != "":
			w.PrimArrayDump(hproftest.PrimArrayDump{ID: o.id, Type: hproftest.TypeChar, Data: hproftest.UTF16(o.chars)})
			fmt.Fprintf(&b, "ARR %x (sz=%d, trace=%d, nelems=%d, elem type=%s)\n", o.id, o.size, 0, len(o.chars), "char[]")
		case o.array:
			w.ObjArrayDump(hproftest.ObjArrayDump{ID: o.id, ClassID: o.class.ID, Elements: o.refs})
			fmt.Fprintf(&b, "ARR %x (sz=%d, trace=%d, nelems=%d, elem type=%s@%x)\n", o.id, o.size, 0, len(o.refs), asciiClassName(o.class.Name), o.class.ID)
			for i, e := range o.refs {
				fmt.Fprintf(&b, "\t[%d]\t\t%x\n", i, e)
			}
		default:
			var vals []hproftest.Value
			for _, r := range o.refs {
				vals = append(vals, hproftest.Ref(r))
			}
			if o.class == node {
				vals = append(vals, hproftest.Int(o.value))
			}
			w.InstanceWithID(o.id, o.class, vals...)
			fmt.Fprintf(&b, "OBJ %x (sz=%d, trace=%d, class=%s@%x)\n", o.id, o.size, 0, asciiClassName(o.class.Name), o.class.ID)
			for i, r := range o.refs {
				if r == 0 {
					continue
				}
				name := o.class.Fields[i].Name
				if len(name) >= 8 {
					fmt.Fprintf(&b, "\t%s\t%x\n", name, r)
				} else {
					fmt.Fprintf(&b, "\t%s\t\t%x\n", name, r)
				}
			}
		}
	}
	w.EndHeapDump()
	b.WriteString("HEAP DUMP END\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(txt, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return bin, txt
}

// asciiClassName is the JVMTI agent's external class name: dotted, with
// [] per array dimension.
func asciiClassName(name string) string {
	switch name {
	case "[C":
		return "char[]"
	case "[LNode;":
		return "Node[]"
	}
	return strings.ReplaceAll(name, "/", ".")
}

// sortDominators orders dominator rows and their dominated lists by id.
func sortDominators(rows []dominatorJSON) {
	sort.Slice(rows, func(i, j int) bool { return rows[i].ObjectID < rows[j].ObjectID })
	for _, r := range rows {
		sort.Slice(r.Dominated, func(i, j int) bool { return r.Dominated[i].ObjectID < r.Dominated[j].ObjectID })
	}
}

// TestASCIIHeapDumpEqualsBinary is issue #4's acceptance: an ASCII HEAP
// DUMP gives the histogram and dominator tree of the binary dump of the
// same heap.
func TestASCIIHeapDumpEqualsBinary(t *testing.T) {
	bin, txt := writeTwinDumps(t)

	hb, ha := histoByClass(t, bin), histoByClass(t, txt)
	if !reflect.DeepEqual(hb, ha) {
		t.Errorf("histograms differ:\nbinary %v\nASCII  %v", hb, ha)
	}
	// Known from the layout the ids were spaced with: five Nodes of 12
	// header + 3×4 field bytes, the Node[3] of 16 + 3×4 rounded to 32.
	if n := ha["Node"]; n.Instances != 5 || n.ShallowBytes != 5*24 {
		t.Errorf("Node: %+v, want 5 instances of 24 bytes", n)
	}
	if n := ha["Node[]"]; n.Instances != 1 || n.ShallowBytes != 32 {
		t.Errorf("Node[]: %+v, want 1 instance of 32 bytes", n)
	}
	if n := ha["char[]"]; n.Instances != 2 || n.ShallowBytes != 32+24 {
		t.Errorf("char[]: %+v, want 2 instances of 32 + 24 bytes", n)
	}

	db, da := dominatorsOf(t, bin, "."), dominatorsOf(t, txt, ".")
	sortDominators(db)
	sortDominators(da)
	if len(da) == 0 || !reflect.DeepEqual(db, da) {
		t.Errorf("dominators differ:\nbinary %+v\nASCII  %+v", db, da)
	}

	var rb, ra any
	runJSON(t, &rb, "retainers", bin, "--class", "^char\\[\\]$")
	runJSON(t, &ra, "retainers", txt, "--class", "^char\\[\\]$")
	if !reflect.DeepEqual(rb, ra) {
		t.Errorf("retainers differ:\nbinary %v\nASCII  %v", rb, ra)
	}
	out, err := runCLI(t, "retainers", txt, "--class", "^char\\[\\]$")
	if err != nil || !strings.Contains(out, "items") || !strings.Contains(out, "name") {
		t.Errorf("retainers on the ASCII dump do not name the fields items and name (%v):\n%s", err, out)
	}
}

// TestASCIIHeapFixture reads the HEAP DUMPs of the synthetic JVMTI fixture
// (testdata/ascii/gen.sh): the sizes are its OBJ and ARR lines' sz=.
func TestASCIIHeapFixture(t *testing.T) {
	path := filepath.Join(repoRoot(t), "testdata", "ascii", "jvmti.txt")
	first := histoByClass(t, path, "--dump", "0")
	want := map[string]histoRow{
		"java.lang.Thread":   {"java.lang.Thread", 1, 96},
		"Demo$Inner":         {"Demo$Inner", 1, 16},
		"java.lang.String[]": {"java.lang.String[]", 1, 32},
		"char[]":             {"char[]", 1, 40},
		"int[][]":            {"int[][]", 1, 16},
	}
	for name, w := range want {
		if first[name] != w {
			t.Errorf("dump 0: %s %+v, want %+v", name, first[name], w)
		}
	}
	last := histoByClass(t, path)
	if len(last) != 1 || last["Demo$Inner"] != (histoRow{"Demo$Inner", 1, 16}) {
		t.Errorf("last dump: %+v, want one Demo$Inner of 16 bytes", last)
	}
}
