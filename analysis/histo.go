// Package analysis holds the analyses hprofctl runs over a loaded heap:
// pure functions from a *model.Heap to result values. They never print;
// the report package renders their results.
package analysis

import (
	"fmt"
	"regexp"
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
}

// HistoRow is one class of a histogram.
type HistoRow struct {
	Class        string `json:"class"`
	Instances    int64  `json:"instances"`
	ShallowBytes int64  `json:"shallow_bytes"`
	// NativeBytes sums the native sizes registered to the class's
	// objects.
	NativeBytes int64 `json:"native_bytes,omitempty"`
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
}

// Histogram counts the instances and shallow bytes of every class with at
// least one object in the dump, reachable or not, as jmap -histo does;
// class objects count as instances of java.lang.Class.
func Histogram(h *model.Heap, o HistoOptions) (Histo, error) {
	var out Histo
	native := nativeByClass(h, o.Native)
	out.Native = native != nil
	for i := range h.Classes {
		c := &h.Classes[i]
		if c.Instances == 0 || (o.Match != nil && !o.Match.MatchString(c.Name)) {
			continue
		}
		row := HistoRow{Class: c.Name, Instances: c.Instances, ShallowBytes: h.ClassBytes(model.ClassIndex(i), o.Size)}
		if native != nil {
			row.NativeBytes = native[i]
		}
		out.Rows = append(out.Rows, row)
		out.Total.Instances += row.Instances
		out.Total.ShallowBytes += row.ShallowBytes
		out.Total.NativeBytes = addBytes(out.Total.NativeBytes, row.NativeBytes)
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
