package analysis

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
	return in
}
