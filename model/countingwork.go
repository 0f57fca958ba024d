package model

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"sync"
	"sync/atomic"

	"github.com/hprofctl/hprofctl/model/layout"
	"github.com/hprofctl/hprofctl/model/mmap"
	"github.com/hprofctl/hprofctl/parser/hprof"
)

// batchBytes is about how much of the dump one counting job reads at a
// time: consecutive segments up to this size (or one larger segment).
var batchBytes int64 = 8 << 20

// windowBytes is how much of a larger segment is read at a time.
var windowBytes int64 = 8 << 20

// objectRole is which kind of object record a class's objects come in.
type objectRole uint8

const (
	instanceRole objectRole = iota
	objArrayRole
	primArrayRole
)

// subTag is the sub-record the role's objects come in.
func (r objectRole) subTag() hprof.SubTag {
	switch r {
	case objArrayRole:
		return hprof.SubObjArrayDump
	case primArrayRole:
		return hprof.SubPrimArrayDump
	}
	return hprof.SubInstanceDump
}

// classKey is what the counting knows a class by before the classes are
// resolved: the class id of instances and object arrays, the element type
// of primitive arrays.
type classKey struct {
	role objectRole
	id   uint64
}

// elem is the element type of the arrays counted under k.
func (k classKey) elem() Type {
	if k.role == primArrayRole {
		return Type(k.id)
	}
	return TypeObject
}

// classCount is what the counting sums up of one class's objects.
type classCount struct {
	key                 classKey
	instances, elements int64
	residues            [256]int64 // arrays by length modulo 256
	// minGap is the smallest address gap after one of its instances (0:
	// none seen); first is the offset of its first object.
	minGap int64
	first  int64
	// seen counts the array observations kept in the current batch.
	seen, seenBatch int
}

// objectSeen is one object as the layout observations need it.
type objectSeen struct {
	key    classKey
	id     uint64
	length uint32
	valid  bool
}

// arrayObservation is the gap after an array, in stream order.
type arrayObservation struct {
	key    classKey
	length uint32
	gap    int64
}

// length is the length an object of class c (record r) is observed
// with: the element count of an array, 0 for an instance.
func (c *classCount) length(r *hprof.Skimmed) uint32 {
	if c.key.role == instanceRole {
		return 0
	}
	return r.Length
}

// layoutObservation is o as the layout inference takes it.
func layoutObservation(c ClassIndex, o arrayObservation) layout.Observation {
	return layout.Observation{Class: int(c), Length: int64(o.length), Gap: o.gap}
}

// span is a stretch of the file, as offsets.
type span struct{ start, end int64 }

// batch is a run of consecutive segments counted as one job, with what
// must stay in stream order: the sub-records kept for the builder, the
// first and last objects and the array observations.
type batch struct {
	first, last int // segment indexes, last excluded
	kept        [][]span
	firstObj    objectSeen
	lastObj     objectSeen
	obs         []arrayObservation
}

// segmentTally is the counting's result: per class, and what was kept in
// stream order.
type segmentTally struct {
	classes  map[classKey]*classCount
	arrayObs []arrayObservation
	kept     [][]span // per segment
	// mentions is, per class id, the offset of the first class dump
	// that declares it.
	mentions map[uint64]int64
}

// countSegments counts the objects of the segments of l on up to workers
// goroutines and merges their counts as one pass in stream order would
// have made them.
func countSegments(f *os.File, l segmentLayout, workers int) (*segmentTally, error) {
	batches := makeBatches(l.segments)
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		tallies = make([]*counter, max(workers, 1))
		errs    = make([]error, len(tallies))
	)
	for w := range tallies {
		tallies[w] = &counter{classes: newClassTable(), mentions: map[uint64]int64{}, idSize: l.idSize}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int(next.Add(1)) - 1; k < len(batches) && errs[w] == nil; k = int(next.Add(1)) - 1 {
				errs[w] = tallies[w].count(f, l.segments, k, &batches[k])
			}
			if err := tallies[w].release(); errs[w] == nil {
				errs[w] = err
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return mergeCounts(tallies, batches, len(l.segments))
}

// makeBatches groups consecutive segments into jobs of about batchBytes.
func makeBatches(segments []segment) []batch {
	var batches []batch
	for i := 0; i < len(segments); {
		j := i + 1
		for j < len(segments) && segments[j].end()-segments[i].off <= batchBytes {
			j++
		}
		batches = append(batches, batch{first: i, last: j})
		i = j
	}
	return batches
}

// classTable finds a class's count by its key: an open-addressing hash
// table, as the counting looks one up for every object (several times
// faster than a Go map of a struct key).
type classTable struct {
	slots []*classCount // a power of two of them
	shift uint
	n     int
}

// newClassTable returns an empty table.
func newClassTable() *classTable {
	return &classTable{slots: make([]*classCount, 1024), shift: 64 - 10}
}

// slot is where the search for key starts.
func (t *classTable) slot(key classKey) int {
	return int(((key.id ^ uint64(key.role)<<62) * 0x9E3779B97F4A7C15) >> t.shift)
}

// find returns the count of key, adding a new one (made by add) when
// there is none.
func (t *classTable) find(key classKey, add func() *classCount) *classCount {
	mask := len(t.slots) - 1
	for i := t.slot(key); ; i = (i + 1) & mask {
		cc := t.slots[i]
		if cc == nil {
			break
		}
		if cc.key == key {
			return cc
		}
	}
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	cc := add()
	t.put(cc)
	t.n++
	return cc
}

// put places cc in the first free slot of its search.
func (t *classTable) put(cc *classCount) {
	mask := len(t.slots) - 1
	i := t.slot(cc.key)
	for t.slots[i] != nil {
		i = (i + 1) & mask
	}
	t.slots[i] = cc
}

// grow doubles the table.
func (t *classTable) grow() {
	old := t.slots
	t.slots, t.shift = make([]*classCount, 2*len(old)), t.shift-1
	for _, cc := range old {
		if cc != nil {
			t.put(cc)
		}
	}
}

// counter is one worker's counts.
type counter struct {
	classes *classTable
	// mentions is, per class id, the first offset at which a class dump
	// declares it (as the class or its super class).
	mentions map[uint64]int64
	idSize   int
	unmap    func() error
	// last is the class count looked up last, for key lastKey.
	last    *classCount
	lastKey classKey
}

// lookup returns the count of class key.
func (c *counter) lookup(key classKey, off int64) *classCount {
	if c.last != nil && c.lastKey == key {
		return c.last
	}
	cc := c.classes.find(key, func() *classCount { return &classCount{key: key, first: off, seenBatch: -1} })
	c.last, c.lastKey = cc, key
	return cc
}

// count reads and counts batch k, made of segments[b.first:b.last]: at
// once when it is no larger than batchBytes, else (one segment) a window
// at a time, the elements of large arrays skipped unread.
func (c *counter) count(f *os.File, segments []segment, k int, b *batch) error {
	start, end := segments[b.first].off, segments[b.last-1].end()
	whole := end-start <= batchBytes
	var data []byte
	if whole {
		var err error
		if data, err = c.read(f, start, end-start); err != nil {
			return err
		}
	}
	b.kept = make([][]span, b.last-b.first)
	var prev *classCount
	sk := hprof.NewSkimmer(c.idSize)
	for i, s := range segments[b.first:b.last] {
		size := windowBytes
		for cursor := s.body(); cursor < s.end(); {
			var window []byte
			if whole {
				window = data[cursor-start : s.end()-start]
			} else {
				var err error
				if window, err = c.read(f, cursor, min(size, s.end()-cursor)); err != nil {
					return err
				}
			}
			sk.Reset(window, s.end()-cursor)
			for sk.Next() {
				r := sk.Record()
				off := cursor + int64(r.Start)
				if cc := c.object(r, off); cc != nil {
					c.observe(b, k, prev, objectSeen{cc.key, r.ID, cc.length(r), true})
					prev = cc
					continue
				}
				if r.Sub == hprof.SubClassDump {
					c.mention(window[r.Start:], off)
				}
				b.kept[i] = keep(b.kept[i], span{off, cursor + int64(r.End)})
			}
			if err := sk.Err(); err != nil {
				return fmt.Errorf("segment at offset %d: %v", s.off, err)
			}
			if !sk.More() {
				break
			}
			if sk.Pos() == 0 {
				// A class dump larger than the window.
				if size *= 2; size > maxCountedSegment {
					return fmt.Errorf("segment at offset %d: a record at offset %d larger than %d bytes", s.off, cursor, maxCountedSegment)
				}
			}
			cursor += sk.Pos()
		}
	}
	return nil
}

// read maps n bytes of f at off, releasing what the counter read before
// (the page cache keeps the pages; the process does not); release
// releases the last.
func (c *counter) read(f *os.File, off, n int64) ([]byte, error) {
	if err := c.release(); err != nil {
		return nil, err
	}
	data, unmap, err := mmap.MapRange(f, off, n)
	c.unmap = unmap
	return data, err
}

// release unmaps what the counter read last.
func (c *counter) release() error {
	if c.unmap == nil {
		return nil
	}
	err := c.unmap()
	c.unmap = nil
	return err
}

// object counts r when it is an object record, and returns its class's
// count; nil for any other record.
func (c *counter) object(r *hprof.Skimmed, off int64) *classCount {
	var key classKey
	switch r.Sub {
	case hprof.SubInstanceDump:
		key = classKey{instanceRole, r.ClassID}
	case hprof.SubObjArrayDump:
		key = classKey{objArrayRole, r.ClassID}
	case hprof.SubPrimArrayDump:
		key = classKey{primArrayRole, uint64(r.Elem)}
	default:
		return nil
	}
	cc := c.lookup(key, off)
	cc.instances++
	if key.role != instanceRole {
		cc.elements += int64(r.Length)
		cc.residues[r.Length&255]++
	}
	return cc
}

// observe records the address gap between the object before cur (of
// count prev) and cur, as builder.observe does, within batch b (number
// k).
func (c *counter) observe(b *batch, k int, prev *classCount, cur objectSeen) {
	if !b.firstObj.valid {
		b.firstObj = cur
	}
	p := b.lastObj
	b.lastObj = cur
	if !p.valid || cur.id <= p.id {
		return
	}
	gap := int64(cur.id - p.id)
	if p.key.role == instanceRole {
		if prev.minGap == 0 || gap < prev.minGap {
			prev.minGap = gap
		}
		return
	}
	if prev.seenBatch != k {
		prev.seenBatch, prev.seen = k, 0
	}
	if prev.seen < 64 {
		prev.seen++
		b.obs = append(b.obs, arrayObservation{p.key, p.length, gap})
	}
}

// mention records the class and super class a CLASS_DUMP at off (rec
// starting with it) declares.
func (c *counter) mention(rec []byte, off int64) {
	ids := c.idSize
	id := func(b []byte) uint64 {
		if ids == 4 {
			return uint64(binary.BigEndian.Uint32(b))
		}
		return binary.BigEndian.Uint64(b)
	}
	for _, class := range []uint64{id(rec[1:]), id(rec[1+ids+4:])} {
		if first, ok := c.mentions[class]; !ok || off < first {
			c.mentions[class] = off
		}
	}
}

// keep adds s to the spans kept, joining it to the last when they touch.
func keep(kept []span, s span) []span {
	if n := len(kept); n > 0 && kept[n-1].end == s.start {
		kept[n-1].end = s.end
		return kept
	}
	return append(kept, s)
}

// mergeCounts sums the workers' counts and joins the batches in stream
// order: the gaps across batch boundaries, the array observations (the
// first 64 of each class), the spans kept. It fails when an object comes
// before the class dump that declares its class, which the builder would
// have numbered otherwise.
func mergeCounts(counters []*counter, batches []batch, segments int) (*segmentTally, error) {
	t := &segmentTally{classes: map[classKey]*classCount{}, kept: make([][]span, 0, segments), mentions: map[uint64]int64{}}
	mentions := t.mentions
	for _, c := range counters {
		for _, cc := range c.classes.slots {
			if cc == nil {
				continue
			}
			key := cc.key
			sum, ok := t.classes[key]
			if !ok {
				sum = &classCount{first: math.MaxInt64}
				t.classes[key] = sum
			}
			sum.instances += cc.instances
			sum.elements += cc.elements
			for r, n := range cc.residues {
				sum.residues[r] += n
			}
			sum.first = min(sum.first, cc.first)
			if cc.minGap > 0 && (sum.minGap == 0 || cc.minGap < sum.minGap) {
				sum.minGap = cc.minGap
			}
		}
		for class, off := range c.mentions {
			if first, ok := mentions[class]; !ok || off < first {
				mentions[class] = off
			}
		}
	}
	seen := map[classKey]int{}
	observe := func(o arrayObservation) {
		if seen[o.key] < 64 {
			seen[o.key]++
			t.arrayObs = append(t.arrayObs, o)
		}
	}
	var prev objectSeen
	for _, b := range batches {
		t.kept = append(t.kept, b.kept...)
		if !b.firstObj.valid {
			continue
		}
		if cur := b.firstObj; prev.valid && cur.id > prev.id {
			gap := int64(cur.id - prev.id)
			if prev.key.role != instanceRole {
				observe(arrayObservation{prev.key, prev.length, gap})
			} else if sum := t.classes[prev.key]; sum.minGap == 0 || gap < sum.minGap {
				sum.minGap = gap
			}
		}
		for _, o := range b.obs {
			observe(o)
		}
		prev = b.lastObj
	}
	for key, cc := range t.classes {
		if key.role == primArrayRole {
			continue // checked when resolved (builder.countedClass)
		}
		if !t.declaredBefore(key.id, cc.first) {
			return nil, fmt.Errorf("objects of class 0x%x before its class dump", key.id)
		}
	}
	return t, nil
}

// declaredBefore reports whether a class dump declares class before
// offset off.
func (t *segmentTally) declaredBefore(class uint64, off int64) bool {
	first, ok := t.mentions[class]
	return ok && first < off
}
