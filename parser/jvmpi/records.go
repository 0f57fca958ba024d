package jvmpi

import (
	"fmt"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// Kind is the kind of a JVMPI dump buffer, which the buffer itself does
// not say (docs/jvmpi.md#what-a-reader-must-be-told).
type Kind uint8

// The buffer kinds.
const (
	// HeapDump is the buffer of JVMPI_EVENT_HEAP_DUMP, at level 0, 1 or 2.
	HeapDump Kind = iota + 1
	// ObjectDump is the buffer of JVMPI_EVENT_OBJECT_DUMP: one level-2
	// class, instance or array record.
	ObjectDump
	// MonitorDump is the buffer of JVMPI_EVENT_MONITOR_DUMP.
	MonitorDump
)

var kindNames = [...]string{HeapDump: "heap dump", ObjectDump: "object dump", MonitorDump: "monitor dump"}

// String returns "heap dump", "object dump" or "monitor dump".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", uint8(k))
}

// RecordType is the leading byte of a record of a level-1 or level-2 heap
// dump or of an object dump (docs/jvmpi.md#level-2-records). Level-0
// records carry a basic type instead and are reported as LevelZeroObject;
// monitor dump records are reported as MonitorRecord.
type RecordType uint8

// Record types of heap and object dumps, and the two pseudo types.
const (
	RootUnknown     RecordType = 0xFF
	RootJNIGlobal   RecordType = 0x01
	RootJNILocal    RecordType = 0x02
	RootJavaFrame   RecordType = 0x03
	RootNativeStack RecordType = 0x04
	RootStickyClass RecordType = 0x05
	RootThreadBlock RecordType = 0x06
	RootMonitorUsed RecordType = 0x07
	ClassDump       RecordType = 0x20
	InstanceDump    RecordType = 0x21
	ObjArrayDump    RecordType = 0x22
	PrimArrayDump   RecordType = 0x23
	// LevelZeroObject is a record of a level-0 heap dump: a type and an
	// object id (Record.Object).
	LevelZeroObject RecordType = 0x00
	// MonitorRecord is a record of a monitor dump (Record.Monitor).
	MonitorRecord RecordType = 0x10
)

var recordNames = [256]string{
	RootUnknown: "GC_ROOT_UNKNOWN", RootJNIGlobal: "GC_ROOT_JNI_GLOBAL", RootJNILocal: "GC_ROOT_JNI_LOCAL",
	RootJavaFrame: "GC_ROOT_JAVA_FRAME", RootNativeStack: "GC_ROOT_NATIVE_STACK",
	RootStickyClass: "GC_ROOT_STICKY_CLASS", RootThreadBlock: "GC_ROOT_THREAD_BLOCK",
	RootMonitorUsed: "GC_ROOT_MONITOR_USED", ClassDump: "GC_CLASS_DUMP", InstanceDump: "GC_INSTANCE_DUMP",
	ObjArrayDump: "GC_OBJ_ARRAY_DUMP", PrimArrayDump: "GC_PRIM_ARRAY_DUMP",
	LevelZeroObject: "level-0 object", MonitorRecord: "monitor",
}

// String returns the JVMPI name of the record type, as
// docs/jvmpi.md#level-2-records spells it.
func (t RecordType) String() string {
	if s := recordNames[t]; s != "" {
		return s
	}
	return fmt.Sprintf("record type 0x%02X", uint8(t))
}

// IsRoot reports whether t is a GC-root record.
func (t RecordType) IsRoot() bool {
	return t == RootUnknown || (t >= RootJNIGlobal && t <= RootMonitorUsed)
}

// Type is a JVMPI basic type code: JVMPI numbers basic types as HPROF
// does (docs/hprof.md#basic-types), so it is the HPROF type. Level-0
// records use NormalObject for instances and class objects.
type Type = hprof.Type

// Basic type codes.
const (
	NormalObject Type = 0
	TypeObject        = hprof.TypeObject
	TypeBoolean       = hprof.TypeBoolean
	TypeChar          = hprof.TypeChar
	TypeFloat         = hprof.TypeFloat
	TypeDouble        = hprof.TypeDouble
	TypeByte          = hprof.TypeByte
	TypeShort         = hprof.TypeShort
	TypeInt           = hprof.TypeInt
	TypeLong          = hprof.TypeLong
)

// TypeOfSignature returns the type of a JVM field signature ("I",
// "[C", "Ljava/lang/String;"), 0 for an invalid one.
func TypeOfSignature(sig string) Type {
	if sig == "" {
		return 0
	}
	return hprof.TypeFromSignature(sig[0])
}

// Record is the record the Reader stands on. Type says which; only the
// field named after it is meaningful (Root for every root type). Every
// slice in it is reused or points into the Reader's buffer: it is valid
// until the next call to Next.
type Record struct {
	Type   RecordType
	Offset int64 // buffer offset of the record's first byte

	Object    LevelZero
	Root      Root
	Class     Class
	Instance  Instance
	ObjArray  ObjArray
	PrimArray PrimArray
	Monitor   Monitor
}

// LevelZero is a level-0 heap dump record: NormalObject for instances and
// class objects, TypeObject for object arrays, a primitive type for
// primitive arrays.
type LevelZero struct {
	Type Type
	ID   uint64
}

// Root is a GC-root record. Thread is the JNIEnv* of the thread for the
// kinds that carry one, GlobalRef the jobject of a JNI global reference,
// Frame the frame index of JNI_LOCAL and JAVA_FRAME (-1: empty stack).
type Root struct {
	ID        uint64
	GlobalRef uint64
	Thread    uint64
	Frame     int32
}

// Class is a GC_CLASS_DUMP record. Statics holds the static values in
// Layout.Statics order (raw bits, ids for references); at level 1 the
// primitive ones are absent from the buffer and left 0.
type Class struct {
	ID                 uint64
	SuperID            uint64
	LoaderID           uint64
	SignersID          uint64
	ProtectionDomainID uint64
	NameStringID       uint64 // the class-name String object, or 0
	Reserved           uint64
	InstanceSize       uint32 // the VM's object size, header included
	Interfaces         []uint64
	Constants          []Constant
	Statics            []uint64
	Layout             *ClassInfo
}

// Constant is a constant-pool entry of a class dump.
type Constant struct {
	Index uint16
	Type  Type
	Value uint64
}

// Instance is a GC_INSTANCE_DUMP record; Data holds its field bytes as the
// buffer has them (Reader.InstanceFields decodes them).
type Instance struct {
	ID      uint64
	ClassID uint64
	Size    uint32
	Data    []byte
}

// ObjArray is a GC_OBJ_ARRAY_DUMP record. ElemClassID is the element class
// (0 when the VM did not say).
type ObjArray struct {
	ID          uint64
	Length      uint32
	ElemClassID uint64
	Elements    []uint64
}

// PrimArray is a GC_PRIM_ARRAY_DUMP record. Data holds the elements as the
// buffer has them (Reader.Scalar decodes one); it is nil at level 1, which
// writes no elements.
type PrimArray struct {
	ID       uint64
	Length   uint32
	ElemType Type
	Data     []byte
}

// MonitorKind says whether a monitor dump record is a Java or a raw monitor.
type MonitorKind uint8

// The monitor kinds (JVMPI_MONITOR_JAVA, JVMPI_MONITOR_RAW).
const (
	MonitorJava MonitorKind = 0x01
	MonitorRaw  MonitorKind = 0x02
)

// String returns "JVMPI_MONITOR_JAVA" or "JVMPI_MONITOR_RAW".
func (k MonitorKind) String() string {
	switch k {
	case MonitorJava:
		return "JVMPI_MONITOR_JAVA"
	case MonitorRaw:
		return "JVMPI_MONITOR_RAW"
	}
	return fmt.Sprintf("monitor kind 0x%02X", uint8(k))
}

// Monitor is a monitor dump record. Object is a Java monitor's object;
// NamePtr (the char* of its name) and RawID identify a raw monitor. Owner,
// Entering and Notified are JNIEnv* values (0 in Owner: unowned; a 0 in
// the lists is a waiter that vanished).
type Monitor struct {
	Kind       MonitorKind
	Object     uint64
	NamePtr    uint64
	RawID      uint64
	Owner      uint64
	EntryCount uint32
	Entering   []uint64
	Notified   []uint64
}
