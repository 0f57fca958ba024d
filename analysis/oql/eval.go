package oql

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hprofctl/hprofctl/analysis"
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
// dump at path, read in batches: evaluating a row that needs an object's
// values not read yet notes the object and fails with errPending; the
// objects noted for a chunk of rows are read together, and the rows that
// waited are evaluated again.
type evaluator struct {
	h    *model.Heap
	r    *analysis.Retention
	path string
	opt  Options

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
// read from the dump at path (which standard input cannot be). Rows come
// in the order of the FROM clause's objects (by index for classes).
func Run(h *model.Heap, r *analysis.Retention, path string, q *Query, o Options) (*Result, error) {
	e := &evaluator{h: h, r: r, path: path, opt: o, subqueries: map[*Subquery]Value{}, patterns: map[string]*regexp.Regexp{}}
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
	res := &Result{Columns: []string{"object"}, Rows: [][]Value{}}
	if q.Mode == SelectColumns && !q.Star {
		res.Columns = res.Columns[:0]
		for _, it := range q.Items {
			res.Columns = append(res.Columns, it.Name)
		}
	}
	seen := map[string]bool{}
	var retainers []model.ObjectIndex
	full := func() bool { return limit > 0 && len(res.Rows) >= limit && q.Mode != SelectRetainedSet }
	add := func(row []Value) {
		if full() {
			return
		}
		if q.Distinct {
			var b strings.Builder
			for _, v := range row {
				b.WriteString(v.key())
				b.WriteByte(0)
			}
			if seen[b.String()] {
				return
			}
			seen[b.String()] = true
		}
		res.Rows = append(res.Rows, row)
	}
	for lo := 0; lo < len(objs) && !full(); lo += rowChunk {
		rows, err := e.chunkRows(q, objs[lo:min(lo+rowChunk, len(objs))])
		if err != nil {
			return nil, err
		}
		for k, row := range rows {
			if row == nil {
				continue
			}
			obj := objs[lo+k]
			switch {
			case q.Mode == SelectColumns && q.Star:
				add([]Value{Object(e.h, obj)})
			case q.Mode == SelectColumns:
				add(row)
			default:
				if q.Star {
					row = []Value{Object(e.h, obj)}
				}
				for _, v := range row {
					picked, err := objectsOf(v)
					if err != nil {
						return nil, err
					}
					for _, p := range picked {
						if q.Mode == SelectObjects {
							add([]Value{Object(e.h, p)})
						} else {
							retainers = append(retainers, p)
						}
					}
				}
			}
		}
	}
	if q.Mode == SelectRetainedSet {
		for _, i := range e.retainedSet(retainers) {
			add([]Value{Object(e.h, i)})
		}
		if limit > 0 && len(res.Rows) > limit {
			res.Rows = res.Rows[:limit]
		}
	}
	return res, nil
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
