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
	sectionHeapMeta   = "heap.meta"
	sectionIDLow      = "heap.ids.low"
	sectionIDRunStart = "heap.ids.run-start"
	sectionIDRunHigh  = "heap.ids.run-high"
	sectionLookup     = "heap.lookup"
	sectionClassOf    = "heap.class-of"
	sectionLengths    = "heap.lengths"
	sectionRefStart   = "heap.ref-start"
	sectionRefs       = "heap.refs"
	sectionWeakFrom   = "heap.referents.from"
	sectionWeakTo     = "heap.referents.to"
	sectionOffsets    = "heap.offsets"
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
		Anomalies: h.Anomalies, Truncated: h.Truncated, HasObjects: h.HasObjects,
		ClassObjects: h.classObjects, ClassSize: h.classSize, MirrorSize: h.mirrorSize,
		Profile: h.profile, Allocs: h.allocs,
		HasOffsets: h.offsets != nil, Checkpoints: h.checkpoints,
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
	runStart := make([]uint32, len(h.ids.runs))
	runHigh := make([]uint32, len(h.ids.runs))
	for i, r := range h.ids.runs {
		runStart[i], runHigh[i] = uint32(r.start), r.high
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
	return errors.Join(
		store.WriteArray(w, sectionIDLow, h.ids.low),
		store.WriteArray(w, sectionIDRunStart, runStart),
		store.WriteArray(w, sectionIDRunHigh, runHigh),
		store.WriteArray(w, sectionLookup, bucket),
		store.WriteArray(w, sectionClassOf, h.classOf),
		store.WriteArray(w, sectionLengths, h.lengths),
		store.WriteArray(w, sectionRefStart, h.refStart),
		store.WriteArray(w, sectionRefs, h.refs),
		store.WriteArray(w, sectionWeakFrom, from),
		store.WriteArray(w, sectionWeakTo, to),
		store.WriteArray(w, sectionOffsets, h.offsets),
	)
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
		Anomalies: m.Anomalies, Truncated: m.Truncated, HasObjects: m.HasObjects,
		classObjects: m.ClassObjects, classSize: m.ClassSize, mirrorSize: m.MirrorSize,
		profile: m.Profile, allocs: m.Allocs, checkpoints: m.Checkpoints,
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
		low, runStart, runHigh, bucket []uint32
		from, to                       []ObjectIndex
		err                            error
	)
	store.Load(ix, sectionIDLow, &low, &err)
	store.Load(ix, sectionIDRunStart, &runStart, &err)
	store.Load(ix, sectionIDRunHigh, &runHigh, &err)
	store.Load(ix, sectionLookup, &bucket, &err)
	store.Load(ix, sectionClassOf, &h.classOf, &err)
	store.Load(ix, sectionLengths, &h.lengths, &err)
	store.Load(ix, sectionRefStart, &h.refStart, &err)
	store.Load(ix, sectionRefs, &h.refs, &err)
	store.Load(ix, sectionWeakFrom, &from, &err)
	store.Load(ix, sectionWeakTo, &to, &err)
	store.Load(ix, sectionOffsets, &h.offsets, &err)
	if err != nil {
		return nil, err
	}
	if err := h.adoptTables(low, runStart, runHigh, bucket, from, to, m); err != nil {
		return nil, err
	}
	return h, nil
}

// adoptTables checks that the per-object tables read from an index agree
// with each other in length and with the classes, and makes them the
// Heap's. The elements of the large tables are not checked one by one:
// that would read them all on every open; the section checksums stand for
// them.
func (h *Heap) adoptTables(low, runStart, runHigh, bucket []uint32, from, to []ObjectIndex, m heapMeta) error {
	n := len(low)
	if !h.HasObjects {
		if n != 0 {
			return indexError("%d objects in a heap kept without them", n)
		}
		return nil
	}
	if len(h.classOf) != n || len(h.lengths) != n || len(h.refStart) != n+1 {
		return indexError("%d object ids but %d classes, %d lengths and %d reference starts", n, len(h.classOf), len(h.lengths), len(h.refStart))
	}
	if m.HasOffsets != (len(h.offsets) == n) || !m.HasOffsets && len(h.offsets) != 0 {
		return indexError("%d object offsets for %d objects", len(h.offsets), n)
	}
	if !m.HasOffsets {
		h.offsets = nil
	}
	if len(runStart) != len(runHigh) || n > 0 && (len(runStart) == 0 || runStart[0] != 0) {
		return indexError("object id runs do not cover the objects")
	}
	h.ids = idTable{low: low, runs: make([]idRun, len(runStart))}
	for i := range runStart {
		if i > 0 && runStart[i] <= runStart[i-1] || int(runStart[i]) >= max(n, 1) {
			return indexError("object id run %d starts at %d", i, runStart[i])
		}
		h.ids.runs[i] = idRun{start: int(runStart[i]), high: runHigh[i]}
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
	h.lookup = &idLookup{n: n, at: h.ids.at, min: m.LookupMin, shift: m.LookupShift, bucket: bucket}
	return nil
}

// indexError reports an index whose sections disagree.
func indexError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", store.ErrCorrupt, fmt.Sprintf(format, args...))
}
