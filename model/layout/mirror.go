package layout

import "strings"

// MirrorSizes returns, for every class, the bytes its java.lang.Class object
// (its mirror) takes in the heap, or 0 for all classes when the slice holds
// no java.lang.Class to size mirrors by.
//
// Up to JDK 6 every mirror is one instance of java.lang.Class, hidden fields
// included. From JDK 7 on (InstanceMirrorKlass) a mirror also holds its
// class's static fields, right after the instance fields of java.lang.Class
// (whose instance size, aligned to Align, is where they start): references
// first, then longs and doubles aligned to 8, ints and floats, shorts and
// chars, bytes and booleans. The block is rounded up to the word size and
// the whole mirror to Align. JDK 15 and later place static fields the same
// way: the static layout only ever appends, references first, then the
// primitives by decreasing size. Mirrors of array classes and of primitive
// types have no static fields. With JDK 0 (unknown release) mirrors are
// sized without static fields.
func (c Config) MirrorSizes(classes []Class) []int {
	sizes := make([]int, len(classes))
	class := -1
	for i := range classes {
		if classes[i].Name == "java.lang.Class" && classes[i].Elem == 0 {
			class = i
			break
		}
	}
	if class < 0 {
		return sizes
	}
	need := make([]bool, len(classes))
	need[class] = true
	ends, _ := c.lay(classes, need, nil)
	base := alignUp(ends[class], c.Align)
	for i := range classes {
		sizes[i] = base
		if c.JDK >= 7 && classes[i].Elem == 0 {
			sizes[i] = alignUp(base+alignUp(c.staticBytes(base, classes[i].Statics), c.Word), c.Align)
		}
	}
	return sizes
}

// staticBytes returns how many bytes static fields take when laid out from
// offset base, alignment padding included.
func (c Config) staticBytes(base int, statics []Static) int {
	var oops, longs, ints, shorts, bytes int
	for _, s := range statics {
		if strings.HasPrefix(s.Name, "<") {
			continue
		}
		switch legacyKind(s.Type) {
		case kindRef:
			oops++
		case kindLong:
			longs++
		case kindInt:
			ints++
		case kindShort:
			shorts++
		case kindByte:
			bytes++
		}
	}
	pos := base + oops*c.Ref
	if longs > 0 {
		pos = alignUp(pos, 8)
	}
	pos += longs*8 + ints*4 + shorts*2 + bytes
	return pos - base
}
