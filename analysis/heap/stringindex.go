package heap

import (
	"errors"
	"fmt"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// The sections the census of a heap's Strings is kept in, in an index
// file (docs/index-format.md).
const (
	sectionStringsMeta   = "strings.meta"
	sectionStringsFirst  = "strings.first"
	sectionStringsCount  = "strings.count"
	sectionStringsArrays = "strings.arrays"
	sectionStringsArray  = "strings.array"
)

// stringsMeta is the strings.meta section.
type stringsMeta struct {
	Strings int64 `json:"strings"`
}

// WriteStringIndex writes the census c (of every heap) into w, a group
// per entry of the arrays sections.
func WriteStringIndex(w *store.Writer, c *StringCensus) error {
	n := len(c.Groups)
	first, count, arrays, array := make([]uint32, n), make([]uint32, n), make([]uint32, n), make([]uint32, n)
	for k, g := range c.Groups {
		first[k], count[k], arrays[k], array[k] = uint32(g.First), uint32(g.Count), uint32(g.Arrays), uint32(g.Array)
	}
	return errors.Join(
		w.WriteJSON(sectionStringsMeta, &stringsMeta{Strings: c.Strings}),
		store.WriteArray(w, sectionStringsFirst, first),
		store.WriteArray(w, sectionStringsCount, count),
		store.WriteArray(w, sectionStringsArrays, arrays),
		store.WriteArray(w, sectionStringsArray, array),
	)
}

// ReadStringIndex returns the census WriteStringIndex wrote into ix for
// heap h; nil, and no error, when ix holds none (the dump was compressed,
// or its values could not be read when it was indexed). A census that
// cannot be h's is an error wrapping store.ErrCorrupt.
func ReadStringIndex(ix *store.Index, h *model.Heap) (*StringCensus, error) {
	if _, ok := ix.Section(sectionStringsMeta); !ok {
		return nil, nil
	}
	var m stringsMeta
	if err := ix.JSON(sectionStringsMeta, &m); err != nil {
		return nil, err
	}
	var (
		first, count, arrays, array []uint32
		err                         error
	)
	store.Load(ix, sectionStringsFirst, &first, &err)
	store.Load(ix, sectionStringsCount, &count, &err)
	store.Load(ix, sectionStringsArrays, &arrays, &err)
	store.Load(ix, sectionStringsArray, &array, &err)
	if err != nil {
		return nil, err
	}
	n := len(first)
	objects := uint32(h.NumObjects())
	if len(count) != n || len(arrays) != n || len(array) != n || m.Strings < 0 || m.Strings > int64(objects) {
		return nil, fmt.Errorf("%w: the census of the Strings does not fit %d objects", store.ErrCorrupt, objects)
	}
	c := &StringCensus{Strings: m.Strings, Groups: make([]StringGroup, n)}
	for k := range n {
		if first[k] >= objects || array[k] >= objects || count[k] < 2 || arrays[k] < 1 || arrays[k] > count[k] {
			return nil, fmt.Errorf("%w: String value group %d (first %d, %d Strings, %d arrays, array %d) cannot be of %d objects",
				store.ErrCorrupt, k, first[k], count[k], arrays[k], array[k], objects)
		}
		c.Groups[k] = StringGroup{First: model.ObjectIndex(first[k]), Count: int64(count[k]), Arrays: int64(arrays[k]), Array: model.ObjectIndex(array[k])}
	}
	return c, nil
}
