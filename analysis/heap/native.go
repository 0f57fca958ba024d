package heap

import (
	"cmp"
	"math"
	"slices"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
)

// The classes through which an Android heap dump shows the native memory
// that Java objects own. Since Android 7, libcore's
// NativeAllocationRegistry ties each native allocation to its owner with a
// sun.misc.Cleaner: the Cleaner's referent is the owner, its thunk a
// CleanerThunk (an inner class, so its this$0 names the registry), and
// the registry's size field the allocation's size in bytes. Bitmaps
// register their pixels this way from Android 8 on; before that the pixels
// were a byte[] in the Java heap.
const (
	cleanerClass  = "sun.misc.Cleaner"
	thunkClass    = "libcore.util.NativeAllocationRegistry$CleanerThunk"
	registryClass = "libcore.util.NativeAllocationRegistry"
)

// mallocedFlag is the lowest bit of a registry's size: since Android 10
// libcore sets it for memory allocated with malloc, and the size proper is
// the other bits.
const mallocedFlag = 1

// NativeSizes are the native allocations an Android heap dump shows
// registered to Java objects, summed per owning object.
type NativeSizes struct {
	// Owners are the owning objects in index order; Bytes[k] is the
	// native size registered to Owners[k].
	Owners []model.ObjectIndex
	Bytes  []int64
	// Allocations counts the registrations found, Total sums their sizes.
	Allocations int64
	Total       int64
}

// Of is the native size registered to object i, 0 when none is.
func (n *NativeSizes) Of(i model.ObjectIndex) int64 {
	if n == nil {
		return 0
	}
	if k, ok := slices.BinarySearch(n.Owners, i); ok {
		return n.Bytes[k]
	}
	return 0
}

// Any reports whether the dump shows any registered native allocation.
func (n *NativeSizes) Any() bool { return n != nil && len(n.Owners) > 0 }

// RegisteredNative finds the native allocations registered through
// NativeAllocationRegistry in an Android heap dump, and the Java object
// owning each, as ahat counts them: a Cleaner that has already run (its
// next field names itself, as Cleaner.clean leaves it) no longer stands
// for memory and is left out. Only the Cleaners, their thunks and the
// registries are read from the heap's dump (model.EachValues); a heap
// without those classes costs nothing. Whatever does not fit the shape
// (a missing field, a reference to another class, a negative size) is
// skipped: the dump is not trusted.
func RegisteredNative(h *model.Heap) (NativeSizes, error) {
	var out NativeSizes
	cleaners, thunks, registries := subclassesOf(h, cleanerClass), subclassesOf(h, thunkClass), subclassesOf(h, registryClass)
	if cleaners == nil || thunks == nil || registries == nil {
		return out, nil
	}
	// The Cleaners that reference a thunk are the only ones read.
	var cs []model.ObjectIndex
	for i := range h.NumObjects() {
		obj := model.ObjectIndex(i)
		if c := h.ClassOf(obj); c == model.NoClass || !cleaners[c] {
			continue
		}
		if slices.ContainsFunc(h.Refs(obj), func(r model.ObjectIndex) bool { return isOf(h, r, thunks) }) {
			cs = append(cs, obj)
		}
	}
	if len(cs) == 0 {
		return out, nil
	}
	owner, thunkOf := make([]model.ObjectIndex, len(cs)), make([]model.ObjectIndex, len(cs))
	err := model.EachValues(h, cs, func(k int, v *model.ObjectValues) error {
		owner[k], thunkOf[k] = model.NoObject, model.NoObject
		thunk, referent, next := fieldRef(v, "thunk"), fieldRef(v, "referent"), fieldRef(v, "next")
		if next == cs[k] || !isOf(h, thunk, thunks) {
			return nil
		}
		owner[k], thunkOf[k] = referent, thunk
		return nil
	})
	if err != nil {
		return out, err
	}
	ts := distinct(thunkOf)
	registryOf := make([]model.ObjectIndex, len(ts))
	err = model.EachValues(h, ts, func(k int, v *model.ObjectValues) error {
		registryOf[k] = model.NoObject
		if r := fieldRef(v, "this$0"); isOf(h, r, registries) {
			registryOf[k] = r
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	rs := distinct(registryOf)
	sizes := make([]int64, len(rs))
	err = model.EachValues(h, rs, func(k int, v *model.ObjectValues) error {
		sizes[k] = -1
		for _, f := range v.Fields {
			if f.Name == "size" {
				if f.Type == model.TypeLong {
					sizes[k] = int64(f.Bits) &^ mallocedFlag
				}
				break
			}
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	type allocation struct {
		owner model.ObjectIndex
		bytes int64
	}
	var found []allocation
	for k := range cs {
		if owner[k] == model.NoObject || thunkOf[k] == model.NoObject {
			continue
		}
		t, _ := slices.BinarySearch(ts, thunkOf[k])
		if registryOf[t] == model.NoObject {
			continue
		}
		r, _ := slices.BinarySearch(rs, registryOf[t])
		if sizes[r] < 0 {
			continue
		}
		found = append(found, allocation{owner[k], sizes[r]})
	}
	slices.SortFunc(found, func(a, b allocation) int { return cmp.Compare(a.owner, b.owner) })
	for _, a := range found {
		if n := len(out.Owners); n > 0 && out.Owners[n-1] == a.owner {
			out.Bytes[n-1] = addBytes(out.Bytes[n-1], a.bytes)
		} else {
			out.Owners = append(out.Owners, a.owner)
			out.Bytes = append(out.Bytes, a.bytes)
		}
		out.Allocations++
		out.Total = addBytes(out.Total, a.bytes)
	}
	return out, nil
}

// RetainedNative is, for each object of the dominator tree r that
// dominates an owner of n (owners included), the native sizes registered
// to the owners it dominates: what freeing it would free outside the Java
// heap. Owners out of the tree count nowhere. It walks up from each owner
// once over the part of the tree above the owners, so the cost follows
// that part's size, not the heap's.
func RetainedNative(r *graph.Retention, n *NativeSizes) map[model.ObjectIndex]int64 {
	out := map[model.ObjectIndex]int64{}
	if !n.Any() {
		return out
	}
	// depth of every object above an owner (1 below the virtual root),
	// found by walking up until a known object.
	depth := map[model.ObjectIndex]int{}
	var path []model.ObjectIndex
	for _, o := range n.Owners {
		if !r.Reachable(o) {
			continue
		}
		path = path[:0]
		d := 0
		for x := o; x != graph.VirtualRoot; x = r.ImmediateDominator(x) {
			if known, ok := depth[x]; ok {
				d = known
				break
			}
			path = append(path, x)
		}
		for k := len(path) - 1; k >= 0; k-- {
			d++
			depth[path[k]] = d
		}
	}
	// Deepest first, each object passes what it retains on to its
	// immediate dominator after everything below it has.
	nodes := make([]model.ObjectIndex, 0, len(depth))
	for x := range depth {
		nodes = append(nodes, x)
	}
	slices.SortFunc(nodes, func(a, b model.ObjectIndex) int { return cmp.Or(cmp.Compare(depth[b], depth[a]), cmp.Compare(a, b)) })
	for _, x := range nodes {
		sum := addBytes(out[x], n.Of(x))
		out[x] = sum
		if p := r.ImmediateDominator(x); p != graph.VirtualRoot {
			out[p] = addBytes(out[p], sum)
		}
	}
	for x, b := range out {
		if b == 0 {
			delete(out, x)
		}
	}
	return out
}

// subclassesOf marks the classes that are the named class or extend it;
// nil when the heap has no class of that name.
func subclassesOf(h *model.Heap, name string) []bool {
	var marks []bool
	for c := range h.Classes {
		for k := range h.Supers(model.ClassIndex(c)) {
			if h.Classes[k].Name == name {
				if marks == nil {
					marks = make([]bool, len(h.Classes))
				}
				marks[c] = true
				break
			}
		}
	}
	return marks
}

// isOf reports whether i is an instance of one of the marked classes.
func isOf(h *model.Heap, i model.ObjectIndex, classes []bool) bool {
	if i == model.NoObject || int(i) >= h.NumObjects() {
		return false
	}
	c := h.ClassOf(i)
	return c != model.NoClass && classes[c] && !graph.IsClassObject(h, i)
}

// fieldRef is the object the first field of that name references,
// NoObject when there is none, it is null or no reference.
func fieldRef(v *model.ObjectValues, name string) model.ObjectIndex {
	for _, f := range v.Fields {
		if f.Name == name {
			if f.Type != model.TypeObject {
				return model.NoObject
			}
			return f.Ref
		}
	}
	return model.NoObject
}

// distinct is the objects of objs other than NoObject, sorted, each once.
func distinct(objs []model.ObjectIndex) []model.ObjectIndex {
	out := slices.DeleteFunc(slices.Clone(objs), func(i model.ObjectIndex) bool { return i == model.NoObject })
	slices.Sort(out)
	return slices.Compact(out)
}

// addBytes adds two non-negative sizes, stopping at the largest int64
// rather than wrapping: sizes come from the dump.
func addBytes(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// nativeByClass sums n per class as Histogram counts objects (a class
// object as an instance of java.lang.Class); nil when n holds nothing.
func nativeByClass(h *model.Heap, n *NativeSizes, heaps model.HeapSelection) []int64 {
	if !n.Any() {
		return nil
	}
	out := make([]int64, len(h.Classes))
	for k, o := range n.Owners {
		if !heaps.Has(o) {
			continue
		}
		c := h.ClassOf(o)
		if graph.IsClassObject(h, o) {
			c = h.ClassClass()
		}
		if c != model.NoClass && int(c) < len(out) {
			out[c] = addBytes(out[c], n.Bytes[k])
		}
	}
	return out
}

// AddNative puts the native sizes n into the summary: their count and
// sum, and each heap's share by its objects.
func (in *Info) AddNative(h *model.Heap, n *NativeSizes) {
	if !n.Any() {
		return
	}
	in.NativeAllocations, in.NativeBytes = n.Allocations, n.Total
	for k, o := range n.Owners {
		name, ok := h.HeapOf(o)
		if !ok {
			name = model.NoHeap
		}
		for j := range in.Heaps {
			if in.Heaps[j].Name == name {
				in.Heaps[j].NativeBytes = addBytes(in.Heaps[j].NativeBytes, n.Bytes[k])
			}
		}
	}
}

// MayHaveNative reports whether the heap's class histogram allows
// registered native sizes: it has Cleaners and registry thunks. Commands
// that load no objects use it to decide whether they need them.
func MayHaveNative(h *model.Heap) bool {
	var cleaners, thunks int64
	for c := range h.Classes {
		switch h.Classes[c].Name {
		case cleanerClass:
			cleaners += h.Classes[c].Instances
		case thunkClass:
			thunks += h.Classes[c].Instances
		}
	}
	return cleaners > 0 && thunks > 0
}
