package model

import (
	"fmt"
	"math"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// applySizes corrects the sizes of the built heap with what its source
// records of them (hprof.SizeFacts), once the layout is chosen: instances
// take the VM's own sizes of their class where the source gives them (a
// JVMPI class dump's instance size, an ASCII OBJ line's sz=), and arrays
// whose size holds more elements than their length their length from that
// size. Arrays and class objects are otherwise sized by the layout; under
// SizeFields an instance of a NamedReferences source counts nothing (the
// file holds no field declarations or values).
func (b *builder) applySizes(f hprof.SizeFacts) {
	h := b.h
	sized := 0
	for i := range h.Classes {
		cl := &h.Classes[i]
		if cl.IsArray() {
			continue
		}
		if sz, ok := f.InstanceSizes[cl.ID]; ok {
			h.classSize[i] = sz
			sized++
		}
	}
	if sized > 0 {
		h.LayoutReason = "instance sizes are " + f.SizeSource + "; arrays and class objects: " + h.LayoutReason
	}
	if f.SizeConflicts > 0 {
		h.Anomalies = append(h.Anomalies, Anomaly{Kind: "instance-size-differs", Count: f.SizeConflicts, Offset: -1,
			Detail: "OBJ lines of one class give different sz=; the first one counts for the class"})
	}
	b.settleArrays(f.ArraySizes)
}

// settleArrays takes the length of each array whose size holds more than
// its length from its size (see hprof.SizeFacts.ArraySizes): the largest
// length of that size under the layout, so its bytes are the JVM's and its
// length is right to within the object alignment. Arrays whose size is
// none of the sizes the layout allows are reported.
func (b *builder) settleArrays(arrays []hprof.ArraySize) {
	h := b.h
	prim := map[Type]ClassIndex{}
	for i := range h.Classes {
		if e := h.Classes[i].Elem; e != 0 && e != TypeObject && h.Classes[i].Name == PrimitiveArrayName(e) {
			prim[e] = ClassIndex(i)
		}
	}
	var settled, differ int64
	var first hprof.ArraySize
	var firstSize int64
	for _, a := range arrays {
		if a.Dump != h.Source.Dump {
			continue
		}
		c, ok := prim[Type(a.Elem)]
		if a.Elem == hprof.TypeObject {
			c, ok = h.ClassByID(a.ClassID)
		}
		if !ok {
			continue
		}
		n0 := int64(a.Length)
		size := h.ArrayBytes(c, n0, SizeJVM)
		if a.Size == size {
			continue
		}
		elem := h.Classes[c].Elem
		n := (a.Size - int64(h.Layout.ArrayBase(elem))) / int64(elem.Size(h.Layout.Ref))
		if a.Size < size || n > math.MaxUint32 || h.ArrayBytes(c, n, SizeJVM) != a.Size {
			if differ == 0 {
				first, firstSize = a, size
			}
			differ++
			continue
		}
		settled++
		cl := &h.Classes[c]
		cl.ArrayElements += n - n0
		if cl.lengthResidues != nil {
			cl.lengthResidues[n0&255]--
			cl.lengthResidues[n&255]++
		}
		if i, ok := h.Lookup(a.ID); ok && h.HasObjects {
			h.arrays.set(int(i), uint32(n))
			h.contents.forget(&h.arrays, int(i))
		}
	}
	if settled > 0 {
		h.Anomalies = append(h.Anomalies, Anomaly{Kind: "array-length-from-size", Count: settled, Offset: -1,
			Detail: "arrays written with fewer elements than their sz= holds (the agent writes object arrays up to their last non-null element, " +
				"and arrays it did not see reached with nelems=0): their lengths are taken from sz=, to within the object alignment"})
	}
	if differ > 0 {
		h.Anomalies = append(h.Anomalies, Anomaly{Kind: "array-size-differs", Count: differ, Offset: -1,
			Detail: fmt.Sprintf("%d arrays have an sz= that is no size the layout gives an array of their class, e.g. 0x%x: sz=%d, %d elements: %d bytes; array bytes follow the layout",
				differ, first.ID, first.Size, first.Length, firstSize)})
	}
}
