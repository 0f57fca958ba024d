package hprofascii

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// HeapSource translates the HEAP DUMP sections of the hprof agent's
// ASCII output (java.hprof.txt, docs/hprof-ascii.md#heap-dump) into HPROF
// records (docs/hprof-ascii.md#the-heap-of-an-ascii-file): it is the
// hprof.Source of an ASCII file.
//
// The ASCII dump prints no instance field declarations and no primitive
// values: an OBJ line gives the object's size (sz=) and its non-null
// reference fields by name. No INSTANCE_DUMP payload laid out by a
// CLASS_DUMP field list can say that honestly (the declaring class of a
// field and the fields that were null are unknown), so each OBJ becomes an
// INSTANCE_DUMP without payload whose references come by name with Object
// (Traits.NamedReferences). Sizes gives the sz= of the instances of each
// class and of the arrays whose sz= holds more than their nelems=; Object
// gives the sz= of the arrays whose sz= goes with their length
// (Traits.ObjectSizes). CLS lines become LOAD_CLASS and CLASS_DUMP records
// without instance fields, whose statics are the printed non-null
// reference statics; THREAD START and END lines become START_THREAD and
// END_THREAD records.
type HeapSource struct {
	r *Reader

	queue []queuedRecord
	next  int
	cur   queuedRecord
	done  bool
	err   error

	pending  Kind  // KindObject or KindArray while its lines may continue
	line     int64 // the line of the pending OBJ or ARR
	obj      Object
	objRefs  []hprof.NamedRef
	arr      Array
	arrElems []uint64
	names    map[string]uint64
	declared map[uint64]bool   // class ids given a LOAD_CLASS
	arrayOf  map[uint64]uint64 // JVMPI element class id -> array class id
	sizes    hprof.SizeFacts
	dumps    int
}

// queuedRecord is a translated record waiting to be handed out, with its
// HPROF payload (an object array's elements) and what Object tells of it.
type queuedRecord struct {
	rec     hprof.Record
	payload []byte
	object  hprof.ObjectInfo
}

// NewHeapSource reads the header of the ASCII file in src and returns the
// source of its HEAP DUMP sections.
func NewHeapSource(src io.Reader, opt Options) (*HeapSource, error) {
	r, err := NewReader(src, opt)
	if err != nil {
		return nil, err
	}
	return &HeapSource{r: r, names: map[string]uint64{}, declared: map[uint64]bool{}, arrayOf: map[uint64]uint64{},
		sizes: hprof.SizeFacts{SizeSource: "the ASCII dump's sz= (the JVM's own)", InstanceSizes: map[uint64]int64{}}}, nil
}

// Header gives the file's version and creation time; ids are kept in 8
// bytes, enough for every id the agents print.
func (s *HeapSource) Header() hprof.Header {
	h := s.r.Header()
	return hprof.Header{Version: h.Version, IDSize: 8, Time: h.Created}
}

// Traits are those of the agent's ASCII output: offsets are lines,
// instances come with their references by name, objects with their sizes.
func (s *HeapSource) Traits() hprof.Traits {
	return hprof.Traits{Format: "hprof-ascii", Producer: "hprof-agent", Lines: true, NamedReferences: true, ObjectSizes: true}
}

func (s *HeapSource) push(rec hprof.Record, payload []byte, object hprof.ObjectInfo) {
	if rec.Sub == 0 {
		rec.Offset = -1
	}
	s.queue = append(s.queue, queuedRecord{rec: rec, payload: payload, object: object})
}

// sub queues a heap sub-record of the current HEAP DUMP section.
func (s *HeapSource) sub(rec hprof.Record, line int64, payload []byte, object hprof.ObjectInfo) {
	rec.Tag, rec.Dump, rec.Offset = hprof.TagHeapDump, s.dumps-1, line
	s.push(rec, payload, object)
}

// name returns the UTF8 id of text, queueing its UTF8 record the first time.
func (s *HeapSource) name(text string) uint64 {
	if id, ok := s.names[text]; ok {
		return id
	}
	id := uint64(len(s.names) + 1)
	s.names[text] = id
	s.push(hprof.Record{Tag: hprof.TagUTF8, UTF8: hprof.UTF8{ID: id, Text: []byte(text)}}, nil, hprof.ObjectInfo{})
	return id
}

// loadClass queues the LOAD_CLASS record of class id the first time.
func (s *HeapSource) loadClass(id uint64, name string) {
	if s.declared[id] || id == 0 {
		return
	}
	s.declared[id] = true
	s.push(hprof.Record{Tag: hprof.TagLoadClass, LoadClass: hprof.LoadClass{Serial: uint32(len(s.declared)), ClassID: id, NameID: s.name(name)}}, nil, hprof.ObjectInfo{})
}

// Next advances to the next translated record.
func (s *HeapSource) Next() bool {
	for s.next >= len(s.queue) {
		s.queue, s.next = s.queue[:0], 0
		if s.done {
			return false
		}
		if !s.r.Next() {
			s.flush()
			s.done = true
			s.err = translateError(s.r.Err())
			continue
		}
		s.translate(s.r.Record())
	}
	s.cur = s.queue[s.next]
	s.next++
	return true
}

// translateError makes a truncated file a truncated HPROF stream for
// the builder, which keeps what was read before the cut; the position is
// the line the ASCII reader names.
func translateError(err error) error {
	var fe *FormatError
	if errors.Is(err, ErrTruncated) && errors.As(err, &fe) {
		return &hprof.FormatError{File: fe.File, Offset: fe.Line, Msg: fe.Msg, Err: hprof.ErrTruncated}
	}
	return err
}

// translate queues the HPROF records of one ASCII record. An OBJ or ARR is
// held until a record other than its continuation arrives.
func (s *HeapSource) translate(rec *Record) {
	switch rec.Kind {
	case KindObjectFields:
		s.addFields(rec.Object.Fields)
		return
	case KindArrayElements:
		s.addElements(rec.Array.Elements)
		return
	}
	s.flush()
	switch rec.Kind {
	case KindThreadStart:
		t := rec.ThreadStart
		s.push(hprof.Record{Tag: hprof.TagStartThread, StartThread: hprof.StartThread{ThreadSerial: t.Serial, ThreadID: t.ObjectID,
			NameID: s.name(string(t.Name)), GroupNameID: s.name(string(t.Group))}}, nil, hprof.ObjectInfo{})
	case KindThreadEnd:
		s.push(hprof.Record{Tag: hprof.TagEndThread, EndThread: rec.ThreadEnd}, nil, hprof.ObjectInfo{})
	case KindHeapDumpBegin:
		s.dumps++
		s.push(hprof.Record{Tag: hprof.TagHeapDump}, nil, hprof.ObjectInfo{})
	case KindRoot:
		rt := rec.Root
		s.sub(hprof.Record{Sub: rt.Kind, Root: hprof.Root{Kind: rt.Kind, ID: rt.ID, JNIRef: rt.JNIRef,
			ThreadSerial: rt.ThreadSerial, TraceSerial: rt.TraceSerial, FrameDepth: rt.FrameDepth}}, rec.Line, nil, hprof.ObjectInfo{})
	case KindClass:
		s.class(rec)
	case KindObject:
		s.pending = KindObject
		s.obj = rec.Object
		s.obj.ClassName = append([]byte(nil), rec.Object.ClassName...)
		s.objRefs = s.objRefs[:0]
		s.addFields(rec.Object.Fields)
		s.obj.Fields = nil
		s.loadClass(s.obj.ClassID, JavaName(s.obj.ClassName))
		s.line = rec.Line
	case KindArray:
		s.pending = KindArray
		s.arr = rec.Array
		s.arr.TypeName = append([]byte(nil), rec.Array.TypeName...)
		s.arr.Elements = nil
		s.arrElems = s.arrElems[:0]
		s.addElements(rec.Array.Elements)
		s.line = rec.Line
	}
}

func (s *HeapSource) addFields(fields []Reference) {
	for _, f := range fields {
		s.objRefs = append(s.objRefs, hprof.NamedRef{Name: string(f.Name), ID: f.ID})
	}
}

func (s *HeapSource) addElements(elems []Element) {
	for _, e := range elems {
		if int64(e.Index) >= int64(s.arr.Length) {
			continue
		}
		for uint32(len(s.arrElems)) <= e.Index {
			s.arrElems = append(s.arrElems, 0)
		}
		s.arrElems[e.Index] = e.ID
	}
}

// flush queues the pending OBJ or ARR.
func (s *HeapSource) flush() {
	switch s.pending {
	case KindObject:
		o := &s.obj
		refs := make([]hprof.NamedRef, len(s.objRefs))
		copy(refs, s.objRefs)
		size := int64(o.Size)
		if old, ok := s.sizes.InstanceSizes[o.ClassID]; !ok {
			s.sizes.InstanceSizes[o.ClassID] = size
		} else if old != size {
			s.sizes.SizeConflicts++
		}
		s.sub(hprof.Record{Sub: hprof.SubInstanceDump, Instance: hprof.InstanceDump{ID: o.ID, ClassID: o.ClassID, TraceSerial: o.TraceSerial}}, s.line, nil,
			hprof.ObjectInfo{Refs: refs, Size: size})
	case KindArray:
		a := &s.arr
		// The agent's sz= of a reached primitive array counts only its
		// elements' bytes; otherwise it is the JVM's size of the whole
		// array, which may hold more elements than nelems= says.
		line := hprof.ArraySize{Dump: s.dumps - 1, ID: a.ID, Elem: a.ElemType, Length: a.Length, Size: int64(a.Size)}
		dataOnly := a.ElemType != hprof.TypeObject && line.Size == int64(a.Length)*int64(a.ElemType.Size(8))
		// Only an sz= that is the JVM's size of nelems= elements tells
		// the layout anything.
		observed := line.Size
		if dataOnly || a.Length == 0 {
			observed = 0
		}
		if a.ElemType != hprof.TypeObject {
			if !dataOnly {
				s.sizes.ArraySizes = append(s.sizes.ArraySizes, line)
			}
			s.sub(hprof.Record{Sub: hprof.SubPrimArrayNoData, PrimArray: hprof.PrimArrayDump{ID: a.ID, TraceSerial: a.TraceSerial, Length: a.Length, ElemType: a.ElemType}},
				s.line, nil, hprof.ObjectInfo{Size: observed})
			break
		}
		line.ClassID = s.arrayClass(a)
		s.sizes.ArraySizes = append(s.sizes.ArraySizes, line)
		payload := make([]byte, 0, 8*len(s.arrElems))
		for _, e := range s.arrElems {
			payload = binary.BigEndian.AppendUint64(payload, e)
		}
		s.sub(hprof.Record{Sub: hprof.SubObjArrayDump, ObjArray: hprof.ObjArrayDump{ID: a.ID, TraceSerial: a.TraceSerial, Length: a.Length, ClassID: line.ClassID}},
			s.line, payload, hprof.ObjectInfo{Size: observed})
	}
	s.pending = 0
}

// arrayClass returns the id of the class of object array a. JVMPI ARR
// lines name the element class: its array class, which the file does not
// dump, gets an id of its own with the top bit set, above every id the
// file prints (JVMPI ids are 32-bit agent pointers).
func (s *HeapSource) arrayClass(a *Array) uint64 {
	name := JavaName(a.TypeName)
	if !a.OfElement {
		s.loadClass(a.ClassID, name)
		return a.ClassID
	}
	id, ok := s.arrayOf[a.ClassID]
	if !ok {
		id = 1<<63 | a.ClassID
		s.arrayOf[a.ClassID] = id
		if a.ClassID != 0 {
			s.loadClass(a.ClassID, name)
		}
		s.loadClass(id, name+"[]")
	}
	return id
}

// class queues the LOAD_CLASS and CLASS_DUMP of a CLS line.
func (s *HeapSource) class(rec *Record) {
	c := &rec.Class
	s.loadClass(c.ID, JavaName(c.Name))
	cd := hprof.ClassDump{ID: c.ID, TraceSerial: c.TraceSerial, SuperID: c.SuperID, LoaderID: c.LoaderID,
		SignersID: c.SignersID, ProtectionDomainID: c.ProtectionDomainID}
	for _, st := range c.Statics {
		cd.Statics = append(cd.Statics, hprof.Static{NameID: s.name(string(st.Name)), Type: hprof.TypeObject, Value: st.ID})
	}
	for _, k := range c.Constants {
		cd.Constants = append(cd.Constants, hprof.Constant{Index: uint16(k.Index), Type: hprof.TypeObject, Value: k.ID})
	}
	s.sub(hprof.Record{Sub: hprof.SubClassDump, Class: cd}, rec.Line, nil, hprof.ObjectInfo{})
}

// Record returns the current translated record.
func (s *HeapSource) Record() *hprof.Record { return &s.cur.rec }

// Err returns the error that stopped Next.
func (s *HeapSource) Err() error { return s.err }

// Payload returns the current record's HPROF payload: the elements of an
// object array; instances have none (see Object).
func (s *HeapSource) Payload() ([]byte, error) { return s.cur.payload, nil }

// PayloadChunks hands the current record's HPROF payload to fn in one piece.
func (s *HeapSource) PayloadChunks(fn func(chunk []byte) error) error {
	if len(s.cur.payload) == 0 {
		return nil
	}
	return fn(s.cur.payload)
}

// IDSize is 8: the translation keeps ids in 8 bytes.
func (s *HeapSource) IDSize() int { return 8 }

// ID decodes a big-endian 8-byte id of the translated payloads.
func (s *HeapSource) ID(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

// Warnings returns the first warnings of the ASCII reader.
func (s *HeapSource) Warnings() []hprof.Warning {
	ws := s.r.Warnings()
	out := make([]hprof.Warning, len(ws))
	for i, w := range ws {
		out[i] = hprof.Warning{Offset: w.Line, Msg: w.Msg}
	}
	return out
}

// WarningCount counts the warnings of the ASCII reader.
func (s *HeapSource) WarningCount() int { return s.r.WarningCount() }

// Dumps is how many HEAP DUMP sections were started.
func (s *HeapSource) Dumps() int { return s.dumps }

// Offset is the number of lines read.
func (s *HeapSource) Offset() int64 { return s.r.Line() }

// BytesRead is the number of bytes of the lines read.
func (s *HeapSource) BytesRead() int64 { return s.r.Bytes() }

// Object returns the references by name and the sz= of the current OBJ,
// and the sz= of the current ARR when it goes with its nelems= (0
// otherwise).
func (s *HeapSource) Object() hprof.ObjectInfo { return s.cur.object }

// Sizes returns the sz= of each class's instances (the first OBJ line of
// each class), how many OBJ lines gave another, and the arrays whose sz=
// may hold more elements than their nelems=.
func (s *HeapSource) Sizes() hprof.SizeFacts { return s.sizes }
