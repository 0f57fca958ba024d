package graph

import (
	"cmp"
	"slices"

	"github.com/hprofctl/hprofctl/model"
)

// MATKept is the set of objects Eclipse MAT keeps of the heap when it
// parses the dump: it drops every object its GC roots do not reach
// (MAT's GarbageCleaner). MAT's reachability differs from the retention
// graph's in three points (docs/mat-conventions.md):
//
//   - the roots are the objects the dump's GC root records name (the
//     frame locals MAT hangs under their thread it reaches through the
//     thread, itself a root), and of the classes only those the dump
//     marks as system classes (ROOT_STICKY_CLASS); every class of the
//     bootstrap loader that is no array class is a root only in a dump
//     that marks none (HprofParserHandlerImpl.fillIn). The retention
//     graph roots every class of the bootstrap loader, arrays included,
//     so MAT drops the bootstrap array classes nothing references where
//     the retention graph keeps them;
//   - Reference.referent is followed like any field;
//   - a class object references its superclass, loader and statics and
//     the class object of java.lang.Class (ClassImpl.getReferences), not
//     the signers, protection domain and constants model.Heap.Refs lists.
//
// From any other object MAT follows what model.Heap.Refs lists and the
// object's class object, as the retention graph does.
func MATKept(h *model.Heap) ObjectBits {
	kept := NewObjectBits(h.NumObjects())
	var stack []model.ObjectIndex
	reach := func(i model.ObjectIndex) {
		if i != model.NoObject && !kept.Has(i) {
			kept.Add(i)
			stack = append(stack, i)
		}
	}
	for _, o := range matRoots(h) {
		reach(o)
	}
	referents := h.Referents()
	classClass := model.NoObject
	if c := h.ClassClass(); c != model.NoClass {
		classClass = h.Classes[c].Object
	}
	classObjects := NewObjectBits(h.NumObjects())
	for c := range h.Classes {
		if o := h.Classes[c].Object; o != model.NoObject {
			classObjects.Add(o)
		}
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if classObjects.Has(i) {
			if c, ok := h.ClassObjectOf(i); ok {
				reach(classClass)
				matClassRefs(h, c, reach)
				continue
			}
		}
		for _, s := range h.Refs(i) {
			reach(s)
		}
		if c := h.ClassOf(i); c != model.NoClass {
			reach(h.Classes[c].Object)
		}
		k, _ := slices.BinarySearchFunc(referents, i, func(w model.WeakRef, t model.ObjectIndex) int { return cmp.Compare(w.From, t) })
		for ; k < len(referents) && referents[k].From == i; k++ {
			reach(referents[k].To)
		}
	}
	return kept
}

// matClassRefs calls reach with what MAT's class object c references
// (ClassImpl.getReferences): its superclass, its loader and the objects
// of its statics, not its signers, protection domain or constants.
func matClassRefs(h *model.Heap, c model.ClassIndex, reach func(model.ObjectIndex)) {
	cl := &h.Classes[c]
	if cl.Super != model.NoClass {
		reach(h.Classes[cl.Super].Object)
	}
	if o, ok := h.Lookup(cl.Loader); ok {
		reach(o)
	}
	for _, st := range cl.Statics {
		if st.Type != model.TypeObject {
			continue
		}
		if o, ok := h.Lookup(st.Value); ok {
			reach(o)
		}
	}
}

// matRoots lists the objects MAT starts from: those the GC root records
// name and, when none of them is a sticky class, the class objects of the
// bootstrap loader's classes that are no arrays.
func matRoots(h *model.Heap) []model.ObjectIndex {
	var out []model.ObjectIndex
	sticky := false
	for _, rt := range h.Roots {
		out = append(out, rt.Object)
		sticky = sticky || rt.Kind == model.RootStickyClass
	}
	if sticky {
		return out
	}
	for c := range h.Classes {
		if cl := &h.Classes[c]; cl.Loader == 0 && !cl.IsArray() {
			out = append(out, cl.Object)
		}
	}
	return out
}
