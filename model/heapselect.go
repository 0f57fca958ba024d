package model

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// NoHeap names, among the heaps of a dump that has some, the objects
// dumped before its first HEAP_DUMP_INFO record.
const NoHeap = "(no heap)"

// HeapSelection is a set of an Android dump's heaps, which the analyses
// use to choose what they count, list and suspect. The zero value selects
// every object of every dump. Selections compare equal when they select
// the same heaps of the same Heap.
type HeapSelection struct {
	h *Heap
	// want[k] is 1 to select heap k of h.heapNames, want[len(heapNames)]
	// to select the objects before the first switch (NoHeap); a string,
	// so that selections compare.
	want string
}

// SelectHeaps returns the selection of the named heaps of h (HeapNames, or
// NoHeap); no names select every object. A name the dump does not have is
// an error that lists the heaps it has. The heap must have its objects.
func (h *Heap) SelectHeaps(names []string) (HeapSelection, error) {
	if len(names) == 0 {
		return HeapSelection{}, nil
	}
	want := make([]byte, len(h.heapNames)+1)
	for _, name := range names {
		k := slices.Index(h.heapNames, name)
		if name == NoHeap {
			k = len(h.heapNames)
		}
		if k < 0 || len(h.heapNames) == 0 {
			return HeapSelection{}, fmt.Errorf("--heap %s: %s", name, h.heapsHeld())
		}
		want[k] = 1
	}
	if !h.HasObjects || h.offsets == nil {
		return HeapSelection{}, fmt.Errorf("--heap: %s was read without its objects' record offsets, which tell the heaps apart", h.Source.File)
	}
	return HeapSelection{h: h, want: string(want)}, nil
}

// heapsHeld says which heaps the dump has, for an error about one it
// lacks.
func (h *Heap) heapsHeld() string {
	if len(h.heapNames) == 0 {
		return fmt.Sprintf("%s has no heaps (only Android dumps name heaps, in HEAP_DUMP_INFO records)", h.Source.File)
	}
	return fmt.Sprintf("%s has no heap of that name; its heaps: %s", h.Source.File, strings.Join(h.heapNames, ", "))
}

// All reports whether s selects every object.
func (s HeapSelection) All() bool { return s.h == nil }

// Names are the selected heaps in the dump's order, NoHeap last; none
// when s selects every object.
func (s HeapSelection) Names() []string {
	var names []string
	for k := range len(s.want) {
		switch {
		case s.want[k] == 0:
		case k < len(s.h.heapNames):
			names = append(names, s.h.heapNames[k])
		default:
			names = append(names, NoHeap)
		}
	}
	return names
}

// Has reports whether object i lies in a selected heap.
func (s HeapSelection) Has(i ObjectIndex) bool {
	if s.h == nil {
		return true
	}
	return s.want[s.h.heapNumber(i)] == 1
}

// heapNumber returns the number of object i's heap in heapNames, or
// len(heapNames) when no switch precedes it; the heap must have offsets
// and switches.
func (h *Heap) heapNumber(i ObjectIndex) int {
	off := h.recordOffset(i)
	k := sort.Search(len(h.switchAt), func(k int) bool { return h.switchAt[k] > off }) - 1
	if k < 0 {
		return len(h.heapNames)
	}
	return int(h.switchHeap[k])
}

// HeapNumber returns the heap object i was dumped in, as a position in
// HeapNames, or len(HeapNames) for an object no HEAP_DUMP_INFO precedes
// (NoHeap); -1 for a dump without heaps or a heap loaded without record
// offsets.
func (h *Heap) HeapNumber(i ObjectIndex) int {
	if h.offsets == nil || len(h.switchAt) == 0 {
		return -1
	}
	return h.heapNumber(i)
}
