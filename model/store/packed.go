package store

import (
	"fmt"
	"math/bits"
	"slices"
)

// The sections a Packed array is kept in, after the array's name.
const (
	packedBase  = ".base"
	packedStart = ".start"
	packedBits  = ".bits"
)

// packedBlock is how many values a Packed array keeps per block.
const packedBlock = 64

// Packed is an array of n uint64 values kept by blocks of 64: each block
// holds its least value (the base) and every value's difference from it in
// as many bits as the largest difference needs, so that a block of width w
// fills w words. Values that lie close together (sorted ids, record
// offsets, reference starts) take a byte or two each; any value is read in
// constant time. The zero value is an empty array.
type Packed struct {
	n     int
	base  []uint64 // per block: its least value
	start []uint64 // per block and one more: its first word in bits
	bits  []uint64
}

// Len is the number of values.
func (p *Packed) Len() int { return p.n }

// At returns value i (0 ≤ i < Len).
func (p *Packed) At(i int) uint64 {
	b := i / packedBlock
	first := p.start[b]
	w := p.start[b+1] - first
	if w == 0 {
		return p.base[b]
	}
	bit := uint64(i%packedBlock) * w
	word, shift := first+bit/64, bit%64
	v := p.bits[word] >> shift
	if shift+w > 64 {
		v |= p.bits[word+1] << (64 - shift)
	}
	if w < 64 {
		v &= 1<<w - 1
	}
	return p.base[b] + v
}

// WritePacked writes the n values at(0) to at(n-1) as a Packed array: the
// sections name.bits, name.base and name.start. It holds 16 bytes per
// block of 64 values until the end.
func WritePacked(w *Writer, name string, n int, at func(i int) uint64) error {
	out, err := NewArray[uint64](w, name+packedBits)
	if err != nil {
		return err
	}
	blocks := (n + packedBlock - 1) / packedBlock
	base := make([]uint64, 0, blocks)
	start := make([]uint64, 1, blocks+1)
	var (
		vals  [packedBlock]uint64
		words []uint64
		chunk []uint64
	)
	for lo := 0; lo < n; lo += packedBlock {
		hi := min(lo+packedBlock, n)
		least := at(lo)
		for i := lo; i < hi; i++ {
			vals[i-lo] = at(i)
			least = min(least, vals[i-lo])
		}
		var most uint64
		for i := range vals[:hi-lo] {
			vals[i] -= least
			most = max(most, vals[i])
		}
		clear(vals[hi-lo:]) // the last block's padding: differences of 0
		words = packBlock(words[:0], &vals, uint64(bits.Len64(most)))
		base = append(base, least)
		start = append(start, start[len(start)-1]+uint64(len(words)))
		if chunk = append(chunk, words...); len(chunk) >= 1<<15 {
			if err := out.Append(chunk); err != nil {
				return err
			}
			chunk = chunk[:0]
		}
	}
	return joinFirst(out.Append(chunk), out.Close(),
		WriteArray(w, name+packedBase, base), WriteArray(w, name+packedStart, start))
}

// packBlock appends the 64 values of vals, each in w bits, to words: w
// words.
func packBlock(words []uint64, vals *[packedBlock]uint64, w uint64) []uint64 {
	if w == 0 {
		return words
	}
	at := len(words)
	words = append(words, make([]uint64, w)...)
	for j, v := range vals {
		bit := uint64(j) * w
		word, shift := uint64(at)+bit/64, bit%64
		words[word] |= v << shift
		if shift+w > 64 {
			words[word+1] |= v >> (64 - shift)
		}
	}
	return words
}

// joinFirst returns the first error that is not nil.
func joinFirst(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// LoadPacked sets *dst to the Packed array of n values that WritePacked
// wrote as name, unless *err already holds an error, and keeps the error
// of reading it in *err. Its blocks are checked to fit their words (each
// block 0 to 64 words, one after the other, ending where the words end),
// so that At never reads outside them, whatever the file holds; the
// values themselves are the caller's to check (Each).
func LoadPacked(ix *Index, name string, n int, dst *Packed, err *error) {
	var p Packed
	Load(ix, name+packedBase, &p.base, err)
	Load(ix, name+packedStart, &p.start, err)
	Load(ix, name+packedBits, &p.bits, err)
	if *err != nil {
		return
	}
	blocks := (n + packedBlock - 1) / packedBlock
	if n < 0 || len(p.base) != blocks || len(p.start) != blocks+1 || p.start[0] != 0 {
		*err = packedFault(ix, name, fmt.Sprintf("%d blocks and %d block starts for %d values", len(p.base), len(p.start), n))
		return
	}
	for b := range blocks {
		if w := p.start[b+1] - p.start[b]; p.start[b+1] < p.start[b] || w > 64 {
			*err = packedFault(ix, name, fmt.Sprintf("block %d starts at word %d, the next at %d", b, p.start[b], p.start[b+1]))
			return
		}
	}
	if p.start[blocks] != uint64(len(p.bits)) {
		*err = packedFault(ix, name, fmt.Sprintf("the blocks fill %d words of %d", p.start[blocks], len(p.bits)))
		return
	}
	p.n = n
	*dst = p
}

// packedFault is the error of a Packed array name whose sections do not
// fit together.
func packedFault(ix *Index, name, detail string) error {
	return &Error{Path: ix.path, Section: name + packedStart, Reason: ErrCorrupt, Detail: detail}
}

// Each calls fn with every value in order, a block at a time: faster than
// At for a whole pass. It stops at the first error fn returns.
func (p *Packed) Each(fn func(i int, v uint64) error) error {
	for lo := 0; lo < p.n; lo += packedBlock {
		for i := lo; i < min(lo+packedBlock, p.n); i++ {
			if err := fn(i, p.At(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Narrow is an array of n uint64 values kept in an element of T each: a
// value below T's largest one in place, a larger one as that mark, with
// the value itself in a side table of the marked positions. For arrays
// whose values are nearly all small (retained object counts, retained
// sizes), read in constant time but for the few marked ones. The zero
// value is an empty array.
type Narrow[T uint8 | uint16] struct {
	small []T
	at    []uint32 // the marked positions, ascending
	value []uint64 // their values
}

// The sections a Narrow array is kept in: its elements under its own
// name, the side table after it.
const (
	narrowAt    = ".big-at"
	narrowValue = ".big"
)

// Len is the number of values.
func (a *Narrow[T]) Len() int { return len(a.small) }

// At returns value i (0 ≤ i < Len).
func (a *Narrow[T]) At(i int) uint64 {
	v := a.small[i]
	if v != ^T(0) {
		return uint64(v)
	}
	if k, ok := slices.BinarySearch(a.at, uint32(i)); ok {
		return a.value[k]
	}
	return uint64(v) // a mark without a value: only in a crafted file
}

// WriteNarrow writes the n values at(0) to at(n-1) as a Narrow array of
// T: the sections name, name.big-at and name.big. It holds 12
// bytes per value from T's largest up until the end.
func WriteNarrow[T uint8 | uint16](w *Writer, name string, n int, at func(i int) uint64) error {
	if n > 1<<32-1 {
		return fmt.Errorf("section %s: %d values, more than a narrow array holds", name, n)
	}
	out, err := NewArray[T](w, name)
	if err != nil {
		return err
	}
	var (
		chunk     = make([]T, 0, 1<<16)
		wideAt    []uint32
		wideValue []uint64
	)
	for i := range n {
		v := at(i)
		if v >= uint64(^T(0)) {
			wideAt, wideValue = append(wideAt, uint32(i)), append(wideValue, v)
			v = uint64(^T(0))
		}
		if chunk = append(chunk, T(v)); len(chunk) == cap(chunk) {
			if err := out.Append(chunk); err != nil {
				return err
			}
			chunk = chunk[:0]
		}
	}
	return joinFirst(out.Append(chunk), out.Close(),
		WriteArray(w, name+narrowAt, wideAt), WriteArray(w, name+narrowValue, wideValue))
}

// LoadNarrow sets *dst to the Narrow array of n values that WriteNarrow
// wrote as name, unless *err already holds an error, and keeps the error
// of reading it in *err. The side table is checked to name positions
// below n in ascending order, one value each.
func LoadNarrow[T uint8 | uint16](ix *Index, name string, n int, dst *Narrow[T], err *error) {
	var a Narrow[T]
	Load(ix, name, &a.small, err)
	LoadOf(ix, name+narrowAt, Elements{Below: uint32(min(n, 1<<32-1)), Ascending: true}, &a.at, err)
	Load(ix, name+narrowValue, &a.value, err)
	if *err != nil {
		return
	}
	if len(a.small) != n || len(a.at) != len(a.value) {
		*err = &Error{Path: ix.path, Section: name, Reason: ErrCorrupt,
			Detail: fmt.Sprintf("%d values and %d wide ones at %d places, for %d", len(a.small), len(a.value), len(a.at), n)}
		return
	}
	*dst = a
}
