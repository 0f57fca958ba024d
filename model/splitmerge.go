package model

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"

	"github.com/hprofctl/hprofctl/model/mmap"
	"github.com/hprofctl/hprofctl/parser/hprof"
)

// splitBatch is a stretch of the dump parsed as one piece: the
// sub-records of segments[first:last] from offset from to offset to.
type splitBatch struct {
	from, to    int64
	first, last int
}

// makeSplitBatches cuts the segments of plan from its first object on
// into batches of about batchBytes: runs of consecutive segments,
// and a segment larger than two batches cut at the sub-records a
// skimming pass finds.
func makeSplitBatches(file *os.File, p splitPlan, batchBytes int64) ([]splitBatch, error) {
	segs := p.layout.segments
	var batches []splitBatch
	from := p.first
	for i := p.firstSeg; i < len(segs); {
		if s := segs[i]; s.end()-from > 2*batchBytes {
			cut, err := cutSegment(file, s, from, p.layout.idSize, batchBytes)
			if err != nil {
				return nil, err
			}
			for _, bt := range cut {
				batches = append(batches, splitBatch{from: bt[0], to: bt[1], first: i, last: i + 1})
			}
		} else {
			j := i + 1
			for j < len(segs) && segs[j].end()-from <= batchBytes {
				j++
			}
			batches = append(batches, splitBatch{from: from, to: segs[j-1].end(), first: i, last: j})
			i = j - 1
		}
		if i++; i < len(segs) {
			from = segs[i].body()
		}
	}
	return batches, nil
}

// cutSegment cuts segment s from offset from on into stretches of about
// batchBytes that start and end at sub-records.
func cutSegment(file *os.File, s segment, from int64, idSize int, batchBytes int64) ([][2]int64, error) {
	var cut [][2]int64
	start := from
	err := skimRecords(file, s, from, idSize, func(_ *hprof.Skimmed, off int64) bool {
		if off-start >= batchBytes {
			cut = append(cut, [2]int64{start, off})
			start = off
		}
		return true
	})
	return append(cut, [2]int64{start, s.end()}), err
}

// splitQueue hands the batches to the workers and adds their pieces to
// the builder in dump order: a piece waits until those before it are
// added, and no worker starts a batch more than aheadOf batches past the
// first piece not yet added, so that the pieces waiting stay few.
type splitQueue struct {
	mu        sync.Mutex
	moved     *sync.Cond // a piece was added, or the work stopped
	b         *builder
	committed int // the pieces added so far
	ahead     int
	done      map[int]*splitPiece
	free      []*splitPiece
	prev      seenObject // the last object added
	// committing is set while a worker adds pieces (commitReady).
	committing bool
	err        error
	// halted is closed when the work stops on an error.
	halted   chan struct{}
	progress func(int64)
}

// pieceParser parses one batch into a piece with a worker's state.
type pieceParser func(w *splitWorker, p *splitPiece) error

// newSplitQueue returns a queue adding pieces to b, workers parsing
// at once; progress is told the bytes of each piece added.
func newSplitQueue(b *builder, workers int, progress func(int64)) *splitQueue {
	q := &splitQueue{b: b, ahead: piecesAhead(workers), done: map[int]*splitPiece{}, halted: make(chan struct{}), progress: progress}
	q.moved = sync.NewCond(&q.mu)
	return q
}

// run has workers goroutines parse the batches next hands out (the
// batch's number, counted from 0 in dump order, and its parser; false
// when none is left or the work stopped; safe for concurrent use) and
// adds their pieces to the builder; then the workers' counts.
func (q *splitQueue) run(cl *splitClasses, workers int, next func() (int, pieceParser, bool)) error {
	parsers := make([]*splitWorker, max(workers, 1))
	var wg sync.WaitGroup
	for k := range parsers {
		parsers[k] = newSplitWorker(cl)
		wg.Go(func() { q.work(parsers[k], next) })
	}
	wg.Wait()
	if q.err != nil {
		return q.err
	}
	return q.b.addWorkerCounts(parsers)
}

// fail ends the work with err, unless it has ended with another; called
// with q.mu held.
func (q *splitQueue) fail(err error) {
	if q.err == nil {
		q.err = err
		close(q.halted)
	}
	q.moved.Broadcast()
}

// failed reports whether the work stopped on an error.
func (q *splitQueue) failed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err != nil
}

// readPieces parses the batches of segs with workers workers and adds
// what they hold to b, as b.scan would have read them; progress is told
// the bytes parsed as each batch is added.
func (b *builder) readPieces(file *os.File, segs []segment, batches []splitBatch, cl *splitClasses, workers int, progress func(int64)) error {
	var taken atomic.Int64
	q := newSplitQueue(b, workers, progress)
	return q.run(cl, workers, func() (int, pieceParser, bool) {
		k := int(taken.Add(1) - 1)
		if k >= len(batches) || q.failed() {
			return 0, nil, false
		}
		return k, func(w *splitWorker, p *splitPiece) error { return w.parseBatch(file, segs, batches[k], p) }, true
	})
}

// work parses the batches next hands out until none is left or the work
// stopped.
func (q *splitQueue) work(w *splitWorker, next func() (int, pieceParser, bool)) {
	for {
		k, parse, ok := next()
		if !ok {
			return
		}
		q.mu.Lock()
		for q.err == nil && k >= q.committed+q.ahead {
			q.moved.Wait()
		}
		if q.err != nil {
			q.mu.Unlock()
			return
		}
		p := &splitPiece{}
		if n := len(q.free); n > 0 {
			p, q.free = q.free[n-1], q.free[:n-1]
		}
		q.mu.Unlock()
		p.reset(k)
		err := parse(w, p)
		q.mu.Lock()
		if err != nil {
			q.fail(err)
			q.mu.Unlock()
			return
		}
		q.done[k] = p
		q.commitReady()
		q.moved.Broadcast()
		q.mu.Unlock()
	}
}

// commitReady adds the pieces that come next in dump order, called with
// q.mu held. One worker adds at a time, with the lock released while it
// does, so that the others hand in their pieces and take batches
// meanwhile (adding took about a third of the reading's processor time
// on the bigdump, the other worker waiting on the lock to hand in its
// piece); a piece handed in while it adds is added by it too.
func (q *splitQueue) commitReady() {
	if q.committing {
		return
	}
	q.committing = true
	for q.err == nil {
		next, ok := q.done[q.committed]
		if !ok {
			break
		}
		delete(q.done, q.committed)
		q.mu.Unlock()
		q.b.commit(next, &q.prev)
		q.mu.Lock()
		q.progress(next.bytes)
		q.free = append(q.free, next)
		q.committed++
		q.moved.Broadcast()
	}
	q.committing = false
}

// parseBatch maps batch bt of the dump and parses its segments into p.
func (w *splitWorker) parseBatch(file *os.File, segs []segment, bt splitBatch, p *splitPiece) error {
	data, unmap, err := mmap.MapRange(file, bt.from, bt.to-bt.from)
	if err != nil {
		return err
	}
	defer unmap()
	p.bytes = bt.to - bt.from
	for _, s := range segs[bt.first:bt.last] {
		start, end := max(s.body(), bt.from), min(s.end(), bt.to)
		if err := w.parse(p, data[start-bt.from:end-bt.from], start); err != nil {
			return err
		}
	}
	return nil
}

// commit adds piece p, the next in dump order, to the builder's tables;
// prev is the object added last, before p's.
func (b *builder) commit(p *splitPiece, prev *seenObject) {
	t := &b.objects
	arrivals, refs := t.ids.len(), t.refs.len()
	t.ids.appendSlice(p.ids)
	t.classOf.appendSlice(p.classOf)
	t.lengths.appendSlice(p.lengths)
	if t.trackOffsets {
		t.offsets.appendSlice(p.offsets)
	}
	// A piece's reference starts ascend: its last is its greatest.
	if k := len(p.refStart); k > 0 && refs+int(p.refStart[k-1]) >= int(None) {
		t.tooMany = true
	}
	appendShifted(&t.refStart, p.refStart, uint32(refs))
	t.refs.packed.appendSlice(p.refs)
	for _, e := range p.escaped {
		t.refs.escape(e.pos+uint64(refs), e.id)
	}
	for _, r := range p.referents {
		t.referents = append(t.referents, pendingReferent{arrival: arrivals + r.arrival, id: r.id})
	}
	for _, a := range p.arrays {
		t.markArray(arrivals + a)
	}
	t.arrayInfo.appendSlice(p.arrayInfo)
	if t.strings.hook != nil {
		t.strings.commit(p, arrivals)
	}
	data := len(b.deferredData)
	b.deferredData = append(b.deferredData, p.data...)
	for _, d := range p.deferred {
		d.arrival += arrivals
		d.start += data
		b.deferred = append(b.deferred, d)
	}
	b.roots = append(b.roots, p.roots...)
	b.sizeMismatch += p.sizeMismatch
	if b.sizeMismatchFirst == 0 {
		b.sizeMismatchFirst = p.sizeMismatchFirst
	}
	b.commitObservations(p, prev)
}

// commitObservations adds the address gaps of piece p to the builder's,
// as builder.observe would have made them: the gap from the object
// before the piece to its first, then the piece's own, each array class
// keeping its first 64.
func (b *builder) commitObservations(p *splitPiece, prev *seenObject) {
	if !p.first.valid {
		return
	}
	keep := func(o pieceObservation) {
		if b.arraySeen[o.class] < 64 {
			b.arraySeen[o.class]++
			b.arrayObs = append(b.arrayObs, layoutObservation(o.class, arrayObservation{length: o.length, gap: o.gap}))
		}
	}
	if cur := p.first; prev.valid && cur.id > prev.id {
		gap := int64(cur.id - prev.id)
		if prev.array {
			keep(pieceObservation{prev.class, prev.length, gap})
		} else if m := b.minGap[prev.class]; m == 0 || gap < m {
			b.minGap[prev.class] = gap
		}
	}
	for _, o := range p.obs {
		keep(o)
	}
	*prev = p.last
}

// addWorkerCounts adds what the workers summed up to the classes and the
// record counts: instances, array lengths, smallest gaps; an error when a
// class had objects of two kinds, which the builder counts in an order
// of its own.
func (b *builder) addWorkerCounts(workers []*splitWorker) error {
	h := b.h
	n := len(workers[0].elem)
	elem := make([]Type, n)
	instances := make([]bool, n)
	for _, w := range workers {
		for c := range n {
			if e := w.elem[c]; e != 0 {
				if elem[c] != 0 && elem[c] != e {
					return errors.New("arrays of two types in one class")
				}
				elem[c] = e
			}
			instances[c] = instances[c] || w.hasInstances[c]
		}
	}
	for c := range n {
		if instances[c] && elem[c] != 0 {
			return errors.New("instances and arrays in one class")
		}
	}
	var primSeen [TypeLong + 1]bool
	for _, e := range elem {
		if e != 0 && e != TypeObject {
			primSeen[e] = true
		}
	}
	for t, seen := range primSeen {
		if seen {
			b.primArrayClass(Type(t))
		}
	}
	for _, w := range workers {
		for c := range n {
			cl := &h.Classes[c]
			cl.Instances += w.instances[c]
			if m := w.minGap[c]; m > 0 && (b.minGap[c] == 0 || m < b.minGap[c]) {
				b.minGap[c] = m
			}
			if w.residues[c] == nil {
				continue
			}
			if cl.Elem == 0 {
				cl.Elem = elem[c]
			}
			cl.ArrayElements += w.elements[c]
			if cl.lengthResidues == nil {
				cl.lengthResidues = new([256]int64)
			}
			for r, k := range w.residues[c] {
				cl.lengthResidues[r] += k
			}
		}
		for sub, k := range w.subCounts {
			if k > 0 {
				h.SubRecordCounts[hprof.SubTag(sub).String()] += k
			}
		}
	}
	return nil
}
