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
	rw.redactClass(c)
	rw.e.classDump(c)
}

// heapRedactor replaces the values of heap records on one goroutine and
// counts what it replaced and kept.
type heapRedactor struct {
	k       *keyer
	s       *scan
	p       *plan
	names   *renamer
	layouts layoutCache // the layouts of the classes met last
	tally
}

// tally counts what one goroutine replaced and kept of the heap; the
// tallies of all of them add up to the Summary.
type tally struct {
	arrays                                          [hprof.TypeLong + 1]Count
	instanceFields, staticFields, constants, opaque Count
	kept                                            []int64          // kept instance field values by keep index
	keptStatics                                     map[string]int64 // kept static values by CLASS.FIELD or LayoutStatics
}

func newHeapRedactor(k *keyer, s *scan, p *plan, names *renamer) *heapRedactor {
	return &heapRedactor{k: k, s: s, p: p, names: names,
		tally: tally{kept: make([]int64, len(p.kept)), keptStatics: map[string]int64{}}}
}

// addTo adds the tally to sum.
func (t *tally) addTo(sum *Summary, p *plan) {
	for typ, c := range t.arrays {
		if c.Values == 0 {
			continue
		}
		name := hprof.Type(typ).String()
		if sum.Arrays[name] == nil {
			sum.Arrays[name] = &Count{}
		}
		sum.Arrays[name].Values += c.Values
		sum.Arrays[name].Bytes += c.Bytes
	}
	for _, c := range [][2]*Count{{&sum.InstanceFields, &t.instanceFields}, {&sum.StaticFields, &t.staticFields},
		{&sum.Constants, &t.constants}, {&sum.Opaque, &t.opaque}} {
		c[0].Values += c[1].Values
		c[0].Bytes += c[1].Bytes
	}
	for i, n := range t.kept {
		if n > 0 {
			sum.Kept[p.kept[i]] += n
		}
	}
	for name, n := range t.keptStatics {
		sum.Kept[name] += n
	}
}

// redactClass replaces the primitive statics and constants of a
// CLASS_DUMP but the kept statics, and renames its fields with
// Options.Names.
func (h *heapRedactor) redactClass(c *hprof.ClassDump) {
	ids := h.s.header.IDSize
	for i := range c.Constants {
		k := &c.Constants[i]
		if k.Type != hprof.TypeObject {
			k.Value = h.k.field(k.Type, k.Value)
			h.constants.add(k.Type.Size(ids))
		}
	}
	for i := range c.Statics {
		st := &c.Statics[i]
		if st.Type == hprof.TypeObject {
			continue
		}
		if keep := h.p.keepIndex(h.s, c.ID, st.NameID); keep >= 0 {
			h.keptStatics[h.p.kept[keep]]++
			continue
		}
		if layoutStatic(h.s.className(c.ID), h.s.utf8[st.NameID]) {
			h.keptStatics[LayoutStatics]++
			continue
		}
		st.Value = h.k.field(st.Type, st.Value)
		h.staticFields.add(st.Type.Size(ids))
	}
	if h.names != nil {
		h.names.renameClass(h.k, c)
	}
}

// instanceLayout is the layout of an instance of class id with n field
// bytes, and how many leading bytes of them it covers; it counts the
// replaced and kept values and the opaque bytes.
func (h *heapRedactor) instanceLayout(id uint64, n int) (*layout, int) {
	l := h.layout(id)
	cover, values, bytes := l.cover(n)
	h.instanceFields.Values += int64(values)
	h.instanceFields.Bytes += int64(bytes)
	if cover < n {
		h.opaque.add(n - cover)
	}
	if l != nil {
		for _, op := range l.kept {
			if op.off+op.size <= cover {
				h.kept[op.keep]++
			}
		}
	}
	return l, cover
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
	l, cover := rw.instanceLayout(in.ClassID, len(payload))
	rw.replace(op{kind: opFields, cover: uint32(cover), layout: l}, payload)
	return rw.flush()
}

// layoutCache remembers the layouts of the classes met last, by a hash
// of the class id: the instances of a few classes make up most heaps,
// and the map of all layouts is slower to look up.
type layoutCache [1 << 12]struct {
	id uint64
	l  *layout
}

// layout is the layout of the instances of class id, nil for a class no
// CLASS_DUMP described.
func (h *heapRedactor) layout(id uint64) *layout {
	slot := &h.layouts[id*0x9E3779B97F4A7C15>>52]
	if slot.l == nil || slot.id != id {
		l := h.p.layouts[id]
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
	rw.arrays[a.ElemType].add(int(n))
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
	pos := int64(0)
	return rw.r.PayloadChunks(func(chunk []byte) error {
		rw.replace(op{kind: opChunk, t: t, piece: uint32(len(rw.cur.pieces))}, chunk)
		rw.cur.pieces = append(rw.cur.pieces, piece{big: d, pos: pos})
		pos += int64(len(chunk))
		return rw.flush()
	})
}
