package layout

import (
	"fmt"
	"strings"
)

// clueKind says what a clue's value is under a layout.
type clueKind uint8

const (
	clueField   clueKind = iota + 1 // offset of an instance field
	clueBase                        // offset of an array's first element
	clueScale                       // size of an array element
	clueShift                       // log2 of the size of an array element
	clueAddress                     // the machine word size
)

// clue is a static field whose value the JVM computed from its own layout
// (Unsafe.objectFieldOffset, arrayBaseOffset, arrayIndexScale, addressSize)
// when the class was initialised, so a dump records the layout even where
// its ids are not addresses.
type clue struct {
	holder int // the class declaring the static
	name   string
	value  int64
	kind   clueKind
	class  int       // clueField: the class declaring the field
	field  int       // clueField: the field's index in that class's Fields
	elem   FieldType // clueBase, clueScale, clueShift: the element type
}

// describe renders the clue as the dump shows it.
func (k clue) describe(classes []Class) string {
	return fmt.Sprintf("%s.%s = %d", classes[k.holder].Name, k.name, k.value)
}

// arrayTypes maps the type words of Unsafe's ARRAY_<T>_BASE_OFFSET and
// ARRAY_<T>_INDEX_SCALE constants to element types.
var arrayTypes = map[string]FieldType{
	"BOOLEAN": Boolean, "BYTE": Byte, "SHORT": Short, "CHAR": Char, "INT": Int,
	"LONG": Long, "FLOAT": Float, "DOUBLE": Double, "OBJECT": Object,
}

// findClues collects the static long and int fields that hold layout facts:
//
//   - field offsets, named after the field: valueOffset, WAIT_STATUS_OFFSET
//     or, in capitals without a suffix, SIZECTL (sizeCtl); the field is
//     looked up among the holder's own fields, else in its nested classes
//     (AbstractQueuedSynchronizer.waitStatusOffset is the offset of
//     AbstractQueuedSynchronizer$Node.waitStatus), and must be unique there;
//   - Unsafe's ARRAY_<T>_BASE_OFFSET, ARRAY_<T>_INDEX_SCALE and
//     ADDRESS_SIZE, and UnsafeConstants.ADDRESS_SIZE0;
//   - the array base and shift of the concurrency classes: ABASE, ASHIFT
//     (also SBASE, TSHIFT, ... in JDK 7's ConcurrentHashMap) for arrays of
//     references, and base, scale, shift in the Atomic*Array classes.
//
// Statics that are 0 (a class not yet initialised), implausibly large, or
// (field offsets) not aligned to the field's size are skipped: a capitalised
// name alone is weak evidence.
func findClues(classes []Class) []clue {
	var nested map[string][]int
	var out []clue
	for i := range classes {
		cl := &classes[i]
		if cl.Elem != 0 {
			continue
		}
		for _, s := range cl.Statics {
			if (s.Type != Long && s.Type != Int) || s.Value == 0 || s.Value >= 1<<20 {
				continue
			}
			k := clue{holder: i, name: s.Name, value: int64(s.Value)}
			if arrayClue(&k, cl.Name, s.Name) {
				out = append(out, k)
				continue
			}
			field := offsetFieldName(s.Name)
			if field == "" {
				continue
			}
			if nested == nil {
				nested = nestedClasses(classes)
			}
			if c, f, ok := lookupField(classes, i, nested[cl.Name], field); ok && plausibleOffset(k.value, classes[c].Fields[f]) {
				k.kind, k.class, k.field = clueField, c, f
				out = append(out, k)
			}
		}
	}
	return out
}

// arrayClue fills in k if the static name of class holder is an array or
// word size constant.
func arrayClue(k *clue, holder, name string) bool {
	switch holder {
	case "sun.misc.Unsafe", "jdk.internal.misc.Unsafe":
		if name == "ADDRESS_SIZE" {
			k.kind = clueAddress
			return true
		}
		for _, suffix := range []string{"_BASE_OFFSET", "_INDEX_SCALE"} {
			t, ok := arrayTypes[strings.TrimSuffix(strings.TrimPrefix(name, "ARRAY_"), suffix)]
			if ok && strings.HasPrefix(name, "ARRAY_") && strings.HasSuffix(name, suffix) {
				k.kind, k.elem = clueBase, t
				if suffix == "_INDEX_SCALE" {
					k.kind = clueScale
				}
				return true
			}
		}
		return false
	case "jdk.internal.misc.UnsafeConstants":
		if name == "ADDRESS_SIZE0" {
			k.kind = clueAddress
			return true
		}
		return false
	}
	simple := holder[strings.LastIndexAny(holder, ".$")+1:]
	atomicArray := strings.HasPrefix(simple, "Atomic") && strings.HasSuffix(simple, "Array")
	k.elem = Object
	switch {
	case atomicArray && strings.Contains(simple, "Integer"):
		k.elem = Int
	case atomicArray && strings.Contains(simple, "Long"):
		k.elem = Long
	}
	switch name {
	case "ABASE", "SBASE", "TBASE":
		k.kind = clueBase
	case "ASHIFT", "SSHIFT", "TSHIFT":
		k.kind = clueShift
	case "base", "scale", "shift":
		if atomicArray {
			k.kind = map[string]clueKind{"base": clueBase, "scale": clueScale, "shift": clueShift}[name]
		}
	}
	return k.kind != 0
}

// offsetFieldName returns the field a static's name says it holds the
// offset of, normalised by normalize, or "" if the name says no such thing.
func offsetFieldName(name string) string {
	switch {
	case len(name) > len("Offset") && strings.HasSuffix(name, "Offset"):
		return normalize(strings.TrimSuffix(name, "Offset"))
	case len(name) > len("_OFFSET") && strings.HasSuffix(name, "_OFFSET"):
		return normalize(strings.TrimSuffix(name, "_OFFSET"))
	case len(name) > 2 && strings.ToUpper(name) == name && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == "":
		return normalize(name)
	}
	return ""
}

// plausibleOffset reports whether a field of type t can sit at offset off
// in some HotSpot layout: past the smallest header and aligned to its size
// (references to 4 bytes at least).
func plausibleOffset(off int64, t FieldType) bool {
	size := int64(t.Size(4))
	return off >= 8 && size > 0 && off%size == 0
}

// normalize folds a Java identifier so that waitStatus, WAITSTATUS and
// WAIT_STATUS compare equal.
func normalize(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, "_", ""))
}

// nestedClasses maps each outer class name to the indices of the classes
// nested directly in it (Outer$Inner).
func nestedClasses(classes []Class) map[string][]int {
	m := make(map[string][]int)
	for i := range classes {
		name := classes[i].Name
		if k := strings.LastIndexByte(name, '$'); k > 0 && classes[i].Elem == 0 {
			m[name[:k]] = append(m[name[:k]], i)
		}
	}
	return m
}

// lookupField finds the field whose normalised name is field: among the
// own fields of class holder, else in exactly one of the nested classes.
func lookupField(classes []Class, holder int, nested []int, field string) (class, index int, ok bool) {
	if f := fieldIndex(&classes[holder], field); f >= 0 {
		return holder, f, true
	}
	class, index = -1, -1
	for _, n := range nested {
		if f := fieldIndex(&classes[n], field); f >= 0 {
			if class >= 0 {
				return 0, 0, false
			}
			class, index = n, f
		}
	}
	return class, index, class >= 0
}

// fieldIndex returns the index of the declared field of cl whose
// normalised name is field, -1 if none or several.
func fieldIndex(cl *Class, field string) int {
	if len(cl.Names) != len(cl.Fields) {
		return -1
	}
	found := -1
	for k, n := range cl.Names {
		if normalize(n) == field {
			if found >= 0 {
				return -1
			}
			found = k
		}
	}
	return found
}

// predict returns the value config c gives the clue; offs are the field
// offsets under c.
func (c Config) predict(k *clue, offs [][]int) int64 {
	switch k.kind {
	case clueField:
		if o := offs[k.class]; o != nil {
			return int64(o[k.field])
		}
	case clueBase:
		return int64(c.ArrayBase(k.elem))
	case clueScale:
		return int64(k.elem.Size(c.Ref))
	case clueShift:
		shift := int64(0)
		for s := k.elem.Size(c.Ref); s > 1; s >>= 1 {
			shift++
		}
		return shift
	case clueAddress:
		return int64(c.Word)
	}
	return -1
}
