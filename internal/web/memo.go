package web

import "sync"

// memoLimit bounds how many answers a memo keeps: past it, a new
// question is answered and not kept, so that a crawler trying every
// parameter cannot fill the memory.
const memoLimit = 16

// memo computes the answer to each question once and keeps it; callers
// asking the same question at once wait for one computation.
type memo[K comparable, V any] struct {
	mu      sync.Mutex
	answers map[K]func() (V, error)
	compute func(K) (V, error)
}

func newMemo[K comparable, V any](compute func(K) (V, error)) *memo[K, V] {
	return &memo[K, V]{answers: map[K]func() (V, error){}, compute: compute}
}

// get returns the answer to k.
func (m *memo[K, V]) get(k K) (V, error) {
	m.mu.Lock()
	f, ok := m.answers[k]
	if !ok {
		f = sync.OnceValues(func() (V, error) { return m.compute(k) })
		if len(m.answers) < memoLimit {
			m.answers[k] = f
		}
	}
	m.mu.Unlock()
	return f()
}
