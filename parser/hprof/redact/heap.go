package redact

import (
	"github.com/hprofctl/hprofctl/parser/hprof"
)

// LayoutStatics is how Summary.Kept names the platform statics kept for
// the layout inference (see layoutStatic).
const LayoutStatics = "platform Unsafe offset and array-shape statics"

// sub writes one heap sub-record, its values replaced.
func (rw *rewriter) sub(rec *hprof.Record) error {
	e := &rw.e
	switch rec.Sub {
	case hprof.SubClassDump:
		rw.classDump(&rec.Class)
	case hprof.SubInstanceDump:
		return rw.instance(&rec.Instance)
	case hprof.SubObjArrayDump:
		a := rec.ObjArray
		e.u1(uint8(hprof.SubObjArrayDump))
		e.id(a.ID)
		e.u4(a.TraceSerial)
		e.u4(a.Length)
		e.id(a.ClassID)
		return rw.r.PayloadChunks(func(chunk []byte) error {
			rw.e.b = append(rw.e.b, chunk...)
			return rw.flush()
		})
	case hprof.SubPrimArrayDump, hprof.SubPrimArrayNoData:
		return rw.primArray(rec)
	case hprof.SubHeapDumpInfo:
		e.u1(uint8(hprof.SubHeapDumpInfo))
		e.u4(rec.HeapInfo.HeapID)
		e.id(rec.HeapInfo.NameID)
	default:
		e.root(&rec.Root)
	}
	return rw.flush()
}

// classDump writes a CLASS_DUMP with its primitive statics and constants
// replaced, the kept statics copied.
func (rw *rewriter) classDump(c *hprof.ClassDump) {
	for i := range c.Constants {
		k := &c.Constants[i]
		if k.Type != hprof.TypeObject {
			k.Value = rw.k.field(k.Type, k.Value)
			rw.sum.Constants.add(k.Type.Size(rw.e.ids))
		}
	}
	for i := range c.Statics {
		st := &c.Statics[i]
		if st.Type == hprof.TypeObject {
			continue
		}
		if keep := rw.p.keepIndex(rw.s, c.ID, st.NameID); keep >= 0 {
			rw.sum.Kept[rw.p.kept[keep]]++
			continue
		}
		if layoutStatic(rw.s.className(c.ID), rw.s.utf8[st.NameID]) {
			rw.sum.Kept[LayoutStatics]++
			continue
		}
		st.Value = rw.k.field(st.Type, st.Value)
		rw.sum.StaticFields.add(st.Type.Size(rw.e.ids))
	}
	if rw.names != nil {
		rw.names.renameClass(c)
	}
	rw.e.classDump(c)
}

// instance writes an INSTANCE_DUMP; its primitive fields are replaced
// in the batch.
func (rw *rewriter) instance(in *hprof.InstanceDump) error {
	payload, err := rw.r.Payload()
	if err != nil {
		return err
	}
	e := &rw.e
	e.u1(uint8(hprof.SubInstanceDump))
	e.id(in.ID)
	e.u4(in.TraceSerial)
	e.id(in.ClassID)
	e.u4(uint32(len(payload)))
	l := rw.layout(in.ClassID)
	cover, values, bytes := l.cover(len(payload))
	rw.sum.InstanceFields.Values += int64(values)
	rw.sum.InstanceFields.Bytes += int64(bytes)
	if cover < len(payload) {
		rw.sum.Opaque.add(len(payload) - cover)
	}
	if l != nil {
		for _, op := range l.kept {
			if op.off+op.size <= cover {
				rw.kept[op.keep]++
			}
		}
	}
	rw.replace(op{kind: opFields, cover: uint32(cover), layout: l}, payload)
	return rw.flush()
}

// layoutCache remembers the layouts of the classes met last, by a hash
// of the class id: the instances of a few classes make up most heaps,
// and the map of all layouts is slower to look up.
type layoutCache [1 << 10]struct {
	id uint64
	l  *layout
}

// layout is the layout of the instances of class id, nil for a class no
// CLASS_DUMP described.
func (rw *rewriter) layout(id uint64) *layout {
	slot := &rw.layouts[id*0x9E3779B97F4A7C15>>54]
	if slot.l == nil || slot.id != id {
		l := rw.p.layouts[id]
		if l == nil {
			return nil
		}
		slot.id, slot.l = id, l
	}
	return slot.l
}

// replace appends payload to the batch, to be replaced as o says.
func (rw *rewriter) replace(o op, payload []byte) {
	o.off, o.n = uint32(len(rw.e.b)), uint32(len(payload))
	rw.e.b = append(rw.e.b, payload...)
	rw.ops = append(rw.ops, o)
}

// primArray writes a PRIM_ARRAY_DUMP; its elements are replaced in the
// batch.
func (rw *rewriter) primArray(rec *hprof.Record) error {
	a := rec.PrimArray
	e := &rw.e
	e.u1(uint8(rec.Sub))
	e.id(a.ID)
	e.u4(a.TraceSerial)
	e.u4(a.Length)
	e.u1(uint8(a.ElemType))
	if rec.Sub == hprof.SubPrimArrayNoData {
		return rw.flush()
	}
	n := rw.r.PayloadSize()
	rw.arrays[a.ElemType].Values++
	rw.arrays[a.ElemType].Bytes += n
	if n > bigArray {
		return rw.bigArray(rec)
	}
	payload, err := rw.r.Payload()
	if err != nil {
		return err
	}
	rw.replace(op{kind: opArray, t: a.ElemType}, payload)
	return rw.flush()
}

// bigArray streams the elements of an array too big to hold into the
// batches, to be replaced from the digest the first pass took.
func (rw *rewriter) bigArray(rec *hprof.Record) error {
	t := rec.PrimArray.ElemType
	d := rw.s.big[rec.Offset]
	if d == nil {
		return &hprof.FormatError{File: rw.name, Offset: rec.Offset, Msg: "the array was not seen by the first pass: the input changed between the two reads"}
	}
	if d.uniform {
		es := t.Size(rw.e.ids)
		d.elem = d.first
		rw.k.permuteClass(domainUniform, t, d.elem[:es], uniformClass(t, rw.r.PayloadSize()))
	}
	pos := int64(0)
	return rw.r.PayloadChunks(func(chunk []byte) error {
		rw.replace(op{kind: opChunk, t: t, piece: uint32(len(rw.cur.pieces))}, chunk)
		rw.cur.pieces = append(rw.cur.pieces, piece{big: d, pos: pos})
		pos += int64(len(chunk))
		return rw.flush()
	})
}
