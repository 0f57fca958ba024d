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

// legacyEnds lays classes out the way HotSpot did up to JDK 14
// (FieldsAllocationStyle=1, CompactFields on, the defaults).
//
// A class's fields start where its superclass's ended, rounded up to the
// reference size. They are placed by kind: longs and doubles (8-aligned),
// ints and floats, shorts and chars, bytes and booleans, then references
// aligned to the reference size. When aligning the first long leaves a
// 4-byte gap, it is filled with one int, else shorts, else bytes, else one
// reference. @Contended fields follow, each group preceded and followed by
// the contended padding.
func (c Config) legacyEnds(classes []Class, need []bool) []int {
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
		regular, group, whole := c.ownFields(cl)
		oopsFirst := c.JDK > 0 && c.JDK <= specialOrderLast && specialOrder[cl.Name]
		end := c.legacyPlace(start, regular, group, whole, oopsFirst)
		ends[i] = end
		next[i] = alignUp(end, c.Ref)
	}
	return ends
}

// legacyPlace returns the end of the fields one class adds at offset start.
func (c Config) legacyPlace(start int, regular, group []FieldType, whole, oopsFirst bool) int {
	var oops, longs, ints, shorts, bytes int
	for _, t := range regular {
		switch t.Size(c.Ref) {
		case 8:
			if t == Object {
				oops++
			} else {
				longs++
			}
		case 4:
			if t == Object {
				oops++
			} else {
				ints++
			}
		case 2:
			shorts++
		case 1:
			bytes++
		}
	}
	pos := start
	if whole {
		pos += contendedPadding
	}
	if oopsFirst {
		pos += oops * c.Ref
	}
	if longs > 0 {
		aligned := alignUp(pos, 8)
		if gap := aligned - pos; gap > 0 && !oopsFirst {
			// CompactFields: one int, else shorts, else bytes, else one
			// reference goes into the gap before the first long.
			if ints > 0 {
				ints--
				gap -= 4
			}
			for ; gap >= 2 && shorts > 0; gap -= 2 {
				shorts--
			}
			for ; gap > 0 && bytes > 0; gap-- {
				bytes--
			}
			if gap >= c.Ref && oops > 0 {
				oops--
			}
		}
		pos = aligned
	}
	pos += longs*8 + ints*4 + shorts*2 + bytes
	if !oopsFirst && oops > 0 {
		pos = alignUp(pos, c.Ref) + oops*c.Ref
	}
	if len(group) > 0 {
		pos += contendedPadding
		for _, t := range group {
			size := t.Size(c.Ref)
			pos = alignUp(pos, size) + size
		}
		pos += contendedPadding
	}
	if whole {
		pos += contendedPadding
	}
	return pos
}
