package layout

// specialOrder names the core classes whose field offsets HotSpot hard-coded
// up to JDK 8: they get references first and no gap filling, whatever
// FieldsAllocationStyle and CompactFields say.
var specialOrder = map[string]bool{
	"java.lang.AssertionStatusDirectives": true,
	"java.lang.Class":                     true,
	"java.lang.ClassLoader":               true,
	"java.lang.ref.Reference":             true,
	"java.lang.ref.SoftReference":         true,
	"java.lang.StackTraceElement":         true,
	"java.lang.String":                    true,
	"java.lang.Throwable":                 true,
	"java.lang.Boolean":                   true,
	"java.lang.Character":                 true,
	"java.lang.Float":                     true,
	"java.lang.Double":                    true,
	"java.lang.Byte":                      true,
	"java.lang.Short":                     true,
	"java.lang.Integer":                   true,
	"java.lang.Long":                      true,
}

// specialOrderLast is the last release that still treats specialOrder apart.
const specialOrderLast = 14

// legacyLayout lays classes out the way HotSpot did up to JDK 14
// (FieldsAllocationStyle=1, CompactFields on, the defaults; with the
// LegacyOopsFirst scheme FieldsAllocationStyle=0).
//
// A class's fields start where its superclass's ended, rounded up to the
// reference size. They are placed by kind: longs and doubles (8-aligned),
// ints and floats, shorts and chars, bytes and booleans, then references
// aligned to the reference size, each kind in declaration order. When
// aligning the first long leaves a 4-byte gap, it is filled with the first
// int, else the first shorts, else bytes, else one reference. @Contended
// fields follow, each group preceded and followed by the contended padding.
func (c Config) legacyLayout(classes []Class, need []bool, offs [][]int, rev bool) []int {
	seq, super := order(classes, need)
	next := make([]int, len(classes)) // where subclasses' fields start
	ends := make([]int, len(classes))
	for _, i := range seq {
		cl := &classes[i]
		start := c.Header
		if s := super[i]; s >= 0 {
			start = next[s]
		}
		if cl.Elem != 0 {
			next[i], ends[i] = start, start
			continue
		}
		regular, group, whole := c.ownFields(cl, rev)
		special := c.JDK > 0 && c.JDK <= specialOrderLast && specialOrder[cl.Name]
		var off []int
		if offs != nil {
			off = offs[i]
		}
		end := c.legacyPlace(start, regular, group, whole, special || c.Scheme == LegacyOopsFirst, !special, off)
		ends[i] = end
		next[i] = alignUp(end, c.Ref)
	}
	return ends
}

// The field kinds of the legacy layout in placement order;
// kindRef stands for references, whatever their size.
const (
	kindLong = iota
	kindInt
	kindShort
	kindByte
	kindRef
	numKinds
)

// legacyKind returns the kind of a field of type t.
func legacyKind(t FieldType) int {
	switch t {
	case Object:
		return kindRef
	case Long, Double:
		return kindLong
	case Int, Float:
		return kindInt
	case Char, Short:
		return kindShort
	case Boolean, Byte:
		return kindByte
	}
	return -1
}

// legacyPlace places the fields one class adds at offset start, references
// first with oopsFirst, primitives in the gap before the first long with
// compact, writes the offset of each declared field to off (when not nil)
// and returns the end of the class's fields.
func (c Config) legacyPlace(start int, regular, group []slot, whole, oopsFirst, compact bool, off []int) int {
	var count [numKinds]int
	for _, f := range regular {
		if k := legacyKind(f.t); k >= 0 {
			count[k]++
		}
	}
	size := [numKinds]int{8, 4, 2, 1, c.Ref}
	pos := start
	if whole {
		pos += contendedPadding
	}
	var next [numKinds]int // where the next field of each kind goes
	if oopsFirst {
		next[kindRef] = pos
		pos += count[kindRef] * c.Ref
	}
	// gap[k] fields of kind k go into the hole before the first long,
	// from gapAt[k] on.
	var gap, gapAt [numKinds]int
	if count[kindLong] > 0 {
		aligned := alignUp(pos, 8)
		if room := aligned - pos; room > 0 && compact {
			// CompactFields: one int, else shorts, else bytes, else one
			// reference (when references come last) goes into the gap
			// before the first long.
			at := pos
			gapAt[kindInt] = at
			if count[kindInt] > 0 {
				gap[kindInt] = 1
				room -= 4
				at += 4
			}
			gapAt[kindShort] = at
			for ; room >= 2 && gap[kindShort] < count[kindShort]; room -= 2 {
				gap[kindShort]++
				at += 2
			}
			gapAt[kindByte] = at
			for ; room > 0 && gap[kindByte] < count[kindByte]; room-- {
				gap[kindByte]++
			}
			gapAt[kindRef] = at
			if room >= c.Ref && count[kindRef] > 0 && !oopsFirst {
				gap[kindRef] = 1
			}
		}
		pos = aligned
	}
	for k := kindLong; k <= kindByte; k++ {
		next[k] = pos
		pos += (count[k] - gap[k]) * size[k]
	}
	if !oopsFirst && count[kindRef] > gap[kindRef] {
		next[kindRef] = alignUp(pos, c.Ref)
		pos = next[kindRef] + (count[kindRef]-gap[kindRef])*c.Ref
	}
	for _, f := range regular {
		k := legacyKind(f.t)
		if k < 0 {
			continue
		}
		at := next[k]
		if gap[k] > 0 {
			at = gapAt[k]
			gap[k]--
			gapAt[k] += size[k]
		} else {
			next[k] += size[k]
		}
		f.record(off, at)
	}
	if len(group) > 0 {
		pos += contendedPadding
		for _, f := range group {
			size := f.t.Size(c.Ref)
			pos = alignUp(pos, size)
			f.record(off, pos)
			pos += size
		}
		pos += contendedPadding
	}
	if whole {
		pos += contendedPadding
	}
	return pos
}
