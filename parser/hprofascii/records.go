package hprofascii

import (
	"fmt"
	"time"

	"github.com/hprofctl/hprofctl/model/thread"
	"github.com/hprofctl/hprofctl/parser/hprof"
)

// Generation is the hprof agent that wrote a file
// (docs/hprof-ascii.md#generation-differences).
type Generation uint8

// The agent generations.
const (
	GenerationUnknown Generation = iota
	// GenerationJVMPI is the JDK 1.2–1.4 agent (-Xrunhprof).
	GenerationJVMPI
	// GenerationJVMTI is the JDK 5–8 agent (-agentlib:hprof).
	GenerationJVMTI
)

// String names the generation.
func (g Generation) String() string {
	switch g {
	case GenerationJVMPI:
		return "JVMPI (JDK 1.2-1.4)"
	case GenerationJVMTI:
		return "JVMTI (JDK 5-8)"
	}
	return "unknown"
}

// Header describes a file as its first lines do.
type Header struct {
	// Version is the version of the first line, "1.0.1" in every file
	// the agents wrote; empty for a file without that line (cpu=old
	// output, or a file whose beginning is missing).
	Version string
	// Created is the creation time of the first line: wall-clock time
	// of the JVM's host, whose zone the file does not say, given as UTC.
	// Zero when there is no header or its date is unreadable.
	Created time.Time
	// Generation is the agent generation the prelude's title names.
	Generation Generation
	// OldProf is set for cpu=old output, which starts with the old prof
	// table: no header, prelude or threads.
	OldProf bool
	// BodyLine is the number of the first line after the prelude.
	BodyLine int64
}

// Kind says which record a Reader stands on.
type Kind uint8

// Record kinds. A section yields its Begin record, one record per row or
// entry, then its End record.
const (
	KindThreadStart Kind = iota + 1
	KindThreadEnd
	KindTrace
	KindSitesBegin
	KindSite
	KindSitesEnd
	KindCPUBegin // CPU SAMPLES or CPU TIME (ms)
	KindCPURow
	KindCPUEnd
	KindOldProfBegin // the "count callee caller time" line of cpu=old; no End
	KindOldProfRow
	KindMonitorTimeBegin
	KindMonitorTimeRow
	KindMonitorTimeEnd
	KindMonitorEvent // SLEEP, WAIT, WAITED or EXIT line
	KindMonitorDumpBegin
	KindMonitorDumpThread
	KindMonitorDumpMonitor
	KindMonitorDumpEnd
	KindHeapDumpBegin
	KindRoot
	KindClass
	KindObject
	// KindObjectFields carries further field lines of the object of the
	// preceding KindObject record, when it has more than fit in one.
	KindObjectFields
	KindArray
	// KindArrayElements carries further element lines of the array of
	// the preceding KindArray record, when it has more than fit in one.
	KindArrayElements
	KindHeapDumpEnd
)

var kindNames = [...]string{
	KindThreadStart: "THREAD START", KindThreadEnd: "THREAD END", KindTrace: "TRACE",
	KindSitesBegin: "SITES BEGIN", KindSite: "SITES row", KindSitesEnd: "SITES END",
	KindCPUBegin: "CPU BEGIN", KindCPURow: "CPU row", KindCPUEnd: "CPU END",
	KindOldProfBegin: "old prof header", KindOldProfRow: "old prof row",
	KindMonitorTimeBegin: "MONITOR TIME BEGIN", KindMonitorTimeRow: "MONITOR TIME row",
	KindMonitorTimeEnd: "MONITOR TIME END", KindMonitorEvent: "monitor event",
	KindMonitorDumpBegin: "MONITOR DUMP BEGIN", KindMonitorDumpThread: "MONITOR DUMP thread",
	KindMonitorDumpMonitor: "MONITOR DUMP monitor", KindMonitorDumpEnd: "MONITOR DUMP END",
	KindHeapDumpBegin: "HEAP DUMP BEGIN", KindRoot: "ROOT", KindClass: "CLS", KindObject: "OBJ",
	KindObjectFields: "OBJ fields", KindArray: "ARR", KindArrayElements: "ARR elements",
	KindHeapDumpEnd: "HEAP DUMP END",
}

// String names the kind after the line it comes from.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", uint8(k))
}

// Record is the record the Reader stands on. Only the field of its Kind
// is meaningful, as the comment of each field says. Byte slices point
// into the Reader's buffers and are valid until the next call to Next;
// the record itself is overwritten.
type Record struct {
	Kind Kind
	// Line is the number of the record's first line, from 1.
	Line int64
	// Dump says, for the records of a section, which section of its kind
	// in the file this is (from 0): each Ctrl-\ appends one more.
	Dump int

	ThreadStart   ThreadStart      // KindThreadStart
	ThreadEnd     uint32           // KindThreadEnd: the thread serial
	Trace         Trace            // KindTrace
	Sites         SitesBegin       // KindSitesBegin
	Site          Site             // KindSite
	CPU           CPUBegin         // KindCPUBegin
	CPURow        CPURow           // KindCPURow
	OldProfRow    OldProfRow       // KindOldProfRow
	MonitorTime   MonitorTimeBegin // KindMonitorTimeBegin
	MonitorRow    MonitorTimeRow   // KindMonitorTimeRow
	Event         MonitorEvent     // KindMonitorEvent
	MonitorThread MonitorThread    // KindMonitorDumpThread
	Monitor       Monitor          // KindMonitorDumpMonitor
	HeapDump      HeapDumpBegin    // KindHeapDumpBegin
	Root          Root             // KindRoot
	Class         Class            // KindClass
	Object        Object           // KindObject and KindObjectFields
	Array         Array            // KindArray and KindArrayElements
}

// ThreadStart is a THREAD START line.
type ThreadStart struct {
	ObjectID uint64 // the thread object, in the agent's numbering
	Serial   uint32
	Name     []byte
	Group    []byte
}

// Frame is one frame of a TRACE.
type Frame struct {
	Class  []byte // dotted class name
	Method []byte // empty for <Unknown Method>
	Source []byte // source file; empty for <Unknown Source>
	// Line > 0 is a source line; else thread.LineUnknown, LineCompiled or
	// LineNative, as in the binary FRAME record.
	Line int32
}

// Trace is a TRACE block; Frames[0] is the innermost frame and Frames is
// empty for a trace printed as <empty>.
type Trace struct {
	Serial uint32
	Thread uint32 // thread serial, 0 when the trace names none
	Phase  []byte // JVMTI: the VM phase a trace outside the live phase is from
	Frames []Frame
}

// ThreadFrames returns the frames of t as stack frames of the thread
// model, their names copied out of the reader's buffers; a frame of
// <Unknown Method> is named "<unknown method>".
func (t *Trace) ThreadFrames() []thread.Frame {
	out := make([]thread.Frame, len(t.Frames))
	for i, f := range t.Frames {
		fr := thread.Frame{Class: string(f.Class), Method: string(f.Method), File: string(f.Source), Line: f.Line}
		if fr.Method == "" {
			fr.Method = "<unknown method>"
		}
		out[i] = fr
	}
	return out
}

// SitesBegin is a SITES BEGIN line.
type SitesBegin struct {
	OrderedBy []byte // "live bytes" or "allocated bytes"
	Time      time.Time
}

// Site is a row of SITES. Percentages are as printed (rounded to two
// decimals); counts are 32-bit and wrap as the agent's did.
type Site struct {
	Rank         uint32
	Self, Accum  float64 // percent
	LiveBytes    uint32
	LiveObjects  uint32
	AllocBytes   uint32
	AllocObjects uint32
	Trace        uint32
	// Class is the class as printed: JVMTI external names (char[],
	// java.lang.String[]); JVMPI class names for instances, descriptors
	// ([I) for primitive arrays and [L<Unknown>; for object arrays.
	Class []byte
}

// CPUBegin is a CPU SAMPLES BEGIN or CPU TIME (ms) BEGIN line.
type CPUBegin struct {
	Times bool   // CPU TIME (cpu=times): counts are calls, the total is ms
	Total uint32 // samples, or ms; 32-bit, wraps
	Time  time.Time
}

// CPURow is a row of CPU SAMPLES or CPU TIME.
type CPURow struct {
	Rank        uint32
	Self, Accum float64 // percent
	Count       uint32  // samples, or calls for CPU TIME
	Trace       uint32
	// Class and Method name the top frame of the trace; both are empty
	// for an <empty trace>.
	Class  []byte
	Method []byte
}

// MethodRef is a method of the old prof table, empty for an unknown one.
type MethodRef struct {
	Class     []byte
	Name      []byte
	Signature []byte
}

// OldProfRow is a row of the cpu=old table.
type OldProfRow struct {
	Count  int64
	Callee MethodRef
	Caller MethodRef
	Time   int64 // ms
}

// MonitorTimeBegin is a MONITOR TIME BEGIN line.
type MonitorTimeBegin struct {
	TotalMS uint32
	Time    time.Time
}

// MonitorRef names a monitor as the agents print it.
type MonitorRef struct {
	// Raw is set for a JVMPI raw (VM-internal) monitor, named by Name.
	Raw  bool
	Name []byte
	// Class is the class of a Java monitor's object, as printed: JVMTI
	// prints JVM signatures (Ljava/lang/Object;) except in MONITOR TIME
	// (external names); JVMPI prints class names, [L<name>; for object
	// arrays and [I, [C... for primitive arrays.
	Class []byte
	// ID is the JVMPI object or raw monitor ID; JVMTI prints none (0).
	ID uint64
}

// MonitorTimeRow is a row of MONITOR TIME.
type MonitorTimeRow struct {
	Rank        uint32
	Self, Accum float64 // percent
	Count       uint32  // contentions
	Trace       uint32
	Monitor     MonitorRef
}

// EventKind says which monitor event line a MonitorEvent is.
type EventKind uint8

// Monitor event lines (monitor=y).
const (
	EventSleep  EventKind = iota + 1 // SLEEP: Thread.sleep
	EventWait                        // WAIT: Object.wait begins
	EventWaited                      // WAITED: Object.wait returned (JVMTI)
	EventExit                        // EXIT: (JVMTI)
)

// MonitorEvent is a SLEEP, WAIT, WAITED or EXIT line.
type MonitorEvent struct {
	Kind       EventKind
	Monitor    MonitorRef // not for EventSleep
	Timeout    int64      // ms; EventSleep and EventWait
	TimeWaited int64      // ms; EventWaited
	Thread     uint32     // 0 for <unknown thread>
}

// MonitorThread is a THREAD line of MONITOR DUMP.
type MonitorThread struct {
	Thread      uint32
	Trace       uint32
	Suspended   bool
	Interrupted bool
	InNative    bool
	// State is one of the Status codes: R (runnable), MW (blocked
	// entering a monitor), CW (waiting), SL (sleeping), ZO (terminated),
	// NS (not started) or UN (unknown); empty when the JVMPI agent
	// printed none. ThreadState names it.
	State []byte
}

// Monitor is a MONITOR or RAW MONITOR entry of MONITOR DUMP with its
// continuation lines.
type Monitor struct {
	Monitor MonitorRef
	Owned   bool
	// Owner is the owner's thread serial, 0 for <unknown thread>.
	Owner uint32
	// EntryCount is the recursion count (HotSpot's JVMPI prints waiters
	// plus contenders instead).
	EntryCount int32
	// WaitingToEnter and WaitingToBeNotified list thread serials, 0 for
	// <unknown thread>.
	WaitingToEnter      []uint32
	WaitingToBeNotified []uint32
}

// HeapDumpBegin is a HEAP DUMP BEGIN line; the totals are 32-bit.
type HeapDumpBegin struct {
	Objects uint32
	Bytes   uint32
	Time    time.Time
}

// Root is a ROOT line. Kind is the binary sub-record tag of the same
// root kind: RootThreadObj (<thread>), RootUnknown, RootJNIGlobal,
// RootJNILocal, RootJavaFrame (<Java stack>), RootNativeStack,
// RootStickyClass (<system class>), RootThreadBlock or RootMonitorUsed
// (<busy monitor>).
type Root struct {
	Kind         hprof.SubTag
	ID           uint64
	JNIRef       uint64 // <JNI global ref>: the reference's id
	ThreadSerial uint32 // <thread> id, or the thread= of the kinds that have one
	TraceSerial  uint32 // <thread> and <JNI global ref>
	FrameDepth   int32  // <JNI local ref> and <Java stack>; -1 otherwise
	ClassName    []byte // <system class>
}

// Class is a CLS line with its continuation lines. The IDs of absent
// references are 0.
type Class struct {
	ID                 uint64
	Name               []byte
	TraceSerial        uint32
	SuperID            uint64
	LoaderID           uint64
	SignersID          uint64
	ProtectionDomainID uint64
	Statics            []Reference // non-null reference statics
	Constants          []Constant  // non-null reference constant-pool entries
}

// Reference is a named non-null reference: a static or instance field.
type Reference struct {
	Name []byte
	ID   uint64
}

// Constant is a constant-pool entry of a CLS.
type Constant struct {
	Index uint32
	ID    uint64
}

// Object is an OBJ line with its field lines: the non-null reference
// fields, the class's own first, then its superclasses'. Primitive
// fields never appear in the ASCII format.
type Object struct {
	ID          uint64
	Size        uint32 // sz=
	TraceSerial uint32
	ClassName   []byte
	ClassID     uint64
	Fields      []Reference
}

// Array is an ARR line with its element lines (non-null elements only).
type Array struct {
	ID          uint64
	Size        uint32 // sz=
	TraceSerial uint32
	Length      uint32
	// ElemType is hprof.TypeObject for object arrays, else the primitive
	// type (a JVMPI double[] is printed, and read, as long).
	ElemType hprof.Type
	// TypeName is the type as printed: JVMTI prints the array class
	// (java.lang.String[], int[]), JVMPI the element class or the
	// primitive name (int).
	TypeName []byte
	// ClassID is the ID printed after TypeName for object arrays.
	ClassID uint64
	// OfElement is set when TypeName and ClassID name the element class
	// (JVMPI) rather than the array class (JVMTI).
	OfElement bool
	Elements  []Element
}

// Element is a non-null element of an object array.
type Element struct {
	Index uint32
	ID    uint64
}
