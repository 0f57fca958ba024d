package oql

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/hprofctl/hprofctl/model"
)

// prepare evaluates the subqueries in q's expressions, once each: they
// cannot refer to the outer query's object.
func (e *evaluator) prepare(q *Query) error {
	exprs := []Expr{q.Where}
	for _, it := range q.Items {
		exprs = append(exprs, it.Expr)
	}
	return eachSubquery(e.subquery, exprs...)
}

// eachSubquery calls f on the subqueries of exprs, left to right and
// outermost first, without entering them; nil expressions have none.
func eachSubquery(f func(*Subquery) error, exprs ...Expr) error {
	for _, x := range exprs {
		var err error
		switch x := x.(type) {
		case *Field:
			err = eachSubquery(f, x.X)
		case *Attr:
			err = eachSubquery(f, x.X)
		case *Index:
			err = eachSubquery(f, x.X, x.I)
		case *Call:
			err = eachSubquery(f, x.Args...)
		case *Binary:
			err = eachSubquery(f, x.L, x.R)
		case *Not:
			err = eachSubquery(f, x.X)
		case *List:
			err = eachSubquery(f, x.Items...)
		case *Subquery:
			err = f(x)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// subquery evaluates x unless done before: its value is the list of its
// rows, each row its one value or, with several columns, their list.
func (e *evaluator) subquery(x *Subquery) error {
	if _, done := e.subqueries[x]; done {
		return nil
	}
	sub := &evaluator{h: e.h, r: e.r, opt: e.opt, subqueries: e.subqueries, lim: e.lim}
	res, err := sub.query(x.Query, 0)
	if err != nil {
		return err
	}
	list := make([]Value, len(res.Rows))
	for k, row := range res.Rows {
		list[k] = row[0]
		if len(row) > 1 {
			list[k] = Value{Kind: KindList, List: row}
		}
	}
	e.subqueries[x] = Value{Kind: KindList, List: list}
	return nil
}

// fromObjects lists the objects a FROM clause names, in index order for
// classes, in the order written for ids and as the subquery gives them.
func (e *evaluator) fromObjects(f From) ([]model.ObjectIndex, error) {
	switch f.Kind {
	case FromQuery:
		return e.fromSubquery(f.Sub)
	case FromIDs:
		return e.fromIDs(f)
	}
	return e.fromClasses(f)
}

// fromSubquery lists the objects of the first column of sub's rows.
func (e *evaluator) fromSubquery(sub *Query) ([]model.ObjectIndex, error) {
	emit := e.emit
	e.emit = nil // the subquery's rows are the outer query's objects
	res, err := e.query(sub, 0)
	e.emit = emit
	if err != nil {
		return nil, err
	}
	var out []model.ObjectIndex
	for _, row := range res.Rows {
		o, err := objectsOf(row[0])
		if err != nil {
			return nil, fmt.Errorf("FROM (subquery): %w", err)
		}
		out = append(out, o...)
	}
	return out, nil
}

// fromIDs lists the objects of f's ids in the order written: an id of a
// class object stands for the class's instances unless f takes OBJECTS.
func (e *evaluator) fromIDs(f From) ([]model.ObjectIndex, error) {
	h := e.h
	var out []model.ObjectIndex
	for _, id := range f.IDs {
		i, ok := h.Lookup(id)
		if !ok {
			return nil, fmt.Errorf("FROM: no object 0x%x in the dump", id)
		}
		if c, ok := h.ClassObjectOf(i); ok && h.Classes[c].Object == i && !f.Objects {
			set := make([]bool, len(h.Classes))
			set[c] = true
			out = append(out, e.instances(e.withSubclasses(set, f.InstanceOf))...)
			continue
		}
		out = append(out, i)
	}
	return out, nil
}

// fromClasses lists, by index, the instances (or with OBJECTS the class
// objects) of the class f names or of the classes its pattern matches.
func (e *evaluator) fromClasses(f From) ([]model.ObjectIndex, error) {
	h := e.h
	set := make([]bool, len(h.Classes))
	found := false
	var re *regexp.Regexp
	if f.Kind == FromPattern {
		var err error
		if re, err = regexp.Compile(`^(?:` + f.Pattern + `)$`); err != nil {
			return nil, fmt.Errorf("FROM %q: %w", f.Pattern, err)
		}
	}
	for c := range h.Classes {
		if re != nil && re.MatchString(h.Classes[c].Name) || re == nil && h.Classes[c].Name == f.Class {
			set[c], found = true, true
		}
	}
	if !found && f.Kind == FromClass {
		return nil, fmt.Errorf("FROM %s: no such class in the dump", f.Class)
	}
	set = e.withSubclasses(set, f.InstanceOf)
	if f.Objects {
		var out []model.ObjectIndex
		for c, in := range set {
			if in && h.Classes[c].Object != model.NoObject && e.opt.Heaps.Has(h.Classes[c].Object) {
				out = append(out, h.Classes[c].Object)
			}
		}
		slices.Sort(out)
		return out, nil
	}
	return e.instances(set), nil
}

// withSubclasses adds to the classes of set their subclasses when
// instanceOf.
func (e *evaluator) withSubclasses(set []bool, instanceOf bool) []bool {
	if !instanceOf {
		return set
	}
	out := make([]bool, len(set))
	for c := range e.h.Classes {
		for s := range e.h.Supers(model.ClassIndex(c)) {
			if set[s] {
				out[c] = true
				break
			}
		}
	}
	return out
}

// instances lists the objects of the classes of set, by index; class
// objects count as instances of java.lang.Class.
func (e *evaluator) instances(set []bool) []model.ObjectIndex {
	h := e.h
	classClass := h.ClassClass()
	classes := classClass != model.NoClass && set[classClass]
	var out []model.ObjectIndex
	for n := range h.NumObjects() {
		i := model.ObjectIndex(n)
		c := h.ClassOf(i)
		if (c != model.NoClass && set[c] || classes && c == model.NoClass && isClassObject(h, i)) && e.opt.Heaps.Has(i) {
			out = append(out, i)
		}
	}
	return out
}

// isClassObject reports whether object i is the class object of a class.
func isClassObject(h *model.Heap, i model.ObjectIndex) bool {
	c, ok := h.ClassObjectOf(i)
	return ok && h.Classes[c].Object == i
}
