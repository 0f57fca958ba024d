package hproftest

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf16"
)

// ID is an HPROF identifier: an object or class address, a string id, a
// frame id. Dumps with 4-byte identifiers hold its low 32 bits.
type ID = uint64

// Type is an HPROF basic type code, as written in CLASS_DUMP field lists
// and PRIM_ARRAY_DUMP headers (docs/hprof.md#basic-types).
type Type uint8

// The basic type codes.
const (
	TypeObject  Type = 2
	TypeBoolean Type = 4
	TypeChar    Type = 5
	TypeFloat   Type = 6
	TypeDouble  Type = 7
	TypeByte    Type = 8
	TypeShort   Type = 9
	TypeInt     Type = 10
	TypeLong    Type = 11
)

// Size returns the bytes a value of type t takes when references take
// refSize bytes (the identifier size in a dump, the reference size in a
// heap), or 0 when t is not a valid type code.
func (t Type) Size(refSize int) int {
	switch t {
	case TypeObject:
		return refSize
	case TypeBoolean, TypeByte:
		return 1
	case TypeChar, TypeShort:
		return 2
	case TypeFloat, TypeInt:
		return 4
	case TypeDouble, TypeLong:
		return 8
	}
	return 0
}

// signature returns the JVM signature character that "JAVA PROFILE 1.0"
// writes in CLASS_DUMP in place of the type code.
func (t Type) signature() byte {
	switch t {
	case TypeObject:
		return 'L'
	case TypeBoolean:
		return 'Z'
	case TypeChar:
		return 'C'
	case TypeFloat:
		return 'F'
	case TypeDouble:
		return 'D'
	case TypeByte:
		return 'B'
	case TypeShort:
		return 'S'
	case TypeInt:
		return 'I'
	case TypeLong:
		return 'J'
	}
	return 0
}

// Value is a typed field, static or constant value. Bits holds the value
// as the dump encodes it: the identifier for TypeObject, the IEEE-754 bits
// for floats, the two's-complement bits for signed integers.
type Value struct {
	Type Type
	Bits uint64
}

// Ref is a reference value; 0 is null.
func Ref(id ID) Value { return Value{TypeObject, id} }

// Boolean is a boolean value.
func Boolean(b bool) Value {
	if b {
		return Value{TypeBoolean, 1}
	}
	return Value{TypeBoolean, 0}
}

// Char is a char value (one UTF-16 code unit).
func Char(c uint16) Value { return Value{TypeChar, uint64(c)} }

// Float is a float value.
func Float(f float32) Value { return Value{TypeFloat, uint64(math.Float32bits(f))} }

// Double is a double value.
func Double(f float64) Value { return Value{TypeDouble, math.Float64bits(f)} }

// Byte is a byte value.
func Byte(b int8) Value { return Value{TypeByte, uint64(uint8(b))} }

// Short is a short value.
func Short(s int16) Value { return Value{TypeShort, uint64(uint16(s))} }

// Int is an int value.
func Int(i int32) Value { return Value{TypeInt, uint64(uint32(i))} }

// Long is a long value.
func Long(l int64) Value { return Value{TypeLong, uint64(l)} }

// AppendValues appends the big-endian encoding of vals to dst, references
// taking idSize bytes: the bytes of an INSTANCE_DUMP, or the packed
// elements of a primitive array. It panics on a value whose Type is not a
// valid type code.
func AppendValues(dst []byte, idSize int, vals ...Value) []byte {
	for _, v := range vals {
		dst = appendValue(dst, idSize, v)
	}
	return dst
}

func appendValue(dst []byte, idSize int, v Value) []byte {
	switch v.Type.Size(idSize) {
	case 1:
		return append(dst, byte(v.Bits))
	case 2:
		return binary.BigEndian.AppendUint16(dst, uint16(v.Bits))
	case 4:
		return binary.BigEndian.AppendUint32(dst, uint32(v.Bits))
	case 8:
		return binary.BigEndian.AppendUint64(dst, v.Bits)
	}
	panic(fmt.Sprintf("hproftest: value of invalid type %d", v.Type))
}

// Ints packs int elements for PrimArray(TypeInt, ...).
func Ints(elems ...int32) []byte {
	b := make([]byte, 0, 4*len(elems))
	for _, e := range elems {
		b = binary.BigEndian.AppendUint32(b, uint32(e))
	}
	return b
}

// Longs packs long elements for PrimArray(TypeLong, ...).
func Longs(elems ...int64) []byte {
	b := make([]byte, 0, 8*len(elems))
	for _, e := range elems {
		b = binary.BigEndian.AppendUint64(b, uint64(e))
	}
	return b
}

// UTF16 packs the UTF-16 code units of s for PrimArray(TypeChar, ...).
func UTF16(s string) []byte {
	units := utf16.Encode([]rune(s))
	b := make([]byte, 0, 2*len(units))
	for _, u := range units {
		b = binary.BigEndian.AppendUint16(b, u)
	}
	return b
}

// Sizer gives the in-memory size of objects, which the Writer's helpers
// use to space object addresses: the gap between consecutive objects'
// identifiers is the size of the first, rounded up to the allocator's
// alignment.
type Sizer interface {
	// InstanceSize is the size of an instance of c.
	InstanceSize(c *Class) int64
	// ArraySize is the size of an array of n elements of type elem.
	ArraySize(elem Type, n int) int64
}

// Layout is a simple object memory layout: a header, then the fields of
// the class and its superclasses packed without gaps (or the elements),
// the whole rounded up to Align. It implements Sizer.
type Layout struct {
	ObjectHeader int // bytes before the first instance field
	ArrayHeader  int // bytes before the first array element, length word included
	RefSize      int // bytes of a reference in the heap
	Align        int // object alignment, a power of two
}

// Common layouts of HotSpot heaps.
var (
	// Layout32 is a 32-bit VM.
	Layout32 = Layout{ObjectHeader: 8, ArrayHeader: 12, RefSize: 4, Align: 8}
	// LayoutCompressedOops is a 64-bit VM with compressed references and
	// class pointers, the default below 32 GB of heap.
	LayoutCompressedOops = Layout{ObjectHeader: 12, ArrayHeader: 16, RefSize: 4, Align: 8}
	// Layout64 is a 64-bit VM without compressed references.
	Layout64 = Layout{ObjectHeader: 16, ArrayHeader: 24, RefSize: 8, Align: 8}
)

// InstanceSize is the header plus the fields of c and its superclasses,
// aligned.
func (l Layout) InstanceSize(c *Class) int64 {
	n := int64(l.ObjectHeader)
	for k := c; k != nil; k = k.Super {
		for _, f := range k.Fields {
			n += int64(f.Type.Size(l.RefSize))
		}
	}
	return l.align(n)
}

// ArraySize is the array header plus n elements, aligned.
func (l Layout) ArraySize(elem Type, n int) int64 {
	return l.align(int64(l.ArrayHeader) + int64(n)*int64(elem.Size(l.RefSize)))
}

func (l Layout) align(n int64) int64 {
	a := int64(max(l.Align, 1))
	return (n + a - 1) &^ (a - 1)
}

// IDAllocator hands out increasing addresses: each object starts where the
// previous one ended, rounded up to the alignment, as in a freshly
// compacted heap.
type IDAllocator struct {
	next  uint64
	align uint64
}

// NewIDAllocator returns an allocator whose first address is base rounded
// up to align (a power of two; values below 1 mean 1).
func NewIDAllocator(base uint64, align int) *IDAllocator {
	a := uint64(max(align, 1))
	return &IDAllocator{next: (base + a - 1) &^ (a - 1), align: a}
}

// Next returns the address of a new object of size bytes. Objects of size
// 0 or less still take one alignment unit, so every address is distinct.
func (a *IDAllocator) Next(size int64) ID {
	id := a.next
	step := uint64(max(size, 1))
	a.next += (step + a.align - 1) &^ (a.align - 1)
	return id
}

// Peek returns the address the next object will get.
func (a *IDAllocator) Peek() ID { return a.next }
