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
		rw.flush()
		return rw.r.PayloadChunks(func(chunk []byte) error {
			rw.writePayload(chunk)
			return nil
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
	rw.flush()
	return nil
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

// instance writes an INSTANCE_DUMP with its primitive fields replaced.
func (rw *rewriter) instance(in *hprof.InstanceDump) error {
	payload, err := rw.r.Payload()
	if err != nil {
		return err
	}
	data := append(rw.data[:0], payload...)
	rw.data = data
	l := rw.p.layouts[in.ClassID]
	covered := 0
	if l != nil {
		covered = rw.fields(l, data)
	}
	if covered < len(data) {
		rw.k.array(hprof.TypeByte, data[covered:])
		rw.sum.Opaque.add(len(data) - covered)
	}
	e := &rw.e
	e.u1(uint8(hprof.SubInstanceDump))
	e.id(in.ID)
	e.u4(in.TraceSerial)
	e.id(in.ClassID)
	e.u4(uint32(len(data)))
	rw.flush()
	rw.writePayload(data)
	return nil
}

// fields replaces the primitive fields of layout l in data and returns
// how many leading bytes of data the layout describes.
func (rw *rewriter) fields(l *layout, data []byte) int {
	for _, op := range l.ops {
		size := op.t.Size(rw.e.ids)
		if op.off+size > len(data) {
			return op.off
		}
		if op.keep >= 0 {
			rw.sum.Kept[rw.p.kept[op.keep]]++
			continue
		}
		b := data[op.off : op.off+size]
		var v uint64
		for _, c := range b {
			v = v<<8 | uint64(c)
		}
		v = rw.k.field(op.t, v)
		for i := size - 1; i >= 0; i-- {
			b[i] = byte(v)
			v >>= 8
		}
		rw.sum.InstanceFields.add(size)
	}
	return min(l.size, len(data))
}

// primArray writes a PRIM_ARRAY_DUMP with its elements replaced.
func (rw *rewriter) primArray(rec *hprof.Record) error {
	a := rec.PrimArray
	e := &rw.e
	e.u1(uint8(rec.Sub))
	e.id(a.ID)
	e.u4(a.TraceSerial)
	e.u4(a.Length)
	e.u1(uint8(a.ElemType))
	rw.flush()
	if rec.Sub == hprof.SubPrimArrayNoData {
		return nil
	}
	n := rw.r.PayloadSize()
	c := rw.sum.Arrays[a.ElemType.String()]
	if c == nil {
		c = &Count{}
		rw.sum.Arrays[a.ElemType.String()] = c
	}
	c.Values++
	c.Bytes += n
	if n > bigArray {
		return rw.bigArray(rec)
	}
	payload, err := rw.r.Payload()
	if err != nil {
		return err
	}
	data := append(rw.data[:0], payload...)
	rw.data = data
	rw.k.array(a.ElemType, data)
	rw.writePayload(data)
	return nil
}

// bigArray streams the replacement of an array too big to hold, from the
// digest the first pass took.
func (rw *rewriter) bigArray(rec *hprof.Record) error {
	t := rec.PrimArray.ElemType
	d := rw.s.big[rec.Offset]
	if d == nil {
		return &hprof.FormatError{File: rw.name, Offset: rec.Offset, Msg: "the array was not seen by the first pass: the input changed between the two reads"}
	}
	es := t.Size(rw.e.ids)
	elem := d.first[:es]
	if d.uniform {
		rw.k.permuteClass(domainUniform, t, elem, uniformClass(t, rw.r.PayloadSize()))
	}
	pos := int64(0)
	return rw.r.PayloadChunks(func(chunk []byte) error {
		out := rw.data[:0]
		if cap(out) < len(chunk) {
			out = make([]byte, 0, len(chunk))
		}
		out = out[:len(chunk)]
		rw.data = out
		if d.uniform {
			for p := 0; p < len(out); p += es {
				copy(out[p:p+es], elem)
			}
		} else {
			rw.k.keystream(d.sum[:], pos, out)
			unsurrogate(t, out, pos)
		}
		pos += int64(len(out))
		rw.writePayload(out)
		return nil
	})
}
