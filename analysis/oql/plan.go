package oql

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/hprofctl/hprofctl/model"
)

// subquery is the value of subquery x in the row of scope sc: null when
// it gives no row, else the list of its rows, each row one value for
// SELECT *, OBJECTS and AS RETAINED SET, a record of its columns for
// others. A subquery that names an alias of an enclosing query is
// evaluated again for each row; others once.
func (e *evaluator) subquery(x *Subquery, sc scope) (Value, error) {
	correlated := e.isCorrelated(x, sc)
	if v, done := e.subqueries[x]; done && !correlated {
		return v, nil
	}
	var outer *scope
	if correlated {
		// The row's object is read with the other rows of its chunk,
		// not alone by the subquery for each row.
		if this := unwrap(sc.this); this.Kind == KindObject {
			if _, err := e.values(this.Obj); err != nil {
				return Null(), err
			}
		}
		outer = &sc
	}
	res, err := e.child().query(x.Query, outer, 0)
	if err != nil {
		return Null(), err
	}
	v := rowsValue(x.Query, res)
	if !correlated {
		e.subqueries[x] = v
	}
	return v, nil
}

// rowsValue is a subquery's result as a value (see subquery).
func rowsValue(q *Query, res *Result) Value {
	if len(res.Rows) == 0 {
		return Null()
	}
	plain := q.Star || q.Mode != SelectColumns
	list := make([]Value, len(res.Rows))
	for k, row := range res.Rows {
		list[k] = row[0]
		if !plain {
			list[k] = record(res.Columns, row)
		}
	}
	return Value{Kind: KindList, List: list}
}

// isCorrelated reports whether subquery x names an alias of the queries
// around it (sc and its outer scopes).
func (e *evaluator) isCorrelated(x *Subquery, sc scope) bool {
	if c, ok := e.correlated[x]; ok {
		return c
	}
	aliases := map[string]bool{}
	for s := &sc; s != nil; s = s.outer {
		if s.alias != "" {
			aliases[s.alias] = true
		}
	}
	found := false
	namesIn(x.Query, func(n string) { found = found || aliases[n] })
	e.correlated[x] = found
	e.anyCorrelated = e.anyCorrelated || found
	return found
}

// namesIn calls f on every bare name of q, its FROM expression, its
// subqueries and its UNIONs.
func namesIn(q *Query, f func(string)) {
	exprs := []Expr{q.Where, q.From.Expr}
	for _, it := range q.Items {
		exprs = append(exprs, it.Expr)
	}
	exprNames(f, exprs...)
	if q.From.Sub != nil {
		namesIn(q.From.Sub, f)
	}
	for _, u := range q.Union {
		namesIn(u, f)
	}
}

// exprNames calls f on the bare names of exprs and of the subqueries in
// them; nil expressions have none.
func exprNames(f func(string), exprs ...Expr) {
	for _, x := range exprs {
		switch x := x.(type) {
		case *Name:
			f(x.Name)
		case *Field:
			exprNames(f, x.X)
		case *Attr:
			exprNames(f, x.X)
		case *Index:
			exprNames(f, x.X, x.I, x.Hi)
		case *Call:
			exprNames(f, x.Args...)
		case *Method:
			exprNames(f, x.X)
			exprNames(f, x.Args...)
		case *Binary:
			exprNames(f, x.L, x.R)
		case *Not:
			exprNames(f, x.X)
		case *List:
			exprNames(f, x.Items...)
		case *Subquery:
			namesIn(x.Query, f)
		}
	}
}

// fromValues lists the values a FROM clause names: by index for classes,
// in the order written for ids, as the subquery or expression gives
// them. A class object given by id, subquery or expression stands for
// the class's instances (with INSTANCEOF of its subclasses' too) unless
// the clause takes OBJECTS; OBJECTS INSTANCEOF takes the class objects
// of the class and its subclasses. outer is the enclosing row of a
// correlated subquery.
func (e *evaluator) fromValues(f From, outer *scope) (fromList, error) {
	var given []Value
	switch f.Kind {
	case FromClass, FromPattern:
		objs, err := e.fromClasses(f)
		return fromList{objs: objs}, err
	case FromIDs:
		objs, err := e.fromIDs(f)
		if err != nil {
			return fromList{}, err
		}
		given = e.objectValues(objs)
	case FromQuery:
		res, err := e.child().query(f.Sub, outer, 0)
		if err != nil {
			return fromList{}, err
		}
		if v := rowsValue(f.Sub, res); v.Kind == KindList {
			given = v.List
		}
	case FromExpr:
		sc := scope{}
		if outer != nil {
			sc = *outer
		}
		v, err := e.evalNow(f.Expr, sc)
		if err != nil {
			return fromList{}, err
		}
		given = []Value{v}
		if v.Kind == KindList && v.Names == nil {
			given = v.List
		}
	}
	return e.expandClasses(given, f), nil
}

// objectValues is objs as values.
func (e *evaluator) objectValues(objs []model.ObjectIndex) []Value {
	out := make([]Value, len(objs))
	for k, i := range objs {
		out[k] = Object(e.h, i)
	}
	return out
}

// expandClasses replaces the class objects among vals as fromValues
// says.
func (e *evaluator) expandClasses(vals []Value, f From) fromList {
	var out fromList
	for _, v := range vals {
		o := unwrap(v)
		c, isClass := e.classOfObject(o)
		switch {
		case !isClass || f.Objects && !f.InstanceOf:
			out.add(e, v)
		case f.Objects:
			set := make([]bool, len(e.h.Classes))
			set[c] = true
			out.addObjects(e, e.classObjects(e.withSubclasses(set, true)))
		default:
			set := make([]bool, len(e.h.Classes))
			set[c] = true
			out.addObjects(e, e.instances(e.withSubclasses(set, f.InstanceOf)))
		}
	}
	return out
}

// fromList is what a FROM clause gives: objects by index while they are
// all plain objects (4 bytes each, for the millions of a class's
// instances), else values.
type fromList struct {
	objs []model.ObjectIndex
	vals []Value
	// mixed says vals holds the list.
	mixed bool
}

// len is the number of items.
func (l *fromList) len() int {
	if l.mixed {
		return len(l.vals)
	}
	return len(l.objs)
}

// add appends v.
func (l *fromList) add(e *evaluator, v Value) {
	if !l.mixed && v.Kind == KindObject && v.Names == nil {
		l.objs = append(l.objs, v.Obj)
		return
	}
	if !l.mixed {
		l.vals, l.objs, l.mixed = e.objectValues(l.objs), nil, true
	}
	l.vals = append(l.vals, v)
}

// addObjects appends objs.
func (l *fromList) addObjects(e *evaluator, objs []model.ObjectIndex) {
	if !l.mixed {
		l.objs = append(l.objs, objs...)
		return
	}
	l.vals = append(l.vals, e.objectValues(objs)...)
}

// chunk is items lo to hi (excluded) as values.
func (l *fromList) chunk(e *evaluator, lo, hi int) []Value {
	if l.mixed {
		return l.vals[lo:hi]
	}
	return e.objectValues(l.objs[lo:hi])
}

// classOfObject is the class whose class object v is.
func (e *evaluator) classOfObject(v Value) (model.ClassIndex, bool) {
	if v.Kind != KindObject {
		return 0, false
	}
	c, ok := e.h.ClassObjectOf(v.Obj)
	return c, ok && e.h.Classes[c].Object == v.Obj
}

// fromIDs lists the objects of f's addresses and object ids in the order
// written.
func (e *evaluator) fromIDs(f From) ([]model.ObjectIndex, error) {
	h := e.h
	var out []model.ObjectIndex
	for _, ref := range f.IDs {
		if !ref.Address {
			if ref.N >= uint64(h.NumObjects()) {
				if _, ok := h.Lookup(ref.N); ok {
					return nil, fmt.Errorf("FROM: no object id %d in the dump (it has ids 0 to %d); the object at address %d is written 0x%x", ref.N, h.NumObjects()-1, ref.N, ref.N)
				}
				return nil, fmt.Errorf("FROM: no object id %d in the dump (it has ids 0 to %d; write an address as 0x…)", ref.N, h.NumObjects()-1)
			}
			out = append(out, model.ObjectIndex(ref.N))
			continue
		}
		i, ok := h.Lookup(ref.N)
		if !ok {
			return nil, fmt.Errorf("FROM: no object 0x%x in the dump", ref.N)
		}
		out = append(out, i)
	}
	return out, nil
}

// fromClasses lists, by index, the instances (or with OBJECTS the class
// objects) of the class f names or of the classes its pattern matches; a
// class the dump lacks has none.
func (e *evaluator) fromClasses(f From) ([]model.ObjectIndex, error) {
	h := e.h
	set := make([]bool, len(h.Classes))
	var re *regexp.Regexp
	if f.Kind == FromPattern {
		var err error
		if re, err = regexp.Compile(`^(?:` + f.Pattern + `)$`); err != nil {
			return nil, fmt.Errorf("FROM %q: %w", f.Pattern, err)
		}
	}
	for c := range h.Classes {
		if re != nil && re.MatchString(h.Classes[c].Name) || re == nil && h.Classes[c].Name == f.Class {
			set[c] = true
		}
	}
	set = e.withSubclasses(set, f.InstanceOf)
	if f.Objects {
		return e.classObjects(set), nil
	}
	return e.instances(set), nil
}

// classObjects lists, by index, the class objects of the classes of set.
func (e *evaluator) classObjects(set []bool) []model.ObjectIndex {
	h := e.h
	var out []model.ObjectIndex
	for c, in := range set {
		if o := h.Classes[c].Object; in && o != model.NoObject && e.takes(o) {
			out = append(out, o)
		}
	}
	slices.Sort(out)
	return out
}

// takes reports whether a FROM clause naming classes takes object i: in
// the selected heaps and, with Reachable, reachable as Eclipse MAT
// counts it (buildReachable).
func (e *evaluator) takes(i model.ObjectIndex) bool {
	if !e.opt.Heaps.Has(i) {
		return false
	}
	if e.opt.Reachable {
		e.buildReachable()
		return e.reachable.Has(i)
	}
	return true
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
		if (c != model.NoClass && set[c] || classes && c == model.NoClass && isClassObject(h, i)) && e.takes(i) {
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
