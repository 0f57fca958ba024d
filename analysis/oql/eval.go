package oql

import (
	"context"
	"fmt"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
)

// Options tune a query's evaluation.
type Options struct {
	// Size chooses the shallow sizes of @usedHeapSize and sizeof.
	Size model.SizeMode
	// Limit keeps that many rows (0: all); the result's Total still
	// counts them all.
	Limit int
	// Heaps selects the Android heaps whose objects a FROM clause naming
	// classes yields; objects named by id are taken as given.
	Heaps model.HeapSelection
	// Reachable takes into a FROM clause naming classes only the objects
	// Eclipse MAT keeps by default, those its GC roots reach by its rules
	// (graph.MATKept, docs/mat-conventions.md).
	Reachable bool
	// Describe adds to the rows of SELECT * and SELECT OBJECTS each
	// object's class, shallow and retained size, as Eclipse MAT's result
	// tables show them (Columns names them).
	Describe bool
	// Context stops the evaluation when it is done (nil: never): Run then
	// returns the context's error.
	Context context.Context
	// MaxBytes bounds the memory the rows kept take (the result's, its
	// subqueries' and what DISTINCT remembers), in bytes estimated from
	// the values; past it Run fails with a *LimitError. 0: no bound.
	MaxBytes int64
	// Pool, when set, bounds the rows kept as well, together with those
	// of the other queries that take from it at the same time; past it
	// Run fails with a *LimitError whose Shared is set.
	Pool *Pool
	// Row, when set, receives each row of the result as it is found,
	// instead of the Result keeping it (the result's Rows stay empty);
	// an error from it stops the evaluation.
	Row func([]Value) error
}

// evaluator answers queries over one heap. Field values come from the
// heap's dump (model.EachValues), read in batches: evaluating a row that needs an object's
// values not read yet notes the object and fails with errPending; the
// objects noted for a chunk of rows are read together, and the rows that
// waited are evaluated again.
type evaluator struct {
	h   *model.Heap
	r   *graph.Retention
	opt Options

	// vals are the values read for the current chunk; an object present
	// with nil values could not be decoded. want are the objects to read
	// next.
	vals map[model.ObjectIndex]*model.ObjectValues
	want map[model.ObjectIndex]bool
	// valsBytes is the memory vals takes, charged while it is kept.
	valsBytes int64

	// emit hands the top query's rows on (Options.Row); subqueries keep
	// theirs.
	emit func([]Value) error

	// shared holds what the evaluators of one query and its subqueries
	// compute once.
	*shared
}

// shared is what the evaluators of one query keep for each other.
type shared struct {
	subqueries map[*Subquery]Value
	correlated map[*Subquery]bool
	// lim bounds the query's memory and time, and keeps its LIKE
	// patterns and IN sets.
	lim *limits
	// anyCorrelated says a correlated subquery was met: values read are
	// then kept in cache.
	anyCorrelated bool
	// children and referrers are built on first use: the dominator tree
	// and the references reversed, each as offsets into one list.
	childStart, children  []uint32
	referStart, referrers []uint32
	roots                 map[model.ObjectIndex][]string
	// reachable marks the objects a Reachable query takes, built on
	// first use (buildReachable).
	reachable graph.ObjectBits
	// classFroms keep the objects of FROM clauses naming classes, once
	// for each class named however many SELECTs name it: for subqueries
	// evaluated again for each row, and for UNIONs of one class.
	classFroms map[classFrom]fromList
	// cache keeps the values of the first objects read, cacheBytes
	// their size (see cachedBytes).
	cache      map[model.ObjectIndex]*model.ObjectValues
	cacheBytes int64
	// fieldNames are the names of every field and static of the dump's
	// classes, built on first use.
	fieldNames map[string]bool
}

// Run answers query q over heap h with its retention r; field values are
// read from h's dump again (model.EachValues). Rows come
// in the order of the FROM clause's objects (by index for classes).
func Run(h *model.Heap, r *graph.Retention, q *Query, o Options) (*Result, error) {
	e := &evaluator{h: h, r: r, opt: o, emit: o.Row, shared: &shared{
		subqueries: map[*Subquery]Value{}, correlated: map[*Subquery]bool{}, lim: newLimits(o),
		cache: map[model.ObjectIndex]*model.ObjectValues{}, classFroms: map[classFrom]fromList{},
	}}
	defer e.lim.release()
	describe := o.Describe && len(columns(q)) == 1 && (q.Star || q.Mode != SelectColumns)
	if describe && o.Row != nil {
		e.emit = func(row []Value) error { return o.Row(e.describeRow(row)) }
	}
	res, err := e.query(q, nil, o.Limit)
	if err != nil {
		return nil, classify(e.lim.ctx, err)
	}
	if describe {
		res.Columns = Columns(q, o)
		for k, row := range res.Rows {
			res.Rows[k] = e.describeRow(row)
		}
	}
	return res, nil
}

// Columns names the columns of the rows Run gives for q with o, before
// it runs.
func Columns(q *Query, o Options) []string {
	c := columns(q)
	if o.Describe && len(c) == 1 && (q.Star || q.Mode != SelectColumns) {
		c = append(c, "class", "shallow heap", "retained heap")
	}
	return c
}

// Columns names the columns of the rows q gives, before it is run
// (without Options.Describe).
func (q *Query) Columns() []string { return columns(q) }

// child is an evaluator for a subquery: its own batch of values, the
// rest shared.
func (e *evaluator) child() *evaluator {
	return &evaluator{h: e.h, r: e.r, opt: e.opt, shared: e.shared}
}

// describeRow adds to a row of one object the object's class, shallow
// and retained size.
func (e *evaluator) describeRow(row []Value) []Value {
	v := unwrap(row[0])
	if v.Kind != KindObject {
		return append(row, Null(), Null(), Null())
	}
	retained := int64(0)
	if e.r.Reachable(v.Obj) {
		retained = e.r.RetainedBytes(v.Obj)
	}
	return append(row, String(heap.ClassName(e.h, v.Obj)), Int(e.h.ShallowBytes(v.Obj, e.opt.Size)), Int(retained))
}

// query evaluates q and its UNIONs, keeping at most limit rows (0: all)
// and counting them all; outer is the row of the enclosing query a
// correlated subquery refers to, nil for others.
func (e *evaluator) query(q *Query, outer *scope, limit int) (*Result, error) {
	set := &rowSet{rows: [][]Value{}, limit: limit, seen: map[string]bool{}, lim: e.lim, emit: e.emit}
	res, err := e.selectQuery(q, outer, set)
	if err != nil {
		return nil, err
	}
	for _, u := range q.Union {
		more, err := e.selectQuery(u, outer, set)
		if err != nil {
			return nil, err
		}
		if len(more.Columns) != len(res.Columns) {
			return nil, fmt.Errorf("UNION of %d columns with %d columns", len(res.Columns), len(more.Columns))
		}
	}
	res.Rows, res.Total = set.rows, set.total
	return res, nil
}

// classFrom is what decides the objects of a FROM clause naming classes.
type classFrom struct {
	kind                FromKind
	instanceOf, objects bool
	class, pattern      string
}

// classFromOf is f's key among the kept FROM lists.
func classFromOf(f From) classFrom {
	return classFrom{f.Kind, f.InstanceOf, f.Objects, f.Class, f.Pattern}
}

// selectQuery evaluates one SELECT into set.
func (e *evaluator) selectQuery(q *Query, outer *scope, set *rowSet) (*Result, error) {
	key := classFromOf(q.From)
	vals, ok := e.classFroms[key]
	if !ok {
		var err error
		if vals, err = e.fromValues(q.From, outer); err != nil {
			return nil, err
		}
		if q.From.Kind == FromClass || q.From.Kind == FromPattern {
			if err := e.lim.charge(int64(vals.len()) * 4); err != nil {
				return nil, err
			}
			e.classFroms[key] = vals
		}
	}
	set.distinct, set.seen = q.Distinct, map[string]bool{}
	keep := set.limit
	if q.Mode == SelectRetainedSet {
		set.limit = 0
	}
	var retainers []model.ObjectIndex
	for lo := 0; lo < vals.len(); lo += rowChunk {
		if err := e.lim.ctx.Err(); err != nil {
			return nil, err
		}
		chunk := vals.chunk(e, lo, min(lo+rowChunk, vals.len()))
		rows, err := e.chunkRows(q, chunk, outer)
		if err != nil {
			return nil, err
		}
		for k, rs := range rows {
			for _, row := range rs {
				picked, err := e.take(q, chunk[k], row, set)
				if err != nil {
					return nil, err
				}
				retainers = append(retainers, picked...)
			}
		}
	}
	if q.Mode == SelectRetainedSet {
		set.limit = keep
		retained, err := e.retainedSet(retainers)
		if err != nil {
			return nil, err
		}
		for _, i := range retained {
			if err := set.add([]Value{Object(e.h, i)}); err != nil {
				return nil, err
			}
		}
	}
	return &Result{Columns: columns(q)}, nil
}

// columns names the columns of q's rows: one "object" column unless q
// selects the values of its items.
func columns(q *Query) []string {
	if q.Mode != SelectColumns || q.Star {
		return []string{"object"}
	}
	names := make([]string, 0, len(q.Items))
	for _, it := range q.Items {
		names = append(names, it.Name)
	}
	return names
}

// take adds to set what the row of value v selects: the row itself (the
// value for SELECT *), or for SELECT OBJECTS each object of its values.
// For AS RETAINED SET it adds nothing and returns those objects.
func (e *evaluator) take(q *Query, v Value, row []Value, set *rowSet) ([]model.ObjectIndex, error) {
	if q.Star {
		row = []Value{unwrap(v)}
	}
	if q.Mode == SelectColumns {
		return nil, set.add(row)
	}
	var retainers []model.ObjectIndex
	for _, v := range row {
		picked, err := e.objectsOf(v)
		if err != nil {
			return nil, err
		}
		if q.Mode == SelectRetainedSet {
			retainers = append(retainers, picked...)
			continue
		}
		for _, p := range picked {
			if err := set.add([]Value{Object(e.h, p)}); err != nil {
				return nil, err
			}
		}
	}
	return retainers, nil
}

// rowSet gathers the rows of a query and its UNIONs: it keeps at most
// limit (0: all) and counts them all in total; with distinct each row of
// the current SELECT once. The memory they take is charged to lim. With
// emit, the rows within the limit are handed on as they come instead of
// kept.
type rowSet struct {
	rows     [][]Value
	limit    int
	total    int
	distinct bool
	seen     map[string]bool
	lim      *limits
	emit     func([]Value) error
}

// add adds row unless, with distinct, the set has it already; past the
// limit it only counts it.
func (s *rowSet) add(row []Value) error {
	if s.distinct {
		var b strings.Builder
		for _, v := range row {
			b.WriteString(v.key())
			b.WriteByte(0)
		}
		if s.seen[b.String()] {
			return nil
		}
		s.seen[b.String()] = true
		if err := s.lim.charge(int64(b.Len()) + 16); err != nil {
			return err
		}
	}
	s.total++
	if s.limit > 0 && s.total > s.limit {
		return nil
	}
	if s.emit != nil {
		if err := s.emit(row); err != nil {
			return &readError{err}
		}
		return nil
	}
	s.rows = append(s.rows, row)
	return s.lim.charge(rowBytes(row))
}

// objectsOf lists the objects of value v for SELECT OBJECTS: the object,
// a list's objects, the object of an object id (a number), none for
// null.
func (e *evaluator) objectsOf(v Value) ([]model.ObjectIndex, error) {
	v = unwrap(v)
	switch v.Kind {
	case KindNull:
		return nil, nil
	case KindObject:
		return []model.ObjectIndex{v.Obj}, nil
	case KindInt:
		if v.Int < 0 || v.Int >= int64(e.h.NumObjects()) {
			return nil, fmt.Errorf("SELECT OBJECTS: no object id %d in the dump", v.Int)
		}
		return []model.ObjectIndex{model.ObjectIndex(v.Int)}, nil
	case KindList:
		var out []model.ObjectIndex
		for _, x := range v.List {
			o, err := e.objectsOf(x)
			if err != nil {
				return nil, err
			}
			out = append(out, o...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("SELECT OBJECTS: %s is %s, not an object", v.Text(), kindName(v.Kind))
}

// row evaluates q for value v: nil when WHERE rejects it, else its rows:
// one, or one for each row of a subquery of columns written as a select
// item (a cross join, as Eclipse MAT expands them).
func (e *evaluator) row(q *Query, v Value, outer *scope) ([][]Value, error) {
	sc := scope{this: v, alias: q.From.Alias, outer: outer}
	if q.Where != nil {
		w, err := e.eval(q.Where, sc)
		if err != nil {
			return nil, err
		}
		ok, err := truth(w)
		if err != nil || !ok {
			return nil, err
		}
	}
	rows := [][]Value{make([]Value, len(q.Items))}
	for k, it := range q.Items {
		val, err := e.eval(it.Expr, sc)
		if err != nil {
			return nil, err
		}
		if sub, ok := it.Expr.(*Subquery); ok && sub.Query.Mode == SelectColumns && !sub.Query.Star && val.Kind == KindList {
			if len(val.List) > 1 {
				rows = crossJoin(rows, k, val.List)
				continue
			}
			val = val.List[0]
		}
		for _, r := range rows {
			r[k] = val
		}
	}
	return rows, nil
}

// crossJoin repeats each of rows once for each value of vals in column k.
func crossJoin(rows [][]Value, k int, vals []Value) [][]Value {
	out := make([][]Value, 0, len(rows)*len(vals))
	for _, r := range rows {
		for _, v := range vals {
			c := append([]Value(nil), r...)
			c[k] = v
			out = append(out, c)
		}
	}
	return out
}
