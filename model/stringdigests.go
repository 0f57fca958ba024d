package model

import (
	"hash/maphash"
	"slices"

	"github.com/hprofctl/hprofctl/model/bigmem"
)

// A load with LoadOptions.StringValues takes, while the workers of a
// dump read in pieces parse it, what the census of the Strings
// (analysis/heap.CountStrings) needs of each String, so that the census
// need not read the dump again: a 64-bit digest of the elements of each
// byte and char array (the element types of a String's value) and the
// coder of each String. The census joins each String to its value
// array's digest, beside the array's CRC-32C that every load takes
// (ArrayContents).

// stringHook is what the workers need to take the Strings' values: the
// String class, where its instances hold their coder, and the seed of
// the arrays' digests. Shared, and only read while the workers run.
type stringHook struct {
	class ClassIndex
	// fieldBytes is the size of a String's field bytes, coder the offset
	// of its coder byte among them (-1: it has none, the coder is 0).
	fieldBytes, coder int
	seed              maphash.Seed
}

// stringHookFor returns the hook for the classes the builder knows when
// the workers start, nil when the load takes no String values or the
// String class is not dumped yet. The String class is the first class of
// that name; its coder, the first field named coder, when it is a byte
// (as Heap.stringLayout finds them once the classes are named).
func (b *builder) stringHookFor() *stringHook {
	if !b.opt.StringValues {
		return nil
	}
	for c := range b.h.Classes {
		id := b.h.Classes[c].ID
		nid, named := b.classNameID[id]
		if id == 0 || !named || JavaClassName(b.name(nid)) != "java.lang.String" {
			continue
		}
		plan := b.refPlan(ClassIndex(c))
		if plan == nil {
			return nil
		}
		hook := &stringHook{class: ClassIndex(c), fieldBytes: plan.size, coder: -1, seed: maphash.MakeSeed()}
		off, found := 0, false
		for k := range b.h.Supers(ClassIndex(c)) {
			for i, f := range b.h.Classes[k].Fields {
				if !found && b.name(b.infos[k].fieldIDs[i]) == "coder" {
					found = true
					if f.Type == TypeByte {
						hook.coder = off
					}
				}
				off += f.Type.Size(b.h.Source.IDSize)
			}
		}
		return hook
	}
	return nil
}

// pendingCoder is the coder of the String that arrived arrival-th where
// it is not 0, or -1 where its record does not say it (its field bytes
// are not as its class says).
type pendingCoder struct {
	arrival int
	coder   int16
}

// takeString takes the coder of a String instance whose field bytes are
// data, arriving as p's arrival-th object.
func (p *splitPiece) takeString(hook *stringHook, arrival int, data []byte) {
	coder := int16(0)
	switch {
	case len(data) != hook.fieldBytes:
		coder = -1
	case hook.coder >= 0:
		coder = int16(data[hook.coder])
	}
	if coder != 0 {
		p.coders = append(p.coders, pendingCoder{arrival, coder})
	}
}

// takeArray takes the digest of the elements of the last object added
// to p, a primitive array of element type elem, when it is a byte or
// char array.
func (p *splitPiece) takeArray(hook *stringHook, elem Type, data []byte) {
	if elem == TypeByte || elem == TypeChar {
		p.valued = append(p.valued, len(p.ids)-1)
		p.values = append(p.values, maphash.Bytes(hook.seed, data))
	}
}

// stringTaking is what objectTable keeps of the Strings' values as the
// pieces are added, in arrival order.
type stringTaking struct {
	hook *stringHook
	// valued marks the arrivals that are byte or char arrays, whose
	// digests values holds in arrival order; coders are the Strings'
	// coders that are not 0.
	valued []uint64
	values chunkList[uint64]
	coders []pendingCoder
}

// commit adds the values of piece p, whose arrivals start at arrivals.
func (s *stringTaking) commit(p *splitPiece, arrivals int) {
	for _, a := range p.valued {
		a += arrivals
		for len(s.valued) <= a>>6 {
			s.valued = append(s.valued, 0)
		}
		s.valued[a>>6] |= 1 << (a & 63)
	}
	s.values.appendSlice(p.values)
	for _, c := range p.coders {
		s.coders = append(s.coders, pendingCoder{arrivals + c.arrival, c.coder})
	}
}

// free releases what s holds.
func (s *stringTaking) free() {
	s.values.free()
	*s = stringTaking{}
}

// StringValues are the digests of the byte and char arrays and the
// coders of the Strings a load took (LoadOptions.StringValues), by object
// number.
type StringValues struct {
	class ClassIndex
	// digests holds the digest of each object that valued marks, in
	// object order (valued.lengths is unused).
	valued  arrayLengths
	digests []uint64
	// coders are the Strings whose coder is not 0 (-1: unknown), by
	// object number.
	coders []objectCoder
}

// objectCoder is the coder of String obj.
type objectCoder struct {
	obj   ObjectIndex
	coder int16
}

// gather returns the values s took, by object number: order maps each
// object's number to its arrival, classOf to its class (in classes).
func (s *stringTaking) gather(order []uint32, classOf []ClassIndex, classes []Class) *StringValues {
	n := len(order)
	words := (n + 63) / 64
	v := &StringValues{class: s.hook.class, valued: arrayLengths{isArray: bigmem.Make[uint64](words)}}
	// Only byte and char arrays can have been taken: the classes spare
	// looking up the arrival of any other object.
	valuedClass := make([]bool, len(classes))
	for c := range classes {
		valuedClass[c] = classes[c].IsArray() && (classes[c].Elem == TypeByte || classes[c].Elem == TypeChar)
	}
	has := func(i int) bool {
		if c := classOf[i]; c == NoClass || !valuedClass[c] {
			return false
		}
		arrival := order[i]
		k := int(arrival >> 6)
		return k < len(s.valued) && s.valued[k]&(1<<(arrival&63)) != 0
	}
	// Ranges of whole words side by side, as gatherArrayLengths does:
	// each marks its arrays, then, once those before each range are
	// counted, gathers their digests.
	workers := workersFor(n)
	before := make([]int, workers+1)
	forRanges(words, workers, func(k, lo, hi int) {
		count := 0
		for i := lo * 64; i < min(hi*64, n); i++ {
			if has(i) {
				v.valued.isArray[i>>6] |= 1 << (i & 63)
				count++
			}
		}
		before[k+1] = count
	})
	for k := range workers {
		before[k+1] += before[k]
	}
	byArrival := arrayLengths{isArray: s.valued}
	byArrival.rank, _ = rankArrays(s.valued)
	v.digests = bigmem.Make[uint64](before[workers])
	forRanges(words, workers, func(k, lo, hi int) {
		r := before[k]
		for i := lo * 64; i < min(hi*64, n); i++ {
			if v.valued.isArray[i>>6]&(1<<(i&63)) != 0 {
				a, _ := byArrival.position(int(order[i]))
				v.digests[r] = s.values.at(a)
				r++
			}
		}
	})
	v.valued.rank, _ = rankArrays(v.valued.isArray)
	v.coders = s.gatherCoders(order)
	return v
}

// gatherCoders returns the coders s took by object number.
func (s *stringTaking) gatherCoders(order []uint32) []objectCoder {
	if len(s.coders) == 0 {
		return nil
	}
	// The coders came in arrival order.
	byArrival := func(arrival int) (int16, bool) {
		k, found := slices.BinarySearchFunc(s.coders, arrival, func(c pendingCoder, a int) int { return c.arrival - a })
		if !found {
			return 0, false
		}
		return s.coders[k].coder, true
	}
	marked := make([]uint64, (len(order)+63)/64+1)
	for _, c := range s.coders {
		if c.arrival>>6 < len(marked) {
			marked[c.arrival>>6] |= 1 << (c.arrival & 63)
		}
	}
	var coders []objectCoder
	for i, arrival := range order {
		if marked[arrival>>6]&(1<<(arrival&63)) != 0 {
			if coder, ok := byArrival(int(arrival)); ok {
				coders = append(coders, objectCoder{ObjectIndex(i), coder})
			}
		}
	}
	return coders
}

// StringValues returns the values of the Strings the load took
// (LoadOptions.StringValues), nil when it took none: the load was not
// asked to, the dump was not read in pieces, or the String class it
// took them for is not the heap's first class named java.lang.String
// with the layout it took them with.
func (h *Heap) StringValues() *StringValues { return h.stringValues }

// checkStringValues drops the Strings' values that h's load took when
// the String class or its layout, as the named classes say, are not
// those they were taken for.
func (h *Heap) checkStringValues(hook *stringHook) {
	v := h.stringValues
	if v == nil {
		return
	}
	class := NoClass
	for c := range h.Classes {
		if h.Classes[c].Name == "java.lang.String" {
			class = ClassIndex(c)
			break
		}
	}
	if class != hook.class || h.fieldBytes(class) != int64(hook.fieldBytes) || h.stringCoderOffset(class) != int64(hook.coder) {
		h.DropStringValues()
	}
}

// DropStringValues releases the Strings' values the load took; from then
// on StringValues returns nil.
func (h *Heap) DropStringValues() {
	if v := h.stringValues; v != nil {
		bigmem.Free(v.valued.isArray)
		bigmem.Free(v.digests)
		h.stringValues = nil
	}
}

// Class is the String class whose instances' values v holds.
func (v *StringValues) Class() ClassIndex { return v.class }

// Digest returns the digest of the elements of array a (maphash.Bytes of
// the element bytes as the dump records them, big-endian, with a seed
// of the load's own); false when a is no byte or char array the load
// took.
func (v *StringValues) Digest(a ObjectIndex) (uint64, bool) {
	if int(a)>>6 >= len(v.valued.isArray) {
		return 0, false
	}
	r, ok := v.valued.position(int(a))
	if !ok {
		return 0, false
	}
	return v.digests[r], true
}

// Coder returns the coder of String s (StringCoder), the byte its coder
// field holds; false when its record did not say it.
func (v *StringValues) Coder(s ObjectIndex) (int, bool) {
	if len(v.coders) == 0 {
		return 0, true
	}
	k, found := slices.BinarySearchFunc(v.coders, s, func(c objectCoder, s ObjectIndex) int { return int(c.obj) - int(s) })
	if !found {
		return 0, true
	}
	return int(v.coders[k].coder), v.coders[k].coder >= 0
}
