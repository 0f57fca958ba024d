// Package layout computes the shallow sizes HotSpot gives Java objects, the
// numbers `jmap -histo` reports, from what an HPROF dump records about
// classes.
//
// A dump lists every class's own instance fields and their basic types, but
// not the object header size, the reference size, the object alignment or
// the algorithm the VM used to place the fields. Adding up field sizes is
// therefore not enough: HotSpot groups fields by size, fills alignment gaps
// (CompactFields), rounds a superclass's field block up to the reference
// size before JDK 15, reuses holes left in superclasses from JDK 15 on,
// injects hidden fields into some core classes and pads @Contended fields.
// Config describes one VM memory layout and computes sizes under it; Infer
// picks the Config that best explains the object addresses seen in a dump.
package layout

import "fmt"

// FieldType is an HPROF basic type code.
type FieldType uint8

// The HPROF basic type codes of fields and array elements.
const (
	Object  FieldType = 2  // object reference
	Boolean FieldType = 4  // boolean
	Char    FieldType = 5  // char
	Float   FieldType = 6  // float
	Double  FieldType = 7  // double
	Byte    FieldType = 8  // byte
	Short   FieldType = 9  // short
	Int     FieldType = 10 // int
	Long    FieldType = 11 // long
)

// Size returns the number of bytes a field or array element of type t takes
// in the heap of a VM whose references take ref bytes; 0 for an unknown code.
func (t FieldType) Size(ref int) int {
	switch t {
	case Object:
		return ref
	case Boolean, Byte:
		return 1
	case Char, Short:
		return 2
	case Float, Int:
		return 4
	case Double, Long:
		return 8
	}
	return 0
}

// Class is one class as the dump describes it.
type Class struct {
	// Name is the Java name: "java.lang.String", "int[]",
	// "java.util.HashMap$Node[]".
	Name string
	// Super is the index of the superclass in the same slice, -1 for none.
	Super int
	// Fields are the class's own non-static fields in the order the dump
	// lists them.
	Fields []FieldType
	// Names optionally holds the field names parallel to Fields (nil when
	// unknown). They find the @Contended fields of core classes such as
	// java.lang.Thread, the fields that offset statics name (see Infer)
	// and, for java.lang.String, whether the dump lists fields in
	// declaration order (see FieldOffsets).
	Names []string
	// Elem is the element type of an array class (Object for arrays of
	// references) and 0 for any other class.
	Elem FieldType
	// Statics are the class's static fields with their values; they make
	// up part of its java.lang.Class mirror from JDK 7 on, and some of
	// them hold field offsets that tell the layout (see Infer).
	Statics []Static
}

// Static is a static field of a class and the value the dump gives it.
type Static struct {
	// Name is the field's name; HotSpot dumps add pseudo fields whose
	// names start with '<' (such as "<resolved_references>"), which are
	// not part of the class's statics and are ignored.
	Name string
	// Type is the field's basic type.
	Type FieldType
	// Value holds a primitive value's bits, zero-extended (an object id
	// for a reference).
	Value uint64
}

// Scheme is a field-layout algorithm of HotSpot.
type Scheme uint8

const (
	// Legacy is the layout of JDK 1.4 to 14: fields grouped by size
	// (longs/doubles, ints/floats, shorts/chars, bytes/booleans, then
	// references), one alignment gap filled, and each class's block of
	// fields rounded up to the reference size before subclasses add theirs.
	Legacy Scheme = iota + 1
	// Compact15 is the layout of JDK 15 and later (JDK-8237767): fields
	// placed largest first into the smallest hole that fits, holes left by
	// superclasses reused, references grouped after the primitives.
	Compact15
	// LegacyOopsFirst is the legacy layout with -XX:FieldsAllocationStyle=0:
	// each class's references come before its primitive fields, and only
	// primitives fill the gap before the first long.
	LegacyOopsFirst
)

// String names the scheme.
func (s Scheme) String() string {
	switch s {
	case Legacy:
		return "legacy"
	case Compact15:
		return "JDK 15+"
	case LegacyOopsFirst:
		return "legacy oops-first"
	}
	return fmt.Sprintf("Scheme(%d)", uint8(s))
}

// Config is one JVM memory layout.
type Config struct {
	// Word is the machine word size: 4 on a 32-bit VM, 8 on a 64-bit one.
	Word int
	// Header is the instance header size: 8 (32-bit VM, or 64-bit with
	// compact object headers), 12 (64-bit with compressed class pointers)
	// or 16. An array's length field sits at this offset.
	Header int
	// Ref is the size of a reference field or array element (4 with
	// compressed oops or on a 32-bit VM, 8 otherwise).
	Ref int
	// Align is the object alignment (ObjectAlignmentInBytes, 8 by default).
	Align int
	// Scheme is the field-layout algorithm.
	Scheme Scheme
	// JDK is the Java feature release (5, 6, ... 25) whose hidden injected
	// fields, @Contended fields and array element offsets apply; 0 when
	// unknown, which models none of them.
	JDK int
}

// Common configurations. Each has JDK 0; set it (and Scheme, for JDK 15+)
// when the release is known.
var (
	// VM32 is a 32-bit HotSpot VM.
	VM32 = Config{Word: 4, Header: 8, Ref: 4, Align: 8, Scheme: Legacy}
	// VM64Compressed is a 64-bit VM with compressed oops and class
	// pointers, the default for heaps below 32 GB since JDK 6u23.
	VM64Compressed = Config{Word: 8, Header: 12, Ref: 4, Align: 8, Scheme: Legacy}
	// VM64 is a 64-bit VM without compressed oops or class pointers.
	VM64 = Config{Word: 8, Header: 16, Ref: 8, Align: 8, Scheme: Legacy}
)

// String describes the configuration in a few words.
func (c Config) String() string {
	bits := 64
	if c.Word == 4 {
		bits = 32
	}
	jdk := "JDK unknown"
	if c.JDK > 0 {
		jdk = fmt.Sprintf("JDK %d", c.JDK)
	}
	return fmt.Sprintf("%d-bit, %d-byte header, %d-byte refs, %d-byte alignment, %s layout, %s",
		bits, c.Header, c.Ref, c.Align, c.Scheme, jdk)
}

// Valid reports whether c describes a layout HotSpot can have.
func (c Config) Valid() bool {
	if c.Word != 4 && c.Word != 8 {
		return false
	}
	if c.Ref != 4 && c.Ref != c.Word {
		return false
	}
	if c.Header < 8 || c.Header > 16 || c.Header%4 != 0 {
		return false
	}
	if c.Align < 8 || c.Align&(c.Align-1) != 0 || c.Align > 256 {
		return false
	}
	return c.Scheme == Legacy || c.Scheme == Compact15 || c.Scheme == LegacyOopsFirst
}

// ArrayBase returns the offset of the first element of an array whose
// elements are of type elem.
//
// Up to JDK 21 the elements start at the array header (length field
// included) rounded up to the word size, and on a 32-bit VM long and double
// elements are further aligned to 8 bytes. From JDK 22 (JDK-8139457) they
// start right after the length field, aligned to their own size only, which
// differs only without compressed class pointers (int[] elements at 20
// instead of 24) and with compact object headers.
func (c Config) ArrayBase(elem FieldType) int {
	size := elem.Size(c.Ref)
	if size == 0 {
		size = 1
	}
	end := c.Header + 4
	if c.JDK >= 22 {
		return alignUp(end, size)
	}
	base := alignUp(end, c.Word)
	if size == 8 {
		base = alignUp(base, 8)
	}
	return base
}

// ArraySize returns the bytes one array of length elements of type elem
// takes in the heap.
func (c Config) ArraySize(elem FieldType, length int64) int64 {
	if length < 0 {
		length = 0
	}
	n := int64(c.ArrayBase(elem)) + length*int64(elem.Size(c.Ref))
	a := int64(c.Align)
	return (n + a - 1) / a * a
}

// InstanceSizes returns, for every class, the bytes one instance of it takes
// in the heap, or 0 for array classes. Superclasses are laid out once for
// all their subclasses, so the cost is linear in the number of classes and
// fields. A class whose superclass chain is broken (index out of range or
// a cycle) is laid out as if it had no superclass from that point up.
func (c Config) InstanceSizes(classes []Class) []int {
	ends, _ := c.lay(classes, nil, nil)
	sizes := make([]int, len(classes))
	for i, e := range ends {
		if classes[i].Elem == 0 {
			sizes[i] = alignUp(e, c.Align)
		}
	}
	return sizes
}

// FieldOffsets returns, for every class, the offset under c of each of its
// declared instance fields, parallel to its Fields (nil for array classes).
// Fields of one kind are placed in declaration order, which is the order of
// Fields except in dumps that list fields last to first (HotSpot's own
// dumper up to JDK 21 does): such dumps are told apart by the field order
// of java.lang.String, whose first declared field is value.
func (c Config) FieldOffsets(classes []Class) [][]int {
	all := make([]bool, len(classes))
	for i := range all {
		all[i] = true
	}
	_, offs := c.lay(classes, nil, all)
	return offs
}

// lay lays out the classes need marks (all with need nil) and their
// superclasses, returning each class's unaligned end and, for the
// non-array classes offFor marks (none with offFor nil), its declared
// fields' offsets.
func (c Config) lay(classes []Class, need, offFor []bool) (ends []int, offs [][]int) {
	if offFor != nil {
		offs = make([][]int, len(classes))
		for i := range classes {
			if offFor[i] && classes[i].Elem == 0 && (need == nil || need[i]) {
				offs[i] = make([]int, len(classes[i].Fields))
			}
		}
	}
	rev := reversedFields(classes)
	if c.Scheme == Compact15 {
		return c.compactLayoutAll(classes, need, offs, rev), offs
	}
	return c.legacyLayout(classes, need, offs, rev), offs
}

// reversedFields reports whether the dump lists each class's instance
// fields last to first, judging by java.lang.String: value is its first
// declared field in every release.
func reversedFields(classes []Class) bool {
	for i := range classes {
		cl := &classes[i]
		if cl.Name != "java.lang.String" || len(cl.Names) < 2 || len(cl.Names) != len(cl.Fields) {
			continue
		}
		return cl.Names[len(cl.Names)-1] == "value" && cl.Names[0] != "value"
	}
	return false
}

// alignUp rounds n up to a multiple of a (a power of two or any positive
// number).
func alignUp(n, a int) int {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}

// order returns the class indices so that every superclass comes before its
// subclasses, and the validated superclass of each class (-1 where the chain
// is broken). With need, only the marked classes and their superclasses are
// listed. It runs in linear time.
func order(classes []Class, need []bool) (seq []int, super []int) {
	n := len(classes)
	super = make([]int, n)
	for i, cl := range classes {
		s := cl.Super
		if s < 0 || s >= n || s == i {
			s = -1
		}
		super[i] = s
	}
	const (
		unseen = iota
		active
		done
	)
	state := make([]uint8, n)
	seq = make([]int, 0, n)
	var stack []int
	for i := range classes {
		if state[i] != unseen || (need != nil && !need[i]) {
			continue
		}
		stack = stack[:0]
		j := i
		for j >= 0 && state[j] == unseen {
			state[j] = active
			stack = append(stack, j)
			j = super[j]
		}
		if j >= 0 && state[j] == active {
			// A cycle: cut it at the class that closed it.
			super[stack[len(stack)-1]] = -1
		}
		for k := len(stack) - 1; k >= 0; k-- {
			state[stack[k]] = done
			seq = append(seq, stack[k])
		}
	}
	return seq, super
}
