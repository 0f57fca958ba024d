package redact

import (
	"bytes"
	"encoding/binary"
	"io"
	"maps"
	"os"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/hprofctl/hprofctl/model/mmap"
	"github.com/hprofctl/hprofctl/parser/hprof"
)

// dumpSource is a dump the direct path reads at offsets. Its first pass
// walks the heap records where they lie in mem (the file mapped, or the
// dump in memory) or, without mem, read into a buffer each.
type dumpSource struct {
	io.ReaderAt
	size   int64
	mem    []byte
	mapped bool // mem is a mapping of the file, let go of behind the walk
}

// maxReadSpan is the largest heap record the first pass reads into a
// buffer, where the dump is not mapped; a larger one leaves the dump to
// the streaming path.
const maxReadSpan = 64 << 20

// releaseBytes is how much of the mapping a first-pass worker walks
// before it lets go of it (the page cache keeps the pages).
const releaseBytes = 1 << 20

// mapFile is the dumpSource of the open file f of size bytes: mapped on
// Linux, where the pages walked can be let go of; unmap releases it.
func mapFile(f *os.File, size int64) (src *dumpSource, unmap func() error) {
	src, unmap = &dumpSource{ReaderAt: f, size: size}, func() error { return nil }
	if runtime.GOOS != "linux" || !mmap.Supported || size == 0 {
		return src, unmap
	}
	if data, un, err := mmap.Map(f, size); err == nil {
		src.mem, src.mapped, unmap = data, true, un
	}
	return src, unmap
}

// scanHeap is the heap part of the direct path's first pass: the heap
// records, in runs of about equal bytes, walked on workers goroutines,
// their results merged in order into s. It returns the CLASS_DUMP
// records by file offset.
func scanHeap(src *dumpSource, s *scan, spans []heapSpan, ks *keys, workers int) (map[int64]*hprof.ClassDump, error) {
	runs := shareSpans(spans, 4*workers)
	parts := make([]*spanScanner, len(runs))
	next := make(chan int, len(runs))
	for i := range runs {
		next <- i
	}
	close(next)
	errs := make(chan error, workers)
	for range workers {
		go func() {
			k := ks.keyer()
			for i := range next {
				parts[i] = &spanScanner{src: src, ids: s.header.IDSize, k: k, scan: newScan(s.header), classDumps: map[int64]*hprof.ClassDump{}}
				if err := parts[i].run(runs[i]); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	var err error
	for range workers {
		if e := <-errs; e != nil {
			err = e
		}
	}
	if err != nil {
		return nil, err
	}
	classDumps := map[int64]*hprof.ClassDump{}
	for _, part := range parts {
		maps.Copy(s.classes, part.classes)
		maps.Copy(s.heapNames, part.heapNames)
		maps.Copy(s.big, part.big)
		maps.Copy(classDumps, part.classDumps)
	}
	return classDumps, nil
}

// spanScanner walks runs of heap records for the first pass, as strictly
// as hprof.Reader reads them: what the Reader would refuse or warn of
// (an unknown sub-record, one that runs past its record, a type of no
// known size) leaves the dump to the streaming path.
type spanScanner struct {
	src        *dumpSource
	ids        int
	k          *keyer
	buf        []byte
	freed      int64 // the mapping before this offset was let go of
	classDumps map[int64]*hprof.ClassDump
	*scan
}

// run walks the heap records spans; a fault reading the mapping (the
// file cut short meanwhile) leaves the dump to the streaming path.
func (w *spanScanner) run(spans []heapSpan) (err error) {
	if w.src.mapped {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if recover() != nil {
				err = errNotDirect
			}
		}()
		w.freed = spans[0].off
		defer func() { w.release(spans[len(spans)-1].end) }()
	}
	for i := range spans {
		sp := &spans[i]
		b, err := w.view(sp.off, sp.end-sp.off)
		if err != nil {
			return err
		}
		if err := w.walk(b, sp); err != nil {
			return err
		}
	}
	return nil
}

// view is the n bytes of the dump at off.
func (w *spanScanner) view(off, n int64) ([]byte, error) {
	if w.src.mem != nil {
		return w.src.mem[off : off+n], nil
	}
	if n > maxReadSpan {
		return nil, errNotDirect
	}
	w.buf = slices.Grow(w.buf[:0], int(n))[:n]
	if _, err := w.src.ReadAt(w.buf, off); err != nil {
		return nil, errNotDirect
	}
	return w.buf, nil
}

// release lets go of the mapping before off, whole pages of it, once
// there are releaseBytes of it or more.
func (w *spanScanner) release(off int64) {
	if !w.src.mapped || off-w.freed < releaseBytes {
		return
	}
	page := int64(os.Getpagesize())
	from, to := (w.freed+page-1)/page*page, off/page*page
	if to <= from {
		return
	}
	mmap.Release(w.src.mem[from:to])
	w.freed = to
}

// walk reads the sub-records of the heap record sp, which b holds whole:
// its classes, heap names and big arrays, and where to cut it into jobs.
func (w *spanScanner) walk(b []byte, sp *heapSpan) error {
	ids := w.ids
	c := cutter{last: sp.off}
	for p := 9; p < len(b); {
		off := sp.off + int64(p)
		c.at(off)
		w.release(off)
		r := b[p:]
		sub := hprof.SubTag(r[0])
		if sub == hprof.SubClassDump {
			cd, n := parseClassDump(r, ids)
			if cd == nil {
				return errNotDirect
			}
			w.classes[cd.ID] = &classInfo{super: cd.SuperID, fields: cd.Fields, statics: cd.Statics}
			w.classDumps[off] = cd
			p += n
			continue
		}
		fixed := subLength(sub, ids)
		if fixed < 0 || fixed > len(r) {
			return errNotDirect
		}
		var n int64 // payload bytes
		switch sub {
		case hprof.SubInstanceDump:
			n = int64(binary.BigEndian.Uint32(r[1+2*ids+4:]))
		case hprof.SubObjArrayDump:
			n = int64(binary.BigEndian.Uint32(r[1+ids+4:])) * int64(ids)
			if start := off + int64(fixed); n > jobBytes {
				c.inside(elements{rec: off, start: start, end: start + n, t: hprof.TypeObject}, int64(ids))
			}
		case hprof.SubPrimArrayDump, hprof.SubPrimArrayNoData:
			t := hprof.Type(r[1+ids+8])
			if !t.IsPrimitive() {
				return errNotDirect
			}
			if sub == hprof.SubPrimArrayDump {
				n = int64(binary.BigEndian.Uint32(r[1+ids+4:])) * int64(t.Size(ids))
			}
			if n > bigArray && n <= int64(len(r)-fixed) {
				w.big[off] = w.k.bigDigest(t, r[fixed:int64(fixed)+n])
				start := off + int64(fixed)
				c.inside(elements{rec: off, start: start, end: start + n, t: t}, int64(t.Size(ids)))
			}
		case hprof.SubHeapDumpInfo:
			w.heapNames[readID(r[1+4:], ids)] = true
		}
		if n > int64(len(r)-fixed) {
			return errNotDirect
		}
		p += fixed + int(n)
	}
	sp.cuts = c.cuts
	return nil
}

// bigDigest is what the first pass learns of a big array's elements b of
// type t, as digestBig learns it.
func (k *keyer) bigDigest(t hprof.Type, b []byte) *bigDigest {
	es := t.Size(8)
	d := &bigDigest{uniform: bytes.Equal(b[es:], b[:len(b)-es])}
	copy(d.first[:es], b)
	d.sum = [16]byte(k.digest(t, b))
	if d.uniform {
		d.elem = d.first
		k.permuteClass(domainUniform, t, d.elem[:es], uniformClass(t, int64(len(b))))
	}
	return d
}

// readID reads an identifier of ids bytes.
func readID(b []byte, ids int) uint64 {
	if ids == 4 {
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}

// parseClassDump reads the CLASS_DUMP at the start of b, as hprof.Reader
// reads it, and its length; nil when b ends inside it or it holds a type
// of no known size.
func parseClassDump(b []byte, ids int) (*hprof.ClassDump, int) {
	p := 1 + 7*ids + 8
	if p+2 > len(b) {
		return nil, 0
	}
	c := &hprof.ClassDump{ID: readID(b[1:], ids), TraceSerial: binary.BigEndian.Uint32(b[1+ids:])}
	q := b[1+ids+4:]
	c.SuperID, c.LoaderID, c.SignersID = readID(q, ids), readID(q[ids:], ids), readID(q[2*ids:], ids)
	c.ProtectionDomainID, c.Reserved1, c.Reserved2 = readID(q[3*ids:], ids), readID(q[4*ids:], ids), readID(q[5*ids:], ids)
	c.InstanceSize = binary.BigEndian.Uint32(q[6*ids:])
	ok := true
	// take advances past n bytes, false when b ends first.
	take := func(n int) []byte {
		if !ok || p+n > len(b) {
			ok = false
			return nil
		}
		p += n
		return b[p-n : p]
	}
	typed := func(t hprof.Type) (uint64, bool) {
		size := t.Size(ids)
		v := take(size)
		if size == 0 || v == nil {
			ok = false
			return 0, false
		}
		var x uint64
		for _, c := range v {
			x = x<<8 | uint64(c)
		}
		return x, true
	}
	count := func() int {
		if v := take(2); v != nil {
			return int(binary.BigEndian.Uint16(v))
		}
		return 0
	}
	for range count() {
		h := take(3)
		if h == nil {
			return nil, 0
		}
		t := hprof.Type(h[2])
		v, good := typed(t)
		if !good {
			return nil, 0
		}
		c.Constants = append(c.Constants, hprof.Constant{Index: binary.BigEndian.Uint16(h), Type: t, Value: v})
	}
	for range count() {
		h := take(ids + 1)
		if h == nil {
			return nil, 0
		}
		t := hprof.Type(h[ids])
		v, good := typed(t)
		if !good {
			return nil, 0
		}
		c.Statics = append(c.Statics, hprof.Static{NameID: readID(h, ids), Type: t, Value: v})
	}
	for range count() {
		h := take(ids + 1)
		if h == nil || hprof.Type(h[ids]).Size(ids) == 0 {
			return nil, 0
		}
		c.Fields = append(c.Fields, hprof.Field{NameID: readID(h, ids), Type: hprof.Type(h[ids])})
	}
	if !ok {
		return nil, 0
	}
	return c, p
}
