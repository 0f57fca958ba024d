// Package model holds a Java heap as a compact graph of numbered objects:
// objects under dense integer numbers, ObjectIndex (their order is the
// order of their ids), per-object attributes in flat slices, references
// in one CSR array, and classes, GC roots, threads and stack traces
// beside them. It is built while a parser streams a dump and is read by
// the analyses. What it does not keep (field values, array elements,
// field names of references) it reads again through the DumpReader
// attached to it: model opens no file.
package model

import (
	"iter"
	"time"

	"github.com/hprofctl/hprofctl/model/layout"
	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/model/thread"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
)

// ObjectIndex is the dense index of an object: objects are numbered in the
// order of their ids.
type ObjectIndex uint32

// ClassIndex is the index of a class in Heap.Classes.
type ClassIndex uint32

// None marks an absent object or class.
const None = ^uint32(0)

// NoObject is the ObjectIndex of no object.
const NoObject = ObjectIndex(None)

// NoClass is the ClassIndex of no class.
const NoClass = ClassIndex(None)

// Type is a basic type code as HPROF and JVMPI number them.
type Type = layout.FieldType

// Basic type codes.
const (
	TypeObject  = layout.Object
	TypeBoolean = layout.Boolean
	TypeChar    = layout.Char
	TypeFloat   = layout.Float
	TypeDouble  = layout.Double
	TypeByte    = layout.Byte
	TypeShort   = layout.Short
	TypeInt     = layout.Int
	TypeLong    = layout.Long
)

// SizeMode chooses how shallow sizes are counted.
type SizeMode int

const (
	// SizeJVM counts what the JVM allocates: header, fields laid out as
	// HotSpot does, padding to the object alignment (as jmap -histo).
	SizeJVM SizeMode = iota
	// SizeFields counts only the bytes the dump records: field values,
	// array elements, a class's static values; no header, no padding.
	SizeFields
)

// Source describes the dump a Heap came from.
type Source struct {
	File        string
	Format      string // "hprof"
	Version     string // e.g. "1.0.2"
	Compression string
	IDSize      int
	Time        time.Time
	// Producer is a best guess at the writer: "hotspot", "hprof-agent",
	// "android" (docs/hprof.md#how-hprofctl-names-the-producer).
	Producer string
	// Dump is which heap dump of the file was loaded, of Dumps.
	Dump, Dumps int
	// Bytes is the number of (decompressed) bytes read; Lines, for a
	// line-oriented format (the agent's ASCII output), the lines read.
	Bytes, Lines int64
}

// Class is a loaded class.
type Class struct {
	ID     uint64 // class object id; 0 for a class the dump names but never dumps
	Name   string // Java name: "java.lang.String", "int[]", "java.util.HashMap$Node[]"
	Super  ClassIndex
	Loader uint64
	Object ObjectIndex // the class object, NoObject before indexing or when absent
	// DumpInstanceSize is the CLASS_DUMP instance size as the producer wrote it.
	DumpInstanceSize uint32
	Fields           []Field  // own instance fields, dump order
	Statics          []Static // static fields with values
	// Elem is the element type of an array class (TypeObject for object
	// arrays), 0 for other classes.
	Elem Type
	// Instances counts the objects of this class in the loaded dump.
	Instances int64
	// ArrayElements sums the lengths of this array class's instances.
	ArrayElements int64
	// lengthResidues counts array instances by length modulo 256, which
	// with ArrayElements gives exact aligned sizes (see ShallowBytes).
	lengthResidues *[256]int64
}

// Field is an instance field declaration.
type Field struct {
	Name string
	Type Type
}

// Static is a static field and its raw value (an object id for references).
type Static struct {
	Name  string
	Type  Type
	Value uint64
}

// IsArray reports whether c is an array class.
func (c *Class) IsArray() bool { return c.Elem != 0 }

// Root is a GC root.
type Root struct {
	Kind   RootKind
	Object ObjectIndex
	ID     uint64 // the id the dump names (kept when Object is NoObject)
	Thread int32  // position in Heap.Threads, -1 if none
	Frame  int32  // frame depth in the thread's stack, -1 if unknown
}

// RootKind is the kind of a GC root.
type RootKind uint8

// Root kinds, named as HPROF names them.
const (
	RootUnknown RootKind = iota
	RootJNIGlobal
	RootJNILocal
	RootJavaFrame
	RootNativeStack
	RootStickyClass
	RootThreadBlock
	RootMonitorUsed
	RootThreadObject
	RootInternedString
	RootFinalizing
	RootDebugger
	RootReferenceCleanup
	RootVMInternal
	RootJNIMonitor
	RootUnreachable
	numRootKinds
)

var rootKindNames = [numRootKinds]string{
	"unknown", "jni-global", "jni-local", "java-frame", "native-stack", "sticky-class",
	"thread-block", "monitor-used", "thread-object", "interned-string", "finalizing",
	"debugger", "reference-cleanup", "vm-internal", "jni-monitor", "unreachable",
}

// String returns the root kind's name, e.g. "java-frame".
func (k RootKind) String() string {
	if k < numRootKinds {
		return rootKindNames[k]
	}
	return "invalid"
}

// RootKinds lists every root kind in order.
func RootKinds() []RootKind {
	ks := make([]RootKind, numRootKinds)
	for i := range ks {
		ks[i] = RootKind(i)
	}
	return ks
}

// Thread is a Java thread known from the dump.
type Thread struct {
	Serial uint32
	Object ObjectIndex
	ID     uint64
	Name   string
	// Trace is the thread's stack at the dump, an index into Heap.Traces;
	// -1 when the dump does not record it (the hprof agent's thread
	// traces are where the Thread object was allocated, not its stack).
	Trace int32
}

// Trace is a stack trace; Frames[0] is the innermost frame. Its frames
// are the thread model's, so the stack of a heap dump's thread is a
// thread snapshot's stack as it is.
type Trace struct {
	Serial       uint32
	ThreadSerial uint32
	Frames       []thread.Frame
}

// Anomaly is something wrong or odd found in a dump; Count says how often.
type Anomaly struct {
	Kind  string `json:"kind"` // short key, e.g. "dangling-reference"
	Count int64  `json:"count"`
	// Offset is the byte offset of the first occurrence, -1 if not tied
	// to one; in a line-oriented file Line is its line instead.
	Offset int64  `json:"offset"`
	Line   int64  `json:"line,omitempty"`
	Detail string `json:"detail"`
}

// Heap is a loaded heap dump.
type Heap struct {
	Source  Source
	Classes []Class
	Roots   []Root
	Threads []Thread
	Traces  []Trace
	// Layout is the JVM memory layout sizes are computed with, and
	// LayoutReason says how it was chosen.
	Layout       layout.Config
	LayoutReason string
	// RecordCounts counts top-level records by name, SubRecordCounts heap
	// sub-records by name.
	RecordCounts    map[string]int64
	SubRecordCounts map[string]int64
	Anomalies       []Anomaly
	// Notes are what the dump routinely leaves out or says oddly, as its
	// writer always does (docs/hprof.md): told, but no anomaly.
	Notes []Anomaly
	// Truncated is set when the dump ended inside a record; what was read
	// before is kept.
	Truncated bool

	// HasObjects reports whether the per-object tables were built (a
	// histogram-only load skips them).
	HasObjects bool
	ids        splitTable
	classOf    []ClassIndex
	// classOf16, when set, holds the classes instead (a heap read from
	// an index of fewer than 65,536 classes).
	classOf16 []uint16
	arrays    arrayLengths
	contents  arrayContents
	// stringValues are the Strings' values the load took
	// (LoadOptions.StringValues) until DropStringValues; nil for none.
	stringValues *StringValues
	refStart     []uint32
	// refStartPacked, when set, holds the reference starts instead (a
	// heap read from an index).
	refStartPacked *store.Packed
	refs           []ObjectIndex
	referents      []WeakRef
	// offsets holds each object's record offset in the decompressed dump
	// (binary HPROF only; nil otherwise), so that an index can decode an
	// object again without reading the whole dump.
	offsets *splitTable
	// heapNames are the heaps an Android dump's HEAP_DUMP_INFO records
	// name, in the order they first appear; switchAt[k] is the record
	// offset where the objects of heap switchHeap[k] (into heapNames)
	// begin, ascending. An object belongs to the heap of the last switch
	// at or before its record offset, so no table per object is needed.
	heapNames  []string
	switchAt   []int64
	switchHeap []uint32
	// checkpoints are the gzip member checkpoints of a compressed dump,
	// where decoding objects at their offsets can start.
	checkpoints []input.Checkpoint
	lookup      *idLookup
	// classObjects counts the class objects dumped (CLASS_DUMP records);
	// the other java.lang.Class instances are the primitive types' mirrors.
	classObjects int64
	classByID    map[uint64]ClassIndex
	classSize    []int64 // per class: JVM shallow size of one instance
	mirrorSize   []int64 // per class: JVM size of its class object
	// profile is what the file records besides the heap (agent files).
	profile *Profile
	// jvmpiBare is the description of the bare JVMPI buffer the heap was
	// read from, to read it again the same way; nil for other files.
	jvmpiBare *jvmpi.Options
	// dump reads the dump again (SetDumpReader).
	dump DumpReader
	// allocs counts the objects by class and allocation trace, for
	// agent files whose objects carry allocation traces.
	allocs []ObjectAlloc
	// deobfuscated is set once Deobfuscate has mapped the names.
	deobfuscated bool
}

// NumObjects is the number of objects, class objects included.
func (h *Heap) NumObjects() int { return h.ids.len() }

// ObjectID returns the id the dump gives object i.
func (h *Heap) ObjectID(i ObjectIndex) uint64 { return h.ids.at(int(i)) }

// ClassOf returns the class of object i (java.lang.Class for class objects).
func (h *Heap) ClassOf(i ObjectIndex) ClassIndex {
	if h.classOf16 != nil {
		return ClassIndex(h.classOf16[i])
	}
	return h.classOf[i]
}

// ArrayLength returns the element count of array object i, 0 otherwise.
func (h *Heap) ArrayLength(i ObjectIndex) uint32 { return h.arrays.at(int(i)) }

// ArrayContents returns what the load learnt of the elements of array i:
// digest, the CRC-32C (Castagnoli) of a primitive array's element bytes
// as the dump records them (big-endian; 0 for an object array), and
// uniform, whether it has elements and all of them are equal (for an
// object array: all null). recorded is false, and the others zero, for
// an object that is no array and for an array whose elements the dump
// does not record in full.
func (h *Heap) ArrayContents(i ObjectIndex) (digest uint32, uniform, recorded bool) {
	r, ok := h.arrays.position(int(i))
	if !ok || r >= len(h.contents.digests) || h.contents.recorded[r>>6]&(1<<(r&63)) == 0 {
		return 0, false, false
	}
	return h.contents.digests[r], h.contents.uniform[r>>6]&(1<<(r&63)) != 0, true
}

// recordOffset returns the offset of object i's record in the
// decompressed dump; the heap must have offsets.
func (h *Heap) recordOffset(i ObjectIndex) int64 { return int64(h.offsets.at(int(i))) }

// HeapNames returns the heaps the dump's HEAP_DUMP_INFO records name (an
// Android dump's "app", "zygote", "image" ...), in the order they first
// appear; none for a dump without heaps (every JVM dump). The slice is the
// Heap's own; do not modify it.
func (h *Heap) HeapNames() []string { return h.heapNames }

// HeapOf returns the heap that object i was dumped in: the heap named by
// the last HEAP_DUMP_INFO before its record (for a class object: before
// its CLASS_DUMP). ok is false for a dump without heaps, a heap loaded
// without record offsets, and an object that no HEAP_DUMP_INFO precedes.
func (h *Heap) HeapOf(i ObjectIndex) (name string, ok bool) {
	if h.offsets == nil || len(h.switchAt) == 0 {
		return "", false
	}
	if k := h.heapNumber(i); k < len(h.heapNames) {
		return h.heapNames[k], true
	}
	return "", false
}

// Refs returns the objects that object i references (fields, elements,
// and for class objects: super, loader, statics, constants). The slice is
// the Heap's own; do not modify it.
func (h *Heap) Refs(i ObjectIndex) []ObjectIndex {
	if h.refStartPacked != nil {
		return h.packedRefs(i)
	}
	return h.refs[h.refStart[i]:h.refStart[i+1]]
}

// eachRefsRun is how many objects EachRefs takes the reference starts of
// at a time from an index.
const eachRefsRun = 256

// EachRefs calls fn with each object of [lo, hi) in order and the objects
// it references, as Refs returns them: for a pass over many objects,
// where reference starts read from an index are unpacked a run of
// objects at a time rather than looked up for each.
func (h *Heap) EachRefs(lo, hi ObjectIndex, fn func(i ObjectIndex, refs []ObjectIndex)) {
	if h.refStartPacked == nil {
		for i := lo; i < hi; i++ {
			fn(i, h.refs[h.refStart[i]:h.refStart[i+1]])
		}
		return
	}
	var starts [eachRefsRun + 1]uint64
	for at := lo; at < hi; at += eachRefsRun {
		m := min(eachRefsRun, int(hi-at))
		h.refStartPacked.Values(int(at), starts[:m+1])
		for k := range m {
			fn(at+ObjectIndex(k), h.refs[starts[k]:starts[k+1]])
		}
	}
}

// packedRefs is Refs for reference starts read from an index; kept out
// of line so that Refs itself stays small enough to be inlined.
//
//go:noinline
func (h *Heap) packedRefs(i ObjectIndex) []ObjectIndex {
	start, end := h.refStartPacked.Pair(int(i))
	return h.refs[start:end]
}

// WeakRef is the referent of a java.lang.ref.Reference (weak, soft,
// phantom or final reference): an edge that does not keep its target alive.
type WeakRef struct {
	From, To ObjectIndex
}

// Referents returns the referent edges of every Reference object, ordered
// by From. Refs never includes them.
func (h *Heap) Referents() []WeakRef { return h.referents }

// NumRefs is the total number of references.
func (h *Heap) NumRefs() int { return len(h.refs) }

// Lookup returns the object with the given id.
func (h *Heap) Lookup(id uint64) (ObjectIndex, bool) {
	if h.lookup == nil {
		return NoObject, false
	}
	if i, ok := h.lookup.find(id); ok {
		return ObjectIndex(i), true
	}
	return NoObject, false
}

// ClassByID returns the class whose class object has the given id.
func (h *Heap) ClassByID(id uint64) (ClassIndex, bool) {
	c, ok := h.classByID[id]
	return c, ok
}

// ClassObjectOf returns the class that object i is the class object of.
func (h *Heap) ClassObjectOf(i ObjectIndex) (ClassIndex, bool) {
	return h.ClassByID(h.ObjectID(i))
}

// InstanceBytes is the shallow size of one instance of non-array class c.
func (h *Heap) InstanceBytes(c ClassIndex, mode SizeMode) int64 {
	if mode == SizeFields {
		return h.fieldBytes(c)
	}
	return h.classSize[c]
}

// Supers yields class c, then its superclass, and so on up to the top of
// its hierarchy. Load cuts every loop of superclass links (reporting it as
// a superclass-loop anomaly), so the chains of a loaded heap end; the walk
// still takes at most one step per class of the heap, so it ends while a
// dump is being read too, before the loops are cut.
func (h *Heap) Supers(c ClassIndex) iter.Seq[ClassIndex] {
	return func(yield func(ClassIndex) bool) {
		for n := 0; c != NoClass && n < len(h.Classes); n++ {
			if !yield(c) {
				return
			}
			c = h.Classes[c].Super
		}
	}
}

// fieldBytes sums the field sizes of c and its superclasses.
func (h *Heap) fieldBytes(c ClassIndex) int64 {
	var n int64
	for k := range h.Supers(c) {
		for _, f := range h.Classes[k].Fields {
			n += int64(h.typeSize(f.Type))
		}
	}
	return n
}

func (h *Heap) typeSize(t Type) int { return t.Size(h.Source.IDSize) }

// ArrayBytes is the shallow size of an array of class c with n elements.
func (h *Heap) ArrayBytes(c ClassIndex, n int64, mode SizeMode) int64 {
	e := h.Classes[c].Elem
	if mode == SizeFields {
		return n * int64(h.typeSize(e))
	}
	return h.Layout.ArraySize(e, n)
}

// ClassObjectBytes is the shallow size of the class object of class c.
func (h *Heap) ClassObjectBytes(c ClassIndex, mode SizeMode) int64 {
	if mode == SizeFields {
		var n int64
		for _, s := range h.Classes[c].Statics {
			n += int64(h.typeSize(s.Type))
		}
		return n
	}
	return h.mirrorSize[c]
}

// ShallowBytes is the shallow size of object i.
func (h *Heap) ShallowBytes(i ObjectIndex, mode SizeMode) int64 {
	if c, ok := h.ClassObjectOf(i); ok && h.Classes[c].Object == i {
		return h.ClassObjectBytes(c, mode)
	}
	c := h.ClassOf(i)
	if h.Classes[c].IsArray() {
		return h.ArrayBytes(c, int64(h.ArrayLength(i)), mode)
	}
	return h.InstanceBytes(c, mode)
}

// ClassBytes is the total shallow size of all instances of class c (for
// java.lang.Class: of all class objects), computed from the per-class
// counters, so it is available without the per-object tables.
func (h *Heap) ClassBytes(c ClassIndex, mode SizeMode) int64 {
	cl := &h.Classes[c]
	if cl.IsArray() {
		if mode == SizeFields || cl.lengthResidues == nil {
			return h.ArrayBytes(c, cl.ArrayElements, SizeFields)
		}
		// Equal lengths modulo 256 give equal padding, because no
		// object alignment exceeds 256 bytes.
		var total, residueElements int64
		for r, n := range cl.lengthResidues {
			if n != 0 {
				total += n * h.ArrayBytes(c, int64(r), mode)
				residueElements += n * int64(r)
			}
		}
		return total + (cl.ArrayElements-residueElements)*int64(cl.Elem.Size(h.Layout.Ref))
	}
	if h.isClassClass(c) {
		total := (cl.Instances - h.classObjects) * h.InstanceBytes(c, mode)
		for k := range h.Classes {
			if h.Classes[k].ID != 0 {
				total += h.ClassObjectBytes(ClassIndex(k), mode)
			}
		}
		return total
	}
	return cl.Instances * h.InstanceBytes(c, mode)
}

// RootThreadsAreAllocators reports whether the thread of the dump's
// java-frame and JNI-local roots is the thread that allocated the object
// rather than the one whose frame holds it: the hprof agent names the
// former (or no thread, when that one is not in the dump).
func (h *Heap) RootThreadsAreAllocators() bool { return h.Source.Producer == "hprof-agent" }

// ClassClass is the index of java.lang.Class, NoClass if the dump lacks it.
func (h *Heap) ClassClass() ClassIndex {
	for i := range h.Classes {
		if h.Classes[i].Name == "java.lang.Class" {
			return ClassIndex(i)
		}
	}
	return NoClass
}

// isReference reports whether class c is java.lang.ref.Reference or one
// of its subclasses.
func (h *Heap) isReference(c ClassIndex) bool {
	for k := range h.Supers(c) {
		if h.Classes[k].Name == "java.lang.ref.Reference" {
			return true
		}
	}
	return false
}

func (h *Heap) isClassClass(c ClassIndex) bool { return h.Classes[c].Name == "java.lang.Class" }

// Profile returns the profiling records of the file the heap came from:
// allocation sites, CPU samples, threads, traces. Never nil after Load.
func (h *Heap) Profile() *Profile { return h.profile }

// ObjectAllocs returns the dump's objects counted by class, allocation
// trace and array length, ordered so; empty unless the hprof agent wrote
// the dump (other writers record no allocation traces). Class objects are
// not counted. The slice is the Heap's own; do not modify it.
func (h *Heap) ObjectAllocs() []ObjectAlloc { return h.allocs }
