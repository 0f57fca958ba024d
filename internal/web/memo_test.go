package web

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A memo keeps answers while its byte budget lasts, computes a question
// asked by many at once once, and lets a caller whose context ends go
// while the computation finishes for the others.
func TestMemoBudget(t *testing.T) {
	var computed atomic.Int32
	release := make(chan struct{})
	compute := func(k int) (int, error) {
		computed.Add(1)
		<-release
		return k * 10, nil
	}
	budget := &cacheBudget{left: 250}
	m := newMemo(compute, func(v int) int64 { return int64(v) }, budget)
	close(release)
	ctx := context.Background()
	for _, k := range []int{10, 10, 20, 20} {
		if v, err := m.get(ctx, k); v != k*10 || err != nil {
			t.Fatalf("get(%d) = %d, %v", k, v, err)
		}
	}
	// 10 → 100 bytes is kept; 20 → 200 bytes is not (150 left).
	if n := computed.Load(); n != 3 {
		t.Errorf("%d computations, want 3: one for 10, kept; two for 20, too big to keep", n)
	}
	if budget.left != 150 {
		t.Errorf("budget left %d, want 150", budget.left)
	}

	computed.Store(0)
	release = make(chan struct{})
	m = newMemo(compute, func(int) int64 { return 1 }, &cacheBudget{left: 1 << 20})
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.get(gone, 5); !errors.Is(err, context.Canceled) {
		t.Errorf("a caller gone: error %v, want context.Canceled", err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := m.get(ctx, 5); v != 50 || err != nil {
				t.Errorf("get(5) = %d, %v", v, err)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := computed.Load(); n != 1 {
		t.Errorf("%d computations for nine callers of one question, want 1", n)
	}
}
