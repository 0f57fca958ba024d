package oql

import (
	"context"
	"fmt"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
)

// Options tune a query's evaluation.
type Options struct {
	// Size chooses the shallow sizes of @usedHeapSize and sizeof.
	Size model.SizeMode
	// Limit stops after that many rows (0: all).
	Limit int
	// Heaps selects the Android heaps whose objects a FROM clause naming
	// classes yields; objects named by id are taken as given.
	Heaps model.HeapSelection
	// Context stops the evaluation when it is done (nil: never): Run then
	// returns the context's error.
	Context context.Context
	// MaxBytes bounds the memory the rows kept take (the result's, its
	// subqueries' and what DISTINCT remembers), in bytes estimated from
	// the values; past it Run fails with a *LimitError. 0: no bound.
	MaxBytes int64
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

	subqueries map[*Subquery]Value
	lim        *limits
	// emit hands the top query's rows on (Options.Row); emitted counts
	// them. Subqueries keep their rows.
	emit    func([]Value) error
	emitted int
	// children and referrers are built on first use: the dominator tree
	// and the references reversed, each as offsets into one list.
	childStart, children  []uint32
	referStart, referrers []uint32
	roots                 map[model.ObjectIndex][]string
}

// Run answers query q over heap h with its retention r; field values are
// read from h's dump again (model.EachValues). Rows come
// in the order of the FROM clause's objects (by index for classes). An
// error that the query's text causes is an *Error.
func Run(h *model.Heap, r *graph.Retention, q *Query, o Options) (*Result, error) {
	e := &evaluator{h: h, r: r, opt: o, subqueries: map[*Subquery]Value{}, lim: newLimits(o), emit: o.Row}
	res, err := e.query(q, o.Limit)
	return res, classify(e.lim.ctx, err)
}

// query evaluates q and its UNIONs, at most limit rows (0: all).
func (e *evaluator) query(q *Query, limit int) (*Result, error) {
	res, err := e.selectQuery(q, limit)
	if err != nil {
		return nil, err
	}
	for _, u := range q.Union {
		if limit > 0 && e.rows(res) >= limit {
			break
		}
		more, err := e.selectQuery(u, limit-e.rows(res))
		if err != nil {
			return nil, err
		}
		if len(more.Columns) != len(res.Columns) {
			return nil, fmt.Errorf("UNION of %d columns with %d columns", len(res.Columns), len(more.Columns))
		}
		res.Rows = append(res.Rows, more.Rows...)
	}
	if limit > 0 && len(res.Rows) > limit {
		res.Rows = res.Rows[:limit]
	}
	return res, nil
}

// rows counts the rows of res found so far: those it keeps, or those
// handed to Options.Row.
func (e *evaluator) rows(res *Result) int {
	if e.emit != nil {
		return e.emitted
	}
	return len(res.Rows)
}

// selectQuery evaluates one SELECT, at most limit rows (0: all).
func (e *evaluator) selectQuery(q *Query, limit int) (*Result, error) {
	if err := e.prepare(q); err != nil {
		return nil, err
	}
	objs, err := e.fromObjects(q.From)
	if err != nil {
		return nil, err
	}
	set := &rowSet{rows: [][]Value{}, distinct: q.Distinct, seen: map[string]bool{}, lim: e.lim}
	if q.Mode != SelectRetainedSet {
		set.limit = limit
		set.emit, set.emitted = e.emit, &e.emitted
	}
	var retainers []model.ObjectIndex
	for lo := 0; lo < len(objs) && !set.full(); lo += rowChunk {
		if err := e.lim.ctx.Err(); err != nil {
			return nil, err
		}
		chunk := objs[lo:min(lo+rowChunk, len(objs))]
		rows, err := e.chunkRows(q, chunk)
		if err != nil {
			return nil, err
		}
		for k, row := range rows {
			if row == nil {
				continue
			}
			picked, err := e.take(q, chunk[k], row, set)
			if err != nil {
				return nil, err
			}
			retainers = append(retainers, picked...)
		}
	}
	if q.Mode == SelectRetainedSet {
		retained, err := e.retainedSet(retainers)
		if err != nil {
			return nil, err
		}
		set.limit = limit
		set.emit, set.emitted = e.emit, &e.emitted
		for _, i := range retained {
			if set.full() {
				break
			}
			if err := set.add([]Value{Object(e.h, i)}); err != nil {
				return nil, err
			}
		}
	}
	return &Result{Columns: columns(q), Rows: set.rows}, nil
}

// Columns names the columns of the rows q gives, before it is run.
func (q *Query) Columns() []string { return columns(q) }

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

// take adds to set what the row of object obj selects: the row itself
// (the object for SELECT *), or for SELECT OBJECTS each object of its
// values. For AS RETAINED SET it adds nothing and returns those objects.
func (e *evaluator) take(q *Query, obj model.ObjectIndex, row []Value, set *rowSet) ([]model.ObjectIndex, error) {
	if q.Star {
		row = []Value{Object(e.h, obj)}
	}
	if q.Mode == SelectColumns {
		return nil, set.add(row)
	}
	var retainers []model.ObjectIndex
	for _, v := range row {
		picked, err := objectsOf(v)
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

// rowSet gathers the rows of a SELECT: at most limit (0: all), and with
// distinct each row once; the memory they take is charged to lim. With
// emit, the rows are handed on as they come (counted in emitted) instead
// of kept.
type rowSet struct {
	rows     [][]Value
	limit    int
	distinct bool
	seen     map[string]bool
	lim      *limits
	emit     func([]Value) error
	emitted  *int
	n        int
}

// full reports whether the set holds limit rows.
func (s *rowSet) full() bool { return s.limit > 0 && s.n >= s.limit }

// add adds row unless the set is full or, with distinct, has it already.
func (s *rowSet) add(row []Value) error {
	if s.full() {
		return nil
	}
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
	s.n++
	if s.emit != nil {
		*s.emitted++
		if err := s.emit(row); err != nil {
			return &readError{err}
		}
		return nil
	}
	s.rows = append(s.rows, row)
	return s.lim.charge(rowBytes(row))
}

// objectsOf lists the objects of value v for SELECT OBJECTS: the object,
// a list's objects, none for null.
func objectsOf(v Value) ([]model.ObjectIndex, error) {
	switch v.Kind {
	case KindNull:
		return nil, nil
	case KindObject:
		return []model.ObjectIndex{v.Obj}, nil
	case KindList:
		var out []model.ObjectIndex
		for _, x := range v.List {
			o, err := objectsOf(x)
			if err != nil {
				return nil, err
			}
			out = append(out, o...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("SELECT OBJECTS: %s is %s, not an object", v.Text(), kindName(v.Kind))
}

// row evaluates q for object obj: nil when WHERE rejects it.
func (e *evaluator) row(q *Query, obj model.ObjectIndex) ([]Value, error) {
	sc := scope{this: Object(e.h, obj), alias: q.From.Alias}
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
	row := make([]Value, len(q.Items))
	for k, it := range q.Items {
		v, err := e.eval(it.Expr, sc)
		if err != nil {
			return nil, err
		}
		row[k] = v
	}
	return row, nil
}
