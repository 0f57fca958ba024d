package heap

import (
	"cmp"
	"slices"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
)

// StringOptions choose the groups DuplicateStrings lists.
type StringOptions struct {
	// MinCount lists only values held by at least MinCount Strings
	// (at least 2).
	MinCount int
	// Top keeps the Top groups that waste most; 0 keeps all.
	Top  int
	Size model.SizeMode
	// Heaps selects the Android heaps whose Strings count.
	Heaps model.HeapSelection
}

// DuplicateString is one value held by several java.lang.String objects.
type DuplicateString struct {
	Value string `json:"value"`
	// Count is the number of Strings with this value.
	Count int64 `json:"count"`
	// WastedBytes is what all copies but one take: every String but one,
	// and every value array but one (Strings that share one array count
	// it once).
	WastedBytes int64 `json:"wasted_bytes"`
}

// DuplicateStringReport is the result of DuplicateStrings.
type DuplicateStringReport struct {
	Rows []DuplicateString
	// Groups counts the values held by at least MinCount Strings,
	// WastedBytes is what all of them waste, Strings counts every String
	// of the heap.
	Groups      int
	WastedBytes int64
	Strings     int64
}

// stringGroup is what DuplicateStrings lists of one value.
type stringGroup struct {
	count, wasted int64
	// first is the String with the lowest object index, the one read
	// again for the text.
	first model.ObjectIndex
}

// DuplicateStrings groups the heap's java.lang.String objects by value,
// as Eclipse MAT's "Group by value": each value held by at least
// o.MinCount Strings, with its count and the bytes wasted by the copies,
// most wasted first. The values come from the heap's census of its
// Strings (CountStrings), the texts of the listed ones read again.
func DuplicateStrings(h *model.Heap, o StringOptions) (DuplicateStringReport, error) {
	c, err := CountStrings(h, o.Heaps)
	if err != nil {
		return DuplicateStringReport{}, err
	}
	return c.Report(h, o)
}

// Report lists the values of the census held by at least o.MinCount
// Strings as DuplicateStrings does; o.Heaps must be the heaps the census
// counted.
func (c *StringCensus) Report(h *model.Heap, o StringOptions) (DuplicateStringReport, error) {
	rep := DuplicateStringReport{Strings: c.Strings}
	minCount := int64(max(o.MinCount, 2))
	var keep []stringGroup
	for _, g := range c.Groups {
		if g.Count < minCount {
			continue
		}
		// Every String but one, every array but one: Strings of one
		// class, arrays of one type and length.
		wasted := (g.Count-1)*graph.ShallowBytes(h, g.First, o.Size) + (g.Arrays-1)*graph.ShallowBytes(h, g.Array, o.Size)
		keep = append(keep, stringGroup{count: g.Count, wasted: wasted, first: g.First})
		rep.WastedBytes += wasted
	}
	rep.Groups = len(keep)
	// Most wasted first; ties by count, then by the first String's
	// index, so the order does not depend on the census's.
	slices.SortFunc(keep, func(x, y stringGroup) int {
		return cmp.Or(cmp.Compare(y.wasted, x.wasted), cmp.Compare(y.count, x.count), cmp.Compare(x.first, y.first))
	})
	if o.Top > 0 && len(keep) > o.Top {
		keep = keep[:o.Top]
	}
	var err error
	rep.Rows, err = stringRows(h, keep)
	return rep, err
}

// stringRows are the rows of the groups keep, with the text of each read
// again from its first String; rows of equal waste and count in value
// order.
func stringRows(h *model.Heap, keep []stringGroup) ([]DuplicateString, error) {
	firsts := make([]model.ObjectIndex, len(keep))
	for k, g := range keep {
		firsts[k] = g.first
	}
	texts, err := model.ReadStrings(h, firsts)
	if err != nil {
		return nil, err
	}
	rows := make([]DuplicateString, len(keep))
	for k, g := range keep {
		rows[k] = DuplicateString{Value: texts[g.first], Count: g.count, WastedBytes: g.wasted}
	}
	slices.SortStableFunc(rows, func(x, y DuplicateString) int {
		return cmp.Or(cmp.Compare(y.WastedBytes, x.WastedBytes), cmp.Compare(y.Count, x.Count), cmp.Compare(x.Value, y.Value))
	})
	return rows, nil
}

// classByName is the first class of that name, NoClass when there is
// none.
func classByName(h *model.Heap, name string) model.ClassIndex {
	for c := range h.Classes {
		if h.Classes[c].Name == name {
			return model.ClassIndex(c)
		}
	}
	return model.NoClass
}
