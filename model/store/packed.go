package store

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/hprofctl/hprofctl/model/bigmem"
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

// Pair returns values i and i+1 (0 ≤ i < Len-1), reading their block
// once when they share it.
func (p *Packed) Pair(i int) (uint64, uint64) {
	if (i+1)%packedBlock == 0 {
		return p.At(i), p.At(i + 1)
	}
	b := i / packedBlock
	first := p.start[b]
	w := p.start[b+1] - first
	base := p.base[b]
	if w == 0 {
		return base, base
	}
	mask := ^uint64(0)
	if w < 64 {
		mask = 1<<w - 1
	}
	bit := uint64(i%packedBlock) * w
	v := extract(p.bits, first+bit/64, bit%64, w)
	next := bit + w
	u := extract(p.bits, first+next/64, next%64, w)
	return base + v&mask, base + u&mask
}

// extract returns the bits of bits from bit shift of word on (w bits,
// maybe running into the next word), unmasked.
func extract(bits []uint64, word, shift, w uint64) uint64 {
	v := bits[word] >> shift
	if shift+w > 64 {
		v |= bits[word+1] << (64 - shift)
	}
	return v
}

// WritePacked writes n values as a Packed array: the sections name.bits,
// name.base and name.start. fill sets vals to the values from lo on, a
// block at a time. It holds 16 bytes per block of 64 values until the
// end.
func WritePacked(w *Writer, name string, n int, fill func(lo int, vals []uint64)) error {
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
		m := min(packedBlock, n-lo)
		fill(lo, vals[:m])
		least := vals[0]
		for _, v := range vals[:m] {
			least = min(least, v)
		}
		var most uint64
		for i := range vals[:m] {
			vals[i] -= least
			most = max(most, vals[i])
		}
		clear(vals[m:]) // the last block's padding: differences of 0
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

// FillFrom returns the fill function of WritePacked and WriteNarrow for
// the values of s.
func FillFrom[T Integer](s []T) func(lo int, vals []uint64) {
	return func(lo int, vals []uint64) {
		for k, v := range s[lo : lo+len(vals)] {
			vals[k] = uint64(v)
		}
	}
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

// EachBlock calls fn with the values of each block in order, from value
// lo on: faster than At for a whole pass. It stops at the first error fn
// returns. vals is reused from one call to the next.
func (p *Packed) EachBlock(fn func(lo int, vals []uint64) error) error {
	var vals [packedBlock]uint64
	for b := range len(p.base) {
		p.unpack(b, &vals)
		lo := b * packedBlock
		if err := fn(lo, vals[:min(packedBlock, p.n-lo)]); err != nil {
			return err
		}
	}
	return nil
}

// Values sets vals to the values from lo on (lo+len(vals) ≤ Len), a
// block at a time: faster than At for a run of them.
func (p *Packed) Values(lo int, vals []uint64) {
	var block [packedBlock]uint64
	for len(vals) > 0 {
		b := lo / packedBlock
		p.unpack(b, &block)
		k := copy(vals, block[lo%packedBlock:min(packedBlock, p.n-b*packedBlock)])
		vals, lo = vals[k:], lo+k
	}
}

// unpack sets vals to the values of block b.
func (p *Packed) unpack(b int, vals *[packedBlock]uint64) {
	first, base := p.start[b], p.base[b]
	w := p.start[b+1] - first
	if w == 0 {
		for j := range vals {
			vals[j] = base
		}
		return
	}
	words := p.bits[first : first+w]
	mask := ^uint64(0)
	if w < 64 {
		mask = 1<<w - 1
	}
	for j := range vals {
		bit := uint64(j) * w
		word, shift := bit/64, bit%64
		v := words[word] >> shift
		if shift+w > 64 {
			v |= words[word+1] << (64 - shift)
		}
		vals[j] = base + v&mask
	}
}

// Narrow is an array of n uint64 values kept in an element of T each: a
// value below T's largest one in place, a larger one as that mark, with
// the value itself in a side table, in order. A count per block of 64
// elements of the marks before it finds a marked value's place in the
// side table (the count plus the marks before it in its block, one cache
// line or two). For arrays whose values are nearly all small (retained
// object counts, retained sizes), read in constant time. The zero value is
// an empty array.
type Narrow[T uint8 | uint16] struct {
	small  []T
	before []uint32 // per block of 64 elements: the marks before it
	value  []uint64 // the marked elements' values, in order
}

// The sections a Narrow array is kept in: its elements under its own
// name, the side table after it.
const (
	narrowBefore = ".rank"
	narrowValue  = ".big"
)

// Len is the number of values.
func (a *Narrow[T]) Len() int { return len(a.small) }

// At returns value i (0 ≤ i < Len).
func (a *Narrow[T]) At(i int) uint64 {
	if v := a.small[i]; v != ^T(0) {
		return uint64(v)
	}
	return a.Big(i)
}

// Elements returns the array's elements as it keeps them: a value, or
// T's largest for one that Big gives. For callers whose hot loops cannot
// afford a call per value.
func (a *Narrow[T]) Elements() []T { return a.small }

// Big returns value i when its element is T's largest (a mark).
func (a *Narrow[T]) Big(i int) uint64 {
	k := int(a.before[i/packedBlock]) + marksIn(a.small[i&^(packedBlock-1):i])
	if k < len(a.value) {
		return a.value[k]
	}
	return uint64(^T(0)) // a mark without a value: only in a crafted file
}

// marksIn counts the elements of T's largest value (all bits set) in
// elems, 8 bytes at a time.
func marksIn[T uint8 | uint16](elems []T) int {
	size := int(unsafe.Sizeof(T(0)))
	low, high := uint64(0x7F7F7F7F7F7F7F7F), uint64(0x8080808080808080)
	if size == 2 {
		low, high = 0x7FFF7FFF7FFF7FFF, 0x8000800080008000
	}
	k := 0
	perWord := 8 / size
	for len(elems) >= perWord {
		// An element of y is 0 where elems has a mark; its top bit is
		// then the only one left clear by t.
		y := ^binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(elems))), 8))
		t := (y&low + low) | y
		k += bits.OnesCount64(^t & high)
		elems = elems[perWord:]
	}
	for _, e := range elems {
		if e == ^T(0) {
			k++
		}
	}
	return k
}

// WriteNarrow writes n values as a Narrow array of T: the sections name,
// name.rank and name.big. fill sets vals to the values from lo on, up to
// 64 Ki at a time, in order, on a goroutine of its own: the values of one
// step are worked out while those of the step before are written. It
// holds 4 bytes per 64 values and 8 per value from T's largest up until
// the end, in tables from model/bigmem: on a big heap they are a share of
// its objects, and the build's memory budget bounds them.
func WriteNarrow[T uint8 | uint16](w *Writer, name string, n int, fill func(lo int, vals []uint64)) error {
	out, err := NewArray[T](w, name)
	if err != nil {
		return err
	}
	var (
		before = bigmem.Make[uint32]((n + packedBlock - 1) / packedBlock)
		big    []uint64
		ready  = make(chan *narrowBatch[T], 1)
		free   = make(chan *narrowBatch[T], 2)
	)
	defer func() {
		bigmem.Free(before)
		bigmem.Free(big)
	}()
	for range 2 {
		free <- &narrowBatch[T]{vals: make([]uint64, min(n, narrowStep)), small: make([]T, min(n, narrowStep))}
	}
	var tooMany error
	go func() {
		defer close(ready)
		promoted := 0
		for lo := 0; lo < n; lo += narrowStep {
			b := <-free
			if promoted, tooMany = b.narrow(lo, min(narrowStep, n-lo), promoted, before, fill); tooMany != nil {
				tooMany = fmt.Errorf("section %s: %w", name, tooMany)
				return
			}
			ready <- b
		}
	}()
	for b := range ready {
		big = bigmem.Append(big, b.big...)
		if err == nil {
			err = out.Append(b.small)
		}
		free <- b
	}
	if err = joinFirst(tooMany, err); err != nil {
		return err
	}
	return joinFirst(out.Close(), WriteArray(w, name+narrowBefore, before), WriteArray(w, name+narrowValue, big))
}

// narrowStep is how many values WriteNarrow works out at a time: a
// multiple of packedBlock.
const narrowStep = 1 << 16

// narrowBatch is a step of WriteNarrow's values: as fill gives them
// (vals), as written (small) and those from T's largest up (big).
type narrowBatch[T uint8 | uint16] struct {
	vals  []uint64
	small []T
	big   []uint64
}

// narrow sets b to the m values from lo on, which fill gives, and sets
// the counts of promoted values before each of their blocks in before;
// promoted is the count before lo. It returns the count after them.
func (b *narrowBatch[T]) narrow(lo, m, promoted int, before []uint32, fill func(lo int, vals []uint64)) (int, error) {
	fill(lo, b.vals[:m])
	b.small, b.big = b.small[:m], b.big[:0]
	for k, v := range b.vals[:m] {
		if k%packedBlock == 0 {
			if promoted > 1<<32-1 {
				return promoted, fmt.Errorf("more than 2^32 - 1 values from %d up", ^T(0))
			}
			before[(lo+k)/packedBlock] = uint32(promoted)
		}
		if v >= uint64(^T(0)) {
			b.big = append(b.big, v)
			promoted++
			v = uint64(^T(0))
		}
		b.small[k] = T(v)
	}
	return promoted, nil
}

// LoadNarrow sets *dst to the Narrow array of n values that WriteNarrow
// wrote as name, unless *err already holds an error, and keeps the error
// of reading it in *err. The counts of marks are checked to be one per
// block of 64, never decreasing and at most the number of values in the
// side table, so that At never reads outside it; a mark the counts send
// past the table reads as the mark.
func LoadNarrow[T uint8 | uint16](ix *Index, name string, n int, dst *Narrow[T], err *error) {
	var a Narrow[T]
	Load(ix, name, &a.small, err)
	Load(ix, name+narrowValue, &a.value, err)
	if *err != nil {
		return
	}
	LoadOf(ix, name+narrowBefore, Elements{Below: uint32(min(len(a.value)+1, 1<<32-1)), Ascending: true}, &a.before, err)
	if *err != nil {
		return
	}
	if len(a.small) != n || len(a.before) != (n+packedBlock-1)/packedBlock {
		*err = &Error{Path: ix.path, Section: name, Reason: ErrCorrupt,
			Detail: fmt.Sprintf("%d values and %d counts of marks, for %d", len(a.small), len(a.before), n)}
		return
	}
	*dst = a
}
