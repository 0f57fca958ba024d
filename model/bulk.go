package model

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// Bounds of the reads EachValues makes of a plain dump: records closer
// together than bulkGap are read in one span of at most bulkSpan bytes,
// so a batch of objects spread over the whole dump costs one sequential
// pass over the parts that hold them rather than a read per object.
const (
	bulkGap  = 64 << 10
	bulkSpan = 4 << 20
)

// EachValues calls fn with the values of each object objs[k] (class
// objects: their static fields), for analyses that read many objects:
// every String, every collection. Unlike ReadValues it keeps nothing: v
// is valid only during the call. An instance's Fields are decoded; an
// array's Elements are left empty and Data holds all its elements as
// the dump records them (big-endian, an object array's as ids of the
// dump's id size). A plain dump is read at the objects' offsets in a few
// large reads, on every processor: fn is then called from several
// goroutines at once, once for each k, in no set order. Any other file
// (compressed, no offsets) is streamed once, and fn is called from one
// goroutine.
func EachValues(h *Heap, objs []ObjectIndex, fn func(k int, v *ObjectValues) error) error {
	var visit []int
	for k, i := range objs {
		if c, ok := h.classObject(i); ok {
			if err := fn(k, h.staticValues(c)); err != nil {
				return err
			}
			continue
		}
		visit = append(visit, k)
	}
	if len(visit) == 0 {
		return nil
	}
	o := h.ObjectReaderOptions()
	if h.offsets == nil || o.Compression != input.Plain {
		return h.streamValues(objs, visit, fn)
	}
	return h.dumpReader().Objects(o, func(r *hprof.ObjectReader) error {
		at := h.placeRecords(objs, visit)
		workers := workersFor(len(at))
		errs := make([]error, workers)
		forRanges(len(at), workers, func(w, lo, hi int) {
			b := bulkReader{h: h, r: r, fn: fn}
			errs[w] = b.run(at[lo:hi])
		})
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("%s: %w", h.Source.File, err)
		}
		return nil
	})
}

// classObject is the class whose class object i is, if it is one.
func (h *Heap) classObject(i ObjectIndex) (ClassIndex, bool) {
	if c := h.ClassOf(i); c != NoClass && !h.isClassClass(c) {
		return NoClass, false
	}
	c, ok := h.ClassObjectOf(i)
	return c, ok && h.Classes[c].Object == i
}

// streamValues is EachValues by one streaming pass over the dump, for
// the objects objs[k] of each k of visit.
func (h *Heap) streamValues(objs []ObjectIndex, visit []int, fn func(k int, v *ObjectValues) error) error {
	// first[id] is the first k that wants the object, next[k] the k after
	// it that wants the same object, -1 at the end.
	first := make(map[uint64]int, len(visit))
	next := make([]int, len(objs))
	for j := len(visit) - 1; j >= 0; j-- {
		k := visit[j]
		id := h.ObjectID(objs[k])
		next[k] = -1
		if f, ok := first[id]; ok {
			next[k] = f
		}
		first[id] = k
	}
	var v ObjectValues
	return rereadDump(h, func(r hprof.Source, rec *hprof.Record) error {
		id := rec.ObjectID()
		k, ok := first[id]
		if !ok || rec.Sub == hprof.SubClassDump {
			return nil
		}
		delete(first, id)
		return h.recordValues(r, rec, objs[k], &v, func(v *ObjectValues) error {
			for ; k >= 0; k = next[k] {
				if err := fn(k, v); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// recordValues decodes the record rec of object obj into v, reusing its
// slices, and calls fn with it.
func (h *Heap) recordValues(r hprof.Source, rec *hprof.Record, obj ObjectIndex, v *ObjectValues, fn func(v *ObjectValues) error) error {
	*v = ObjectValues{Length: -1, Fields: v.Fields[:0], Data: v.Data[:0]}
	switch rec.Sub {
	case hprof.SubInstanceDump:
		if r.Traits().NamedReferences {
			for _, nr := range r.Object().Refs {
				v.Fields = append(v.Fields, Value{Name: nr.Name, Type: TypeObject, Bits: nr.ID, Ref: h.refTo(nr.ID)})
			}
			return fn(v)
		}
		data, err := r.Payload()
		if err != nil {
			return err
		}
		v.Fields = h.appendFields(v.Fields, obj, data, r.ID)
		return fn(v)
	case hprof.SubObjArrayDump:
		v.Length, v.Elem = int64(rec.ObjArray.Length), TypeObject
	case hprof.SubPrimArrayDump:
		v.Length, v.Elem = int64(rec.PrimArray.Length), Type(rec.PrimArray.ElemType)
	case hprof.SubPrimArrayNoData:
		v.Length, v.Elem = int64(rec.PrimArray.Length), Type(rec.PrimArray.ElemType)
		return fn(v)
	default:
		return nil
	}
	if err := r.PayloadChunks(func(chunk []byte) error {
		v.Data = append(v.Data, chunk...)
		return nil
	}); err != nil {
		return err
	}
	return fn(v)
}

// refTo is the object the id names, NoObject for null and for an id not
// in the dump.
func (h *Heap) refTo(id uint64) ObjectIndex {
	if i, ok := h.Lookup(id); ok && id != 0 {
		return i
	}
	return NoObject
}

// appendFields appends the instance fields of obj, decoded from its
// record's field bytes data, to fields.
func (h *Heap) appendFields(fields []Value, obj ObjectIndex, data []byte, id func([]byte) uint64) []Value {
	h.eachField(h.ClassOf(obj), data, func(f *Field, _ bool, b []byte) {
		val := Value{Name: f.Name, Type: f.Type, Ref: NoObject}
		if f.Type == TypeObject {
			val.Bits = id(b)
			val.Ref = h.refTo(val.Bits)
		} else {
			val.Bits = bigEndianBits(b)
		}
		fields = append(fields, val)
	})
	return fields
}

// bulkReader reads objects of a plain dump at their offsets.
type bulkReader struct {
	h   *Heap
	r   *hprof.ObjectReader
	fn  func(k int, v *ObjectValues) error
	buf []byte
	v   ObjectValues
}

// placed is the object objs[k] with its record's offset and expected
// length.
type placed struct {
	off, n int64
	obj    ObjectIndex
	k      int
}

// recordPlacer computes where objects' records lie and how long they
// are, remembering each class's field bytes.
type recordPlacer struct {
	h      *Heap
	fields []int64 // by class; -1 until computed
}

func newRecordPlacer(h *Heap) *recordPlacer {
	fields := make([]int64, len(h.Classes))
	for c := range fields {
		fields[c] = -1
	}
	return &recordPlacer{h: h, fields: fields}
}

// place is the object objs[k], i, with its record's offset and expected
// length.
func (rp *recordPlacer) place(i ObjectIndex, k int) placed {
	h := rp.h
	ids := int64(h.Source.IDSize)
	c := h.ClassOf(i)
	var n int64
	switch {
	case c == NoClass:
		n = 1 + 2*ids + 8
	case h.Classes[c].Elem == TypeObject:
		n = 1 + 2*ids + 8 + int64(h.ArrayLength(i))*ids
	case h.Classes[c].IsArray():
		n = 1 + ids + 9 + int64(h.ArrayLength(i))*int64(h.typeSize(h.Classes[c].Elem))
	default:
		if rp.fields[c] < 0 {
			rp.fields[c] = h.fieldBytes(c)
		}
		n = 1 + 2*ids + 8 + rp.fields[c]
	}
	return placed{off: h.recordOffset(i), n: n, obj: i, k: k}
}

// placeRecords places the objects objs[k] of each k of visit, in the
// order of their offsets.
func (h *Heap) placeRecords(objs []ObjectIndex, visit []int) []placed {
	rp := newRecordPlacer(h)
	at := make([]placed, len(visit))
	for j, k := range visit {
		at[j] = rp.place(objs[k], k)
	}
	// Dumps mostly hold objects in the order of their ids, so objects in
	// index order are mostly in offset order already.
	byOffset := func(x, y placed) int { return cmp.Compare(x.off, y.off) }
	if !slices.IsSortedFunc(at, byOffset) {
		slices.SortFunc(at, byOffset)
	}
	return at
}

// run reads the placed objects at, in spans of records that lie close
// together.
func (b *bulkReader) run(at []placed) error {
	for k := 0; k < len(at); {
		start, end := at[k].off, at[k].off+at[k].n
		j := k + 1
		for j < len(at) && at[j].off-end <= bulkGap && at[j].off+at[j].n-start <= bulkSpan {
			end = max(end, at[j].off+at[j].n)
			j++
		}
		span, err := b.read(start, end)
		if err != nil {
			return err
		}
		for _, p := range at[k:j] {
			var rec []byte
			if p.off+p.n <= start+int64(len(span)) {
				rec = span[p.off-start:]
			}
			if err := b.decode(p, rec); err != nil {
				return err
			}
		}
		k = j
	}
	return nil
}

// read returns the dump's bytes from start to end (cut at its end).
func (b *bulkReader) read(start, end int64) ([]byte, error) {
	if start < 0 || start >= b.r.Size() {
		return nil, fmt.Errorf("offset %d lies outside the dump (%d bytes): %w", start, b.r.Size(), input.ErrChanged)
	}
	end = min(end, b.r.Size())
	if int64(cap(b.buf)) < end-start {
		b.buf = make([]byte, end-start)
	}
	buf := b.buf[:end-start]
	if _, err := b.r.ReadAt(buf, start); err != nil && err != io.EOF {
		return nil, err
	}
	return buf, nil
}

// decode decodes the record of p from rec, the bytes from its offset on
// (nil or short when they were not read: then the record is read on its
// own). A record of another kind than the three object dumps (an
// Android or JVMPI variant) is decoded by the full parser.
func (b *bulkReader) decode(p placed, rec []byte) error {
	h := b.h
	ids := h.Source.IDSize
	if int64(len(rec)) < p.n {
		var err error
		if rec, err = b.exact(p.off, p.n); err != nil {
			return err
		}
	}
	id := func(x []byte) uint64 {
		if ids == 4 {
			return uint64(binary.BigEndian.Uint32(x))
		}
		return binary.BigEndian.Uint64(x)
	}
	// Every object record starts with its tag, id, a stack trace serial,
	// a length or class id and another 4 or 8 bytes: an instance's is
	// head bytes long before its field bytes, an object array's before its
	// elements; a primitive array's elements start 1+ids+9 bytes in.
	head := 1 + 2*ids + 8
	if len(rec) < 1+ids+9 {
		return fmt.Errorf("object 0x%x: the dump ends inside its record at offset %d", h.ObjectID(p.obj), p.off)
	}
	if got := id(rec[1:]); got != h.ObjectID(p.obj) {
		return fmt.Errorf("object 0x%x: the record at offset %d is not it (it names 0x%x): %w", h.ObjectID(p.obj), p.off, got, input.ErrChanged)
	}
	v := &b.v
	*v = ObjectValues{Length: -1, Fields: v.Fields[:0]}
	tag := hprof.SubTag(rec[0])
	if (tag == hprof.SubInstanceDump || tag == hprof.SubObjArrayDump) && len(rec) < head {
		return fmt.Errorf("object 0x%x: the dump ends inside its record at offset %d", h.ObjectID(p.obj), p.off)
	}
	switch tag {
	case hprof.SubInstanceDump:
		n := int64(binary.BigEndian.Uint32(rec[1+2*ids+4:]))
		if int64(head)+n > int64(len(rec)) {
			if p.off+int64(head)+n > b.r.Size() {
				return fmt.Errorf("object 0x%x: its record at offset %d runs past the end of the dump", h.ObjectID(p.obj), p.off)
			}
			var err error
			if rec, err = b.exact(p.off, int64(head)+n); err != nil {
				return err
			}
		}
		v.Fields = h.appendFields(v.Fields, p.obj, rec[head:int64(head)+n], id)
	case hprof.SubObjArrayDump:
		v.Length, v.Elem = int64(binary.BigEndian.Uint32(rec[1+ids+4:])), TypeObject
		v.Data = rec[head:]
	case hprof.SubPrimArrayDump:
		v.Length, v.Elem = int64(binary.BigEndian.Uint32(rec[1+ids+4:])), Type(rec[1+ids+8])
		v.Data = rec[1+ids+9:]
	default:
		return b.r.ReadObject(p.off, h.ObjectID(p.obj), func(r hprof.Source, rec *hprof.Record) error {
			return h.recordValues(r, rec, p.obj, v, func(v *ObjectValues) error { return b.fn(p.k, v) })
		})
	}
	if v.Length >= 0 {
		want := v.Length * int64(h.typeSize(v.Elem))
		if v.Length != int64(h.ArrayLength(p.obj)) || int64(len(v.Data)) < want {
			return fmt.Errorf("object 0x%x: its array record at offset %d holds %d elements, the heap says %d: %w", h.ObjectID(p.obj), p.off, v.Length, h.ArrayLength(p.obj), input.ErrChanged)
		}
		v.Data = v.Data[:want]
	}
	return b.fn(p.k, v)
}

// exact reads n bytes at off into a buffer of their own.
func (b *bulkReader) exact(off, n int64) ([]byte, error) {
	if off < 0 || off >= b.r.Size() {
		return nil, fmt.Errorf("offset %d lies outside the dump (%d bytes): %w", off, b.r.Size(), input.ErrChanged)
	}
	n = min(n, b.r.Size()-off)
	buf := make([]byte, n)
	if _, err := b.r.ReadAt(buf, off); err != nil && err != io.EOF {
		return nil, err
	}
	return buf, nil
}
