package model

import (
	"encoding/binary"
	"fmt"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// maxInstanceBytes bounds an instance's field bytes as the reader's
// Payload does (its default MaxPayload): a larger one is the reader's to
// refuse.
const maxInstanceBytes = 256 << 20

// splitClasses is what the workers know of the classes: the builder's
// view at the first object, which no later record changes (a class dump
// among the objects stops the split). Shared, and only read while the
// workers run.
type splitClasses struct {
	idSize int
	byID   map[uint64]ClassIndex
	// plans is where each class's instances hold their references; nil
	// while its chain is not dumped (the builder puts them aside).
	plans []*classRefs
	// prim is the class of each primitive array type, NoClass where the
	// builder would make one up (no class dump named it).
	prim         [TypeLong + 1]ClassIndex
	wide         bool   // 8-byte ids, packed from base as refStore does
	base         uint64 // refStore's
	trackOffsets bool
	// strings takes the Strings' values (LoadOptions.StringValues); nil
	// when the load takes none.
	strings *stringHook
}

// splitClasses returns what the workers need of the classes the builder
// knows now, the records before the first object read.
func (b *builder) splitClasses() *splitClasses {
	c := &splitClasses{
		idSize: b.h.Source.IDSize, byID: b.h.classByID, plans: make([]*classRefs, len(b.h.Classes)),
		wide: b.objects.refs.wide, base: b.objects.refs.base, trackOffsets: b.objects.trackOffsets,
		strings: b.stringHookFor(),
	}
	for i := range c.plans {
		if plan := b.refPlan(ClassIndex(i)); plan != nil {
			copied := *plan
			c.plans[i] = &copied
		}
	}
	for t := range c.prim {
		c.prim[t] = b.primClass[t]
		if c.prim[t] != NoClass {
			continue
		}
		if id := b.primClassID[t]; id != 0 {
			if k, ok := c.byID[id]; ok {
				c.prim[t] = k
			}
		}
	}
	return c
}

// seenObject is an object as the layout observations need it.
type seenObject struct {
	id     uint64
	class  ClassIndex
	length uint32
	array  bool
	valid  bool
}

// pieceObservation is the address gap after an array, in dump order.
type pieceObservation struct {
	class  ClassIndex
	length uint32
	gap    int64
}

// escapedRef is a reference a piece keeps aside (refStore.escape): its
// position among the piece's references and its full id.
type escapedRef struct {
	pos uint64
	id  uint64
}

// splitPiece is what a worker parsed of one batch: the objects with their
// references and everything else that must join the builder's tables in
// dump order. Arrivals, reference positions and deferred data starts
// count from the piece's start. Its slices are kept from batch to batch.
type splitPiece struct {
	batch     int
	ids       []uint64
	classOf   []ClassIndex
	lengths   []uint32
	offsets   []int64
	refStart  []uint32
	refs      []uint32
	escaped   []escapedRef
	referents []pendingReferent
	arrayInfo []uint64
	arrays    []int // arrivals that are arrays
	deferred  []deferredInstance
	data      []byte // the deferred instances' field bytes
	// valued are the arrivals that are byte or char arrays, values their
	// digests, coders the Strings' coders that are not 0 (stringHook).
	valued []int
	values []uint64
	coders []pendingCoder
	roots  []rawRoot
	obs    []pieceObservation
	// first and last are the piece's first and last objects.
	first, last       seenObject
	sizeMismatch      int64
	sizeMismatchFirst int64
	bytes             int64 // of the dump, for progress
}

// reset empties p for batch k, keeping its slices' room.
func (p *splitPiece) reset(k int) {
	*p = splitPiece{
		batch: k, ids: p.ids[:0], classOf: p.classOf[:0], lengths: p.lengths[:0], offsets: p.offsets[:0],
		refStart: p.refStart[:0], refs: p.refs[:0], escaped: p.escaped[:0], referents: p.referents[:0],
		arrayInfo: p.arrayInfo[:0], arrays: p.arrays[:0], deferred: p.deferred[:0], data: p.data[:0],
		valued: p.valued[:0], values: p.values[:0], coders: p.coders[:0], roots: p.roots[:0], obs: p.obs[:0],
	}
}

// splitWorker parses batches into pieces; what adds up in any order (the
// classes' counts, the smallest gaps, the sub-record counts) it sums for
// all its batches.
type splitWorker struct {
	cl        *splitClasses
	instances []int64
	elements  []int64
	residues  []*[256]int64
	// elem is the element type of each class's arrays (0: none yet);
	// hasInstances marks the classes with instances.
	elem         []Type
	hasInstances []bool
	minGap       []int64
	subCounts    [256]int64
	// seen counts a class's array observations kept in the piece
	// seenPiece.
	seen      []int
	seenPiece []int
	digest    elementDigest
	// classes remembers the classes looked up last by their ids: a dump
	// names a few thousand classes, each millions of times.
	classes [1 << 12]struct {
		id    uint64
		class ClassIndex
	}
}

// class returns the class of id, as the builder knew it at the first
// object; false when it knew none.
func (w *splitWorker) class(id uint64) (ClassIndex, bool) {
	slot := &w.classes[(id*0x9E3779B97F4A7C15)>>52]
	if slot.id == id && id != 0 {
		return slot.class, true
	}
	c, ok := w.cl.byID[id]
	if ok {
		slot.id, slot.class = id, c
	}
	return c, ok
}

// newSplitWorker returns a worker for the classes of cl.
func newSplitWorker(cl *splitClasses) *splitWorker {
	n := len(cl.plans)
	w := &splitWorker{
		cl: cl, instances: make([]int64, n), elements: make([]int64, n), residues: make([]*[256]int64, n),
		elem: make([]Type, n), hasInstances: make([]bool, n), minGap: make([]int64, n),
		seen: make([]int, n), seenPiece: make([]int, n),
	}
	for i := range w.seenPiece {
		w.seenPiece[i] = -1
	}
	return w
}

// parse adds the sub-records of body, which starts at offset base of the
// dump and ends where its segment does, to p. An error for anything the
// workers leave to the ordinary reader.
func (w *splitWorker) parse(p *splitPiece, body []byte, base int64) error {
	for pos := 0; pos < len(body); {
		off := base + int64(pos)
		rec := body[pos:]
		sub := hprof.SubTag(rec[0])
		w.subCounts[sub]++
		var n int
		var err error
		switch sub {
		case hprof.SubInstanceDump:
			n, err = w.instance(p, rec, off)
		case hprof.SubObjArrayDump:
			n, err = w.objArray(p, rec, off)
		case hprof.SubPrimArrayDump:
			n, err = w.primArray(p, rec, off)
		default:
			n, err = w.root(p, rec, off)
		}
		if err != nil {
			return err
		}
		pos += n
	}
	return nil
}

// id decodes an identifier.
func (w *splitWorker) id(b []byte) uint64 {
	if w.cl.idSize == 8 {
		return binary.BigEndian.Uint64(b)
	}
	return uint64(binary.BigEndian.Uint32(b))
}

// short is the error of a record that runs past its segment.
func short(sub hprof.SubTag, off int64) error {
	return fmt.Errorf("%s at offset %d runs past its segment", sub, off)
}

// instance parses the INSTANCE_DUMP at the start of rec, as
// builder.instance does, and returns its length.
func (w *splitWorker) instance(p *splitPiece, rec []byte, off int64) (int, error) {
	ids := w.cl.idSize
	fixed := 1 + 2*ids + 8
	if len(rec) < fixed {
		return 0, short(hprof.SubInstanceDump, off)
	}
	id, classID := w.id(rec[1:]), w.id(rec[1+ids+4:])
	size := int64(binary.BigEndian.Uint32(rec[1+2*ids+4:]))
	if size > int64(len(rec)-fixed) || size > maxInstanceBytes {
		return 0, short(hprof.SubInstanceDump, off)
	}
	c, ok := w.class(classID)
	if !ok || w.elem[c] != 0 {
		return 0, fmt.Errorf("instance at offset %d of a class no class dump named, or of an array class", off)
	}
	w.instances[c]++
	w.hasInstances[c] = true
	w.observe(p, seenObject{id: id, class: c, valid: true})
	arrival := p.add(id, c, 0, off)
	data := rec[fixed : fixed+int(size)]
	if hook := w.cl.strings; hook != nil && c == hook.class {
		p.takeString(hook, arrival, data)
	}
	plan := w.cl.plans[c]
	if plan == nil {
		if size > 0 {
			p.deferred = append(p.deferred, deferredInstance{arrival: arrival, class: c, start: len(p.data), size: int(size), offset: off})
			p.data = append(p.data, data...)
		}
		return fixed + int(size), nil
	}
	if len(data) != plan.size {
		p.sizeMismatch++
		if p.sizeMismatchFirst == 0 {
			p.sizeMismatchFirst = off
		}
	}
	for _, at := range plan.offsets {
		if int(at)+ids <= len(data) {
			w.addRef(p, w.id(data[at:]))
		}
	}
	if plan.referent >= 0 && plan.referent+ids <= len(data) {
		if ref := w.id(data[plan.referent:]); ref != 0 {
			p.referents = append(p.referents, pendingReferent{arrival, ref})
		}
	}
	return fixed + int(size), nil
}

// objArray parses the OBJ_ARRAY_DUMP at the start of rec, as
// builder.objArray does, and returns its length.
func (w *splitWorker) objArray(p *splitPiece, rec []byte, off int64) (int, error) {
	ids := w.cl.idSize
	fixed := 1 + 2*ids + 8
	if len(rec) < fixed {
		return 0, short(hprof.SubObjArrayDump, off)
	}
	id, length, classID := w.id(rec[1:]), binary.BigEndian.Uint32(rec[1+ids+4:]), w.id(rec[1+ids+8:])
	size := int64(length) * int64(ids)
	if size > int64(len(rec)-fixed) {
		return 0, short(hprof.SubObjArrayDump, off)
	}
	c, ok := w.class(classID)
	if !ok {
		return 0, fmt.Errorf("object array at offset %d of a class no class dump named", off)
	}
	if err := w.countArray(c, TypeObject, length, off); err != nil {
		return 0, err
	}
	w.observe(p, seenObject{id: id, class: c, length: length, array: true, valid: true})
	p.add(id, c, length, off)
	allNull := true
	for e := rec[fixed : fixed+int(size)]; len(e) > 0; e = e[ids:] {
		ref := w.id(e)
		w.addRef(p, ref)
		allNull = allNull && ref == 0
	}
	info := uint64(contentRecorded)
	if allNull && length > 0 {
		info |= contentUniform
	}
	p.setArrayInfo(info)
	return fixed + int(size), nil
}

// primArray parses the PRIM_ARRAY_DUMP at the start of rec, as
// builder.primArray does, and returns its length.
func (w *splitWorker) primArray(p *splitPiece, rec []byte, off int64) (int, error) {
	ids := w.cl.idSize
	fixed := 1 + ids + 9
	if len(rec) < fixed {
		return 0, short(hprof.SubPrimArrayDump, off)
	}
	id, length, elem := w.id(rec[1:]), binary.BigEndian.Uint32(rec[1+ids+4:]), Type(rec[1+ids+8])
	if !hprof.Type(elem).IsPrimitive() {
		return 0, fmt.Errorf("primitive array at offset %d of element type %d", off, elem)
	}
	es := elem.Size(ids)
	size := int64(length) * int64(es)
	if size > int64(len(rec)-fixed) {
		return 0, short(hprof.SubPrimArrayDump, off)
	}
	c := w.cl.prim[elem]
	if c == NoClass {
		return 0, fmt.Errorf("primitive array at offset %d of a type no class dump named", off)
	}
	if err := w.countArray(c, elem, length, off); err != nil {
		return 0, err
	}
	w.observe(p, seenObject{id: id, class: c, length: length, array: true, valid: true})
	p.add(id, c, length, off)
	w.digest.reset(es)
	w.digest.write(rec[fixed : fixed+int(size)])
	p.setArrayInfo(w.digest.info(length))
	if hook := w.cl.strings; hook != nil {
		p.takeArray(hook, elem, rec[fixed:fixed+int(size)])
	}
	return fixed + int(size), nil
}

// countArray counts an array of n elements of type elem of class c, as
// builder.countArray does; an error when c has instances or arrays of
// another type too, which the builder would count in an order of its
// own.
func (w *splitWorker) countArray(c ClassIndex, elem Type, n uint32, off int64) error {
	if w.hasInstances[c] || (w.elem[c] != 0 && w.elem[c] != elem) {
		return fmt.Errorf("array at offset %d of a class with objects of another kind", off)
	}
	w.elem[c] = elem
	w.instances[c]++
	w.elements[c] += int64(n)
	if w.residues[c] == nil {
		w.residues[c] = new([256]int64)
	}
	w.residues[c][n&255]++
	return nil
}

// rootLengths is the length after the tag of each GC root sub-record the
// reader knows, in identifiers and bytes; 0 for any other sub-record.
var rootLengths = func() [256][2]int {
	var l [256][2]int
	for _, sub := range []hprof.SubTag{hprof.RootUnknown, hprof.RootStickyClass, hprof.RootMonitorUsed,
		hprof.RootInternedString, hprof.RootFinalizing, hprof.RootDebugger, hprof.RootReferenceCleanup,
		hprof.RootVMInternal, hprof.SubUnreachable} {
		l[sub] = [2]int{1, 0}
	}
	l[hprof.RootJNIGlobal] = [2]int{2, 0}
	for _, sub := range []hprof.SubTag{hprof.RootJNILocal, hprof.RootJavaFrame, hprof.RootThreadObj, hprof.RootJNIMonitor} {
		l[sub] = [2]int{1, 8}
	}
	l[hprof.RootNativeStack] = [2]int{1, 4}
	l[hprof.RootThreadBlock] = [2]int{1, 4}
	return l
}()

// root parses the GC root sub-record at the start of rec, as the reader
// and builder.root do, and returns its length; an error for any other
// sub-record.
func (w *splitWorker) root(p *splitPiece, rec []byte, off int64) (int, error) {
	sub := hprof.SubTag(rec[0])
	ids := w.cl.idSize
	l := rootLengths[sub]
	n := 1 + l[0]*ids + l[1]
	if n == 1 {
		return 0, fmt.Errorf("%s at offset %d among the objects", sub, off)
	}
	if len(rec) < n {
		return 0, short(sub, off)
	}
	r := rawRoot{kind: rootKinds[sub], id: w.id(rec[1:]), frame: -1}
	u4 := func(k int) uint32 { return binary.BigEndian.Uint32(rec[1+ids+k:]) }
	switch sub {
	case hprof.RootJNILocal, hprof.RootJavaFrame, hprof.RootJNIMonitor:
		r.thread, r.frame = u4(0), int32(u4(4))
	case hprof.RootThreadObj:
		r.thread, r.trace = u4(0), u4(4)
	case hprof.RootNativeStack, hprof.RootThreadBlock:
		r.thread = u4(0)
	}
	p.roots = append(p.roots, r)
	return n, nil
}

// observe records the address gap between the object before cur and cur,
// as builder.observe does: the smallest after each instance class, the
// first 64 after each array class's arrays in the piece.
func (w *splitWorker) observe(p *splitPiece, cur seenObject) {
	if !p.first.valid {
		p.first = cur
	}
	prev := p.last
	p.last = cur
	if !prev.valid || cur.id <= prev.id {
		return
	}
	gap := int64(cur.id - prev.id)
	c := prev.class
	if !prev.array {
		if m := w.minGap[c]; m == 0 || gap < m {
			w.minGap[c] = gap
		}
		return
	}
	if w.seenPiece[c] != p.batch {
		w.seenPiece[c], w.seen[c] = p.batch, 0
	}
	if w.seen[c] < 64 {
		w.seen[c]++
		p.obs = append(p.obs, pieceObservation{c, prev.length, gap})
	}
}

// add appends an object at offset off and returns its arrival in p.
func (p *splitPiece) add(id uint64, c ClassIndex, length uint32, off int64) int {
	p.ids = append(p.ids, id)
	p.classOf = append(p.classOf, c)
	p.lengths = append(p.lengths, length)
	p.offsets = append(p.offsets, off)
	p.refStart = append(p.refStart, uint32(len(p.refs)))
	return len(p.ids) - 1
}

// setArrayInfo records what the elements of the last object, an array,
// hold.
func (p *splitPiece) setArrayInfo(info uint64) {
	p.arrays = append(p.arrays, len(p.ids)-1)
	p.arrayInfo = append(p.arrayInfo, info)
}

// addRef appends a reference of the last object, packed as refStore
// packs it.
func (w *splitWorker) addRef(p *splitPiece, id uint64) {
	if id == 0 {
		return
	}
	v, ok := w.cl.pack(id)
	if !ok {
		p.escaped = append(p.escaped, escapedRef{pos: uint64(len(p.refs)), id: id})
		v = escapeMark
	}
	p.refs = append(p.refs, v)
}

// pack is refStore.pack for a store whose base is set.
func (cl *splitClasses) pack(id uint64) (uint32, bool) {
	if !cl.wide {
		return uint32(id), id < uint64(escapeMark)
	}
	if id < cl.base || id&7 != cl.base&7 {
		return 0, false
	}
	d := (id - cl.base) >> 3
	return uint32(d), d < uint64(escapeMark)
}
