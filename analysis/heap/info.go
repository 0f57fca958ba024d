package heap

import (
	"time"

	"github.com/hprofctl/hprofctl/model"
)

// Info summarises a dump: its format, what it holds and what is wrong
// with it.
type Info struct {
	File         string           `json:"file"`
	Format       string           `json:"format"`
	Version      string           `json:"version"`
	IDSize       int              `json:"id_size"`
	Timestamp    time.Time        `json:"timestamp,omitzero"`
	Compression  string           `json:"compression"`
	Producer     string           `json:"producer"`
	BytesRead    int64            `json:"bytes_read"`
	LinesRead    int64            `json:"lines_read,omitempty"`
	Dumps        int              `json:"heap_dumps"`
	Dump         int              `json:"heap_dump_loaded"`
	Records      map[string]int64 `json:"records"`
	SubRecords   map[string]int64 `json:"sub_records"`
	Objects      int64            `json:"objects"`
	Instances    int64            `json:"instances"`
	Arrays       int64            `json:"arrays"`
	ClassObjects int64            `json:"class_objects"`
	Classes      int              `json:"classes"`
	References   int64            `json:"references"`
	GCRoots      map[string]int64 `json:"gc_roots"`
	GCRootsTotal int64            `json:"gc_roots_total"`
	Threads      int              `json:"threads"`
	Traces       int              `json:"stack_traces"`
	ShallowBytes int64            `json:"shallow_bytes"`
	Layout       string           `json:"layout"`
	LayoutReason string           `json:"layout_reason"`
	Truncated    bool             `json:"truncated"`
	Anomalies    []model.Anomaly  `json:"anomalies"`
	// Notes are what the dump's writer routinely leaves out (model.Heap's
	// Notes): told, no anomaly.
	Notes []model.Anomaly `json:"notes"`
	// Heaps divides the objects among an Android dump's heaps (app,
	// zygote, image ...), in the order the dump first names them; empty
	// for a dump without heaps, which is every JVM dump.
	Heaps []HeapSummary `json:"heaps,omitempty"`
	// NativeAllocations and NativeBytes count and sum the native
	// allocations an Android dump shows registered to Java objects
	// (AddNative); 0 when it shows none.
	NativeAllocations int64 `json:"native_allocations,omitempty"`
	NativeBytes       int64 `json:"native_bytes,omitempty"`
	// JVM is what the dump's objects tell of its JVM (ReadJVMInfo), nil
	// when they tell nothing or were not read.
	JVM *JVMInfo `json:"jvm,omitempty"`
}

// HeapSummary is what one heap of an Android dump holds.
type HeapSummary struct {
	// Name is the heap's name; model.NoHeap for the objects dumped before the
	// dump names any heap.
	Name string `json:"name"`
	// Objects counts the heap's objects, class objects included, and
	// ClassObjects the class objects alone (a class is in the heap its
	// CLASS_DUMP is in).
	Objects      int64 `json:"objects"`
	ClassObjects int64 `json:"class_objects"`
	ShallowBytes int64 `json:"shallow_bytes"`
	// NativeBytes sums the native sizes registered to the heap's objects.
	NativeBytes int64 `json:"native_bytes,omitempty"`
}

// Summarize computes the Info of a loaded heap.
func Summarize(h *model.Heap, size model.SizeMode) Info {
	s := h.Source
	in := Info{
		File: s.File, Format: s.Format, Version: s.Version, IDSize: s.IDSize, Timestamp: s.Time,
		Compression: s.Compression, Producer: s.Producer, BytesRead: s.Bytes, LinesRead: s.Lines, Dumps: s.Dumps, Dump: s.Dump,
		Records: h.RecordCounts, SubRecords: h.SubRecordCounts, GCRoots: map[string]int64{},
		Threads: len(h.Threads), Traces: len(h.Traces), Layout: h.Layout.String(), LayoutReason: h.LayoutReason,
		Truncated: h.Truncated, Anomalies: h.Anomalies, References: int64(h.NumRefs()),
	}
	if in.Anomalies == nil {
		in.Anomalies = []model.Anomaly{}
	}
	in.Notes = h.Notes
	if in.Notes == nil {
		in.Notes = []model.Anomaly{}
	}
	classClass := h.ClassClass()
	for i := range h.Classes {
		c := &h.Classes[i]
		if c.ID != 0 || c.Instances > 0 {
			in.Classes++
		}
		switch {
		case model.ClassIndex(i) == classClass:
			in.ClassObjects += c.Instances
		case c.IsArray():
			in.Arrays += c.Instances
		default:
			in.Instances += c.Instances
		}
		if c.Instances > 0 {
			in.ShallowBytes += h.ClassBytes(model.ClassIndex(i), size)
		}
	}
	in.Objects = in.Instances + in.Arrays + in.ClassObjects
	if h.HasObjects {
		in.Objects = int64(h.NumObjects())
	}
	for _, r := range h.Roots {
		in.GCRoots[r.Kind.String()]++
		in.GCRootsTotal++
	}
	in.Heaps = heapSummaries(h, size)
	return in
}

// heapSummaries counts the objects, class objects and shallow bytes of
// each heap h names, in HeapNames order, with a model.NoHeap row last when some
// objects precede every heap switch; nil when h has no heaps or was
// loaded without its objects.
func heapSummaries(h *model.Heap, size model.SizeMode) []HeapSummary {
	names := h.HeapNames()
	if len(names) == 0 || !h.HasObjects {
		return nil
	}
	rows := make([]HeapSummary, len(names)+1)
	at := make(map[string]int, len(names))
	for k, name := range names {
		rows[k].Name = name
		at[name] = k
	}
	rows[len(names)].Name = model.NoHeap
	for i := range h.NumObjects() {
		o := model.ObjectIndex(i)
		k := len(names)
		if name, ok := h.HeapOf(o); ok {
			k = at[name]
		}
		r := &rows[k]
		r.Objects++
		r.ShallowBytes += h.ShallowBytes(o, size)
		if c, ok := h.ClassObjectOf(o); ok && h.Classes[c].Object == o {
			r.ClassObjects++
		}
	}
	if rows[len(names)].Objects == 0 {
		rows = rows[:len(names)]
	}
	return rows
}
