package hprof

// Source is a stream of heap records in HPROF's vocabulary: what the heap
// model is built from. The Reader of binary HPROF files is one; the heap
// dumps of the other formats are translated into it beside their parsers
// (parser/hprofascii, parser/jvmpi), as the hprof agent of JDK 1.2–1.4
// itself translated JVMPI heap dumps into HPROF records.
//
// A translation says what the HPROF vocabulary has no words for through
// Traits (fixed when the source is opened), Object (per heap object) and
// Sizes (once the stream is read): the builder takes those facts and
// applies them, so no source needs the model and the model needs no
// source's internals.
type Source interface {
	// Header describes the stream: version string, identifier size, time.
	Header() Header
	// Traits says how the stream differs from a binary HPROF file.
	Traits() Traits

	// Next, Record and Err iterate like bufio.Scanner. The offsets of
	// records, warnings and a FormatError count bytes, or lines when
	// Traits.Lines is set.
	Next() bool
	Record() *Record
	Err() error

	// Payload and PayloadChunks return the current sub-record's instance
	// field bytes or array elements, big-endian, references IDSize bytes.
	Payload() ([]byte, error)
	PayloadChunks(fn func(chunk []byte) error) error
	IDSize() int
	ID(b []byte) uint64
	// Object returns what the source tells about the current heap object
	// beyond its record; the zero ObjectInfo when it tells nothing more
	// (binary HPROF).
	Object() ObjectInfo

	// Warnings returns the first survivable oddities met so far;
	// WarningCount counts them all.
	Warnings() []Warning
	WarningCount() int
	// Dumps is how many heap dumps were started so far.
	Dumps() int
	// Offset is how far the stream was read, in the unit of its offsets;
	// BytesRead is the number of (decompressed) bytes that is.
	Offset() int64
	BytesRead() int64
	// Sizes returns what the source learned of object sizes over the
	// whole stream; call it once Next returned false.
	Sizes() SizeFacts
}

// Traits say how a Source's stream differs from a binary HPROF file's.
// The zero Traits describe a binary HPROF file.
type Traits struct {
	// Format names the file format: "hprof", "hprof-ascii" or "jvmpi".
	Format string
	// Producer names the writer when the format alone tells it:
	// "hprof-agent" for the agent's ASCII output, "jvmpi" for JVMPI
	// buffers; empty when the records tell it (binary HPROF).
	Producer string
	// Lines is set when offsets count lines, not bytes (the agent's ASCII
	// output).
	Lines bool
	// NamedReferences is set when INSTANCE_DUMP records carry no field
	// bytes: each instance's non-null references come by field name in
	// ObjectInfo.Refs instead, and no field declarations or values are
	// known (the agent's ASCII output).
	NamedReferences bool
	// ObjectSizes is set when object ids are no addresses and the source
	// gives each array's size itself (ObjectInfo.Size): the JVM layout is
	// inferred from those sizes, not from the gaps between ids.
	ObjectSizes bool
	// InventedClasses names, by class id, the classes the translation
	// gives objects whose class the format does not record (a JVMPI
	// level-0 dump's instances and object arrays). No LOAD_CLASS names
	// them and no CLASS_DUMP describes them: they are no classes the file
	// fails to dump.
	InventedClasses map[uint64]string
}

// ObjectInfo is what a Source tells about the current heap sub-record
// beyond the record itself.
type ObjectInfo struct {
	// Refs lists an INSTANCE_DUMP's non-null references by field name,
	// for a source with Traits.NamedReferences.
	Refs []NamedRef
	// Size is the JVM's size of the object when the source gives one that
	// goes with the record's length (evidence for the layout), 0 when it
	// gives none.
	Size int64
}

// NamedRef is a reference an object holds in the field Name; the source
// does not say which class declares the field.
type NamedRef struct {
	Name string
	ID   uint64
}

// SizeFacts is what a Source knows of object sizes better than a JVM
// layout inferred from the dump can: the VM's own sizes that JVMPI class
// dumps and the agent's ASCII OBJ and ARR lines record.
type SizeFacts struct {
	// SizeSource says, for people, where InstanceSizes come from, e.g.
	// "the ASCII dump's sz= (the JVM's own)".
	SizeSource string
	// InstanceSizes is the JVM's size of one instance, header included,
	// by class id (of every dump of the file).
	InstanceSizes map[uint64]int64
	// SizeConflicts counts the instances whose size differs from the one
	// InstanceSizes holds for their class (the first one met).
	SizeConflicts int64
	// ArraySizes lists, in stream order, the arrays whose JVM size the
	// source gives beside a length that may fall short of it: the agent
	// writes object arrays only up to their last non-null element, and
	// the arrays it did not see reached with no elements, each with the
	// JVM's size of the whole array.
	ArraySizes []ArraySize
}

// ArraySize is an array whose JVM size a source gives beside its length.
type ArraySize struct {
	// Dump is the heap dump of the file the array is in (from 0).
	Dump int
	ID   uint64
	// ClassID is an object array's class (an OBJ_ARRAY_DUMP's ClassID);
	// 0 for a primitive array, whose class is that of its Elem.
	ClassID uint64
	Elem    Type
	Length  uint32
	Size    int64
}

// Traits are those of a binary HPROF file.
func (r *Reader) Traits() Traits { return Traits{Format: "hprof"} }

// Object tells nothing beyond the record: a binary file's objects are
// their records.
func (r *Reader) Object() ObjectInfo { return ObjectInfo{} }

// BytesRead is the stream offset: a binary file's offsets count bytes.
func (r *Reader) BytesRead() int64 { return r.Offset() }

// Sizes is empty: a binary file records no object sizes, which follow
// from the JVM layout.
func (r *Reader) Sizes() SizeFacts { return SizeFacts{} }
