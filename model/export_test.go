package model

import "testing"

// RoundTrip gives the external tests of this package roundTrip: h written
// into an index and read back.
func RoundTrip(t *testing.T, h *Heap) (*Heap, error) { return roundTrip(t, h) }
