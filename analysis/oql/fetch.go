package oql

import (
	"errors"
	"fmt"
	"slices"

	"github.com/hprofctl/hprofctl/model"
)

// errPending says a value needs the field values of objects not read
// yet: the row is evaluated again once they are.
var errPending = errors.New("field values not read yet")

// rowChunk is how many objects of a FROM clause are evaluated together:
// their field values are read in one batch per level of references, and
// forgotten before the next chunk, which bounds the memory a query over
// millions of objects keeps.
const rowChunk = 1 << 18

// cachedBytes bounds the values a query with a correlated subquery keeps
// beyond the current chunk, for the subqueries evaluated again for each
// row: the first objects read, up to about this many bytes.
const cachedBytes = 64 << 20

// chunkRows evaluates q over vals: for each value its rows (one empty
// row for SELECT *), nil where WHERE rejects it. Rows waiting for field
// values are evaluated again after each batch of reads.
func (e *evaluator) chunkRows(q *Query, vals []Value, outer *scope) ([][][]Value, error) {
	e.vals = map[model.ObjectIndex]*model.ObjectValues{}
	e.want = map[model.ObjectIndex]bool{}
	defer e.dropValues()
	rows := make([][][]Value, len(vals))
	pending := make([]int, len(vals))
	for k := range pending {
		pending[k] = k
	}
	for len(pending) > 0 {
		var wait []int
		for n, k := range pending {
			if n%4096 == 0 {
				if err := e.lim.ctx.Err(); err != nil {
					return nil, err
				}
			}
			rs, err := e.row(q, vals[k], outer)
			if errors.Is(err, errPending) {
				wait = append(wait, k)
				continue
			}
			if err != nil {
				return nil, err
			}
			rows[k] = rs
		}
		if len(wait) > 0 {
			if err := e.read(); err != nil {
				return nil, err
			}
		}
		pending = wait
	}
	return rows, nil
}

// evalNow evaluates x outside the rows of a FROM clause (a FROM
// expression), reading the field values it needs as it goes.
func (e *evaluator) evalNow(x Expr, sc scope) (Value, error) {
	if e.vals != nil {
		return e.eval(x, sc)
	}
	e.vals = map[model.ObjectIndex]*model.ObjectValues{}
	e.want = map[model.ObjectIndex]bool{}
	defer e.dropValues()
	for {
		v, err := e.eval(x, sc)
		if !errors.Is(err, errPending) {
			return v, err
		}
		if err := e.read(); err != nil {
			return Null(), err
		}
	}
}

// read reads the values of the objects rows wait for, in one batch.
func (e *evaluator) read() error {
	objs := make([]model.ObjectIndex, 0, len(e.want))
	for i := range e.want {
		objs = append(objs, i)
	}
	slices.Sort(objs)
	got := make([]*model.ObjectValues, len(objs))
	err := model.EachValues(e.h, objs, func(k int, v *model.ObjectValues) error {
		got[k] = &model.ObjectValues{Fields: slices.Clone(v.Fields), Length: v.Length, Elem: v.Elem, Data: slices.Clone(v.Data)}
		return nil
	})
	if err != nil {
		return &readError{fmt.Errorf("the query reads field values: %w", err)}
	}
	read := int64(0)
	for k, i := range objs {
		e.vals[i] = got[k]
		size := int64(len(got[k].Data)) + 64*int64(len(got[k].Fields))
		read += size + readEntryBytes
		if e.anyCorrelated && e.cacheBytes+size <= cachedBytes {
			e.cache[i] = got[k]
			e.cacheBytes += size
		}
	}
	clear(e.want)
	e.valsBytes += read
	return e.lim.charge(read)
}

// readEntryBytes estimates what an object's values take besides their
// data and fields: the ObjectValues and its entry in the map of a chunk.
const readEntryBytes = 96

// dropValues forgets the values read for the current chunk and gives
// their memory back to the query's bound.
func (e *evaluator) dropValues() {
	e.vals = nil
	e.lim.refund(e.valsBytes)
	e.valsBytes = 0
}

// values are the values of object i: errPending when not read yet, nil
// when its record could not be decoded.
func (e *evaluator) values(i model.ObjectIndex) (*model.ObjectValues, error) {
	if v, ok := e.vals[i]; ok {
		return v, nil
	}
	if e.vals == nil {
		return nil, errors.New("field values are read only for the rows of a FROM clause")
	}
	if v, ok := e.cache[i]; ok {
		e.vals[i] = v
		return v, nil
	}
	e.want[i] = true
	return nil, errPending
}
