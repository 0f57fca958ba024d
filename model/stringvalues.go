package model

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hprofctl/hprofctl/model/mmap"
	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// StringDigest is what EachStringDigest gives of one String: its coder
// and a digest of its value array's elements.
type StringDigest struct {
	// Coder is the String's coder field (StringCoder): LATIN1 (0) or
	// UTF-16 (1) from JDK 9 on, 0 before.
	Coder int
	// Elem is the value array's element type and Length its length.
	Elem   Type
	Length int
	// Digest is what the caller's digest function made of the array's
	// elements.
	Digest [2]uint64
}

// Digester makes a digest of an array's elements, as the dump records
// them (big-endian); data is valid only during the call. It is called
// from several goroutines at once.
type Digester func(data []byte) [2]uint64

// Bounds of the reads EachStringDigest makes of a plain dump: a String
// and its value array are read together where no more than
// stringGap bytes lie between their records; such pairs closer together
// than stringGap are read in one window of at most stringWindow bytes
// (a pair longer than that in a window of its own). Variables so that
// tests can make windows tiny.
var (
	stringWindow int64 = 8 << 20
	stringGap    int64 = 64 << 10
)

// stringChunk is how many Strings a worker of EachStringDigest takes at
// a time; a variable so that tests can make chunks tiny.
var stringChunk = 1 << 16

// EachStringDigest calls fn with the value of each String strs[k], whose
// value array is valueOf[k], when that array is a primitive array whose
// elements the dump holds: the String's coder, the array's element type
// and length, and the digest of its elements. It is what the census of
// the Strings (analysis/heap.CountStrings) reads: neither the Strings'
// fields nor the arrays' elements are decoded into values.
//
// In a plain dump a String and its array mostly lie next to each other,
// and Strings in object order mostly in the order of their records: the
// pairs are read in large windows in file order (mapped from the dump
// file where it can be mapped: no copy of them is made), on up to workers
// goroutines, fn being called with the worker's number (0 to workers-1)
// from its goroutine. A pair that this does not fit (its records apart,
// a record of another kind or not as the heap says), and every pair of
// any other file (compressed, no offsets), is read through EachValues
// and given to fn from one goroutine, as worker 0, once the others are
// done.
func EachStringDigest(h *Heap, strs, valueOf []ObjectIndex, workers int, digest Digester, fn func(worker, k int, v StringDigest) error) error {
	if len(strs) != len(valueOf) {
		return fmt.Errorf("%d Strings and %d value arrays", len(strs), len(valueOf))
	}
	o := h.ObjectReaderOptions()
	if h.offsets == nil || o.Compression != input.Plain {
		all := make([]int, len(strs))
		for k := range all {
			all[k] = k
		}
		return h.slowStringValues(strs, valueOf, all, digest, fn)
	}
	var slow []int
	err := h.dumpReader().Objects(o, func(r *hprof.ObjectReader) error {
		var err error
		slow, err = h.windowedStringValues(r, strs, valueOf, max(workers, 1), digest, fn)
		return err
	})
	if err != nil {
		return err
	}
	return h.slowStringValues(strs, valueOf, slow, digest, fn)
}

// windowedStringValues is EachStringDigest's reading of a plain dump in
// windows, on workers goroutines each taking stringChunk Strings at a
// time; it returns the k whose pair it left to slowStringValues, in
// ascending order.
func (h *Heap) windowedStringValues(r *hprof.ObjectReader, strs, valueOf []ObjectIndex, workers int, digest Digester, fn func(worker, k int, v StringDigest) error) ([]int, error) {
	chunks := (len(strs) + stringChunk - 1) / stringChunk
	workers = min(workers, chunks)
	var next atomic.Int64
	var failed atomic.Bool
	slow := make([][]int, chunks)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sw := stringWindows{h: h, r: r, strs: strs, valueOf: valueOf, worker: w, digest: digest, fn: fn}
			sw.file, _ = r.Stored().(*os.File)
			defer sw.faults(&errs[w], &failed)()
			for !failed.Load() {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				lo, hi := c*stringChunk, min((c+1)*stringChunk, len(strs))
				if errs[w] = sw.run(lo, hi); errs[w] != nil {
					failed.Store(true)
					return
				}
				slow[c] = slices.Clone(sw.slow)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%s: %w", h.Source.File, err)
	}
	return slices.Concat(slow...), nil
}

// stringWindows is one worker of windowedStringValues, with the buffers
// it reuses from chunk to chunk.
type stringWindows struct {
	h             *Heap
	r             *hprof.ObjectReader
	strs, valueOf []ObjectIndex
	worker        int
	digest        Digester
	fn            func(worker, k int, v StringDigest) error

	layout stringLayout
	pairs  []stringPair
	slow   []int
	buf    []byte
	// file is the dump file, whose windows are mapped (mmap.MapRange)
	// rather than read into buf where it can be mapped; mapped is the
	// window mapped last, unmap releases it.
	file   *os.File
	mapped []byte
	unmap  func() error
}

// faults returns what a worker defers so that a fault reading a mapped
// window (the dump cut short meanwhile) fails its reading with
// input.ErrChanged, as a read past the dump's end would, and the window
// is released: the worker's goroutine panics at such a fault
// (debug.SetPanicOnFault) and the function returned recovers, setting
// *err and failed. Any other panic, a fault elsewhere included, goes on.
func (sw *stringWindows) faults(err *error, failed *atomic.Bool) func() {
	if sw.file == nil {
		return func() {}
	}
	onFault := debug.SetPanicOnFault(true)
	return func() {
		p := recover()
		debug.SetPanicOnFault(onFault)
		inWindow := false
		if fault, ok := p.(interface{ Addr() uintptr }); ok {
			inWindow = sw.inWindow(fault.Addr())
		}
		if released := sw.release(); *err == nil {
			*err = released
		}
		if p == nil {
			return
		}
		if !inWindow {
			panic(p)
		}
		*err = fmt.Errorf("reading a String from a mapped window: %v: %w", p, input.ErrChanged)
		failed.Store(true)
	}
}

// inWindow says whether addr lies in a page of the window mapped last.
func (sw *stringWindows) inWindow(addr uintptr) bool {
	if len(sw.mapped) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(sw.mapped)))
	page := uintptr(os.Getpagesize())
	return addr >= start&^(page-1) && addr < start+uintptr(len(sw.mapped))+page
}

// release unmaps the window sw mapped last, if any.
func (sw *stringWindows) release() error {
	if sw.unmap == nil {
		return nil
	}
	err := sw.unmap()
	sw.mapped, sw.unmap = nil, nil
	return err
}

// stringPair is String k and its value array as one stretch of the dump:
// from the offset of the first of their records, off, n bytes; the
// String's record is at str, the array's at array. The heap says the
// array has length elements of type elem, and the String's layout is
// that of its class, class.
type stringPair struct {
	off, str, array int64
	n, k            uint32
	length          uint32
	class           ClassIndex
	elem            Type
}

// stringLayout is where the coder field of Strings of one class lies.
type stringLayout struct {
	class ClassIndex
	// fieldBytes is the length of an instance's field bytes, coder the
	// offset of its coder byte among them, -1 when it has none.
	fieldBytes, coder int64
}

// layoutOf returns the layout of Strings of class c.
func (sw *stringWindows) layoutOf(c ClassIndex) stringLayout {
	if sw.layout.class == c && sw.layout.fieldBytes > 0 {
		return sw.layout
	}
	l := stringLayout{class: c, fieldBytes: sw.h.fieldBytes(c), coder: sw.h.stringCoderOffset(c)}
	sw.layout = l
	return l
}

// stringCoderOffset is the offset of the coder byte among the field bytes
// of a String of class c, -1 when it has none: the first field named
// coder counts, as ObjectValues.Field finds it, and only when it is a
// byte (StringCoder).
func (h *Heap) stringCoderOffset(c ClassIndex) int64 {
	off := int64(0)
	for k := range h.Supers(c) {
		for _, f := range h.Classes[k].Fields {
			if f.Name == "coder" {
				if f.Type == TypeByte {
					return off
				}
				return -1
			}
			off += int64(h.typeSize(f.Type))
		}
	}
	return -1
}

// pair places String k and its array as one stretch of the dump; ok is
// false when they do not make one (a String that is no plain instance,
// an array that is no primitive array, records far apart).
func (sw *stringWindows) pair(k int) (p stringPair, ok bool) {
	h := sw.h
	s, a := sw.strs[k], sw.valueOf[k]
	ids := int64(h.Source.IDSize)
	sc, ac := h.ClassOf(s), h.ClassOf(a)
	if sc == NoClass || ac == NoClass || h.Classes[sc].IsArray() || h.isClassClass(sc) ||
		!h.Classes[ac].IsArray() || h.Classes[ac].Elem == TypeObject {
		return p, false
	}
	sOff, aOff := h.recordOffset(s), h.recordOffset(a)
	elem, length := h.Classes[ac].Elem, h.ArrayLength(a)
	sEnd := sOff + 1 + 2*ids + 8 + sw.layoutOf(sc).fieldBytes
	aEnd := aOff + 1 + ids + 9 + int64(length)*int64(h.typeSize(elem))
	start, end := min(sOff, aOff), max(sEnd, aEnd)
	if end-start > (sEnd-sOff)+(aEnd-aOff)+stringGap || end-start > 1<<32-1 {
		return p, false
	}
	return stringPair{off: start, str: sOff, array: aOff, n: uint32(end - start), k: uint32(k), length: length, class: sc, elem: elem}, true
}

// run reads the pairs of Strings lo to hi, leaving in sw.slow those it
// could not read.
func (sw *stringWindows) run(lo, hi int) error {
	sw.pairs, sw.slow = sw.pairs[:0], sw.slow[:0]
	for k := lo; k < hi; k++ {
		if p, ok := sw.pair(k); ok {
			sw.pairs = append(sw.pairs, p)
		} else {
			sw.slow = append(sw.slow, k)
		}
	}
	byOffset := func(x, y stringPair) int { return cmp.Compare(x.off, y.off) }
	if !slices.IsSortedFunc(sw.pairs, byOffset) {
		slices.SortFunc(sw.pairs, byOffset)
	}
	for i := 0; i < len(sw.pairs); {
		start, end := sw.pairs[i].off, sw.pairs[i].off+int64(sw.pairs[i].n)
		j := i + 1
		for j < len(sw.pairs) {
			p := sw.pairs[j]
			if p.off-end > stringGap || p.off+int64(p.n)-start > stringWindow {
				break
			}
			end = max(end, p.off+int64(p.n))
			j++
		}
		window, err := sw.read(start, end)
		if err != nil {
			return err
		}
		for _, p := range sw.pairs[i:j] {
			if err := sw.decode(p, window, start); err != nil {
				return err
			}
		}
		i = j
	}
	slices.Sort(sw.slow) // pairs that failed decoding came last
	return nil
}

// read returns the dump's bytes from start to end, cut at its end: a
// window mapped from the dump file, valid until the next read, or read
// into sw's buffer.
func (sw *stringWindows) read(start, end int64) ([]byte, error) {
	size := sw.r.Size()
	if start < 0 || start >= size {
		return nil, fmt.Errorf("offset %d lies outside the dump (%d bytes): %w", start, size, input.ErrChanged)
	}
	end = min(end, size)
	if sw.file != nil {
		if err := sw.release(); err != nil {
			return nil, err
		}
		if data, unmap, err := mmap.MapRange(sw.file, start, end-start); err == nil {
			sw.mapped, sw.unmap = data, unmap
			return data, nil
		}
		// Where the window cannot be mapped, it is read.
	}
	if int64(cap(sw.buf)) < end-start {
		sw.buf = make([]byte, end-start)
	}
	buf := sw.buf[:end-start]
	n, err := sw.r.ReadAt(buf, start)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return buf[:n], nil
}

// decode decodes the pair p from window, the dump's bytes from offset
// start on, and gives its value to fn; a pair whose records are not as
// the heap says (or not there) is left to sw.slow, where the full
// decoder reads it and says what is wrong.
func (sw *stringWindows) decode(p stringPair, window []byte, start int64) error {
	h := sw.h
	k := int(p.k)
	s, a := sw.strs[k], sw.valueOf[k]
	ids := int(h.Source.IDSize)
	srec, ok := recordIn(window, start, p.str)
	arec, ok2 := recordIn(window, start, p.array)
	l := sw.layoutOf(p.class)
	head, arrayHead := 1+2*ids+8, 1+ids+9
	if !ok || !ok2 || len(srec) < head+int(l.fieldBytes) || len(arec) < arrayHead {
		sw.slow = append(sw.slow, k)
		return nil
	}
	id := func(x []byte) uint64 {
		if ids == 4 {
			return uint64(binary.BigEndian.Uint32(x))
		}
		return binary.BigEndian.Uint64(x)
	}
	elem, length := p.elem, int(p.length)
	if hprof.SubTag(srec[0]) != hprof.SubInstanceDump || id(srec[1:]) != h.ObjectID(s) ||
		int64(binary.BigEndian.Uint32(srec[1+2*ids+4:])) != l.fieldBytes ||
		hprof.SubTag(arec[0]) != hprof.SubPrimArrayDump || id(arec[1:]) != h.ObjectID(a) ||
		binary.BigEndian.Uint32(arec[1+ids+4:]) != p.length || Type(arec[1+ids+8]) != elem {
		sw.slow = append(sw.slow, k)
		return nil
	}
	data := arec[arrayHead:]
	if want := length * h.typeSize(elem); len(data) >= want {
		data = data[:want]
	} else {
		sw.slow = append(sw.slow, k)
		return nil
	}
	v := StringDigest{Elem: elem, Length: length, Digest: sw.digest(data)}
	if l.coder >= 0 {
		v.Coder = int(srec[int64(head)+l.coder])
	}
	return sw.fn(sw.worker, k, v)
}

// recordIn is the part of window, the dump's bytes from offset start on,
// from offset off on; ok is false when off lies outside it.
func recordIn(window []byte, start, off int64) (rec []byte, ok bool) {
	if off < start || off-start >= int64(len(window)) {
		return nil, false
	}
	return window[off-start:], true
}

// slowBatch is how many Strings slowStringValues reads at a time (with
// their arrays): what EachValues holds per object it reads, and what is
// kept of each String until its value is given, then lasts for one batch.
const slowBatch = 1 << 20

// slowStringValues is EachStringDigest for the Strings strs[k] of each k
// of ks (ascending), read through EachValues a batch at a time; fn is
// called from this goroutine as worker 0.
func (h *Heap) slowStringValues(strs, valueOf []ObjectIndex, ks []int, digest Digester, fn func(worker, k int, v StringDigest) error) error {
	var b slowStrings
	for lo := 0; lo < len(ks); lo += slowBatch {
		batch := ks[lo:min(lo+slowBatch, len(ks))]
		b.order(strs, valueOf, batch)
		err := EachValues(h, b.objs, func(i int, v *ObjectValues) error {
			j, isString := b.of(i)
			switch {
			case isString:
				b.values[j].Coder = StringCoder(v)
			case v.Length >= 0 && v.HasElements():
				b.values[j].Elem, b.values[j].Length, b.values[j].Digest = v.Elem, int(v.Length), digest(v.Data)
				b.read[j] = true
			}
			return nil
		})
		if err != nil {
			return err
		}
		for j, k := range batch {
			if b.read[j] {
				if err := fn(0, k, b.values[j]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// slowStrings is a batch of slowStringValues: its Strings and their
// value arrays in object order, which in a dump is nearly always the
// order of their records, and what was read of each String so far.
type slowStrings struct {
	objs []ObjectIndex
	// from[i] is where objs[i] came from: String j of the batch as j,
	// the array of String j as -j-1.
	from   []int32
	arrays []uint64 // an array's object index << 32 | its String
	values []StringDigest
	read   []bool
}

// order sets the batch to the Strings strs[k] of each k of ks
// (ascending) and their arrays valueOf[k], merged by object index.
func (b *slowStrings) order(strs, valueOf []ObjectIndex, ks []int) {
	b.arrays = b.arrays[:0]
	for j, k := range ks {
		b.arrays = append(b.arrays, uint64(valueOf[k])<<32|uint64(j))
	}
	slices.Sort(b.arrays) // nearly sorted: arrays mostly follow their Strings
	b.objs, b.from = b.objs[:0], b.from[:0]
	j := 0
	for _, x := range b.arrays {
		a := ObjectIndex(x >> 32)
		for ; j < len(ks) && strs[ks[j]] <= a; j++ {
			b.objs, b.from = append(b.objs, strs[ks[j]]), append(b.from, int32(j))
		}
		b.objs, b.from = append(b.objs, a), append(b.from, -int32(uint32(x))-1)
	}
	for ; j < len(ks); j++ {
		b.objs, b.from = append(b.objs, strs[ks[j]]), append(b.from, int32(j))
	}
	b.values = slices.Grow(b.values[:0], len(ks))[:len(ks)]
	clear(b.values)
	b.read = slices.Grow(b.read[:0], len(ks))[:len(ks)]
	clear(b.read)
}

// of says where objs[i] came from: String j's record or its array's.
func (b *slowStrings) of(i int) (j int, isString bool) {
	if f := b.from[i]; f >= 0 {
		return int(f), true
	}
	return int(-b.from[i] - 1), false
}
