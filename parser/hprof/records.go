package hprof

import "fmt"

// Tag is the tag byte of a top-level HPROF record.
type Tag uint8

// Top-level record tags (docs/hprof.md#top-level-records).
const (
	TagUTF8            Tag = 0x01
	TagLoadClass       Tag = 0x02
	TagUnloadClass     Tag = 0x03
	TagFrame           Tag = 0x04
	TagTrace           Tag = 0x05
	TagAllocSites      Tag = 0x06
	TagHeapSummary     Tag = 0x07
	TagStartThread     Tag = 0x0A
	TagEndThread       Tag = 0x0B
	TagHeapDump        Tag = 0x0C
	TagCPUSamples      Tag = 0x0D
	TagControlSettings Tag = 0x0E
	TagLockStatsWait   Tag = 0x10
	TagLockStatsHold   Tag = 0x11
	TagHeapDumpSegment Tag = 0x1C
	TagHeapDumpEnd     Tag = 0x2C
)

var tagNames = [256]string{
	TagUTF8: "UTF8", TagLoadClass: "LOAD_CLASS", TagUnloadClass: "UNLOAD_CLASS",
	TagFrame: "FRAME", TagTrace: "TRACE", TagAllocSites: "ALLOC_SITES",
	TagHeapSummary: "HEAP_SUMMARY", TagStartThread: "START_THREAD",
	TagEndThread: "END_THREAD", TagHeapDump: "HEAP_DUMP", TagCPUSamples: "CPU_SAMPLES",
	TagControlSettings: "CONTROL_SETTINGS", TagLockStatsWait: "LOCKSTATS_WAIT_TIME",
	TagLockStatsHold: "LOCKSTATS_HOLD_TIME", TagHeapDumpSegment: "HEAP_DUMP_SEGMENT",
	TagHeapDumpEnd: "HEAP_DUMP_END",
}

// String returns the record name docs/hprof.md uses, or the hex tag.
func (t Tag) String() string {
	if s := tagNames[t]; s != "" {
		return s
	}
	return fmt.Sprintf("tag 0x%02X", uint8(t))
}

// SubTag is the tag byte of a heap-dump sub-record.
type SubTag uint8

// Heap-dump sub-record tags (docs/hprof.md#heap-dump-sub-records), Android
// ones included.
const (
	RootUnknown          SubTag = 0xFF
	RootJNIGlobal        SubTag = 0x01
	RootJNILocal         SubTag = 0x02
	RootJavaFrame        SubTag = 0x03
	RootNativeStack      SubTag = 0x04
	RootStickyClass      SubTag = 0x05
	RootThreadBlock      SubTag = 0x06
	RootMonitorUsed      SubTag = 0x07
	RootThreadObj        SubTag = 0x08
	SubClassDump         SubTag = 0x20
	SubInstanceDump      SubTag = 0x21
	SubObjArrayDump      SubTag = 0x22
	SubPrimArrayDump     SubTag = 0x23
	SubHeapDumpInfo      SubTag = 0xFE
	RootInternedString   SubTag = 0x89
	RootFinalizing       SubTag = 0x8A
	RootDebugger         SubTag = 0x8B
	RootReferenceCleanup SubTag = 0x8C
	RootVMInternal       SubTag = 0x8D
	RootJNIMonitor       SubTag = 0x8E
	SubUnreachable       SubTag = 0x90
	SubPrimArrayNoData   SubTag = 0xC3
)

var subTagNames = [256]string{
	RootUnknown: "ROOT_UNKNOWN", RootJNIGlobal: "ROOT_JNI_GLOBAL", RootJNILocal: "ROOT_JNI_LOCAL",
	RootJavaFrame: "ROOT_JAVA_FRAME", RootNativeStack: "ROOT_NATIVE_STACK",
	RootStickyClass: "ROOT_STICKY_CLASS", RootThreadBlock: "ROOT_THREAD_BLOCK",
	RootMonitorUsed: "ROOT_MONITOR_USED", RootThreadObj: "ROOT_THREAD_OBJ",
	SubClassDump: "CLASS_DUMP", SubInstanceDump: "INSTANCE_DUMP", SubObjArrayDump: "OBJ_ARRAY_DUMP",
	SubPrimArrayDump: "PRIM_ARRAY_DUMP", SubHeapDumpInfo: "HEAP_DUMP_INFO",
	RootInternedString: "ROOT_INTERNED_STRING", RootFinalizing: "ROOT_FINALIZING",
	RootDebugger: "ROOT_DEBUGGER", RootReferenceCleanup: "ROOT_REFERENCE_CLEANUP",
	RootVMInternal: "ROOT_VM_INTERNAL", RootJNIMonitor: "ROOT_JNI_MONITOR",
	SubUnreachable: "UNREACHABLE", SubPrimArrayNoData: "PRIMITIVE_ARRAY_NODATA",
}

// String returns the sub-record name docs/hprof.md uses, or the hex tag.
func (t SubTag) String() string {
	if s := subTagNames[t]; s != "" {
		return s
	}
	return fmt.Sprintf("sub-tag 0x%02X", uint8(t))
}

// IsRoot reports whether the sub-record is a GC root.
func (t SubTag) IsRoot() bool {
	switch t {
	case SubClassDump, SubInstanceDump, SubObjArrayDump, SubPrimArrayDump,
		SubHeapDumpInfo, SubUnreachable, SubPrimArrayNoData:
		return false
	}
	return subTagNames[t] != ""
}

// Type is an HPROF basic type code (docs/hprof.md#basic-types).
type Type uint8

// Basic type codes.
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

var typeNames = [...]string{TypeObject: "object", TypeBoolean: "boolean", TypeChar: "char",
	TypeFloat: "float", TypeDouble: "double", TypeByte: "byte", TypeShort: "short",
	TypeInt: "int", TypeLong: "long"}

// String returns the Java name of the type ("int", "object").
func (t Type) String() string {
	if int(t) < len(typeNames) && typeNames[t] != "" {
		return typeNames[t]
	}
	return fmt.Sprintf("type %d", uint8(t))
}

// Size returns the number of bytes a value of type t takes in a dump whose
// identifiers are idSize bytes long, or 0 for an invalid type.
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

// IsPrimitive reports whether t is a valid primitive type code.
func (t Type) IsPrimitive() bool { return t >= TypeBoolean && t <= TypeLong }

// TypeFromSignature maps the first character of a JVM field signature
// ("I", "[C", "Ljava/lang/String;") to its type code, 0 for none; "JAVA
// PROFILE 1.0" files use these characters in CLASS_DUMP in place of type
// codes.
func TypeFromSignature(c byte) Type {
	switch c {
	case 'L', '[':
		return TypeObject
	case 'Z':
		return TypeBoolean
	case 'C':
		return TypeChar
	case 'F':
		return TypeFloat
	case 'D':
		return TypeDouble
	case 'B':
		return TypeByte
	case 'S':
		return TypeShort
	case 'I':
		return TypeInt
	case 'J':
		return TypeLong
	}
	return 0
}

// Record is the record the Reader stands on. Tag says which top-level
// record it is; for heap-dump sub-records Tag is TagHeapDump or
// TagHeapDumpSegment and Sub is the sub-record tag (Sub is 0 on the
// HEAP_DUMP / HEAP_DUMP_SEGMENT record itself, which the Reader also
// yields before its sub-records). Only the field named after the kind of
// record is meaningful. Every slice in it (Text, FrameIDs, Sites, Samples,
// Constants, Statics, Fields) is reused or points into the Reader's
// buffer: it is valid until the next call to Next.
type Record struct {
	Tag    Tag
	Sub    SubTag
	Offset int64  // stream offset of the tag byte
	Time   uint32 // top-level records: microseconds since the header time
	Length uint32 // top-level records: body length in bytes
	Dump   int    // heap records: which heap dump of the file (from 0)

	UTF8            UTF8
	LoadClass       LoadClass
	UnloadClass     uint32 // UNLOAD_CLASS: class serial
	Frame           Frame
	Trace           Trace
	AllocSites      AllocSites
	HeapSummary     HeapSummary
	StartThread     StartThread
	EndThread       uint32 // END_THREAD: thread serial
	CPUSamples      CPUSamples
	ControlSettings ControlSettings
	Root            Root
	Class           ClassDump
	Instance        InstanceDump
	ObjArray        ObjArrayDump
	PrimArray       PrimArrayDump
	HeapInfo        HeapDumpInfo
}

// UTF8 is a string record: an identifier and modified-UTF-8 bytes.
type UTF8 struct {
	ID   uint64
	Text []byte
}

// LoadClass ties a class serial to a class object and its name.
type LoadClass struct {
	Serial      uint32
	ClassID     uint64
	TraceSerial uint32
	NameID      uint64
}

// Frame is one stack frame. Line > 0 is a source line; -1 unknown,
// -2 compiled method, -3 native method (0 on Android: no line info).
type Frame struct {
	ID          uint64
	MethodID    uint64
	SignatureID uint64
	SourceID    uint64
	ClassSerial uint32
	Line        int32
}

// Trace is a stack trace; FrameIDs[0] is the innermost frame.
type Trace struct {
	Serial       uint32
	ThreadSerial uint32
	FrameIDs     []uint64
}

// AllocSites is the hprof agent's allocation-site table.
type AllocSites struct {
	Flags              uint16 // read through Incremental, SortedByAllocation, GCForced
	CutoffRatio        uint32 // raw bits; meaningless in JVMTI-agent files
	LiveBytes          uint32
	LiveInstances      uint32
	AllocatedBytes     uint64
	AllocatedInstances uint64
	Sites              []AllocSite
}

// AllocSite is one row of ALLOC_SITES.
type AllocSite struct {
	ArrayType      uint8 // 0 instance, 2 object array, 4-11 primitive array
	ClassSerial    uint32
	TraceSerial    uint32
	LiveBytes      uint32
	LiveInstances  uint32
	AllocBytes     uint32
	AllocInstances uint32
}

// HeapSummary is the agent's HEAP_SUMMARY record.
type HeapSummary struct {
	LiveBytes          uint32
	LiveInstances      uint32
	AllocatedBytes     uint64
	AllocatedInstances uint64
}

// StartThread announces a thread (hprof agents).
type StartThread struct {
	ThreadSerial      uint32
	ThreadID          uint64
	TraceSerial       uint32
	NameID            uint64
	GroupNameID       uint64
	ParentGroupNameID uint64
}

// CPUSamples is the agent's CPU_SAMPLES record.
type CPUSamples struct {
	Total   uint32
	Samples []CPUSample
}

// CPUSample is the sample count of one trace.
type CPUSample struct {
	Count       uint32
	TraceSerial uint32
}

// ControlSettings is the agent's CONTROL_SETTINGS record.
type ControlSettings struct {
	Flags    uint32 // read through AllocTraces and CPUSampling
	MaxDepth uint16
}

// Root is any GC-root sub-record; Kind is its sub-tag. ThreadSerial,
// FrameDepth, TraceSerial and JNIRef are set for the kinds that carry them
// (FrameDepth -1 = unknown).
type Root struct {
	Kind         SubTag
	ID           uint64
	JNIRef       uint64
	ThreadSerial uint32
	FrameDepth   int32
	TraceSerial  uint32
}

// ClassDump is a CLASS_DUMP sub-record. Field and constant types are
// always type codes, also in "JAVA PROFILE 1.0" files.
type ClassDump struct {
	ID                 uint64
	TraceSerial        uint32
	SuperID            uint64
	LoaderID           uint64
	SignersID          uint64
	ProtectionDomainID uint64
	Reserved1          uint64
	Reserved2          uint64
	InstanceSize       uint32
	Constants          []Constant
	Statics            []Static
	Fields             []Field
}

// Constant is a constant-pool entry of a CLASS_DUMP.
type Constant struct {
	Index uint16
	Type  Type
	Value uint64
}

// Static is a static field and its value (raw bits, identifiers for objects).
type Static struct {
	NameID uint64
	Type   Type
	Value  uint64
}

// Field is an instance field declaration.
type Field struct {
	NameID uint64
	Type   Type
}

// InstanceDump is an INSTANCE_DUMP header; its field bytes are the payload
// (Reader.Payload).
type InstanceDump struct {
	ID          uint64
	TraceSerial uint32
	ClassID     uint64
	Size        uint32 // payload bytes
}

// ObjArrayDump is an OBJ_ARRAY_DUMP header; its element identifiers are the
// payload. ClassID is the array class (the element class in JVMPI-era files).
type ObjArrayDump struct {
	ID          uint64
	TraceSerial uint32
	Length      uint32
	ClassID     uint64
}

// PrimArrayDump is a PRIM_ARRAY_DUMP header (or Android's
// PRIMITIVE_ARRAY_NODATA, which has no payload); the packed big-endian
// elements are the payload.
type PrimArrayDump struct {
	ID          uint64
	TraceSerial uint32
	Length      uint32
	ElemType    Type
}

// HeapDumpInfo is Android's heap switch: the records after it belong to
// the named heap.
type HeapDumpInfo struct {
	HeapID uint32
	NameID uint64
}
