package heap

import (
	"sort"
)

// DiffOptions cut the lists of a heap diff and set its growth limit.
type DiffOptions struct {
	// Top keeps the first Top rows of each list; 0 keeps all.
	Top int
	// Limit, when set, is the growth the diff checks every class and the
	// total against.
	Limit *GrowthLimit
}

// GrowthLimit is the most shallow bytes a class, or the whole heap, may
// grow by: Bytes, or when Percent is positive that percentage of the old
// heap's shallow bytes.
type GrowthLimit struct {
	Bytes   int64
	Percent float64
}

// bytes is the limit in bytes for a heap of oldTotal shallow bytes.
func (l GrowthLimit) bytes(oldTotal int64) float64 {
	if l.Percent > 0 {
		return l.Percent / 100 * float64(oldTotal)
	}
	return float64(l.Bytes)
}

// DiffRow is one class in two dumps: its instances and shallow bytes in
// each, and the change from the old to the new.
type DiffRow struct {
	Class          string `json:"class"`
	OldInstances   int64  `json:"old_instances"`
	NewInstances   int64  `json:"new_instances"`
	InstancesDelta int64  `json:"instances_delta"`
	OldBytes       int64  `json:"old_bytes"`
	NewBytes       int64  `json:"new_bytes"`
	BytesDelta     int64  `json:"bytes_delta"`
}

// RetainedDiffRow is one class at the top of the dominator tree in two
// dumps: how many of its objects the virtual root immediately dominates
// and what they retain, in each.
type RetainedDiffRow struct {
	Class            string `json:"class"`
	OldObjects       int64  `json:"old_objects"`
	NewObjects       int64  `json:"new_objects"`
	OldRetainedBytes int64  `json:"old_retained_bytes"`
	NewRetainedBytes int64  `json:"new_retained_bytes"`
	RetainedDelta    int64  `json:"retained_delta"`
}

// HeapDiff is what changed between two dumps of one application.
type HeapDiff struct {
	// Classes are the classes whose instances or bytes changed, the
	// biggest growth first, shrinking ones last.
	Classes []DiffRow `json:"classes"`
	// NewClasses have instances in the new dump only, GoneClasses in the
	// old one only; by name.
	NewClasses  []string `json:"new_classes"`
	GoneClasses []string `json:"gone_classes"`
	// Retained are the classes whose retained size (or object count) at
	// the top of the dominator tree changed, the biggest growth first.
	// Nil when the diff was made without retained sizes.
	Retained []RetainedDiffRow `json:"top_level_retained,omitempty"`
	// Total is the change of the whole heap, named "total".
	Total DiffRow `json:"total"`
	// OldReachableBytes and NewReachableBytes are the retained sizes of
	// the two virtual roots (with Retained).
	OldReachableBytes int64 `json:"old_reachable_bytes,omitempty"`
	NewReachableBytes int64 `json:"new_reachable_bytes,omitempty"`
	// Limit is the growth limit in bytes, and OverLimit what grew more
	// than it ("total" for the whole heap), both only with a limit.
	Limit     *int64   `json:"limit_bytes,omitempty"`
	OverLimit []string `json:"over_limit,omitempty"`
	// ChangedClasses and ChangedRetained count the rows before Top cut
	// the lists.
	ChangedClasses  int `json:"-"`
	ChangedRetained int `json:"-"`
}

// ReachableDelta is how the reachable heap changed (with Retained): the
// retained size of the new virtual root less the old one's.
func (d HeapDiff) ReachableDelta() int64 {
	return d.NewReachableBytes - d.OldReachableBytes
}

// Diff compares the class histograms of two dumps of one application
// (every class: made without Top or Match), and, when both are given, the
// by-class top consumers of each (every group: without Top). Classes are
// matched by name; classes of one name defined by several loaders are
// summed, in each dump, as jmap -histo lines of one name would be.
func Diff(oldHisto, newHisto Histo, oldTop, newTop *TopConsumerReport, o DiffOptions) HeapDiff {
	old, cur := sumByName(oldHisto), sumByName(newHisto)
	d := HeapDiff{Classes: []DiffRow{}, NewClasses: []string{}, GoneClasses: []string{}}
	for _, name := range unionNames(old, cur) {
		a, b := old[name], cur[name]
		row := DiffRow{Class: name, OldInstances: a.Instances, NewInstances: b.Instances, OldBytes: a.ShallowBytes, NewBytes: b.ShallowBytes}
		row.InstancesDelta = row.NewInstances - row.OldInstances
		row.BytesDelta = row.NewBytes - row.OldBytes
		d.Total.add(row)
		switch {
		case a.Instances == 0:
			d.NewClasses = append(d.NewClasses, name)
		case b.Instances == 0:
			d.GoneClasses = append(d.GoneClasses, name)
		}
		if row.InstancesDelta != 0 || row.BytesDelta != 0 {
			d.Classes = append(d.Classes, row)
		}
	}
	d.Total.Class = "total"
	sort.SliceStable(d.Classes, func(i, j int) bool {
		a, b := d.Classes[i], d.Classes[j]
		if a.BytesDelta != b.BytesDelta {
			return a.BytesDelta > b.BytesDelta
		}
		if a.InstancesDelta != b.InstancesDelta {
			return a.InstancesDelta > b.InstancesDelta
		}
		return a.Class < b.Class
	})
	if o.Limit != nil {
		limit := o.Limit.bytes(d.Total.OldBytes)
		whole := int64(limit)
		d.Limit = &whole
		if float64(d.Total.BytesDelta) > limit {
			d.OverLimit = append(d.OverLimit, d.Total.Class)
		}
		for _, r := range d.Classes {
			if float64(r.BytesDelta) > limit {
				d.OverLimit = append(d.OverLimit, r.Class)
			}
		}
		if d.OverLimit == nil {
			d.OverLimit = []string{}
		}
	}
	d.ChangedClasses = len(d.Classes)
	d.Classes = cut(d.Classes, o.Top)
	if oldTop != nil && newTop != nil {
		d.Retained = retainedDiff(oldTop, newTop)
		d.OldReachableBytes, d.NewReachableBytes = oldTop.TotalBytes, newTop.TotalBytes
		d.ChangedRetained = len(d.Retained)
		d.Retained = cut(d.Retained, o.Top)
	}
	return d
}

// add adds a class's row to a total.
func (t *DiffRow) add(r DiffRow) {
	t.OldInstances += r.OldInstances
	t.NewInstances += r.NewInstances
	t.InstancesDelta += r.InstancesDelta
	t.OldBytes += r.OldBytes
	t.NewBytes += r.NewBytes
	t.BytesDelta += r.BytesDelta
}

// cut keeps the first top rows; 0 keeps all.
func cut[T any](rows []T, top int) []T {
	if top > 0 && len(rows) > top {
		return rows[:top]
	}
	return rows
}

// sumByName sums a histogram's rows by class name.
func sumByName(h Histo) map[string]HistoRow {
	m := make(map[string]HistoRow, len(h.Rows))
	for _, r := range h.Rows {
		s := m[r.Class]
		s.Instances += r.Instances
		s.ShallowBytes += r.ShallowBytes
		m[r.Class] = s
	}
	return m
}

// unionNames lists the keys of both maps once each, sorted.
func unionNames[V any](a, b map[string]V) []string {
	names := make([]string, 0, len(a)+len(b))
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// retainedDiff compares two by-class top consumer reports: the classes
// whose top-level objects or their retained size changed, biggest growth
// first.
func retainedDiff(oldTop, newTop *TopConsumerReport) []RetainedDiffRow {
	byName := func(t *TopConsumerReport) map[string]TopConsumerRow {
		m := make(map[string]TopConsumerRow, len(t.Rows))
		for _, r := range t.Rows {
			m[r.Name] = r
		}
		return m
	}
	old, cur := byName(oldTop), byName(newTop)
	rows := []RetainedDiffRow{}
	for _, name := range unionNames(old, cur) {
		a, b := old[name], cur[name]
		row := RetainedDiffRow{Class: name, OldObjects: a.Objects, NewObjects: b.Objects,
			OldRetainedBytes: a.RetainedBytes, NewRetainedBytes: b.RetainedBytes, RetainedDelta: b.RetainedBytes - a.RetainedBytes}
		if row.RetainedDelta != 0 || row.OldObjects != row.NewObjects {
			rows = append(rows, row)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].RetainedDelta != rows[j].RetainedDelta {
			return rows[i].RetainedDelta > rows[j].RetainedDelta
		}
		return rows[i].Class < rows[j].Class
	})
	return rows
}
