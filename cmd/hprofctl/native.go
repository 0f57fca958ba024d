package main

import (
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
)

// nativeSizes finds the native sizes an Android dump shows registered to
// the objects of heap h (heap.RegisteredNative), reading the dump at
// path again; nil when it cannot be read again (standard input) or
// records no primitive values. h must hold its objects.
func nativeSizes(h *model.Heap, path string) (*heap.NativeSizes, error) {
	if path == "-" || h.Source.Lines > 0 || !h.HasObjects || !heap.MayHaveNative(h) {
		return nil, nil
	}
	n, err := heap.RegisteredNative(h)
	if err != nil {
		return nil, err
	}
	return &n, nil
}
