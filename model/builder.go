package model

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hprofctl/hprofctl/model/layout"
	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
)

// LoadOptions choose what a load builds.
type LoadOptions struct {
	// Dump picks one heap dump of a file holding several (from 0); -1,
	// the default for callers that set it so, picks the last.
	Dump int
	// Objects builds the per-object tables and the reference graph;
	// without it only classes, counters, roots and traces are kept
	// (enough for a histogram), in far less memory and time.
	Objects bool
	// JVMPI describes a bare JVMPI buffer (one with no capture manifest
	// beside it), which has no header to be recognized by: when set, the
	// file is read as that buffer. A capture manifest beside the file
	// wins over it.
	JVMPI *jvmpi.Options
	// LeanGC keeps the peak memory of a load with Objects near the live
	// size: the garbage collector runs at 20% heap growth instead of the
	// process's setting (Go's default is 100%) while the heap is built,
	// and the memory the build freed, too scattered for the analyses'
	// large arrays to reuse, is handed back to the OS after it. The graph
	// lives in a few large pointer-free slices, so collections cost
	// almost nothing. The setting is process-wide while the load runs and
	// restored after it: for a program whose main work is the load, not
	// one that loads heaps concurrently.
	LeanGC bool
}

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

type builder struct {
	r      hprof.Source
	traits hprof.Traits // r's
	opt    LoadOptions
	h      *Heap
	// digest follows the elements of the primitive array being read.
	digest elementDigest

	strings      map[uint64]string
	classNameID  map[uint64]uint64 // class object id -> name string id (LOAD_CLASS)
	classSerial  map[uint32]uint64 // class serial -> class object id
	primClassID  [TypeLong + 1]uint64
	primClass    [TypeLong + 1]ClassIndex
	frames       map[uint64]hprof.Frame
	rawTraces    []rawTrace
	threadNames  map[uint32]uint64 // START_THREAD serial -> name id
	threadIDs    map[uint32]uint64 // START_THREAD serial -> thread object id
	threadTrace  map[uint32]uint32 // thread serial -> trace serial
	unloaded     map[uint32]bool   // class serials named by UNLOAD_CLASS
	agent        bool
	prof         Profile
	rawSites     []hprof.AllocSite
	threadGroups map[uint32]uint64 // START_THREAD serial -> group name id
	ended        map[uint32]bool   // thread serials named by END_THREAD
	allocs       map[ObjectAlloc]int64
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

	// address-gap observations for layout inference
	prevID     uint64
	prevClass  ClassIndex
	prevLength uint32
	prevValid  bool
	minGap     []int64
	arraySeen  []int
	arrayObs   []layout.Observation

	sizeMismatch      int64
	sizeMismatchFirst int64
	duplicateClasses  int64
	nullClassDumps    int64 // CLASS_DUMPs of class id 0
	nullClassFirst    int64
	walks             uint64 // chainDumped walks so far
}

type rawTrace struct {
	serial, thread uint32
	frames         []uint64
}

// referentField is a reference of an instance through a field named
// referent: the referent of a java.lang.ref.Reference, or a strong
// reference of any other class.
type referentField struct {
	arrival int
	class   ClassIndex
	id      uint64
}

type deferredInstance struct {
	arrival int
	class   ClassIndex
	start   int
	size    int
	offset  int64
}

func newBuilder(r hprof.Source, opt LoadOptions) *builder {
	hdr := r.Header()
	traits := r.Traits()
	h := &Heap{
		Source:          Source{Format: traits.Format, Version: hdr.Version, IDSize: hdr.IDSize, Time: hdr.Time},
		RecordCounts:    map[string]int64{},
		SubRecordCounts: map[string]int64{},
		HasObjects:      opt.Objects,
		classByID:       map[uint64]ClassIndex{},
	}
	b := &builder{
		r: r, traits: traits, opt: opt, h: h,
		strings:      map[uint64]string{},
		classNameID:  map[uint64]uint64{},
		classSerial:  map[uint32]uint64{},
		frames:       map[uint64]hprof.Frame{},
		threadNames:  map[uint32]uint64{},
		threadIDs:    map[uint32]uint64{},
		threadTrace:  map[uint32]uint32{},
		unloaded:     map[uint32]bool{},
		threadGroups: map[uint32]uint64{},
		ended:        map[uint32]bool{},
		allocs:       map[ObjectAlloc]int64{},
		dump:         -1,
		late:         map[int][]uint64{},
	}
	for i := range b.primClass {
		b.primClass[i] = NoClass
	}
	b.objects.refs.wide = hdr.IDSize == 8
	b.objects.trackOffsets = !traits.Lines && !traits.NamedReferences && traits.Producer == ""
	return b
}

func (b *builder) run() error {
	r := b.r
	var topCounts [256]int64
	var subCounts [256]int64
	records := 0
	for r.Next() {
		records++
		rec := r.Record()
		if rec.Sub == 0 {
			topCounts[rec.Tag]++
			if err := b.top(rec); err != nil {
				return err
			}
			continue
		}
		subCounts[rec.Sub]++
		if b.opt.Dump >= 0 && rec.Dump != b.opt.Dump {
			continue
		}
		if rec.Dump != b.dump {
			b.startDump(rec.Dump)
		}
		if err := b.sub(rec); err != nil {
			return err
		}
	}
	err := r.Err()
	if records == 0 && !b.traits.Lines {
		return b.noRecord(err)
	}
	b.h.Source.Bytes = r.BytesRead()
	if b.traits.Lines {
		b.h.Source.Lines = r.Offset()
	}
	if err != nil {
		if !errors.Is(err, hprof.ErrTruncated) {
			return err
		}
		b.h.Truncated = true
		b.truncated(err)
	}
	for t, n := range topCounts {
		if n > 0 {
			b.h.RecordCounts[hprof.Tag(t).String()] = n
		}
	}
	for t, n := range subCounts {
		if n > 0 {
			b.h.SubRecordCounts[hprof.SubTag(t).String()] = n
		}
	}
	for _, w := range r.Warnings() {
		b.anomaly("reader-warning", 1, w.Offset, "%s", w.Msg)
	}
	if extra := r.WarningCount() - len(r.Warnings()); extra > 0 {
		b.anomaly("reader-warning", int64(extra), -1, "further warnings not listed")
	}
	if r.Dumps() == 0 {
		b.anomaly("no-heap-dump", 1, -1, "the file holds no heap dump record (HEAP_DUMP or HEAP_DUMP_SEGMENT): it may be cut short, or hold only profiling records")
	}
	b.h.Source.Dumps = r.Dumps()
	b.h.Source.Dump = b.dump
	if b.opt.Dump >= 0 && b.opt.Dump >= r.Dumps() {
		return fmt.Errorf("%s: heap dump %d requested, the file has %d", b.h.Source.File, b.opt.Dump, r.Dumps())
	}
	return b.finish()
}

// noRecord is the error of a dump in which nothing could be decoded after
// the header (an empty heap shown for it would be a lie): it says what was
// found there instead, from the reader's first warning and its error.
func (b *builder) noRecord(readErr error) error {
	var found []string
	if ws := b.r.Warnings(); len(ws) > 0 {
		found = append(found, fmt.Sprintf("offset %d: %s", ws[0].Offset, ws[0].Msg))
	}
	var fe *hprof.FormatError
	switch {
	case errors.As(readErr, &fe):
		found = append(found, fmt.Sprintf("offset %d: %s", fe.Offset, fe.Msg))
	case readErr != nil:
		found = append(found, readErr.Error())
	case len(found) == 0:
		found = append(found, fmt.Sprintf("offset %d: the file ends there", b.r.Offset()))
	}
	return fmt.Errorf("%s: no record could be decoded after the header: %s", b.h.Source.File, strings.Join(found, "; then "))
}

// anomaly records an anomaly first met at off, a line number when the
// source is line-oriented (-1: not tied to a place).
func (b *builder) anomaly(kind string, n int64, off int64, format string, args ...any) {
	a := Anomaly{Kind: kind, Count: n, Offset: off, Detail: fmt.Sprintf(format, args...)}
	if b.traits.Lines && off >= 0 {
		a.Offset, a.Line = -1, off
	}
	b.h.Anomalies = append(b.h.Anomalies, a)
}

// truncated records the anomaly of a dump cut short: where the reader met
// the cut, what it found there, and how much was read before.
func (b *builder) truncated(err error) {
	where, at := ": "+err.Error(), int64(-1)
	unit, read := "offset", fmt.Sprintf("%d bytes", b.h.Source.Bytes)
	if b.traits.Lines {
		unit, read = "line", fmt.Sprintf("%d lines (%d bytes)", b.h.Source.Lines, b.h.Source.Bytes)
	}
	var fe *hprof.FormatError
	if errors.As(err, &fe) {
		where, at = fmt.Sprintf(" at %s %d: %s", unit, fe.Offset, fe.Msg), fe.Offset
	}
	b.anomaly("truncated", 1, at, "the dump is truncated%s; %s were read before the cut", where, read)
}

func (b *builder) top(rec *hprof.Record) error {
	switch rec.Tag {
	case hprof.TagUTF8:
		b.strings[rec.UTF8.ID] = string(rec.UTF8.Text)
	case hprof.TagLoadClass:
		lc := rec.LoadClass
		b.classNameID[lc.ClassID] = lc.NameID
		b.classSerial[lc.Serial] = lc.ClassID
		if t := arrayElemType(JavaClassName(b.strings[lc.NameID])); t != TypeObject && t != 0 && b.primClassID[t] == 0 {
			b.primClassID[t] = lc.ClassID
		}
	case hprof.TagFrame:
		b.frames[rec.Frame.ID] = rec.Frame
	case hprof.TagTrace:
		b.rawTraces = append(b.rawTraces, rawTrace{serial: rec.Trace.Serial, thread: rec.Trace.ThreadSerial,
			frames: append([]uint64(nil), rec.Trace.FrameIDs...)})
	case hprof.TagStartThread:
		st := rec.StartThread
		b.threadNames[st.ThreadSerial] = st.NameID
		b.threadGroups[st.ThreadSerial] = st.GroupNameID
		b.threadIDs[st.ThreadSerial] = st.ThreadID
		if _, ok := b.threadTrace[st.ThreadSerial]; !ok {
			b.threadTrace[st.ThreadSerial] = st.TraceSerial
		}
	case hprof.TagEndThread:
		b.ended[rec.EndThread] = true
	case hprof.TagControlSettings:
		b.agent = true
		cs := rec.ControlSettings
		b.prof.Control = &ControlSettings{AllocTraces: cs.AllocTraces(), CPUSampling: cs.CPUSampling(), MaxDepth: int(cs.MaxDepth)}
	case hprof.TagUnloadClass:
		b.unloaded[rec.UnloadClass] = true
	case hprof.TagAllocSites:
		a := rec.AllocSites
		order := "live bytes"
		if a.SortedByAllocation() {
			order = "allocated bytes"
		}
		b.prof.Sites = &SiteTable{OrderedBy: order, LiveBytes: int64(a.LiveBytes), LiveInstances: int64(a.LiveInstances),
			AllocBytes: int64(a.AllocatedBytes), AllocInstances: int64(a.AllocatedInstances)}
		b.rawSites = append(b.rawSites[:0], a.Sites...)
	case hprof.TagHeapSummary:
		hs := rec.HeapSummary
		b.prof.Summary = &HeapSummary{LiveBytes: int64(hs.LiveBytes), LiveInstances: int64(hs.LiveInstances),
			AllocBytes: int64(hs.AllocatedBytes), AllocInstances: int64(hs.AllocatedInstances)}
	case hprof.TagCPUSamples:
		c := rec.CPUSamples
		t := &CPUTable{Total: int64(c.Total), Rows: make([]CPURow, len(c.Samples))}
		for i, s := range c.Samples {
			t.Rows[i] = CPURow{Trace: s.TraceSerial, Count: int64(s.Count)}
			if c.Total > 0 {
				t.Rows[i].Self = 100 * float64(s.Count) / float64(c.Total)
			}
		}
		b.prof.CPU = t
	}
	return nil
}

// agentFile reports whether the hprof agent wrote the file: a binary file
// with its CONTROL_SETTINGS record, or its ASCII output.
func (b *builder) agentFile() bool { return b.agent || b.traits.Producer == "hprof-agent" }

// countAlloc counts a heap object of an agent file under its class and
// allocation trace.
func (b *builder) countAlloc(c ClassIndex, trace, length uint32) {
	if b.agentFile() && trace != 0 {
		b.allocs[ObjectAlloc{Class: c, Trace: trace, Length: length}]++
	}
}

// startDump drops what an earlier heap dump of the file left: with several
// dumps, the last one (or the chosen one) is the heap.
func (b *builder) startDump(d int) {
	b.dump = d
	b.h.Classes = nil
	b.h.classByID = map[uint64]ClassIndex{}
	b.infos = nil
	b.roots = nil
	b.h.heapNames, b.h.switchAt, b.h.switchHeap = nil, nil, nil
	b.objects.reset()
	b.deferred, b.deferredData = nil, nil
	b.late = map[int][]uint64{}
	b.referentFields = nil
	b.allocs = map[ObjectAlloc]int64{}
	for i := range b.primClass {
		b.primClass[i] = NoClass
	}
	b.prevValid = false
	b.minGap, b.arraySeen, b.arrayObs = nil, nil, nil
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
	b.minGap = append(b.minGap, 0)
	b.arraySeen = append(b.arraySeen, 0)
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
	b.minGap = append(b.minGap, 0)
	b.arraySeen = append(b.arraySeen, 0)
	return c
}

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
		b.minGap = append(b.minGap, 0)
		b.arraySeen = append(b.arraySeen, 0)
	}
	b.h.Classes[c].Elem = t
	b.primClass[t] = c
	return c
}

// observe records the address gap between consecutive heap objects, from
// which the JVM's layout is inferred (object ids are addresses in HotSpot
// dumps).
func (b *builder) observe(id uint64, class ClassIndex, length uint32) {
	if b.traits.ObjectSizes {
		if size := b.r.Object().Size; size > 0 && b.h.Classes[class].Elem != 0 && b.arraySeen[class] < 64 {
			b.arraySeen[class]++
			b.arrayObs = append(b.arrayObs, layout.Observation{Class: int(class), Length: int64(length), Gap: size})
		}
		return
	}
	if b.prevValid && id > b.prevID {
		gap := int64(id - b.prevID)
		pc := b.prevClass
		if b.h.Classes[pc].Elem != 0 {
			if b.arraySeen[pc] < 64 {
				b.arraySeen[pc]++
				b.arrayObs = append(b.arrayObs, layout.Observation{Class: int(pc), Length: int64(b.prevLength), Gap: gap})
			}
		} else if m := b.minGap[pc]; m == 0 || gap < m {
			b.minGap[pc] = gap
		}
	}
	b.prevID, b.prevClass, b.prevLength, b.prevValid = id, class, length, true
}

func (b *builder) sub(rec *hprof.Record) error {
	b.objects.pos = rec.Offset
	switch rec.Sub {
	case hprof.SubInstanceDump:
		return b.instance(rec)
	case hprof.SubObjArrayDump:
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
	case hprof.SubPrimArrayDump, hprof.SubPrimArrayNoData:
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

func (b *builder) root(rec *hprof.Record) {
	rt := rec.Root
	b.roots = append(b.roots, rawRoot{kind: rootKinds[rt.Kind], id: rt.ID, thread: rt.ThreadSerial, frame: rt.FrameDepth, trace: rt.TraceSerial})
}

func (b *builder) name(id uint64) string {
	if s, ok := b.strings[id]; ok {
		return s
	}
	return fmt.Sprintf("<unknown string 0x%x>", id)
}

func (b *builder) finish() error {
	h := b.h
	switch {
	case b.traits.Producer != "":
		h.Source.Producer = b.traits.Producer
	case b.agentFile():
		h.Source.Producer = "hprof-agent"
	case h.Source.Version == "1.0.3":
		h.Source.Producer = "android"
	default:
		h.Source.Producer = "hotspot"
	}
	b.nameClasses()
	b.cutSuperLoops()
	b.reportArraySupers()
	if err := b.resolveDeferred(); err != nil {
		return err
	}
	b.resolveReferentFields()
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
	b.reportUndumpedClasses()
	if b.opt.Objects {
		b.objects.classOf.each(func(chunk []ClassIndex) {
			for i, c := range chunk {
				if c == NoClass {
					chunk[i] = classClass
				}
			}
		})
		res, err := b.objects.resolve(h, b.late)
		if err != nil {
			return fmt.Errorf("%s: %w", h.Source.File, err)
		}
		if res.dangling > 0 {
			b.anomaly("dangling-reference", res.dangling, -1, "references to objects that are not in the dump, e.g. 0x%x", res.firstDangling)
		}
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
	}
	if b.duplicateClasses > 0 {
		b.anomaly("duplicate-class", b.duplicateClasses, -1, "CLASS_DUMP records repeated for the same class id")
	}
	if b.agent {
		var arrays int64
		for i := range h.Classes {
			if h.Classes[i].Elem == TypeObject {
				arrays += h.Classes[i].Instances
			}
		}
		if arrays > 0 {
			b.anomaly("agent-array-lengths", arrays, -1, "the hprof agent writes an object array only up to its last non-null element, "+
				"with that count as its length: these object arrays may be longer, and larger, in the JVM")
		}
	}
	if b.nullClassDumps > 0 {
		b.anomaly("null-class-id", b.nullClassDumps, b.nullClassFirst, "CLASS_DUMP records of class id 0, the null reference, skipped")
	}
	if b.sizeMismatch > 0 {
		b.anomaly("instance-size-mismatch", b.sizeMismatch, b.sizeMismatchFirst, "INSTANCE_DUMP field bytes differ from the sum of the class's field sizes")
	}
	b.buildRoots()
	b.buildTraces()
	b.buildProfile()
	b.chooseLayout()
	b.applySizes(b.r.Sizes())
	return nil
}

// buildProfile fills the Heap's Profile from the agent's records: sites
// and threads named, the same traces as the Heap's, and the heap objects
// counted by allocation trace.
func (b *builder) buildProfile() {
	h := b.h
	p := &b.prof
	p.Source = h.Source
	p.Traces = h.Traces
	p.Anomalies = h.Anomalies
	p.Truncated = h.Truncated
	if p.Sites != nil {
		p.Sites.Sites = make([]AllocSite, len(b.rawSites))
		for i, s := range b.rawSites {
			name := JavaClassName(b.name(b.classNameID[b.classSerial[s.ClassSerial]]))
			if _, ok := b.classSerial[s.ClassSerial]; !ok {
				name = fmt.Sprintf("<unknown class serial %d>", s.ClassSerial)
				if t := Type(s.ArrayType); t != 0 && t != TypeObject {
					name = PrimitiveArrayName(t)
				}
			}
			p.Sites.Sites[i] = AllocSite{Class: name, Trace: s.TraceSerial,
				LiveBytes: int64(s.LiveBytes), LiveInstances: int64(s.LiveInstances),
				AllocBytes: int64(s.AllocBytes), AllocInstances: int64(s.AllocInstances)}
		}
	}
	for serial, id := range b.threadIDs {
		t := ProfileThread{Serial: serial, ObjectID: id, Name: b.name(b.threadNames[serial]), Trace: b.threadTrace[serial], Ended: b.ended[serial]}
		if g := b.threadGroups[serial]; g != 0 {
			t.Group = b.name(g)
		}
		p.Threads = append(p.Threads, t)
	}
	sort.Slice(p.Threads, func(i, j int) bool { return p.Threads[i].Serial < p.Threads[j].Serial })
	for serial := range b.unloaded {
		if id, ok := b.classSerial[serial]; ok {
			p.UnloadedClasses = append(p.UnloadedClasses, JavaClassName(b.name(b.classNameID[id])))
		}
	}
	sort.Strings(p.UnloadedClasses)
	if p.Source.Producer == "hprof-agent" {
		h.allocs = make([]ObjectAlloc, 0, len(b.allocs))
		for k, n := range b.allocs {
			k.Count = n
			h.allocs = append(h.allocs, k)
		}
		sort.Slice(h.allocs, func(i, j int) bool {
			a, c := h.allocs[i], h.allocs[j]
			if a.Class != c.Class {
				return a.Class < c.Class
			}
			if a.Trace != c.Trace {
				return a.Trace < c.Trace
			}
			return a.Length < c.Length
		})
	}
	b.allocs, b.rawSites = nil, nil
	h.profile = p
}

// reportUndumpedClasses flags classes that a LOAD_CLASS record announces
// but no CLASS_DUMP describes (and no UNLOAD_CLASS retired): their class
// objects are in the JVM's heap but not in the dump, so the JVM's own
// histogram counts java.lang.Class objects that this one cannot.
func (b *builder) reportUndumpedClasses() {
	var names []string
	for serial, id := range b.classSerial {
		if b.unloaded[serial] {
			continue
		}
		if c, ok := b.h.classByID[id]; ok && b.infos[c].dumped {
			continue
		}
		names = append(names, JavaClassName(b.name(b.classNameID[id])))
	}
	if len(names) == 0 {
		return
	}
	sort.Strings(names)
	shown := names
	if len(shown) > 10 {
		shown = shown[:10]
	}
	b.anomaly("class-not-dumped", int64(len(names)), -1, "classes the dump names (LOAD_CLASS, or an ASCII OBJ line) but never dumps (no CLASS_DUMP or CLS line), so their class objects are missing: %s", strings.Join(shown, ", "))
}

func (b *builder) nameClasses() {
	h := b.h
	for i := range h.Classes {
		cl := &h.Classes[i]
		info := &b.infos[i]
		if cl.ID != 0 {
			if nid, ok := b.classNameID[cl.ID]; ok {
				cl.Name = JavaClassName(b.name(nid))
			} else if name, ok := b.traits.InventedClasses[cl.ID]; ok {
				cl.Name = name
			} else if cl.Name == "" {
				cl.Name = fmt.Sprintf("<unknown class 0x%x>", cl.ID)
			}
		}
		for k, id := range info.fieldIDs {
			cl.Fields[k].Name = b.name(id)
		}
		for k, id := range info.staticIDs {
			cl.Statics[k].Name = b.name(id)
		}
		if e := arrayElemType(cl.Name); e != 0 && cl.Elem == 0 {
			cl.Elem = e
		}
	}
	// JVMPI-era object arrays name their element class: such a "class"
	// (known by name) then has array instances but is no array class
	// itself.
	for i := range h.Classes {
		cl := &h.Classes[i]
		if _, named := b.classNameID[cl.ID]; named && cl.Elem == TypeObject && arrayElemType(cl.Name) == 0 {
			b.anomaly("element-class-array", cl.Instances, -1, "object arrays name the element class %s instead of the array class (JVMPI-era writer)", cl.Name)
		}
	}
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

func (b *builder) buildRoots() {
	h := b.h
	agent := b.agentFile()
	threadIndex := map[uint32]int32{}
	for _, rr := range b.roots {
		if rr.kind != RootThreadObject {
			continue
		}
		if agent && rr.id == 0 {
			// The agent's stand-in for its "unknown thread", which the
			// roots of objects whose thread it does not know name.
			continue
		}
		if _, dup := threadIndex[rr.thread]; dup {
			continue
		}
		threadIndex[rr.thread] = int32(len(h.Threads))
		b.threadTrace[rr.thread] = rr.trace
		t := Thread{Serial: rr.thread, ID: rr.id, Object: NoObject, Trace: -1}
		if id, ok := b.threadNames[rr.thread]; ok {
			t.Name = b.name(id)
		}
		h.Threads = append(h.Threads, t)
	}
	for serial, id := range b.threadIDs {
		// A live thread's Thread object is a thread root. The agent also
		// announces threads whose Thread object is none (it may track a
		// second Thread object for a thread it saw start): only those
		// that ended are threads of the dump.
		if _, ok := threadIndex[serial]; !ok && (!agent || b.ended[serial]) {
			threadIndex[serial] = int32(len(h.Threads))
			h.Threads = append(h.Threads, Thread{Serial: serial, ID: id, Object: NoObject, Trace: -1, Name: b.name(b.threadNames[serial])})
		}
	}
	sort.SliceStable(h.Threads, func(i, j int) bool { return h.Threads[i].Serial < h.Threads[j].Serial })
	for i, t := range h.Threads {
		threadIndex[t.Serial] = int32(i)
		if h.HasObjects {
			if idx, ok := h.Lookup(t.ID); ok {
				h.Threads[i].Object = idx
			}
		}
	}
	var dangling int64
	h.Roots = make([]Root, 0, len(b.roots))
	for _, rr := range b.roots {
		root := Root{Kind: rr.kind, ID: rr.id, Object: NoObject, Thread: -1, Frame: rr.frame}
		if ti, ok := threadIndex[rr.thread]; ok && rr.thread != 0 {
			root.Thread = ti
		}
		if h.HasObjects {
			if idx, ok := h.Lookup(rr.id); ok {
				root.Object = idx
			} else if rr.id != 0 {
				dangling++
			}
		}
		h.Roots = append(h.Roots, root)
	}
	if dangling > 0 {
		b.anomaly("dangling-root", dangling, -1, "GC roots naming objects that are not in the dump")
	}
	b.roots = nil
}

func (b *builder) buildTraces() {
	h := b.h
	bySerial := map[uint32]int32{}
	for _, rt := range b.rawTraces {
		t := Trace{Serial: rt.serial, ThreadSerial: rt.thread, Frames: make([]Frame, len(rt.frames))}
		for i, fid := range rt.frames {
			f, ok := b.frames[fid]
			if !ok {
				t.Frames[i] = Frame{Method: fmt.Sprintf("<unknown frame 0x%x>", fid), Line: LineUnknown}
				continue
			}
			fr := Frame{Method: b.name(f.MethodID), Signature: b.name(f.SignatureID), Line: f.Line}
			if f.SourceID != 0 {
				fr.File = b.name(f.SourceID)
			}
			if cid, ok := b.classSerial[f.ClassSerial]; ok {
				fr.Class = JavaClassName(b.name(b.classNameID[cid]))
			}
			t.Frames[i] = fr
		}
		bySerial[rt.serial] = int32(len(h.Traces))
		h.Traces = append(h.Traces, t)
	}
	// The hprof agent's thread roots and thread starts name the Thread
	// object's allocation trace, not the thread's stack at the dump: its
	// threads' stacks are unknown.
	if !b.agentFile() {
		for i := range h.Threads {
			if ti, ok := bySerial[b.threadTrace[h.Threads[i].Serial]]; ok {
				h.Threads[i].Trace = ti
			}
		}
	}
	b.rawTraces, b.frames = nil, nil
}

// chooseLayout infers the JVM layout from the address gaps (HotSpot dumps,
// whose ids are addresses) and the statics that hold field offsets, and
// computes per-class sizes: instances, and class objects with their static
// fields.
func (b *builder) chooseLayout() {
	h := b.h
	// ART lays objects and class objects out its own way: its statics are
	// no evidence of a HotSpot layout, nor part of a HotSpot mirror.
	android := h.Source.Producer == "android"
	classes := make([]layout.Class, len(h.Classes))
	for i := range h.Classes {
		cl := &h.Classes[i]
		lc := layout.Class{Name: cl.Name, Super: -1, Elem: cl.Elem}
		if cl.Super != NoClass {
			lc.Super = int(cl.Super)
		}
		lc.Fields = make([]layout.FieldType, len(cl.Fields))
		lc.Names = make([]string, len(cl.Fields))
		for k, f := range cl.Fields {
			lc.Fields[k], lc.Names[k] = f.Type, f.Name
		}
		if !android {
			lc.Statics = make([]layout.Static, len(cl.Statics))
			for k, s := range cl.Statics {
				lc.Statics[k] = layout.Static{Name: s.Name, Type: s.Type, Value: s.Value}
			}
		}
		classes[i] = lc
	}
	var obs []layout.Observation
	// The ids of HotSpot and JVMPI dumps are addresses: the gaps between
	// them are the objects' sizes.
	if p := h.Source.Producer; p == "hotspot" || p == "jvmpi" {
		for c, g := range b.minGap {
			if g > 0 {
				obs = append(obs, layout.Observation{Class: c, Gap: g})
			}
		}
		obs = append(obs, b.arrayObs...)
	}
	h.Layout, h.LayoutReason = layout.Infer(h.Source.IDSize, classes, obs)
	if h.Source.Producer == "hprof-agent" {
		h.LayoutReason = "ids of the hprof agent are not addresses, so " + h.LayoutReason
	}
	h.classSize = make([]int64, len(classes))
	for i, s := range h.Layout.InstanceSizes(classes) {
		h.classSize[i] = int64(s)
	}
	h.mirrorSize = make([]int64, len(classes))
	for i, s := range h.Layout.MirrorSizes(classes) {
		h.mirrorSize[i] = int64(s)
	}
	b.minGap, b.arrayObs = nil, nil
}
