package oql

import (
	"fmt"
	"regexp"
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
	patterns   map[string]*regexp.Regexp
	// children and referrers are built on first use: the dominator tree
	// and the references reversed, each as offsets into one list.
	childStart, children  []uint32
	referStart, referrers []uint32
	roots                 map[model.ObjectIndex][]string
}

// Run answers query q over heap h with its retention r; field values are
// read from h's dump again (model.EachValues). Rows come
// in the order of the FROM clause's objects (by index for classes).
func Run(h *model.Heap, r *graph.Retention, q *Query, o Options) (*Result, error) {
	e := &evaluator{h: h, r: r, opt: o, subqueries: map[*Subquery]Value{}, patterns: map[string]*regexp.Regexp{}}
	return e.query(q, o.Limit)
}

// query evaluates q and its UNIONs, at most limit rows (0: all).
func (e *evaluator) query(q *Query, limit int) (*Result, error) {
	res, err := e.selectQuery(q, limit)
	if err != nil {
		return nil, err
	}
	for _, u := range q.Union {
		if limit > 0 && len(res.Rows) >= limit {
			break
		}
		more, err := e.selectQuery(u, limit-len(res.Rows))
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

// selectQuery evaluates one SELECT, at most limit rows (0: all).
func (e *evaluator) selectQuery(q *Query, limit int) (*Result, error) {
	if err := e.prepare(q); err != nil {
		return nil, err
	}
	objs, err := e.fromObjects(q.From)
	if err != nil {
		return nil, err
	}
	set := &rowSet{rows: [][]Value{}, distinct: q.Distinct, seen: map[string]bool{}}
	if q.Mode != SelectRetainedSet {
		set.limit = limit
	}
	var retainers []model.ObjectIndex
	for lo := 0; lo < len(objs) && !set.full(); lo += rowChunk {
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
		for _, i := range e.retainedSet(retainers) {
			set.add([]Value{Object(e.h, i)})
		}
		if limit > 0 && len(set.rows) > limit {
			set.rows = set.rows[:limit]
		}
	}
	return &Result{Columns: columns(q), Rows: set.rows}, nil
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

// take adds to set what the row of object obj selects: the row itself
// (the object for SELECT *), or for SELECT OBJECTS each object of its
// values. For AS RETAINED SET it adds nothing and returns those objects.
func (e *evaluator) take(q *Query, obj model.ObjectIndex, row []Value, set *rowSet) ([]model.ObjectIndex, error) {
	if q.Star {
		row = []Value{Object(e.h, obj)}
	}
	if q.Mode == SelectColumns {
		set.add(row)
		return nil, nil
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
			set.add([]Value{Object(e.h, p)})
		}
	}
	return retainers, nil
}

// rowSet gathers the rows of a SELECT: at most limit (0: all), and with
// distinct each row once.
type rowSet struct {
	rows     [][]Value
	limit    int
	distinct bool
	seen     map[string]bool
}

// full reports whether the set holds limit rows.
func (s *rowSet) full() bool { return s.limit > 0 && len(s.rows) >= s.limit }

// add adds row unless the set is full or, with distinct, has it already.
func (s *rowSet) add(row []Value) {
	if s.full() {
		return
	}
	if s.distinct {
		var b strings.Builder
		for _, v := range row {
			b.WriteString(v.key())
			b.WriteByte(0)
		}
		if s.seen[b.String()] {
			return
		}
		s.seen[b.String()] = true
	}
	s.rows = append(s.rows, row)
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
