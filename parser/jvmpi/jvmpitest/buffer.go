// Package jvmpitest writes synthetic JVMPI dump buffers and hprofctl's
// capture files for tests. It is written from the format description in
// docs/jvmpi.md and shares no code with the reader it helps to test.
//
// A Buffer collects the records of one heap dump (level 0, 1 or 2), object
// dump or monitor dump. Pointer-sized values (object ids, JNIEnv*, raw
// monitor ids and name pointers) are written in IDSize bytes and the id
// byte order; u2/u4/u8 counts and primitive values in the scalar byte
// order. At level 1 the Buffer leaves out what that level leaves out:
// primitive instance fields (the byte count covers only the references),
// primitive statics and primitive array elements. WriteCapture writes a
// buffer as a capture: the .bin, its manifest and its side channel.
package jvmpitest

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Type is a JVMPI basic type code (docs/jvmpi.md#constants).
type Type uint8

// The basic type codes; NormalObject is the level-0 type of instances and
// class objects.
const (
	NormalObject Type = 0
	TypeObject   Type = 2
	TypeBoolean  Type = 4
	TypeChar     Type = 5
	TypeFloat    Type = 6
	TypeDouble   Type = 7
	TypeByte     Type = 8
	TypeShort    Type = 9
	TypeInt      Type = 10
	TypeLong     Type = 11
)

// Record type bytes of heap and object dumps, and of monitor dumps.
const (
	tagRootUnknown     = 0xFF
	tagRootJNIGlobal   = 0x01
	tagRootJNILocal    = 0x02
	tagRootJavaFrame   = 0x03
	tagRootNativeStack = 0x04
	tagRootStickyClass = 0x05
	tagRootThreadBlock = 0x06
	tagRootMonitorUsed = 0x07
	tagClassDump       = 0x20
	tagInstanceDump    = 0x21
	tagObjArrayDump    = 0x22
	tagPrimArrayDump   = 0x23
	tagMonitorJava     = 0x01
	tagMonitorRaw      = 0x02
)

// Value is a typed value: raw bits for primitives, the id for TypeObject.
type Value struct {
	Type Type
	Bits uint64
}

// Ref is a reference value.
func Ref(id uint64) Value { return Value{TypeObject, id} }

// Int is an int value.
func Int(v int32) Value { return Value{TypeInt, uint64(uint32(v))} }

// Long is a long value.
func Long(v int64) Value { return Value{TypeLong, uint64(v)} }

// Short is a short value.
func Short(v int16) Value { return Value{TypeShort, uint64(uint16(v))} }

// Char is a char value.
func Char(v uint16) Value { return Value{TypeChar, uint64(v)} }

// Byte is a byte value.
func Byte(v int8) Value { return Value{TypeByte, uint64(uint8(v))} }

// Boolean is a boolean value.
func Boolean(v bool) Value {
	if v {
		return Value{TypeBoolean, 1}
	}
	return Value{TypeBoolean, 0}
}

// Float is a float value.
func Float(v float32) Value { return Value{TypeFloat, uint64(math.Float32bits(v))} }

// Double is a double value.
func Double(v float64) Value { return Value{TypeDouble, math.Float64bits(v)} }

// Size is the number of bytes a value of type t takes with idSize-byte
// pointers, 0 for an invalid type.
func (t Type) Size(idSize int) int {
	switch t {
	case TypeObject:
		return idSize
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

// Options describe the buffer to write. The zero value is a level-0
// heap dump with 8-byte big-endian pointers and big-endian scalars.
type Options struct {
	// Level is the heap dump level, 0, 1 or 2; object dumps are always
	// written at level 2 and monitor dumps have none.
	Level int
	// IDSize is the pointer width, 4 or 8 (default 8).
	IDSize int
	// IDOrder is the byte order of pointer-sized values, ScalarOrder that
	// of u2/u4/u8 and primitive values; nil means big-endian.
	IDOrder, ScalarOrder binary.ByteOrder
}

// Buffer collects the records of one JVMPI buffer. Errors are sticky: after
// the first misuse nothing more is written and Err reports it.
type Buffer struct {
	opt Options
	b   []byte
	err error
}

// NewBuffer returns an empty buffer described by opt.
func NewBuffer(opt Options) *Buffer {
	w := &Buffer{opt: opt}
	if w.opt.IDSize == 0 {
		w.opt.IDSize = 8
	}
	if w.opt.IDOrder == nil {
		w.opt.IDOrder = binary.BigEndian
	}
	if w.opt.ScalarOrder == nil {
		w.opt.ScalarOrder = binary.BigEndian
	}
	if w.opt.IDSize != 4 && w.opt.IDSize != 8 {
		w.fail("id size %d: must be 4 or 8", w.opt.IDSize)
	}
	if w.opt.Level < 0 || w.opt.Level > 2 {
		w.fail("level %d: must be 0, 1 or 2", w.opt.Level)
	}
	return w
}

// Options returns the description of the buffer, defaults filled in.
func (w *Buffer) Options() Options { return w.opt }

// Bytes returns the buffer written so far.
func (w *Buffer) Bytes() []byte { return w.b }

// Err returns the first misuse, or nil.
func (w *Buffer) Err() error { return w.err }

func (w *Buffer) fail(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("jvmpitest: "+format, args...)
	}
}

func (w *Buffer) id(v uint64) {
	if w.opt.IDSize == 4 {
		if v > math.MaxUint32 {
			w.fail("pointer %#x does not fit in 4 bytes", v)
		}
		var x [4]byte
		w.opt.IDOrder.PutUint32(x[:], uint32(v))
		w.b = append(w.b, x[:]...)
		return
	}
	w.b = appendU8(w.b, w.opt.IDOrder, v)
}

func (w *Buffer) u1(v uint8) { w.b = append(w.b, v) }
func (w *Buffer) u2(v uint16) {
	var x [2]byte
	w.opt.ScalarOrder.PutUint16(x[:], v)
	w.b = append(w.b, x[:]...)
}

func (w *Buffer) u4(v uint32) {
	var x [4]byte
	w.opt.ScalarOrder.PutUint32(x[:], v)
	w.b = append(w.b, x[:]...)
}

// appendU8 appends v to b in byte order o.
func appendU8(b []byte, o binary.ByteOrder, v uint64) []byte {
	var x [8]byte
	o.PutUint64(x[:], v)
	return append(b, x[:]...)
}

func (w *Buffer) value(v Value) {
	switch v.Type.Size(w.opt.IDSize) {
	case 0:
		w.fail("value of invalid type %d", v.Type)
	case 1:
		w.u1(uint8(v.Bits))
	case 2:
		w.u2(uint16(v.Bits))
	case 4:
		if v.Type == TypeObject {
			w.id(v.Bits)
		} else {
			w.u4(uint32(v.Bits))
		}
	default:
		if v.Type == TypeObject {
			w.id(v.Bits)
		} else {
			w.b = appendU8(w.b, w.opt.ScalarOrder, v.Bits)
		}
	}
}

// written reports whether a value of type t is in the buffer at its level.
func (w *Buffer) written(t Type) bool { return w.opt.Level != 1 || t == TypeObject }

// LevelZero writes a level-0 record: NormalObject for an instance or a
// class object, TypeObject for an object array, a primitive type for a
// primitive array.
func (w *Buffer) LevelZero(t Type, id uint64) {
	w.u1(uint8(t))
	w.id(id)
}

// RootUnknown writes GC_ROOT_UNKNOWN.
func (w *Buffer) RootUnknown(obj uint64) { w.u1(tagRootUnknown); w.id(obj) }

// RootJNIGlobal writes GC_ROOT_JNI_GLOBAL: the object and its global
// reference.
func (w *Buffer) RootJNIGlobal(obj, globalRef uint64) {
	w.u1(tagRootJNIGlobal)
	w.id(obj)
	w.id(globalRef)
}

// RootJNILocal writes GC_ROOT_JNI_LOCAL: the object, the thread's JNIEnv*
// and the frame index (-1: empty stack).
func (w *Buffer) RootJNILocal(obj, env uint64, frame int32) {
	w.u1(tagRootJNILocal)
	w.id(obj)
	w.id(env)
	w.u4(uint32(frame))
}

// RootJavaFrame writes GC_ROOT_JAVA_FRAME: the object, the thread's
// JNIEnv* and the frame index (-1: empty stack).
func (w *Buffer) RootJavaFrame(obj, env uint64, frame int32) {
	w.u1(tagRootJavaFrame)
	w.id(obj)
	w.id(env)
	w.u4(uint32(frame))
}

// RootNativeStack writes GC_ROOT_NATIVE_STACK: the object and the
// thread's JNIEnv*.
func (w *Buffer) RootNativeStack(obj, env uint64) {
	w.u1(tagRootNativeStack)
	w.id(obj)
	w.id(env)
}

// RootStickyClass writes GC_ROOT_STICKY_CLASS.
func (w *Buffer) RootStickyClass(class uint64) { w.u1(tagRootStickyClass); w.id(class) }

// RootThreadBlock writes GC_ROOT_THREAD_BLOCK: the thread object and the
// thread's JNIEnv*.
func (w *Buffer) RootThreadBlock(thread, env uint64) {
	w.u1(tagRootThreadBlock)
	w.id(thread)
	w.id(env)
}

// RootMonitorUsed writes GC_ROOT_MONITOR_USED.
func (w *Buffer) RootMonitorUsed(obj uint64) { w.u1(tagRootMonitorUsed); w.id(obj) }

// ClassDump is a GC_CLASS_DUMP record. Interfaces are written without a
// count, Statics as values only, in the class-load event's order; at level
// 1 the primitive statics are left out.
type ClassDump struct {
	ID, SuperID, LoaderID, SignersID, ProtectionDomainID uint64
	NameString, Reserved                                 uint64
	InstanceSize                                         uint32
	Interfaces                                           []uint64
	Constants                                            []Constant
	Statics                                              []Value
}

// Constant is a constant-pool entry of a class dump.
type Constant struct {
	Index uint16
	Value Value
}

// ClassDump writes a GC_CLASS_DUMP record.
func (w *Buffer) ClassDump(c ClassDump) {
	w.u1(tagClassDump)
	for _, v := range []uint64{c.ID, c.SuperID, c.LoaderID, c.SignersID, c.ProtectionDomainID, c.NameString, c.Reserved} {
		w.id(v)
	}
	w.u4(c.InstanceSize)
	for _, v := range c.Interfaces {
		w.id(v)
	}
	if len(c.Constants) > math.MaxUint16 {
		w.fail("class %#x: %d constant-pool entries", c.ID, len(c.Constants))
	}
	w.u2(uint16(len(c.Constants)))
	for _, k := range c.Constants {
		w.u2(k.Index)
		w.u1(uint8(k.Value.Type))
		w.value(k.Value)
	}
	for _, v := range c.Statics {
		if w.written(v.Type) {
			w.value(v)
		}
	}
}

// InstanceDump writes a GC_INSTANCE_DUMP record. fields are the values in
// the order the dump writes them: the class's own fields in class-load
// order, then its superclass's, and so on. At level 1 the primitive ones
// are left out of the record and of its byte count.
func (w *Buffer) InstanceDump(obj, class uint64, fields ...Value) {
	n := 0
	for _, v := range fields {
		if w.written(v.Type) {
			n += v.Type.Size(w.opt.IDSize)
		}
	}
	w.u1(tagInstanceDump)
	w.id(obj)
	w.id(class)
	w.u4(uint32(n))
	for _, v := range fields {
		if w.written(v.Type) {
			w.value(v)
		}
	}
}

// ObjArrayDump writes a GC_OBJ_ARRAY_DUMP record; elemClass may be 0.
func (w *Buffer) ObjArrayDump(array, elemClass uint64, elems ...uint64) {
	w.u1(tagObjArrayDump)
	w.id(array)
	w.u4(uint32(len(elems)))
	w.id(elemClass)
	for _, e := range elems {
		w.id(e)
	}
}

// PrimArrayDump writes a GC_PRIM_ARRAY_DUMP record of element type t whose
// elements have the raw bits elems; at level 1 the elements are left out.
func (w *Buffer) PrimArrayDump(array uint64, t Type, elems ...uint64) {
	if t < TypeBoolean || t > TypeLong {
		w.fail("primitive array %#x of type %d", array, t)
		return
	}
	w.u1(tagPrimArrayDump)
	w.id(array)
	w.u4(uint32(len(elems)))
	w.u1(uint8(t))
	if !w.written(t) {
		return
	}
	for _, e := range elems {
		w.value(Value{t, e})
	}
}

// Monitor is the part of a monitor dump record common to Java and raw
// monitors: the owner's JNIEnv* (0: unowned), the entry count and the
// JNIEnv* values of the threads waiting to enter and waiting to be
// notified.
type Monitor struct {
	Owner      uint64
	EntryCount uint32
	Entering   []uint64
	Notified   []uint64
}

func (w *Buffer) monitorTail(m Monitor) {
	w.id(m.Owner)
	w.u4(m.EntryCount)
	w.u4(uint32(len(m.Entering)))
	for _, e := range m.Entering {
		w.id(e)
	}
	w.u4(uint32(len(m.Notified)))
	for _, e := range m.Notified {
		w.id(e)
	}
}

// JavaMonitor writes a JVMPI_MONITOR_JAVA record for the monitor of
// object obj.
func (w *Buffer) JavaMonitor(obj uint64, m Monitor) {
	w.u1(tagMonitorJava)
	w.id(obj)
	w.monitorTail(m)
}

// RawMonitor writes a JVMPI_MONITOR_RAW record: namePtr is the char* of
// its name, id its JVMPI_RawMonitor.
func (w *Buffer) RawMonitor(namePtr, id uint64, m Monitor) {
	w.u1(tagMonitorRaw)
	w.id(namePtr)
	w.id(id)
	w.monitorTail(m)
}

// Thread status codes of a monitor dump event's threads_status
// (docs/jvmpi.md#constants): a state, with the suspended and interrupted
// flags or'ed in.
const (
	ThreadRunnable    = 1
	ThreadMonitorWait = 2
	ThreadCondvarWait = 3
	ThreadSuspended   = 0x8000
	ThreadInterrupted = 0x4000
)
