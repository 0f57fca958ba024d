package oql

import (
	"context"
	"errors"
	"fmt"
	mathbits "math/bits"
	"regexp"
	"sync/atomic"
	"unsafe"
)

// Error is a query the dump cannot answer as written: a class or object
// it does not hold, a regular expression that does not compile, values
// an operator does not take, arithmetic that overflows. Such an error is
// the query's author's to fix (a web request answers it 400), unlike a
// failure to read the dump, a cancelled evaluation (the context's
// error) or a bound reached (*LimitError).
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap is the error that says what is wrong with the query.
func (e *Error) Unwrap() error { return e.Err }

// LimitError is a query whose evaluation needed more memory than
// Options.MaxBytes allows: its rows, the rows of its subqueries and what
// DISTINCT remembers, together.
type LimitError struct {
	// Limit is the bound that was reached, in bytes.
	Limit int64
	// Shared says the bound was the Options.Pool that the queries
	// running at once share, not the query's own.
	Shared bool
}

func (e *LimitError) Error() string {
	if e.Shared {
		return fmt.Sprintf("the queries running at once need more than %d bytes of memory for their rows: ask again when fewer run, narrow the query with WHERE, or ask fewer rows (a limit)", e.Limit)
	}
	return fmt.Sprintf("the query needs more than %d bytes of memory for its rows: narrow it with WHERE, or ask fewer rows (a limit)", e.Limit)
}

// Pool bounds the memory that the rows of several queries running at
// once take together (Options.Pool): a server gives its queries one, so
// that many heavy requests at once cannot each take Options.MaxBytes. Its
// methods are safe for concurrent use.
type Pool struct {
	max  int64
	used atomic.Int64
}

// NewPool is a pool of max bytes.
func NewPool(max int64) *Pool { return &Pool{max: max} }

// take counts n more bytes kept, failing (and counting nothing) past the
// pool's bound.
func (p *Pool) take(n int64) error {
	if p.used.Add(n) > p.max {
		p.used.Add(-n)
		return &LimitError{Limit: p.max, Shared: true}
	}
	return nil
}

// give returns n bytes to the pool.
func (p *Pool) give(n int64) { p.used.Add(-n) }

// readError is a failure to read field values from the dump, or of
// Options.Row to take a row: not the query's fault.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// classify sorts an evaluation's error: the context's error, a
// LimitError and a failure to read the dump stay as they are; every
// other error is the query's (*Error).
func classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var (
		re *readError
		le *LimitError
	)
	switch {
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return err
	case errors.As(err, &re):
		return re.err
	case errors.As(err, &le):
		return le
	}
	return &Error{err}
}

// maxPatterns bounds the compiled LIKE patterns an evaluation keeps: a
// pattern computed per row (LIKE s.value) would otherwise keep one per
// row. Past it, the cache starts over.
const maxPatterns = 256

// maxInSets bounds the lists an evaluation keeps a lookup set of (for
// IN); past it, the sets start over.
const maxInSets = 64

// inSetMin is the length from which IN looks a value up in a set made
// once per list instead of comparing it with each element.
const inSetMin = 8

// limits are what the evaluators of one query share: its context, the
// memory its rows may take, and the caches that IN and LIKE keep.
type limits struct {
	ctx      context.Context
	maxBytes int64 // 0: no bound
	used     int64
	// pool, when set, is charged as well; pooled is what this query took
	// from it, given back when the query ends (release).
	pool     *Pool
	pooled   int64
	patterns map[string]*regexp.Regexp
	inSets   map[*Value]*inSet
}

// inSet is a list's elements by key (Value.key), for IN. Numbers of
// different kinds compare as floats (equal), which keys do not follow
// exactly for big integers: a list holding a float is searched element by
// element, as is a float.
type inSet struct {
	keys     map[string]bool
	hasFloat bool
}

func newLimits(o Options) *limits {
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	return &limits{ctx: ctx, maxBytes: o.MaxBytes, pool: o.Pool, patterns: map[string]*regexp.Regexp{}, inSets: map[*Value]*inSet{}}
}

// valueBytes estimates the memory a kept value takes.
func valueBytes(v Value) int64 {
	n := int64(unsafe.Sizeof(v)) + int64(len(v.Str))
	for _, x := range v.List {
		n += valueBytes(x)
	}
	return n
}

// rowBytes estimates the memory a kept row takes.
func rowBytes(row []Value) int64 {
	n := int64(unsafe.Sizeof(row))
	for _, v := range row {
		n += valueBytes(v)
	}
	return n
}

// charge counts n more bytes kept, failing past the bound, and checks
// the context.
func (l *limits) charge(n int64) error {
	l.used += n
	if l.maxBytes > 0 && l.used > l.maxBytes {
		return &LimitError{Limit: l.maxBytes}
	}
	if l.pool != nil {
		if err := l.pool.take(n); err != nil {
			return err
		}
		l.pooled += n
	}
	return l.ctx.Err()
}

// refund counts n bytes no longer kept.
func (l *limits) refund(n int64) {
	l.used -= n
	if l.pool != nil {
		n = min(n, l.pooled)
		l.pool.give(n)
		l.pooled -= n
	}
}

// release gives back to the pool what the query took from it.
func (l *limits) release() {
	if l.pool != nil {
		l.pool.give(l.pooled)
		l.pooled = 0
	}
}

// pattern compiles the LIKE pattern p (the whole string must match),
// keeping at most maxPatterns.
func (l *limits) pattern(p string) (*regexp.Regexp, error) {
	if re, ok := l.patterns[p]; ok {
		return re, nil
	}
	re, err := regexp.Compile(`^(?:` + p + `)$`)
	if err != nil {
		return nil, fmt.Errorf("LIKE %q: %w", p, err)
	}
	if len(l.patterns) >= maxPatterns {
		clear(l.patterns)
	}
	l.patterns[p] = re
	return re, nil
}

// in reports whether v equals an element of list, with a set made once
// per long list (keyed by its first element, which a subquery's list
// keeps for the whole evaluation). Making a set fails past the memory
// bound.
func (l *limits) in(v Value, list []Value) (bool, error) {
	if len(list) >= inSetMin && v.Kind != KindFloat {
		set, err := l.set(list)
		if err != nil {
			return false, err
		}
		if !set.hasFloat {
			return set.keys[v.key()], nil
		}
	}
	for _, x := range list {
		if equal(v, unwrap(x)) {
			return true, nil
		}
	}
	return false, nil
}

// setEntryBytes estimates what an entry of an inSet takes besides its
// key's bytes: the key's header and the map's share of it.
const setEntryBytes = 48

// set is the inSet of list, made on first use; its memory is charged.
func (l *limits) set(list []Value) (*inSet, error) {
	if set, ok := l.inSets[&list[0]]; ok {
		return set, nil
	}
	if len(l.inSets) >= maxInSets {
		clear(l.inSets)
	}
	set := &inSet{keys: make(map[string]bool, len(list))}
	for _, x := range list {
		k := x.key()
		if err := l.charge(int64(len(k)) + setEntryBytes); err != nil {
			return nil, err
		}
		set.keys[k] = true
		set.hasFloat = set.hasFloat || x.Kind == KindFloat
	}
	l.inSets[&list[0]] = set
	return set, nil
}

// addInt, subInt and mulInt are a+b, a-b and a*b, failing where the
// result does not fit 64 bits.
func addInt(a, b int64) (int64, error) {
	s := a + b
	if (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0) {
		return 0, overflow(a, "+", b)
	}
	return s, nil
}

func subInt(a, b int64) (int64, error) {
	d := a - b
	if (a >= 0) != (b >= 0) && (d >= 0) != (a >= 0) {
		return 0, overflow(a, "-", b)
	}
	return d, nil
}

func mulInt(a, b int64) (int64, error) {
	neg := (a < 0) != (b < 0)
	hi, lo := mathbits.Mul64(absInt(a), absInt(b))
	limit := uint64(1<<63 - 1)
	if neg {
		limit++
	}
	if hi != 0 || lo > limit {
		return 0, overflow(a, "*", b)
	}
	if neg {
		return int64(-lo), nil
	}
	return int64(lo), nil
}

// absInt is |a| as an unsigned number (math.MinInt64 included).
func absInt(a int64) uint64 {
	if a < 0 {
		return uint64(-(a + 1)) + 1
	}
	return uint64(a)
}

func overflow(a int64, op string, b int64) error {
	return fmt.Errorf("%d %s %d overflows a 64-bit integer", a, op, b)
}
