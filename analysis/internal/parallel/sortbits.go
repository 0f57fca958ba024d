package parallel

import "slices"

// radixDigit is how many bits SortBits sorts by in each pass: 2^11
// counts per part fit a core's first-level cache.
const radixDigit = 11

// RadixLeast is the least number of keys SortBits sorts by their digits;
// fewer are sorted by comparison, which costs less than a pass over the
// counts. Tests lower it.
var RadixLeast = 1 << 12

// RadixParallel is the least number of keys whose digits are counted and
// moved in parallel. Tests lower it.
var RadixParallel = 1 << 18

// SortBits sorts keys by their bits from shift up, nbits of them, keys
// of equal bits staying in their order: a least significant digit first
// radix sort, in parallel ranges of keys. Every key's bits past
// shift+nbits must be 0, and those below shift ascending in keys' order
// (a position, say), so that a sort by value gives the same order to a
// few keys. It returns the sorted keys: keys or scratch, which must be
// as long; the other holds what was left of the passes.
func SortBits(keys, scratch []uint64, shift, nbits uint) []uint64 {
	if len(keys) < RadixLeast {
		slices.Sort(keys)
		return keys
	}
	parts := 1
	if len(keys) >= RadixParallel {
		parts = Workers()
	}
	counts := make([][1 << radixDigit]int, parts)
	start := func(p int) int { return p * len(keys) / parts }
	src, dst := keys, scratch
	for low := shift; low < shift+nbits; low += radixDigit {
		mask := uint64(1)<<min(radixDigit, shift+nbits-low) - 1
		ForChunks(parts, 1, func(_, p, _ int) {
			c := &counts[p]
			clear(c[:])
			for _, v := range src[start(p):start(p+1)] {
				c[v>>low&mask]++
			}
		})
		if onlyDigit(counts, len(keys)) {
			continue
		}
		at := 0
		for d := range mask + 1 {
			for p := range counts {
				at, counts[p][d] = at+counts[p][d], at
			}
		}
		ForChunks(parts, 1, func(_, p, _ int) {
			c := &counts[p]
			for _, v := range src[start(p):start(p+1)] {
				d := v >> low & mask
				dst[c[d]] = v
				c[d]++
			}
		})
		src, dst = dst, src
	}
	return src
}

// onlyDigit reports whether one digit holds all n keys the counts count:
// a pass that would leave them as they are.
func onlyDigit(counts [][1 << radixDigit]int, n int) bool {
	for d := range counts[0] {
		total := 0
		for p := range counts {
			total += counts[p][d]
		}
		if total == n {
			return true
		}
		if total > 0 {
			return false
		}
	}
	return false
}
