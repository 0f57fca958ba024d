package heap

import (
	"fmt"
	"regexp"
	"slices"
	"sort"

	"github.com/hprofctl/hprofctl/model"
)

// HistoOptions select, order and cut a class histogram.
type HistoOptions struct {
	// Sort is "bytes" (default), "count", "name" or "native" (registered
	// native bytes).
	Sort string
	// Top keeps the first Top rows after sorting; 0 keeps all.
	Top int
	// Match keeps only classes whose Java name matches.
	Match *regexp.Regexp
	// Size chooses JVM-layout or fields-only shallow sizes.
	Size model.SizeMode
	// Native, when it holds any, adds each class's registered native
	// sizes (RegisteredNative).
	Native *NativeSizes
	// Heaps selects the Android heaps whose objects count.
	Heaps model.HeapSelection
	// ByHeap divides each row among the dump's heaps (the selected ones).
	ByHeap bool
}

// HistoRow is one class of a histogram.
type HistoRow struct {
	Class        string `json:"class"`
	Instances    int64  `json:"instances"`
	ShallowBytes int64  `json:"shallow_bytes"`
	// NativeBytes sums the native sizes registered to the class's
	// objects.
	NativeBytes int64 `json:"native_bytes,omitempty"`
	// Heaps divides the row among the heaps (with ByHeap), in the order
	// of Histo.HeapNames.
	Heaps []HeapCount `json:"heaps,omitempty"`
}

// HeapCount is what one class has in one heap.
type HeapCount struct {
	Heap         string `json:"heap"`
	Instances    int64  `json:"instances"`
	ShallowBytes int64  `json:"shallow_bytes"`
}

// Histo is a class histogram: the rows kept, and totals over every class
// that matched (before Top cut the list).
type Histo struct {
	Rows           []HistoRow
	MatchedClasses int
	Total          HistoRow
	// Native reports whether the dump shows native sizes, so that every
	// row has a NativeBytes, 0 or not.
	Native bool
	// HeapNames are the heaps each row is divided among, with ByHeap.
	HeapNames []string
}

// ShallowPercent is row r's share of the shallow bytes of every class
// that matched (Total), in percent; 0 when they are none.
func (h Histo) ShallowPercent(r HistoRow) float64 {
	if h.Total.ShallowBytes <= 0 {
		return 0
	}
	return 100 * float64(r.ShallowBytes) / float64(h.Total.ShallowBytes)
}

// Histogram counts the instances and shallow bytes of every class with at
// least one object in the dump, reachable or not, as jmap -histo does;
// class objects count as instances of java.lang.Class.
func Histogram(h *model.Heap, o HistoOptions) (Histo, error) {
	var out Histo
	native := nativeByClass(h, o.Native, o.Heaps)
	out.Native = native != nil
	counts, names, err := histoCounts(h, o)
	if err != nil {
		return out, err
	}
	if o.ByHeap {
		out.HeapNames = names
	}
	for i := range h.Classes {
		c := &h.Classes[i]
		if o.Match != nil && !o.Match.MatchString(c.Name) {
			continue
		}
		row := HistoRow{Class: c.Name, Instances: c.Instances, ShallowBytes: h.ClassBytes(model.ClassIndex(i), o.Size)}
		if counts != nil {
			row.Instances, row.ShallowBytes = 0, 0
			row.Heaps = counts[i]
			for _, hc := range counts[i] {
				row.Instances += hc.Instances
				row.ShallowBytes += hc.ShallowBytes
			}
			if !o.ByHeap {
				row.Heaps = nil
			}
		}
		if native != nil {
			row.NativeBytes = native[i]
		}
		if row.Instances == 0 {
			continue
		}
		out.Rows = append(out.Rows, row)
		out.Total.Instances += row.Instances
		out.Total.ShallowBytes += row.ShallowBytes
		out.Total.NativeBytes = addBytes(out.Total.NativeBytes, row.NativeBytes)
		for k, hc := range row.Heaps {
			if len(out.Total.Heaps) == 0 {
				out.Total.Heaps = make([]HeapCount, len(row.Heaps))
			}
			out.Total.Heaps[k].Heap = hc.Heap
			out.Total.Heaps[k].Instances += hc.Instances
			out.Total.Heaps[k].ShallowBytes += hc.ShallowBytes
		}
	}
	out.MatchedClasses = len(out.Rows)
	out.Total.Class = "total"
	var less func(a, b HistoRow) bool
	switch o.Sort {
	case "", "bytes":
		less = func(a, b HistoRow) bool {
			if a.ShallowBytes != b.ShallowBytes {
				return a.ShallowBytes > b.ShallowBytes
			}
			return a.Class < b.Class
		}
	case "count":
		less = func(a, b HistoRow) bool {
			if a.Instances != b.Instances {
				return a.Instances > b.Instances
			}
			return a.Class < b.Class
		}
	case "name":
		less = func(a, b HistoRow) bool { return a.Class < b.Class }
	case "native":
		less = func(a, b HistoRow) bool {
			if a.NativeBytes != b.NativeBytes {
				return a.NativeBytes > b.NativeBytes
			}
			return a.Class < b.Class
		}
	default:
		return out, fmt.Errorf("unknown sort %q: expected bytes, count, name or native", o.Sort)
	}
	sort.SliceStable(out.Rows, func(i, j int) bool { return less(out.Rows[i], out.Rows[j]) })
	if o.Top > 0 && len(out.Rows) > o.Top {
		out.Rows = out.Rows[:o.Top]
	}
	return out, nil
}

// histoCounts counts each class's objects in each heap, one HeapCount per
// heap named in names (the selected heaps, in the dump's order), when
// o.Heaps selects some heaps or o.ByHeap asks for the division; nil when
// the classes' own counts serve.
func histoCounts(h *model.Heap, o HistoOptions) (counts [][]HeapCount, names []string, err error) {
	if o.Heaps.All() && !o.ByHeap {
		return nil, nil, nil
	}
	if !h.HasObjects {
		return nil, nil, fmt.Errorf("%s: dividing the histogram among heaps needs the objects, which were not read", h.Source.File)
	}
	if len(h.HeapNames()) == 0 {
		return nil, nil, fmt.Errorf("%s has no heaps to divide the histogram among (only Android dumps name heaps, in HEAP_DUMP_INFO records)", h.Source.File)
	}
	names = o.Heaps.Names()
	if o.Heaps.All() {
		names = append(slices.Clone(h.HeapNames()), model.NoHeap)
	}
	column := make(map[string]int, len(names))
	for k, name := range names {
		column[name] = k
	}
	counts = make([][]HeapCount, len(h.Classes))
	noHeapUsed := false
	for i := range h.NumObjects() {
		obj := model.ObjectIndex(i)
		c := h.ClassOf(obj)
		name := HeapName(h, obj)
		k, ok := column[name]
		if c == model.NoClass || !ok {
			continue
		}
		if counts[c] == nil {
			counts[c] = make([]HeapCount, len(names))
			for j, name := range names {
				counts[c][j].Heap = name
			}
		}
		counts[c][k].Instances++
		counts[c][k].ShallowBytes += h.ShallowBytes(obj, o.Size)
		noHeapUsed = noHeapUsed || name == model.NoHeap
	}
	if o.Heaps.All() && !noHeapUsed {
		// Every object follows a HEAP_DUMP_INFO: no NoHeap column.
		names = names[:len(names)-1]
		for c := range counts {
			if counts[c] != nil {
				counts[c] = counts[c][:len(names)]
			}
		}
	}
	return counts, names, nil
}
