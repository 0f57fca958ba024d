package model

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/hprofascii"
)

// asciiRef is a non-null reference of an ASCII OBJ line: the field it is
// printed under and its target.
type asciiRef struct {
	Name string
	ID   uint64
}

// asciiHeapSource translates the HEAP DUMP sections of the hprof agent's
// ASCII output (java.hprof.txt, docs/hprof-ascii.md#heap-dump) into HPROF
// records (docs/hprof-ascii.md#the-heap-of-an-ascii-file).
//
// The ASCII dump prints no instance field declarations and no primitive
// values: an OBJ line gives the object's size (sz=) and its non-null
// reference fields by name. No INSTANCE_DUMP payload laid out by a
// CLASS_DUMP field list can say that honestly (the declaring class of a
// field and the fields that were null are unknown), so each OBJ becomes an
// INSTANCE_DUMP without payload and the builder takes its references from
// InstanceRefs and its size from ObjectSize (the explicitSource hook).
// CLS lines become LOAD_CLASS and CLASS_DUMP records without instance
// fields, whose statics are the printed non-null reference statics; THREAD
// START and END lines become START_THREAD and END_THREAD records.
type asciiHeapSource struct {
	r *hprofascii.Reader

	queue   []queuedRecord
	next    int
	cur     queuedRecord
	refs    [][]asciiRef // per queued record: the references of an OBJ
	sizes   []int64      // per queued record: the sz= of an OBJ or ARR
	curRefs []asciiRef
	curSize int64
	done    bool
	err     error

	pending     hprofascii.Kind // KindObject or KindArray while its lines may continue
	line        int64           // the line of the pending OBJ or ARR
	obj         hprofascii.Object
	objRefs     []asciiRef
	arr         hprofascii.Array
	arrElems    []uint64
	names       map[string]uint64
	declared    map[uint64]bool   // class ids given a LOAD_CLASS
	arrayOf     map[uint64]uint64 // JVMPI element class id -> array class id
	instSize    map[uint64]int64  // class id -> sz= of its instances
	sizeDiffers int
	arrays      []arrayLine
	dumps       int
}

// arrayLine is an ARR whose sz= may say more than its nelems=: the agent
// writes object arrays only up to their last non-null element, and the
// arrays it has not seen reached with nelems=0, both with the JVM's size
// as sz= (a reached primitive array's sz= counts its elements' bytes
// only). Its length is settled from sz= once the layout is known.
type arrayLine struct {
	dump   int
	id     uint64
	class  uint64 // object arrays: the array class id
	elem   hprof.Type
	length uint32
	size   int64
}

// openASCIIHeap opens the HEAP DUMP sections of an ASCII file.
func openASCIIHeap(src io.Reader, name string) (*asciiHeapSource, error) {
	r, err := hprofascii.NewReader(src, hprofascii.Options{Name: name})
	if err != nil {
		return nil, err
	}
	return &asciiHeapSource{r: r, names: map[string]uint64{}, declared: map[uint64]bool{},
		arrayOf:  map[uint64]uint64{},
		instSize: map[uint64]int64{}}, nil
}

// Header gives the file's version and creation time; ids are kept in 8
// bytes, enough for every id the agents print.
func (s *asciiHeapSource) Header() hprof.Header {
	h := s.r.Header()
	return hprof.Header{Version: h.Version, IDSize: 8, Time: h.Created}
}

func (s *asciiHeapSource) push(rec hprof.Record, payload []byte, refs []asciiRef, size int64) {
	if rec.Sub == 0 {
		rec.Offset = -1
	}
	s.queue = append(s.queue, queuedRecord{rec: rec, payload: payload})
	s.refs = append(s.refs, refs)
	s.sizes = append(s.sizes, size)
}

// sub queues a heap sub-record of the current HEAP DUMP section.
func (s *asciiHeapSource) sub(rec hprof.Record, line int64, payload []byte, refs []asciiRef, size int64) {
	rec.Tag, rec.Dump, rec.Offset = hprof.TagHeapDump, s.dumps-1, line
	s.push(rec, payload, refs, size)
}

// name returns the UTF8 id of text, queueing its UTF8 record the first time.
func (s *asciiHeapSource) name(text string) uint64 {
	if id, ok := s.names[text]; ok {
		return id
	}
	id := uint64(len(s.names) + 1)
	s.names[text] = id
	s.push(hprof.Record{Tag: hprof.TagUTF8, UTF8: hprof.UTF8{ID: id, Text: []byte(text)}}, nil, nil, 0)
	return id
}

// loadClass queues the LOAD_CLASS record of class id the first time.
func (s *asciiHeapSource) loadClass(id uint64, name string) {
	if s.declared[id] || id == 0 {
		return
	}
	s.declared[id] = true
	s.push(hprof.Record{Tag: hprof.TagLoadClass, LoadClass: hprof.LoadClass{Serial: uint32(len(s.declared)), ClassID: id, NameID: s.name(name)}}, nil, nil, 0)
}

// Next advances to the next translated record.
func (s *asciiHeapSource) Next() bool {
	for s.next >= len(s.queue) {
		s.queue, s.refs, s.sizes, s.next = s.queue[:0], s.refs[:0], s.sizes[:0], 0
		if s.done {
			return false
		}
		if !s.r.Next() {
			s.flush()
			s.done = true
			s.err = translateASCIIError(s.r.Err())
			continue
		}
		s.translate(s.r.Record())
	}
	s.cur, s.curRefs, s.curSize = s.queue[s.next], s.refs[s.next], s.sizes[s.next]
	s.next++
	return true
}

// translateASCIIError makes a truncated file a truncated HPROF stream for
// the builder, which keeps what was read before the cut; the position is
// the line the ASCII reader names.
func translateASCIIError(err error) error {
	var fe *hprofascii.FormatError
	if errors.Is(err, hprofascii.ErrTruncated) && errors.As(err, &fe) {
		return &hprof.FormatError{File: fe.File, Offset: fe.Line, Msg: fe.Msg, Err: hprof.ErrTruncated}
	}
	return err
}

// translate queues the HPROF records of one ASCII record. An OBJ or ARR is
// held until a record other than its continuation arrives.
func (s *asciiHeapSource) translate(rec *hprofascii.Record) {
	switch rec.Kind {
	case hprofascii.KindObjectFields:
		s.addFields(rec.Object.Fields)
		return
	case hprofascii.KindArrayElements:
		s.addElements(rec.Array.Elements)
		return
	}
	s.flush()
	switch rec.Kind {
	case hprofascii.KindThreadStart:
		t := rec.ThreadStart
		s.push(hprof.Record{Tag: hprof.TagStartThread, StartThread: hprof.StartThread{ThreadSerial: t.Serial, ThreadID: t.ObjectID,
			NameID: s.name(string(t.Name)), GroupNameID: s.name(string(t.Group))}}, nil, nil, 0)
	case hprofascii.KindThreadEnd:
		s.push(hprof.Record{Tag: hprof.TagEndThread, EndThread: rec.ThreadEnd}, nil, nil, 0)
	case hprofascii.KindHeapDumpBegin:
		s.dumps++
		s.push(hprof.Record{Tag: hprof.TagHeapDump}, nil, nil, 0)
	case hprofascii.KindRoot:
		rt := rec.Root
		s.sub(hprof.Record{Sub: rt.Kind, Root: hprof.Root{Kind: rt.Kind, ID: rt.ID, JNIRef: rt.JNIRef,
			ThreadSerial: rt.ThreadSerial, TraceSerial: rt.TraceSerial, FrameDepth: rt.FrameDepth}}, rec.Line, nil, nil, 0)
	case hprofascii.KindClass:
		s.class(rec)
	case hprofascii.KindObject:
		s.pending = hprofascii.KindObject
		s.obj = rec.Object
		s.obj.ClassName = append([]byte(nil), rec.Object.ClassName...)
		s.objRefs = s.objRefs[:0]
		s.addFields(rec.Object.Fields)
		s.obj.Fields = nil
		s.loadClass(s.obj.ClassID, hprofascii.JavaName(s.obj.ClassName))
		s.line = rec.Line
	case hprofascii.KindArray:
		s.pending = hprofascii.KindArray
		s.arr = rec.Array
		s.arr.TypeName = append([]byte(nil), rec.Array.TypeName...)
		s.arr.Elements = nil
		s.arrElems = s.arrElems[:0]
		s.addElements(rec.Array.Elements)
		s.line = rec.Line
	}
}

func (s *asciiHeapSource) addFields(fields []hprofascii.Reference) {
	for _, f := range fields {
		s.objRefs = append(s.objRefs, asciiRef{Name: string(f.Name), ID: f.ID})
	}
}

func (s *asciiHeapSource) addElements(elems []hprofascii.Element) {
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
func (s *asciiHeapSource) flush() {
	switch s.pending {
	case hprofascii.KindObject:
		o := &s.obj
		refs := make([]asciiRef, len(s.objRefs))
		copy(refs, s.objRefs)
		size := int64(o.Size)
		if old, ok := s.instSize[o.ClassID]; !ok {
			s.instSize[o.ClassID] = size
		} else if old != size {
			s.sizeDiffers++
		}
		s.sub(hprof.Record{Sub: hprof.SubInstanceDump, Instance: hprof.InstanceDump{ID: o.ID, ClassID: o.ClassID, TraceSerial: o.TraceSerial}}, s.line, nil, refs, size)
	case hprofascii.KindArray:
		a := &s.arr
		line := arrayLine{dump: s.dumps - 1, id: a.ID, elem: a.ElemType, length: a.Length, size: int64(a.Size)}
		// Only an sz= that is the JVM's size of nelems= elements tells
		// the layout anything.
		dataOnly := a.ElemType != hprof.TypeObject && line.size == int64(a.Length)*int64(Type(a.ElemType).Size(8))
		observed := line.size
		if dataOnly || a.Length == 0 {
			observed = 0
		}
		if a.ElemType != hprof.TypeObject {
			if !dataOnly {
				s.arrays = append(s.arrays, line)
			}
			s.sub(hprof.Record{Sub: hprof.SubPrimArrayNoData, PrimArray: hprof.PrimArrayDump{ID: a.ID, TraceSerial: a.TraceSerial, Length: a.Length, ElemType: a.ElemType}},
				s.line, nil, nil, observed)
			break
		}
		line.class = s.arrayClass(a)
		s.arrays = append(s.arrays, line)
		payload := make([]byte, 0, 8*len(s.arrElems))
		for _, e := range s.arrElems {
			payload = binary.BigEndian.AppendUint64(payload, e)
		}
		s.sub(hprof.Record{Sub: hprof.SubObjArrayDump, ObjArray: hprof.ObjArrayDump{ID: a.ID, TraceSerial: a.TraceSerial, Length: a.Length, ClassID: line.class}},
			s.line, payload, nil, observed)
	}
	s.pending = 0
}

// arrayClass returns the id of the class of object array a. JVMPI ARR
// lines name the element class: its array class, which the file does not
// dump, gets an id of its own with the top bit set, above every id the
// file prints (JVMPI ids are 32-bit agent pointers).
func (s *asciiHeapSource) arrayClass(a *hprofascii.Array) uint64 {
	name := hprofascii.JavaName(a.TypeName)
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
func (s *asciiHeapSource) class(rec *hprofascii.Record) {
	c := &rec.Class
	s.loadClass(c.ID, hprofascii.JavaName(c.Name))
	cd := hprof.ClassDump{ID: c.ID, TraceSerial: c.TraceSerial, SuperID: c.SuperID, LoaderID: c.LoaderID,
		SignersID: c.SignersID, ProtectionDomainID: c.ProtectionDomainID}
	for _, st := range c.Statics {
		cd.Statics = append(cd.Statics, hprof.Static{NameID: s.name(string(st.Name)), Type: hprof.TypeObject, Value: st.ID})
	}
	for _, k := range c.Constants {
		cd.Constants = append(cd.Constants, hprof.Constant{Index: uint16(k.Index), Type: hprof.TypeObject, Value: k.ID})
	}
	s.sub(hprof.Record{Sub: hprof.SubClassDump, Class: cd}, rec.Line, nil, nil, 0)
}

// Record returns the current translated record.
func (s *asciiHeapSource) Record() *hprof.Record { return &s.cur.rec }

// Err returns the error that stopped Next.
func (s *asciiHeapSource) Err() error { return s.err }

// Payload returns the current record's HPROF payload: the elements of an
// object array; instances have none (see InstanceRefs).
func (s *asciiHeapSource) Payload() ([]byte, error) { return s.cur.payload, nil }

// PayloadChunks hands the current record's HPROF payload to fn in one piece.
func (s *asciiHeapSource) PayloadChunks(fn func(chunk []byte) error) error {
	if len(s.cur.payload) == 0 {
		return nil
	}
	return fn(s.cur.payload)
}

// IDSize is 8: the translation keeps ids in 8 bytes.
func (s *asciiHeapSource) IDSize() int { return 8 }

// ID decodes a big-endian 8-byte id of the translated payloads.
func (s *asciiHeapSource) ID(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

// Warnings returns the first warnings of the ASCII reader.
func (s *asciiHeapSource) Warnings() []hprof.Warning {
	ws := s.r.Warnings()
	out := make([]hprof.Warning, len(ws))
	for i, w := range ws {
		out[i] = hprof.Warning{Offset: w.Line, Msg: w.Msg}
	}
	return out
}

// WarningCount counts the warnings of the ASCII reader.
func (s *asciiHeapSource) WarningCount() int { return s.r.WarningCount() }

// Dumps is how many HEAP DUMP sections were started.
func (s *asciiHeapSource) Dumps() int { return s.dumps }

// Offset is the number of lines read.
func (s *asciiHeapSource) Offset() int64 { return s.r.Line() }

// Bytes is the number of bytes of the lines read.
func (s *asciiHeapSource) Bytes() int64 { return s.r.Bytes() }

// InstanceRefs returns the references of the current INSTANCE_DUMP.
func (s *asciiHeapSource) InstanceRefs() []asciiRef { return s.curRefs }

// ObjectSize returns the sz= of the current OBJ or ARR.
func (s *asciiHeapSource) ObjectSize() int64 { return s.curSize }

// finishHeap marks the heap as the agent's ASCII dump and sizes instances
// by their sz=, the JVM's own size of the object. Arrays are sized by the
// layout the builder inferred from their sz= and lengths, class objects
// (which have no sz=) by that layout too. Under SizeFields an instance
// counts nothing (the file holds no field declarations or values), an
// array its elements (references as the translation's 8-byte ids) and a
// class object its printed reference statics.
func (s *asciiHeapSource) finishHeap(h *Heap) {
	for i := range h.Classes {
		cl := &h.Classes[i]
		if cl.IsArray() {
			continue
		}
		if sz, ok := s.instSize[cl.ID]; ok {
			h.classSize[i] = sz
		}
	}
	if len(s.instSize) > 0 {
		h.LayoutReason = "instance sizes are the ASCII dump's sz= (the JVM's own); arrays and class objects: " + h.LayoutReason
	}
	if s.sizeDiffers > 0 {
		h.Anomalies = append(h.Anomalies, Anomaly{Kind: "instance-size-differs", Count: int64(s.sizeDiffers), Offset: -1,
			Detail: "OBJ lines of one class give different sz=; the first one counts for the class"})
	}
	s.settleArrays(h)
}

// settleArrays takes the length of each array whose sz= holds more than
// its nelems= elements from its sz= (see arrayLine): the largest length
// of that size under the layout, so its bytes are the JVM's and its
// length is right to within the object alignment. Arrays whose sz= is
// none of the sizes the layout allows are reported.
func (s *asciiHeapSource) settleArrays(h *Heap) {
	prim := map[Type]ClassIndex{}
	for i := range h.Classes {
		if e := h.Classes[i].Elem; e != 0 && e != TypeObject && h.Classes[i].Name == PrimitiveArrayName(e) {
			prim[e] = ClassIndex(i)
		}
	}
	var settled, differ int64
	var first arrayLine
	var firstSize int64
	for _, a := range s.arrays {
		if a.dump != h.Source.Dump {
			continue
		}
		c, ok := prim[Type(a.elem)]
		if a.elem == hprof.TypeObject {
			c, ok = h.ClassByID(a.class)
		}
		if !ok {
			continue
		}
		n0 := int64(a.length)
		size := h.ArrayBytes(c, n0, SizeJVM)
		if a.size == size {
			continue
		}
		elem := h.Classes[c].Elem
		n := (a.size - int64(h.Layout.ArrayBase(elem))) / int64(elem.Size(h.Layout.Ref))
		if a.size < size || n > math.MaxUint32 || h.ArrayBytes(c, n, SizeJVM) != a.size {
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
		if i, ok := h.Lookup(a.id); ok && h.HasObjects {
			h.lengths[i] = uint32(n)
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
				differ, first.id, first.size, first.length, firstSize)})
	}
}
