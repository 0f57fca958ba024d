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

// chunkRows evaluates q over objs: for each object its items' values (an
// empty row for SELECT *), nil where WHERE rejects it. Rows waiting for
// field values are evaluated again after each batch of reads.
func (e *evaluator) chunkRows(q *Query, objs []model.ObjectIndex) ([][]Value, error) {
	e.vals = map[model.ObjectIndex]*model.ObjectValues{}
	e.want = map[model.ObjectIndex]bool{}
	rows := make([][]Value, len(objs))
	pending := make([]int, len(objs))
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
			row, err := e.row(q, objs[k])
			if errors.Is(err, errPending) {
				wait = append(wait, k)
				continue
			}
			if err != nil {
				return nil, err
			}
			rows[k] = row
		}
		if len(wait) > 0 {
			if err := e.read(); err != nil {
				return nil, err
			}
		}
		pending = wait
	}
	e.vals = nil
	return rows, nil
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
	for k, i := range objs {
		e.vals[i] = got[k]
	}
	clear(e.want)
	return nil
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
	e.want[i] = true
	return nil, errPending
}
