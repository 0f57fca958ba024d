package layout

// hole is a run of unused bytes inside an instance layout.
type hole struct {
	off, size int
}

// compactLayout is what a subclass needs to know of a class laid out with
// the JDK 15+ algorithm.
type compactLayout struct {
	holes     []hole // gaps between the header and last, by offset, merged
	last      int    // end of the last field in the superclass chain (or the header)
	lastRef   bool   // the field that ends at last is a reference
	end       int    // end of the instance, trailing padding included
	contended bool   // has @Contended annotations, itself or inherited
}

// compactLayoutAll lays classes out the way HotSpot's FieldLayoutBuilder does
// from JDK 15 on (with UseEmptySlotsInSupers, the default).
//
// A class starts from its superclass's layout as rebuilt from field offsets,
// so every gap before the superclass's last field (in the header or between
// fields) is a hole it may fill. Primitive fields are placed largest first,
// then references; each goes into the smallest hole that fits it once
// aligned to its own size (the last such hole when several are as small),
// or else is appended at the end, the alignment padding becoming a new hole.
// If the superclass chain has @Contended annotations, no hole is reused and
// the fields start after a contended padding. A @Contended class starts and
// ends with a padding; a @Contended group is appended after a padding, and
// a padding closes the class. From JDK 25 (JDK-8353273) a class whose
// superclass chain ends with a reference places its references first, so
// that they continue the superclass's. The offsets of declared fields go to
// offs when it is not nil.
func (c Config) compactLayoutAll(classes []Class, need []bool, offs [][]int, rev bool) []int {
	seq, super := order(classes, need)
	layouts := make([]compactLayout, len(classes))
	ends := make([]int, len(classes))
	for _, i := range seq {
		cl := &classes[i]
		var st compactState
		st.ref = c.Ref
		st.end = c.Header
		st.last = c.Header
		inherited := false
		if s := super[i]; s >= 0 {
			p := &layouts[s]
			st.last = p.last
			st.lastRef = p.lastRef
			st.end = p.last
			inherited = p.contended
			st.holes = append(st.holes, p.holes...)
			if p.contended {
				st.pad()
			}
		}
		if cl.Elem != 0 {
			layouts[i] = compactLayout{holes: st.holes, last: st.last, lastRef: st.lastRef, end: st.end, contended: inherited}
			ends[i] = st.end
			continue
		}
		regular, group, whole := c.ownFields(cl, rev)
		if offs != nil {
			st.off = offs[i]
		}
		if whole {
			st.pad()
		}
		// Below a @Contended superclass, or in a @Contended class, fields
		// only ever go to the end.
		oopsFirst := c.JDK >= 25 && st.lastRef
		st.addAll(regular, whole || inherited, oopsFirst)
		if len(group) > 0 {
			st.pad()
			st.addAll(group, true, false)
		}
		if whole || len(group) > 0 {
			st.pad()
		}
		layouts[i] = compactLayout{
			holes:     st.gaps(),
			last:      st.last,
			lastRef:   st.lastRef,
			end:       st.end,
			contended: inherited || whole || len(group) > 0,
		}
		ends[i] = st.end
	}
	return ends
}

// compactState is a layout under construction.
type compactState struct {
	ref     int
	holes   []hole
	last    int   // end of the last field placed so far
	lastRef bool  // the field that ends at last is a reference
	end     int   // end of the layout
	off     []int // where declared fields' offsets go, if not nil
}

// pad appends a contended padding.
func (s *compactState) pad() {
	s.holes = append(s.holes, hole{off: s.end, size: contendedPadding})
	s.end += contendedPadding
}

// addAll places fields: primitives by decreasing size, then references
// (references first with oopsFirst), fields of one size in declaration
// order. With appendOnly, every field goes to the end (a contended group).
func (s *compactState) addAll(fields []slot, appendOnly, oopsFirst bool) {
	oops := func() {
		for _, f := range fields {
			if f.t == Object {
				f.record(s.off, s.add(s.ref, true, appendOnly))
			}
		}
	}
	if oopsFirst {
		oops()
	}
	for _, size := range [...]int{8, 4, 2, 1} {
		for _, f := range fields {
			if f.t != Object && f.t.Size(s.ref) == size {
				f.record(s.off, s.add(size, false, appendOnly))
			}
		}
	}
	if !oopsFirst {
		oops()
	}
}

// add places one field of the given size (a reference with ref), aligned
// to its size, and returns its offset.
func (s *compactState) add(size int, ref, appendOnly bool) int {
	best := -1
	if !appendOnly {
		for k := len(s.holes) - 1; k >= 0; k-- {
			h := s.holes[k]
			if h.size >= size+(alignUp(h.off, size)-h.off) &&
				(best < 0 || h.size < s.holes[best].size) {
				best = k
			}
		}
	}
	if best < 0 {
		if adj := alignUp(s.end, size) - s.end; adj > 0 {
			s.holes = append(s.holes, hole{off: s.end, size: adj})
			s.end += adj
		}
		s.end += size
		s.last, s.lastRef = s.end, ref
		return s.end - size
	}
	h := s.holes[best]
	adj := alignUp(h.off, size) - h.off
	var repl []hole
	if adj > 0 {
		repl = append(repl, hole{off: h.off, size: adj})
	}
	if rest := h.size - adj - size; rest > 0 {
		repl = append(repl, hole{off: h.off + adj + size, size: rest})
	}
	s.holes = append(s.holes[:best], append(repl, s.holes[best+1:]...)...)
	if e := h.off + adj + size; e > s.last {
		s.last, s.lastRef = e, ref
	}
	return h.off + adj
}

// gaps returns the holes as a subclass rebuilding this layout from field
// offsets sees them: every unused run before the last field, merged. The
// holes are kept in offset order throughout.
func (s *compactState) gaps() []hole {
	hs := make([]hole, 0, len(s.holes))
	for _, h := range s.holes {
		if h.off < s.last {
			if h.off+h.size > s.last {
				h.size = s.last - h.off
			}
			hs = append(hs, h)
		}
	}
	out := hs[:0]
	for _, h := range hs {
		if n := len(out); n > 0 && out[n-1].off+out[n-1].size == h.off {
			out[n-1].size += h.size
			continue
		}
		out = append(out, h)
	}
	return out
}
