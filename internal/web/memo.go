package web

import (
	"context"
	"sync"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/session"
)

// memo computes the answer to each question once and keeps it while the
// server's cache budget allows; callers asking the same question at once
// wait for one computation. An answer the budget cannot hold is given to
// the callers that waited for it and forgotten, so that a crawler trying
// every parameter cannot fill the memory.
type memo[K comparable, V any] struct {
	mu      sync.Mutex
	answers map[K]*memoAnswer[V]
	compute func(K) (V, error)
	size    func(V) int64
	budget  *cacheBudget
}

// memoAnswer is one question's answer, ready when done is closed.
type memoAnswer[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// cacheBudget is the bytes the memos of one server may still keep.
type cacheBudget struct {
	mu   sync.Mutex
	left int64
}

// take reserves n bytes, reporting whether they were left.
func (b *cacheBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

func newMemo[K comparable, V any](compute func(K) (V, error), size func(V) int64, budget *cacheBudget) *memo[K, V] {
	return &memo[K, V]{answers: map[K]*memoAnswer[V]{}, compute: compute, size: size, budget: budget}
}

// get returns the answer to k, or the context's error when ctx ends
// first (the computation goes on for the others waiting, and is kept if
// the budget allows).
func (m *memo[K, V]) get(ctx context.Context, k K) (V, error) {
	m.mu.Lock()
	a, ok := m.answers[k]
	if !ok {
		a = &memoAnswer[V]{done: make(chan struct{})}
		m.answers[k] = a
		go m.fill(k, a)
	}
	m.mu.Unlock()
	select {
	case <-a.done:
		return a.v, a.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

// fill computes the answer to k, and forgets it unless the budget keeps
// it.
func (m *memo[K, V]) fill(k K, a *memoAnswer[V]) {
	a.v, a.err = m.compute(k)
	if a.err != nil || !m.budget.take(m.size(a.v)) {
		m.mu.Lock()
		delete(m.answers, k)
		m.mu.Unlock()
	}
	close(a.done)
}

// The estimated bytes of the answers the memos keep: a few hundred bytes
// per row and per step of a path.
func leaksBytes(l session.Leaks) int64 {
	n := int64(1 << 10)
	for _, s := range l.Report.Suspects {
		n += 1<<10 + 256*int64(len(s.Path)+len(s.BiggestClasses))
	}
	return n
}

func stringsBytes(d heap.DuplicateStringReport) int64 {
	n := int64(1 << 10)
	for _, r := range d.Rows {
		n += 256 + int64(len(r.Value))
	}
	return n
}

func collectionsBytes(c heap.CollectionReport) int64 {
	return 1<<10 + 512*int64(len(c.Classes)+len(c.Objects)+len(c.Arrays)+len(c.ArrayObjects))
}
