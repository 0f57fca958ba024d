package model

import "github.com/hprofctl/hprofctl/model/layout"

// layoutObservations are the address gaps between consecutive heap
// objects (object ids are addresses in HotSpot dumps), and the sizes
// readers report, from which chooseLayout infers the JVM's layout.
type layoutObservations struct {
	// prevID, prevClass and prevLength describe the object observed
	// last, when prevValid.
	prevID     uint64
	prevClass  ClassIndex
	prevLength uint32
	prevValid  bool
	minGap     []int64 // per class: the smallest gap after an instance
	arraySeen  []int   // per array class: observations kept, up to 64
	arrayObs   []layout.Observation
}

// addClass makes room for the observations of one more class.
func (l *layoutObservations) addClass() {
	l.minGap = append(l.minGap, 0)
	l.arraySeen = append(l.arraySeen, 0)
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
