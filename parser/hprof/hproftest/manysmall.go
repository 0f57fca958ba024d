package hproftest

import (
	"fmt"
	"io"
)

// ManySmall is what WriteManySmall wrote.
type ManySmall struct {
	Bytes   int64 // size of the dump
	Objects int64 // objects in the heap dump, class objects included
	Small   int64 // instances of com.example.Small
	Leaves  int64 // arrays of com.example.Small[], each holding ManySmallFanout of them
	Tops    int64 // arrays of java.lang.Object[] holding the leaves, each a JNI global root
	Classes int64 // class objects (CLASS_DUMP records)
}

// ManySmallFanout is how many elements each array of WriteManySmall's
// dump holds (the last of each kind may hold fewer).
const ManySmallFanout = 4096

// The 4-byte identifiers WriteManySmall gives its objects count up by one
// in the order it writes them, as a heap walked in address order would
// (the instances and the arrays holding them from manySmallBase, the
// roots' arrays from manyTopBase), far from the Writer's own allocators
// (class objects from 0x1000_0000, names from 0x0040_0000), so that more
// than 2^31 of them fit.
const (
	manySmallBase = 0x2000_0000
	manyTopBase   = 0xF000_0000
	manySmallMax  = (manyTopBase - manySmallBase) / (ManySmallFanout + 1) * ManySmallFanout
)

// WriteManySmall writes a heap dump of 4-byte identifiers holding small
// instances of com.example.Small (no fields: a 17-byte sub-record each),
// as many as asked, which no other object references but
// arrays of com.example.Small[] (ManySmallFanout each, in instance order),
// themselves held by java.lang.Object[] arrays that are JNI global roots:
// every object is reachable, each Small is retained by its array alone,
// and the identifiers leave room for more than 2^31 instances (up to
// 0xB000_0000). It is the dump for object counts past what an index of
// signed 32-bit numbers can hold; the output depends only on small.
func WriteManySmall(dst io.Writer, small int64) (ManySmall, error) {
	if small < 1 || small > manySmallMax {
		return ManySmall{}, fmt.Errorf("hproftest: %d small instances: must be 1 to %d", small, manySmallMax)
	}
	w := New(dst, Options{Version: "1.0.2", IDSize: 4})
	jdk := w.DeclareJDK()
	smallClass := w.DeclareClass(ClassSpec{Name: "com/example/Small", Super: jdk.Object})
	leafClass := w.DeclareClass(ClassSpec{Name: "[Lcom/example/Small;", Super: jdk.Object})
	classes := append(jdk.Classes(), smallClass, leafClass)
	w.BeginHeapDump()
	for _, c := range classes {
		w.DumpClass(c)
	}
	st := ManySmall{Small: small, Classes: int64(len(classes))}
	st.Leaves = (small + ManySmallFanout - 1) / ManySmallFanout
	st.Tops = (st.Leaves + ManySmallFanout - 1) / ManySmallFanout
	elems := make([]ID, 0, ManySmallFanout)
	leaves := make([]ID, st.Leaves)
	next := ID(manySmallBase)
	for leaf := range st.Leaves {
		first := leaf * ManySmallFanout
		elems = elems[:0]
		for range min(ManySmallFanout, small-first) {
			w.InstanceWithID(next, smallClass)
			elems = append(elems, next)
			next++
		}
		leaves[leaf] = next
		next++
		w.ObjArrayDump(ObjArrayDump{ID: leaves[leaf], TraceSerial: w.trace, ClassID: leafClass.ID, Elements: elems})
	}
	for top := range st.Tops {
		elems = leaves[top*ManySmallFanout : min((top+1)*ManySmallFanout, st.Leaves)]
		id := ID(manyTopBase + top)
		w.ObjArrayDump(ObjArrayDump{ID: id, TraceSerial: w.trace, ClassID: jdk.ObjectArray.ID, Elements: elems})
		w.Root(Root{Kind: RootJNIGlobal, ID: id, JNIRef: ID(0x10 + 8*top)})
	}
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		return ManySmall{}, err
	}
	st.Bytes = w.Written()
	st.Objects = st.Small + st.Leaves + st.Tops + st.Classes
	return st, nil
}
