package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// rawRoot is a GC root sub-record, kept until buildRoots resolves its
// object and thread.
type rawRoot struct {
	kind   RootKind
	id     uint64
	thread uint32
	frame  int32
	trace  uint32
}

// classRefs is the decoding plan for instances of one class: where the
// reference fields lie in its instance bytes.
type classRefs struct {
	ready    bool
	size     int      // expected instance bytes
	offsets  []uint32 // strong reference field offsets
	referent int      // offset of java.lang.ref.Reference.referent, -1 if none
}

// classInfo is what the builder keeps of a class beside the model's
// Class: the name ids of its fields and statics, its CLASS_DUMP, and its
// decoding plan.
type classInfo struct {
	fieldIDs  []uint64
	staticIDs []uint64
	dumped    bool
	offset    int64 // of the CLASS_DUMP
	refs      classRefs
	// loops marks a class whose superclass chain runs into a loop, found
	// while the dump streams: its instances wait for cutSuperLoops.
	loops bool
	// walk is the number of the last chainDumped walk that passed it.
	walk uint64
}

// referentField is a reference of an instance through a field named
// referent: the referent of a java.lang.ref.Reference, or a strong
// reference of any other class.
type referentField struct {
	arrival int
	class   ClassIndex
	id      uint64
}

// deferredInstance is an instance that came before its class dump (or a
// superclass's): its field bytes lie in dumpState.deferredData from start,
// until resolveDeferred decodes them.
type deferredInstance struct {
	arrival int
	class   ClassIndex
	start   int
	size    int
	offset  int64
}

// dumpState is what the builder keeps of the heap dump being read: its
// classes' decoding plans, its roots and objects, and the references that
// wait for a class dump or for the end of the stream.
type dumpState struct {
	dump         int // dump being kept, -1 before the first
	infos        []classInfo
	roots        []rawRoot
	objects      objectTable
	deferred     []deferredInstance
	deferredData []byte
	late         map[int][]uint64
	// referentFields are the references by name (NamedReferences) of
	// instances through a field named "referent", resolved by
	// resolveReferentFields.
	referentFields []referentField
	// primClass is the class of each primitive array type, NoClass until
	// the first such array.
	primClass [TypeLong + 1]ClassIndex
	// digest follows the elements of the primitive array being read.
	digest elementDigest
	walks  uint64 // chainDumped walks so far
}

// reset starts heap dump number dump afresh.
func (d *dumpState) reset(dump int) {
	d.dump = dump
	d.infos, d.roots = nil, nil
	d.objects.reset()
	d.deferred, d.deferredData = nil, nil
	d.late = map[int][]uint64{}
	d.referentFields = nil
	for i := range d.primClass {
		d.primClass[i] = NoClass
	}
}

// sub decodes a heap dump sub-record of the dump being kept.
func (b *builder) sub(rec *hprof.Record) error {
	b.objects.pos = rec.Offset
	switch rec.Sub {
	case hprof.SubInstanceDump:
		return b.instance(rec)
	case hprof.SubObjArrayDump:
		return b.objArray(rec)
	case hprof.SubPrimArrayDump, hprof.SubPrimArrayNoData:
		return b.primArray(rec)
	case hprof.SubClassDump:
		return b.classDump(rec)
	case hprof.SubHeapDumpInfo:
		b.switchHeap(rec)
	default:
		if rec.Sub.IsRoot() {
			b.root(rec)
		}
	}
	return nil
}

// objArray counts an OBJ_ARRAY_DUMP and, with Objects, adds it to the
// object table with its elements as references.
func (b *builder) objArray(rec *hprof.Record) error {
	a := rec.ObjArray
	c := b.classFor(a.ClassID)
	b.countArray(c, TypeObject, a.Length)
	b.countAlloc(c, a.TraceSerial, a.Length)
	b.observe(a.ID, c, a.Length)
	if !b.opt.Objects {
		return nil
	}
	b.objects.add(a.ID, c, a.Length)
	ids := b.r.IDSize()
	var got int64
	allNull := true
	err := b.r.PayloadChunks(func(chunk []byte) error {
		for p := 0; p+ids <= len(chunk); p += ids {
			id := b.r.ID(chunk[p:])
			b.objects.addRef(id)
			allNull = allNull && id == 0
		}
		got += int64(len(chunk))
		return nil
	})
	var info uint64
	if got == int64(a.Length)*int64(ids) {
		info = contentRecorded
		if allNull && a.Length > 0 {
			info |= contentUniform
		}
	}
	b.objects.setArrayInfo(info)
	return payloadError(err)
}

// primArray counts a PRIM_ARRAY_DUMP (or an Android
// PRIMITIVE_ARRAY_NODATA) and, with Objects, adds it to the object table
// with the digest of its elements.
func (b *builder) primArray(rec *hprof.Record) error {
	a := rec.PrimArray
	c := b.primArrayClass(Type(a.ElemType))
	b.countArray(c, Type(a.ElemType), a.Length)
	b.countAlloc(c, a.TraceSerial, a.Length)
	b.observe(a.ID, c, a.Length)
	if !b.opt.Objects {
		return nil
	}
	b.objects.add(a.ID, c, a.Length)
	size := b.h.typeSize(Type(a.ElemType))
	b.digest.reset(size)
	var err error
	if rec.Sub == hprof.SubPrimArrayDump && size > 0 && size <= 8 {
		err = b.r.PayloadChunks(func(chunk []byte) error {
			b.digest.write(chunk)
			return nil
		})
	}
	b.objects.setArrayInfo(b.digest.info(a.Length))
	return payloadError(err)
}

// switchHeap records an Android heap switch: the objects from rec on
// belong to the heap it names, until the next switch. A switch to the heap
// already current adds nothing.
func (b *builder) switchHeap(rec *hprof.Record) {
	info := rec.HeapInfo
	name, ok := b.strings[info.NameID]
	if !ok {
		name = fmt.Sprintf("heap-%d", info.HeapID)
	}
	h := b.h
	k := slices.Index(h.heapNames, name)
	if k < 0 {
		k = len(h.heapNames)
		h.heapNames = append(h.heapNames, name)
	}
	if n := len(h.switchHeap); n > 0 && h.switchHeap[n-1] == uint32(k) {
		return
	}
	h.switchAt = append(h.switchAt, rec.Offset)
	h.switchHeap = append(h.switchHeap, uint32(k))
}

// payloadError is what an error met while reading a record's payload
// means to the load: a dump cut inside the payload is truncated, which
// the reader reports again when asked for the next record (and the load
// keeps what came before); any other error ends the load.
func payloadError(err error) error {
	if errors.Is(err, hprof.ErrTruncated) {
		return nil
	}
	return err
}

// countArray counts an array of n elements of type elem as an instance
// of class c.
func (b *builder) countArray(c ClassIndex, elem Type, n uint32) {
	cl := &b.h.Classes[c]
	if cl.Elem == 0 {
		cl.Elem = elem
	}
	cl.Instances++
	cl.ArrayElements += int64(n)
	if cl.lengthResidues == nil {
		cl.lengthResidues = new([256]int64)
	}
	cl.lengthResidues[n&255]++
}

// instance counts an INSTANCE_DUMP and, with Objects, adds it to the
// object table with its references: decoded by its class's plan, by
// name (NamedReferences), or put aside until its class dump comes.
func (b *builder) instance(rec *hprof.Record) error {
	in := rec.Instance
	c := b.classFor(in.ClassID)
	b.h.Classes[c].Instances++
	b.countAlloc(c, in.TraceSerial, 0)
	b.observe(in.ID, c, 0)
	if !b.opt.Objects {
		return nil
	}
	arrival := b.objects.add(in.ID, c, 0)
	if b.traits.NamedReferences {
		for _, ref := range b.r.Object().Refs {
			if ref.Name == "referent" {
				// A Reference's referent is no strong reference, but
				// whether the class is a Reference is known only once
				// every class was read (CLS lines may follow OBJ lines).
				b.referentFields = append(b.referentFields, referentField{arrival: arrival, class: c, id: ref.ID})
				continue
			}
			b.objects.addRef(ref.ID)
		}
		return nil
	}
	data, err := b.r.Payload()
	if err != nil {
		return err
	}
	plan := b.refPlan(c)
	if plan == nil && len(data) > 0 {
		start := len(b.deferredData)
		b.deferredData = append(b.deferredData, data...)
		b.deferred = append(b.deferred, deferredInstance{arrival: arrival, class: c, start: start, size: len(data), offset: rec.Offset})
		return nil
	}
	if plan != nil {
		b.decodeRefs(plan, data, rec.Offset, arrival, false)
	}
	return nil
}

// decodeRefs adds the references in an instance's field bytes to object
// arrival: to the object table as it streams, or, for instances decoded
// after the stream (late), to the late list. A Reference's referent is
// kept apart: it is no strong reference.
func (b *builder) decodeRefs(plan *classRefs, data []byte, offset int64, arrival int, late bool) {
	if len(data) != plan.size {
		b.sizeMismatch++
		if b.sizeMismatchFirst == 0 {
			b.sizeMismatchFirst = offset
		}
	}
	ids := b.r.IDSize()
	for _, off := range plan.offsets {
		if int(off)+ids > len(data) {
			continue
		}
		id := b.r.ID(data[off:])
		switch {
		case id == 0:
		case late:
			b.late[arrival] = append(b.late[arrival], id)
		default:
			b.objects.addRef(id)
		}
	}
	if plan.referent >= 0 && plan.referent+ids <= len(data) {
		if id := b.r.ID(data[plan.referent:]); id != 0 {
			b.objects.addReferent(arrival, id)
		}
	}
}

// refPlan returns where instances of class c keep their references, or nil
// while a CLASS_DUMP of c or of a superclass has not been seen, or while
// the superclass chain of c runs into a loop (cutSuperLoops cuts it before
// the instances put aside are decoded).
func (b *builder) refPlan(c ClassIndex) *classRefs {
	info := &b.infos[c]
	if info.refs.ready {
		return &info.refs
	}
	if !b.chainDumped(c) {
		return nil
	}
	ids := b.r.IDSize()
	var offsets []uint32
	size, referent := 0, -1
	for k := range b.h.Supers(c) {
		isReference := JavaClassName(b.name(b.classNameID[b.h.Classes[k].ID])) == "java.lang.ref.Reference"
		for i, f := range b.h.Classes[k].Fields {
			switch {
			case f.Type != TypeObject:
			case isReference && b.name(b.infos[k].fieldIDs[i]) == "referent":
				referent = size
			default:
				offsets = append(offsets, uint32(size))
			}
			size += f.Type.Size(ids)
		}
	}
	info.refs = classRefs{ready: true, size: size, offsets: offsets, referent: referent}
	return &info.refs
}

// classDump takes in a CLASS_DUMP: the class's super, loader, fields and
// statics, and, with Objects, its class object and that object's
// references.
func (b *builder) classDump(rec *hprof.Record) error {
	cd := &rec.Class
	if cd.ID == 0 {
		// Id 0 is the null reference, and a class of id 0 one the dump
		// names but never dumps: no class object can have it.
		if b.nullClassDumps == 0 {
			b.nullClassFirst = rec.Offset
		}
		b.nullClassDumps++
		return nil
	}
	c := b.classFor(cd.ID)
	info := &b.infos[c]
	if info.dumped {
		b.duplicateClasses++
		return nil
	}
	info.dumped = true
	info.offset = rec.Offset
	if cd.SuperID != 0 {
		super := b.classFor(cd.SuperID)
		b.h.Classes[c].Super = super
		info = &b.infos[c]
	}
	cl := &b.h.Classes[c]
	cl.Loader = cd.LoaderID
	cl.DumpInstanceSize = cd.InstanceSize
	cl.Fields = make([]Field, len(cd.Fields))
	info.fieldIDs = make([]uint64, len(cd.Fields))
	for i, f := range cd.Fields {
		cl.Fields[i].Type = Type(f.Type)
		info.fieldIDs[i] = f.NameID
	}
	cl.Statics = make([]Static, len(cd.Statics))
	info.staticIDs = make([]uint64, len(cd.Statics))
	for i, s := range cd.Statics {
		cl.Statics[i] = Static{Type: Type(s.Type), Value: s.Value}
		info.staticIDs[i] = s.NameID
	}
	if !b.opt.Objects {
		return nil
	}
	b.objects.add(cd.ID, NoClass, 0)
	for _, id := range []uint64{cd.SuperID, cd.LoaderID, cd.SignersID, cd.ProtectionDomainID} {
		b.objects.addRef(id)
	}
	for _, s := range cd.Statics {
		if s.Type == hprof.TypeObject {
			b.objects.addRef(s.Value)
		}
	}
	for _, k := range cd.Constants {
		if k.Type == hprof.TypeObject {
			b.objects.addRef(k.Value)
		}
	}
	return nil
}

// rootKinds maps the GC root sub-record tags to the model's root kinds.
var rootKinds = [256]RootKind{
	hprof.RootUnknown: RootUnknown, hprof.RootJNIGlobal: RootJNIGlobal, hprof.RootJNILocal: RootJNILocal,
	hprof.RootJavaFrame: RootJavaFrame, hprof.RootNativeStack: RootNativeStack,
	hprof.RootStickyClass: RootStickyClass, hprof.RootThreadBlock: RootThreadBlock,
	hprof.RootMonitorUsed: RootMonitorUsed, hprof.RootThreadObj: RootThreadObject,
	hprof.RootInternedString: RootInternedString, hprof.RootFinalizing: RootFinalizing,
	hprof.RootDebugger: RootDebugger, hprof.RootReferenceCleanup: RootReferenceCleanup,
	hprof.RootVMInternal: RootVMInternal, hprof.RootJNIMonitor: RootJNIMonitor,
	hprof.SubUnreachable: RootUnreachable,
}

// root keeps a GC root sub-record until buildRoots resolves it.
func (b *builder) root(rec *hprof.Record) {
	rt := rec.Root
	b.roots = append(b.roots, rawRoot{kind: rootKinds[rt.Kind], id: rt.ID, thread: rt.ThreadSerial, frame: rt.FrameDepth, trace: rt.TraceSerial})
}

// classFor returns the class with the given class object id, creating a
// placeholder that a later CLASS_DUMP fills in.
func (b *builder) classFor(id uint64) ClassIndex {
	if c, ok := b.h.classByID[id]; ok {
		return c
	}
	c := ClassIndex(len(b.h.Classes))
	b.h.Classes = append(b.h.Classes, Class{ID: id, Super: NoClass, Object: NoObject})
	b.infos = append(b.infos, classInfo{})
	b.layoutObservations.addClass()
	b.h.classByID[id] = c
	return c
}

// addClassClass adds java.lang.Class to a heap that has class objects but
// no such class: a dump cut before java.lang.Class was dumped, or before
// any object named it as its class. Its class objects are then instances
// of it, as in every other dump (ClassOf never answers NoClass for them).
func (b *builder) addClassClass() ClassIndex {
	c := ClassIndex(len(b.h.Classes))
	b.h.Classes = append(b.h.Classes, Class{Name: "java.lang.Class", Super: NoClass, Object: NoObject})
	b.infos = append(b.infos, classInfo{dumped: true})
	b.layoutObservations.addClass()
	return c
}

// primArrayClass returns the class of the primitive arrays of type t:
// the one a LOAD_CLASS named for it, else one made up with its Java name.
func (b *builder) primArrayClass(t Type) ClassIndex {
	if c := b.primClass[t]; c != NoClass {
		return c
	}
	var c ClassIndex
	if id := b.primClassID[t]; id != 0 {
		c = b.classFor(id)
	} else {
		c = ClassIndex(len(b.h.Classes))
		b.h.Classes = append(b.h.Classes, Class{Name: PrimitiveArrayName(t), Super: NoClass, Object: NoObject})
		b.infos = append(b.infos, classInfo{dumped: true})
		b.layoutObservations.addClass()
	}
	b.h.Classes[c].Elem = t
	b.primClass[t] = c
	return c
}

// countClassObjects counts the dumped class objects as instances of
// java.lang.Class, adding that class to a dump that has class objects but
// not it, and returns it (NoClass: neither).
func (b *builder) countClassObjects() ClassIndex {
	h := b.h
	classClass := h.ClassClass()
	for i := range h.Classes {
		if h.Classes[i].ID != 0 && b.infos[i].dumped {
			h.classObjects++
		}
	}
	if classClass == NoClass && h.classObjects > 0 {
		classClass = b.addClassClass()
	}
	if classClass != NoClass {
		h.Classes[classClass].Instances += h.classObjects
	}
	return classClass
}

// resolveObjects makes the Heap's per-object tables: the class objects
// become instances of classClass, the object table is resolved, and each
// dumped class finds its class object.
func (b *builder) resolveObjects(classClass ClassIndex) error {
	h := b.h
	b.objects.classOf.each(func(chunk []ClassIndex) {
		for i, c := range chunk {
			if c == NoClass {
				chunk[i] = classClass
			}
		}
	})
	res, err := b.objects.resolve(h, b.late, b.phase)
	if err != nil {
		return fmt.Errorf("%s: %w", h.Source.File, err)
	}
	b.reportDangling(res.danglingHolders)
	if res.duplicates > 0 {
		b.anomaly("duplicate-object", res.duplicates, -1, "object ids dumped more than once, e.g. 0x%x (first kept)", res.firstDup)
	}
	// A class without a CLASS_DUMP has no class object in the dump:
	// an object with its id is something else.
	for i := range h.Classes {
		if idx, ok := h.Lookup(h.Classes[i].ID); ok && h.Classes[i].ID != 0 && b.infos[i].dumped {
			h.Classes[i].Object = idx
		}
	}
	b.reportObjectSupers()
	return nil
}

// resolveDeferred decodes the references of the instances that came
// before their class dumps. Those whose class (or a superclass) was never
// dumped are reported with one anomaly per class, at its first instance:
// a dump cut before its class dumps has millions of them.
func (b *builder) resolveDeferred() error {
	lost := map[ClassIndex]int64{}
	var classes []ClassIndex
	var count int64
	first := int64(-1)
	for _, d := range b.deferred {
		plan := b.refPlan(d.class)
		if plan == nil {
			if lost[d.class] == 0 {
				classes = append(classes, d.class)
			}
			lost[d.class]++
			if count == 0 {
				first = d.offset
			}
			count++
			continue
		}
		data := b.deferredData[d.start : d.start+d.size]
		b.decodeRefs(plan, data, d.offset, d.arrival, true)
	}
	b.deferred, b.deferredData = nil, nil
	if count == 0 {
		return nil
	}
	const shown = 5
	names := make([]string, 0, shown+1)
	for _, c := range classes[:min(len(classes), shown)] {
		names = append(names, fmt.Sprintf("%d of %s", lost[c], b.h.Classes[c].Name))
	}
	if len(classes) > shown {
		names = append(names, fmt.Sprintf("%d more classes", len(classes)-shown))
	}
	b.anomaly("missing-class-dump", count, first, "instances whose class (or a superclass) was never dumped, so their references are lost: %s", strings.Join(names, ", "))
	return nil
}

// resolveReferentFields makes each reference through a field named
// referent a Reference's referent (no strong edge) when its class is
// java.lang.ref.Reference or a subclass, and a strong reference otherwise.
func (b *builder) resolveReferentFields() {
	isReference := map[ClassIndex]bool{}
	for _, f := range b.referentFields {
		ref, ok := isReference[f.class]
		if !ok {
			ref = b.h.isReference(f.class)
			isReference[f.class] = ref
		}
		if ref {
			b.objects.addReferent(f.arrival, f.id)
		} else {
			b.late[f.arrival] = append(b.late[f.arrival], f.id)
		}
	}
	b.referentFields = nil
}
