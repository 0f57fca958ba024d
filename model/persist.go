package model

import (
	"errors"
	"fmt"

	"github.com/hprofctl/hprofctl/model/layout"
	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/parser/input"
)

// The sections a Heap is kept in, in an index file (docs/index-format.md
// lists them).
const (
	sectionHeapMeta     = "heap.meta"
	sectionIDs          = "heap.ids" // a splitTable: three sections
	sectionLookup       = "heap.lookup"
	sectionClassOf      = "heap.class-of"
	sectionIsArray      = "heap.arrays.is-array"
	sectionArrayLengths = "heap.arrays.lengths"
	sectionArrayDigests = "heap.arrays.digests"
	sectionArrayRecord  = "heap.arrays.recorded"
	sectionArrayUniform = "heap.arrays.uniform"
	sectionRefStart     = "heap.ref-start"
	sectionRefs         = "heap.refs"
	sectionWeakFrom     = "heap.referents.from"
	sectionWeakTo       = "heap.referents.to"
	sectionOffsets      = "heap.offsets" // a splitTable: three sections
	sectionSwitchAt     = "heap.heaps.switch-at"
	sectionSwitchHeap   = "heap.heaps.switch-to"
)

// The sections a splitTable is kept in, after the table's name.
const (
	splitLow      = ".low"
	splitRunStart = ".run-start"
	splitRunHigh  = ".run-high"
)

// heapMeta is what a Heap keeps besides its per-object tables, as the
// index stores it (JSON).
type heapMeta struct {
	Source          Source
	Classes         []classMeta
	Roots           []Root
	Threads         []Thread
	Traces          []Trace
	Layout          layout.Config
	LayoutReason    string
	RecordCounts    map[string]int64
	SubRecordCounts map[string]int64
	Anomalies       []Anomaly
	Notes           []Anomaly
	Truncated       bool
	HasObjects      bool
	ClassObjects    int64
	ClassSize       []int64
	MirrorSize      []int64
	Profile         *Profile
	Allocs          []ObjectAlloc
	LookupMin       uint64
	LookupShift     uint
	HasOffsets      bool
	Checkpoints     []input.Checkpoint
	HeapNames       []string
}

// classMeta is a Class with the array length residues it keeps to itself.
type classMeta struct {
	Class
	LengthResidues []int64 `json:",omitempty"`
}

// WriteIndex writes h into the index w: its classes, roots, threads and
// traces as one JSON section, each per-object table as an array section.
// A heap read from a bare JVMPI buffer (LoadOptions.JVMPI) cannot be
// kept: its reading options are no data.
func (h *Heap) WriteIndex(w *store.Writer) error {
	if h.jvmpiBare != nil {
		return errors.New("a heap read from a bare JVMPI buffer cannot be indexed")
	}
	m := heapMeta{
		Source: h.Source, Roots: h.Roots, Threads: h.Threads, Traces: h.Traces,
		Layout: h.Layout, LayoutReason: h.LayoutReason,
		RecordCounts: h.RecordCounts, SubRecordCounts: h.SubRecordCounts,
		Anomalies: h.Anomalies, Notes: h.Notes, Truncated: h.Truncated, HasObjects: h.HasObjects,
		ClassObjects: h.classObjects, ClassSize: h.classSize, MirrorSize: h.mirrorSize,
		Profile: h.profile, Allocs: h.allocs,
		HasOffsets: h.offsets != nil, Checkpoints: h.checkpoints, HeapNames: h.heapNames,
	}
	m.Classes = make([]classMeta, len(h.Classes))
	for i := range h.Classes {
		m.Classes[i].Class = h.Classes[i]
		if r := h.Classes[i].lengthResidues; r != nil {
			m.Classes[i].LengthResidues = r[:]
		}
	}
	if h.lookup != nil {
		m.LookupMin, m.LookupShift = h.lookup.min, h.lookup.shift
	}
	if err := w.WriteJSON(sectionHeapMeta, &m); err != nil {
		return err
	}
	from := make([]ObjectIndex, len(h.referents))
	to := make([]ObjectIndex, len(h.referents))
	for i, r := range h.referents {
		from[i], to[i] = r.From, r.To
	}
	var bucket []uint32
	if h.lookup != nil {
		bucket = h.lookup.bucket
	}
	offsets := h.offsets
	if offsets == nil {
		offsets = &splitTable{}
	}
	return errors.Join(
		writeSplit(w, sectionIDs, &h.ids),
		store.WriteArray(w, sectionLookup, bucket),
		store.WriteArray(w, sectionClassOf, h.classOf),
		store.WriteArray(w, sectionIsArray, h.arrays.isArray),
		store.WriteArray(w, sectionArrayLengths, h.arrays.lengths),
		store.WriteArray(w, sectionArrayDigests, h.contents.digests),
		store.WriteArray(w, sectionArrayRecord, h.contents.recorded),
		store.WriteArray(w, sectionArrayUniform, h.contents.uniform),
		store.WriteArray(w, sectionRefStart, h.refStart),
		store.WriteArray(w, sectionRefs, h.refs),
		store.WriteArray(w, sectionWeakFrom, from),
		store.WriteArray(w, sectionWeakTo, to),
		writeSplit(w, sectionOffsets, offsets),
		store.WriteArray(w, sectionSwitchAt, h.switchAt),
		store.WriteArray(w, sectionSwitchHeap, h.switchHeap),
	)
}

// writeSplit writes table t as the sections name.low, name.run-start and
// name.run-high.
func writeSplit(w *store.Writer, name string, t *splitTable) error {
	return errors.Join(
		store.WriteArray(w, name+splitLow, t.low),
		store.WriteArray(w, name+splitRunStart, t.runStart),
		store.WriteArray(w, name+splitRunHigh, t.runHigh),
	)
}

// loadSplit reads table t from the sections writeSplit wrote, as
// store.Load reads one section.
func loadSplit(ix *store.Index, name string, t *splitTable, err *error) {
	store.Load(ix, name+splitLow, &t.low, err)
	store.Load(ix, name+splitRunStart, &t.runStart, err)
	store.Load(ix, name+splitRunHigh, &t.runHigh, err)
}

// ReadIndex returns the Heap that WriteIndex wrote into ix. Its per-object
// tables are ix's mapping: ix must stay open while the Heap is used. A
// section that is missing, has the wrong type or disagrees with the others
// is an error (the index is then no index of this build).
func ReadIndex(ix *store.Index) (*Heap, error) {
	var m heapMeta
	if err := ix.JSON(sectionHeapMeta, &m); err != nil {
		return nil, err
	}
	h := &Heap{
		Source: m.Source, Roots: m.Roots, Threads: m.Threads, Traces: m.Traces,
		Layout: m.Layout, LayoutReason: m.LayoutReason,
		RecordCounts: m.RecordCounts, SubRecordCounts: m.SubRecordCounts,
		Anomalies: m.Anomalies, Notes: m.Notes, Truncated: m.Truncated, HasObjects: m.HasObjects,
		classObjects: m.ClassObjects, classSize: m.ClassSize, mirrorSize: m.MirrorSize,
		profile: m.Profile, allocs: m.Allocs, checkpoints: m.Checkpoints,
		heapNames: m.HeapNames,
		classByID: make(map[uint64]ClassIndex, len(m.Classes)),
	}
	if h.profile == nil {
		h.profile = &Profile{}
	}
	h.Classes = make([]Class, len(m.Classes))
	for i := range m.Classes {
		h.Classes[i] = m.Classes[i].Class
		if r := m.Classes[i].LengthResidues; r != nil {
			if len(r) != 256 {
				return nil, indexError("class %d has %d array length residues, not 256", i, len(r))
			}
			h.Classes[i].lengthResidues = (*[256]int64)(r)
		}
		if h.Classes[i].ID != 0 {
			h.classByID[h.Classes[i].ID] = ClassIndex(i)
		}
	}
	if len(h.classSize) != len(h.Classes) || len(h.mirrorSize) != len(h.Classes) {
		return nil, indexError("%d classes but %d instance and %d mirror sizes", len(h.Classes), len(h.classSize), len(h.mirrorSize))
	}
	var (
		bucket   []uint32
		from, to []ObjectIndex
		offsets  splitTable
		err      error
	)
	loadSplit(ix, sectionIDs, &h.ids, &err)
	// What the code indexes with is checked element by element as its
	// checksum is (store.Elements): classes and references in range,
	// reference starts in order.
	n := uint32(len(h.ids.low))
	refs, _ := ix.Section(sectionRefs)
	store.Load(ix, sectionLookup, &bucket, &err)
	store.LoadOf(ix, sectionClassOf, store.Elements{Below: uint32(len(h.Classes))}, &h.classOf, &err)
	store.Load(ix, sectionIsArray, &h.arrays.isArray, &err)
	store.Load(ix, sectionArrayLengths, &h.arrays.lengths, &err)
	store.Load(ix, sectionArrayDigests, &h.contents.digests, &err)
	store.Load(ix, sectionArrayRecord, &h.contents.recorded, &err)
	store.Load(ix, sectionArrayUniform, &h.contents.uniform, &err)
	store.LoadOf(ix, sectionRefStart, store.Elements{Below: uint32(min(refs.Count+1, 1<<32-1)), Ascending: true}, &h.refStart, &err)
	store.LoadOf(ix, sectionRefs, store.Elements{Below: n}, &h.refs, &err)
	store.Load(ix, sectionWeakFrom, &from, &err)
	store.Load(ix, sectionWeakTo, &to, &err)
	loadSplit(ix, sectionOffsets, &offsets, &err)
	store.Load(ix, sectionSwitchAt, &h.switchAt, &err)
	store.Load(ix, sectionSwitchHeap, &h.switchHeap, &err)
	if err != nil {
		return nil, err
	}
	if err := h.checkSwitches(); err != nil {
		return nil, err
	}
	if err := h.adoptTables(bucket, from, to, &offsets, m); err != nil {
		return nil, err
	}
	return h, nil
}

// adoptTables checks that the per-object tables read from an index agree
// with each other in length and with the classes, and makes them the
// Heap's. What the code indexes with was checked element by element as
// it was read (ReadIndex): a checksum only says the bytes are those
// written, not that whoever wrote them wrote sense. The other large
// tables' elements are not checked one by one.
func (h *Heap) adoptTables(bucket []uint32, from, to []ObjectIndex, offsets *splitTable, m heapMeta) error {
	n := h.ids.len()
	if !h.HasObjects {
		if n != 0 {
			return indexError("%d objects in a heap kept without them", n)
		}
		return nil
	}
	if err := h.ids.check("object ids", n); err != nil {
		return err
	}
	if len(h.classOf) != n || len(h.refStart) != n+1 {
		return indexError("%d object ids but %d classes and %d reference starts", n, len(h.classOf), len(h.refStart))
	}
	if err := h.arrays.check(n); err != nil {
		return err
	}
	if err := h.contents.check(len(h.arrays.lengths)); err != nil {
		return err
	}
	recorded := 0
	if m.HasOffsets {
		recorded = n
	}
	if err := offsets.check("object offsets", recorded); err != nil {
		return err
	}
	if m.HasOffsets {
		h.offsets = offsets
	}
	if h.refStart[0] != 0 || int(h.refStart[n]) != len(h.refs) {
		return indexError("reference starts do not cover the %d references", len(h.refs))
	}
	if len(from) != len(to) {
		return indexError("%d referent sources but %d targets", len(from), len(to))
	}
	h.referents = make([]WeakRef, len(from))
	for i := range from {
		if int(from[i]) >= n || int(to[i]) >= n {
			return indexError("a referent edge outside the %d objects", n)
		}
		h.referents[i] = WeakRef{From: from[i], To: to[i]}
	}
	for i := range h.Roots {
		if o := h.Roots[i].Object; o != NoObject && int(o) >= n {
			return indexError("a GC root names object %d of %d", o, n)
		}
	}
	for i := range h.Classes {
		if o := h.Classes[i].Object; o != NoObject && int(o) >= n {
			return indexError("class %d's object is %d of %d", i, o, n)
		}
	}
	for i := 1; i < len(bucket); i++ {
		if bucket[i] < bucket[i-1] || int(bucket[i]) > n {
			return indexError("the id lookup table is out of order")
		}
	}
	if n > 0 && (len(bucket) < 2 || m.LookupShift > 63) {
		return indexError("the id lookup table has %d buckets", len(bucket))
	}
	h.lookup = &idLookup{ids: h.ids, min: m.LookupMin, shift: m.LookupShift, bucket: bucket}
	return nil
}

// checkSwitches reports whether the heap switches read from an index are
// in ascending offset order and name heaps that the index names.
func (h *Heap) checkSwitches() error {
	if len(h.switchAt) != len(h.switchHeap) {
		return indexError("%d heap switch offsets but %d heaps", len(h.switchAt), len(h.switchHeap))
	}
	for k, at := range h.switchAt {
		if k > 0 && at <= h.switchAt[k-1] || int(h.switchHeap[k]) >= len(h.heapNames) {
			return indexError("heap switch %d (offset %d, heap %d of %d) is out of order", k, at, h.switchHeap[k], len(h.heapNames))
		}
	}
	return nil
}

// indexError reports an index whose sections disagree.
func indexError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", store.ErrCorrupt, fmt.Sprintf(format, args...))
}

// check reports whether the runs of a table read from an index cover its
// n entries: the first starts at entry 0, each after the one before, all
// below n; what is wrong is described in terms of what.
func (t *splitTable) check(what string, n int) error {
	if len(t.low) != n {
		return indexError("%d %s, not %d", len(t.low), what, n)
	}
	if len(t.runStart) != len(t.runHigh) || (n > 0) != (len(t.runStart) > 0) {
		return indexError("%d runs of %s with %d high bits for %d entries", len(t.runStart), what, len(t.runHigh), n)
	}
	for i, s := range t.runStart {
		if i == 0 && s != 0 || i > 0 && s <= t.runStart[i-1] || int(s) >= n {
			return indexError("run %d of %s starts at %d", i, what, s)
		}
	}
	return nil
}
