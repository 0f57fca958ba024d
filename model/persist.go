package model

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hprofctl/hprofctl/model/layout"
	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/parser/input"
)

// The sections a Heap is kept in, in an index file (docs/index-format.md
// lists them).
const (
	sectionHeapMeta     = "heap.meta"
	sectionIDs          = "heap.ids" // a store.Packed: three sections
	sectionLookup       = "heap.lookup"
	sectionClassOf      = "heap.class-of" // uint16, or uint32 past 65,535 classes
	sectionIsArray      = "heap.arrays.is-array"
	sectionArrayLengths = "heap.arrays.lengths"
	sectionArrayDigests = "heap.arrays.digests"
	sectionArrayRecord  = "heap.arrays.recorded"
	sectionArrayUniform = "heap.arrays.uniform"
	sectionRefStart     = "heap.ref-start" // a store.Packed
	sectionRefs         = "heap.refs"
	sectionWeakFrom     = "heap.referents.from"
	sectionWeakTo       = "heap.referents.to"
	sectionOffsets      = "heap.offsets" // a store.Packed
	sectionSwitchAt     = "heap.heaps.switch-at"
	sectionSwitchHeap   = "heap.heaps.switch-to"
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
	Objects         int
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
		Objects: h.NumObjects(),
	}
	m.Classes = make([]classMeta, len(h.Classes))
	for i := range h.Classes {
		m.Classes[i].Class = h.Classes[i]
		if r := h.Classes[i].lengthResidues; r != nil {
			m.Classes[i].LengthResidues = r[:]
		}
	}
	var bucket []uint32
	if h.lookup != nil {
		bucket, m.LookupShift = h.lookup.coarser(h.NumObjects())
		m.LookupMin = h.lookup.min
	}
	if err := w.WriteJSON(sectionHeapMeta, &m); err != nil {
		return err
	}
	from := make([]ObjectIndex, len(h.referents))
	to := make([]ObjectIndex, len(h.referents))
	for i, r := range h.referents {
		from[i], to[i] = r.From, r.To
	}
	n := h.NumObjects()
	offsets, recorded := h.offsets, n
	if offsets == nil {
		offsets, recorded = &splitTable{}, 0
	}
	return errors.Join(
		store.WritePacked(w, sectionIDs, n, h.ids.fill),
		store.WriteArray(w, sectionLookup, bucket),
		h.writeClassOf(w),
		store.WriteArray(w, sectionIsArray, h.arrays.isArray),
		store.WriteArray(w, sectionArrayLengths, h.arrays.lengths),
		store.WriteArray(w, sectionArrayDigests, h.contents.digests),
		store.WriteArray(w, sectionArrayRecord, h.contents.recorded),
		store.WriteArray(w, sectionArrayUniform, h.contents.uniform),
		store.WritePacked(w, sectionRefStart, len(h.refStart), store.FillFrom(h.refStart)),
		store.WriteArray(w, sectionRefs, h.refs),
		store.WriteArray(w, sectionWeakFrom, from),
		store.WriteArray(w, sectionWeakTo, to),
		store.WritePacked(w, sectionOffsets, recorded, offsets.fill),
		store.WriteArray(w, sectionSwitchAt, h.switchAt),
		store.WriteArray(w, sectionSwitchHeap, h.switchHeap),
	)
}

// writeClassOf writes each object's class: in 2 bytes when every class
// number fits, else in 4.
func (h *Heap) writeClassOf(w *store.Writer) error {
	if len(h.Classes) > math.MaxUint16 {
		return store.WriteArray(w, sectionClassOf, h.classOf)
	}
	out, err := store.NewArray[uint16](w, sectionClassOf)
	if err != nil {
		return err
	}
	chunk := make([]uint16, 0, 1<<16)
	for _, c := range h.classOf {
		if chunk = append(chunk, uint16(c)); len(chunk) == cap(chunk) {
			if err := out.Append(chunk); err != nil {
				return err
			}
			chunk = chunk[:0]
		}
	}
	if err := out.Append(chunk); err != nil {
		return err
	}
	return out.Close()
}

// ReadIndex returns the Heap that WriteIndex wrote into ix. Its per-object
// tables are ix's mapping: ix must stay open while the Heap is used. A
// section that is missing, has the wrong type or disagrees with the others
// is an error (the index is then no index of this build).
func ReadIndex(ix *store.Index) (*Heap, error) {
	h, m, err := readMeta(ix)
	if err != nil {
		return nil, err
	}
	if err := h.readObjects(ix, m); err != nil {
		return nil, err
	}
	return h, nil
}

// ReadIndexClasses returns the Heap that WriteIndex wrote into ix without
// its objects (HasObjects false), as Load gives it without them: the
// classes with their instance counts and sizes, the roots, threads and
// traces, from the one small section that keeps them; objects is the
// number of objects the index keeps. It reads no per-object section, so
// it costs the same whatever the number of objects, and the Heap does
// not use ix after it returns.
func ReadIndexClasses(ix *store.Index) (h *Heap, objects int, err error) {
	h, m, err := readMeta(ix)
	if err != nil {
		return nil, 0, err
	}
	if m.Objects < 0 || m.Objects >= int(NoObject)-1 {
		return nil, 0, indexError("%d objects", m.Objects)
	}
	h.HasObjects = false
	return h, m.Objects, nil
}

// readMeta reads the part of a Heap kept in the section heapMeta: all but
// its per-object tables.
func readMeta(ix *store.Index) (*Heap, heapMeta, error) {
	var m heapMeta
	if err := ix.JSON(sectionHeapMeta, &m); err != nil {
		return nil, m, err
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
				return nil, m, indexError("class %d has %d array length residues, not 256", i, len(r))
			}
			h.Classes[i].lengthResidues = (*[256]int64)(r)
		}
		if h.Classes[i].ID != 0 {
			h.classByID[h.Classes[i].ID] = ClassIndex(i)
		}
	}
	if len(h.classSize) != len(h.Classes) || len(h.mirrorSize) != len(h.Classes) {
		return nil, m, indexError("%d classes but %d instance and %d mirror sizes", len(h.Classes), len(h.classSize), len(h.mirrorSize))
	}
	return h, m, nil
}

// readObjects reads the per-object tables of h, whose other parts m
// describes, from ix.
func (h *Heap) readObjects(ix *store.Index, m heapMeta) error {
	var (
		bucket    []uint32
		from, to  []ObjectIndex
		ids       store.Packed
		offsets   store.Packed
		refStarts store.Packed
		err       error
	)
	n, recorded := m.Objects, 0
	if m.HasOffsets {
		recorded = n
	}
	starts := n + 1
	if !m.HasObjects {
		starts = 0
	}
	if n < 0 || n >= int(NoObject)-1 {
		return indexError("%d objects", n)
	}
	store.LoadPacked(ix, sectionIDs, n, &ids, &err)
	h.ids = splitTable{packed: &ids}
	// What the code indexes with is checked element by element as its
	// checksum is (store.Elements): classes and references in range;
	// reference starts in order when they are adopted.
	store.Load(ix, sectionLookup, &bucket, &err)
	h.loadClassOf(ix, &err)
	store.Load(ix, sectionIsArray, &h.arrays.isArray, &err)
	store.Load(ix, sectionArrayLengths, &h.arrays.lengths, &err)
	store.Load(ix, sectionArrayDigests, &h.contents.digests, &err)
	store.Load(ix, sectionArrayRecord, &h.contents.recorded, &err)
	store.Load(ix, sectionArrayUniform, &h.contents.uniform, &err)
	store.LoadPacked(ix, sectionRefStart, starts, &refStarts, &err)
	store.LoadOf(ix, sectionRefs, store.Elements{Below: uint32(n)}, &h.refs, &err)
	store.Load(ix, sectionWeakFrom, &from, &err)
	store.Load(ix, sectionWeakTo, &to, &err)
	store.LoadPacked(ix, sectionOffsets, recorded, &offsets, &err)
	store.Load(ix, sectionSwitchAt, &h.switchAt, &err)
	store.Load(ix, sectionSwitchHeap, &h.switchHeap, &err)
	h.refStartPacked = &refStarts
	if m.HasOffsets {
		h.offsets = &splitTable{packed: &offsets}
	}
	if err != nil {
		return err
	}
	if err := h.checkSwitches(); err != nil {
		return err
	}
	if err := h.adoptTables(bucket, from, to, m, !ix.Written()); err != nil {
		return err
	}
	return nil
}

// adoptTables checks that the per-object tables read from an index agree
// with each other in length and with the classes, and makes them the
// Heap's. What the code indexes with was checked element by element as
// it was read (ReadIndex), or is here when checkStarts (the reference
// starts): a checksum only says the bytes are those written, not that
// whoever wrote them wrote sense. The other large tables' elements are
// not checked one by one. An index this user's hprofctl wrote, unchanged
// since (store.Index.Written), needs no checkStarts.
func (h *Heap) adoptTables(bucket []uint32, from, to []ObjectIndex, m heapMeta, checkStarts bool) error {
	n := h.ids.len()
	if !h.HasObjects {
		if n != 0 {
			return indexError("%d objects in a heap kept without them", n)
		}
		return nil
	}
	if classes := max(len(h.classOf), len(h.classOf16)); classes != n {
		return indexError("%d object ids but %d classes", n, classes)
	}
	if err := h.arrays.check(n); err != nil {
		return err
	}
	if err := h.contents.check(len(h.arrays.lengths)); err != nil {
		return err
	}
	if checkStarts {
		if err := checkRefStarts(h.refStartPacked, len(h.refs)); err != nil {
			return err
		}
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

// checkRefStarts reports whether the reference starts read from an index
// begin at 0, never decrease and end at the number of references, so
// that every object's references lie within them.
func checkRefStarts(starts *store.Packed, refs int) error {
	last := uint64(0)
	err := starts.EachBlock(func(lo int, vals []uint64) error {
		for k, v := range vals {
			if v < last || v > uint64(refs) {
				return indexError("reference start %d is %d, after %d, of %d references", lo+k, v, last, refs)
			}
			last = v
		}
		return nil
	})
	if err != nil {
		return err
	}
	if starts.Len() == 0 || starts.At(0) != 0 || last != uint64(refs) {
		return indexError("reference starts do not cover the %d references", refs)
	}
	return nil
}

// loadClassOf reads each object's class from the index, in 2 bytes or 4
// (writeClassOf), each checked to be below the number of classes as its
// checksum is, unless *err already holds an error.
func (h *Heap) loadClassOf(ix *store.Index, err *error) {
	if *err != nil {
		return
	}
	if info, _ := ix.Section(sectionClassOf); info.Kind != store.KindUint16 {
		store.LoadOf(ix, sectionClassOf, store.Elements{Below: uint32(len(h.Classes))}, &h.classOf, err)
		return
	}
	store.LoadOf(ix, sectionClassOf, store.Elements{Below: uint32(len(h.Classes))}, &h.classOf16, err)
}

// search is idLookup.find's binary search in a packed table, for id
// among entries lo to hi-1.
func (t *splitTable) search(id uint64, lo, hi int) (int, bool) {
	end := hi
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.packed.At(m) < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < end && t.packed.At(lo) == id {
		return lo, true
	}
	return 0, false
}

// indexedIDsPerBucket is about how many objects a bucket of the id lookup
// kept in an index covers: a search in the packed ids then reads a few
// of them, and the table takes 2 bits per object rather than 8.
const indexedIDsPerBucket = 16

// coarser returns the lookup's buckets merged in powers of two until
// there are no more than one per indexedIDsPerBucket of the n objects,
// with their shift: bucket b of the result begins where bucket b << k of
// l began.
func (l *idLookup) coarser(n int) ([]uint32, uint) {
	if len(l.bucket) < 2 {
		return l.bucket, l.shift
	}
	k := uint(0)
	for (len(l.bucket)-1)>>k > max(n/indexedIDsPerBucket, 1) && l.shift+k < 63 {
		k++
	}
	last := len(l.bucket) - 2 // the last bucket, span >> shift
	out := make([]uint32, last>>k+2)
	for b := range out[:len(out)-1] {
		out[b] = l.bucket[b<<k]
	}
	out[len(out)-1] = uint32(n)
	return out, l.shift + k
}

// fill sets vals to the entries from lo on (store.WritePacked), finding
// the run of each as it goes rather than by a search per entry.
func (t *splitTable) fill(lo int, vals []uint64) {
	if t.packed != nil {
		for k := range vals {
			vals[k] = t.packed.At(lo + k)
		}
		return
	}
	r, _ := slices.BinarySearch(t.runStart, uint32(lo)+1)
	r-- // the last run starting at lo or before
	for k := range vals {
		i := lo + k
		for r+1 < len(t.runStart) && int(t.runStart[r+1]) <= i {
			r++
		}
		vals[k] = uint64(t.runHigh[r])<<32 | uint64(t.low[i])
	}
}
