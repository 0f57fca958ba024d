package input

import "errors"

// ErrChanged is what a second read of a dump fails with when what it finds
// at a recorded offset is not what the first read found there: the file was
// replaced or rewritten since it was read (or indexed). Errors that say so
// wrap it, so that front ends can tell it from a damaged dump.
var ErrChanged = errors.New("the dump changed since it was indexed")
