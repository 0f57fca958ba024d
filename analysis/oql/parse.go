// Package oql implements Eclipse Memory Analyzer's object query language
// over a heap: a parser for queries such as
//
//	SELECT toString(s), s.@retainedHeapSize FROM java.lang.String s WHERE s.value.@length > 100
//
// and an evaluator that answers them with the heap's objects, its
// dominator tree and the field values read again from the dump.
package oql

import (
	"fmt"
	"strconv"
	"strings"
)

// SyntaxError is a query that does not parse: Col is the 1-based column
// (in characters) where the parser found something other than what it
// expected.
type SyntaxError struct {
	Col      int
	Expected string
	Found    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("column %d: expected %s, found %s", e.Col, e.Expected, e.Found)
}

// keywords cannot be aliases or bare field names.
var keywords = map[string]bool{
	"SELECT": true, "DISTINCT": true, "OBJECTS": true, "AS": true, "RETAINED": true, "SET": true,
	"FROM": true, "INSTANCEOF": true, "WHERE": true, "AND": true, "OR": true, "NOT": true,
	"LIKE": true, "IN": true, "UNION": true, "NULL": true, "TRUE": true, "FALSE": true,
}

// clauseWords cannot be field names after ".": "x. FROM" is a field
// name left out, not a field named FROM.
var clauseWords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AND": true, "OR": true, "NOT": true,
	"LIKE": true, "IN": true, "UNION": true, "AS": true,
}

// parser is a recursive-descent parser over the tokens of one query.
type parser struct {
	q    string
	toks []token
	at   int
	// depth bounds the nesting of expressions and subqueries, so that a
	// hostile query cannot exhaust the stack.
	depth int
}

// maxDepth is how deeply expressions and subqueries may nest.
const maxDepth = 200

// Parse parses one query, with its UNIONs.
func Parse(q string) (*Query, error) {
	toks, err := lex(q)
	if err != nil {
		return nil, err
	}
	p := &parser{q: q, toks: toks}
	query, err := p.query()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.fail("the end of the query")
	}
	return query, nil
}

func (p *parser) peek() token { return p.toks[p.at] }

func (p *parser) next() token {
	t := p.toks[p.at]
	if t.kind != tokEOF {
		p.at++
	}
	return t
}

// isKeyword reports whether the next token is keyword kw (any case).
func (p *parser) isKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tokIdent && strings.EqualFold(t.text, kw)
}

func (p *parser) acceptKeyword(kw string) bool {
	if p.isKeyword(kw) {
		p.at++
		return true
	}
	return false
}

func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.kind == tokOp && t.text == op
}

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.at++
		return true
	}
	return false
}

// fail is a syntax error at the next token.
func (p *parser) fail(expected string) error {
	t := p.peek()
	found := "the end of the query"
	switch t.kind {
	case tokIdent, tokNumber, tokOp:
		found = strconv.Quote(t.text)
	case tokString:
		found = "the string " + strconv.Quote(t.text)
	case tokAttr:
		found = strconv.Quote("@" + t.text)
	}
	return syntaxAt(p.q, t.pos, expected, found)
}

func (p *parser) expectKeyword(kw string) error {
	if !p.acceptKeyword(kw) {
		return p.fail(kw)
	}
	return nil
}

func (p *parser) expectOp(op string) error {
	if !p.acceptOp(op) {
		return p.fail(strconv.Quote(op))
	}
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.fail(fmt.Sprintf("at most %d levels of nesting", maxDepth))
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// query := select { UNION ( select ) }
func (p *parser) query() (*Query, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	q, err := p.selectQuery()
	if err != nil {
		return nil, err
	}
	for p.acceptKeyword("UNION") {
		paren := p.acceptOp("(")
		u, err := p.selectQuery()
		if err != nil {
			return nil, err
		}
		if paren {
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
		}
		q.Union = append(q.Union, u)
	}
	return q, nil
}

// selectQuery := SELECT [DISTINCT] [OBJECTS | AS RETAINED SET [OBJECTS]] (* | item {, item}) FROM from [WHERE expr]
func (p *parser) selectQuery() (*Query, error) {
	if err := p.expectKeyword("SELECT"); err != nil {
		return nil, err
	}
	q := &Query{}
	q.Distinct = p.acceptKeyword("DISTINCT")
	switch {
	case p.acceptKeyword("OBJECTS"):
		q.Mode = SelectObjects
	case p.isKeyword("AS"):
		p.next()
		if err := p.expectKeyword("RETAINED"); err != nil {
			return nil, err
		}
		if err := p.expectKeyword("SET"); err != nil {
			return nil, err
		}
		q.Mode = SelectRetainedSet
		p.acceptKeyword("OBJECTS")
	}
	if p.acceptOp("*") {
		q.Star = true
	} else {
		for {
			start := p.peek().pos
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			item := SelectItem{Expr: e, Name: strings.TrimSpace(p.q[start:p.peek().pos])}
			if p.acceptKeyword("AS") {
				t := p.next()
				if t.kind != tokIdent && t.kind != tokString {
					p.at--
					return nil, p.fail("a column name after AS")
				}
				item.Name = t.text
			}
			q.Items = append(q.Items, item)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if err := p.expectKeyword("FROM"); err != nil {
		return nil, err
	}
	from, err := p.from()
	if err != nil {
		return nil, err
	}
	q.From = from
	if p.acceptKeyword("WHERE") {
		if q.Where, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// from := [OBJECTS] [INSTANCEOF] (class | "regex" | id {, id} | ( query ) | ( expr ) | name [ expr : expr ]) [alias]
func (p *parser) from() (From, error) {
	var f From
	for {
		switch {
		case p.acceptKeyword("OBJECTS"):
			f.Objects = true
			continue
		case p.acceptKeyword("INSTANCEOF"):
			f.InstanceOf = true
			continue
		}
		break
	}
	t := p.peek()
	switch {
	case t.kind == tokOp && t.text == "(":
		p.next()
		if !p.isKeyword("SELECT") {
			x, err := p.parenthesised()
			if err != nil {
				return f, err
			}
			f.Kind, f.Expr = FromExpr, x
			break
		}
		sub, err := p.query()
		if err != nil {
			return f, err
		}
		if err := p.expectOp(")"); err != nil {
			return f, err
		}
		f.Kind, f.Sub = FromQuery, sub
	case t.kind == tokString:
		p.next()
		f.Kind, f.Pattern = FromPattern, t.text
	case t.kind == tokNumber:
		f.Kind = FromIDs
		for {
			t := p.next()
			if t.kind != tokNumber {
				p.at--
				return f, p.fail("an object id")
			}
			id, err := parseID(t.text)
			if err != nil {
				p.at--
				return f, p.fail("an object id (decimal) or address (0x hex)")
			}
			f.IDs = append(f.IDs, id)
			if !p.acceptOp(",") {
				break
			}
		}
	case t.kind == tokIdent && !keywords[strings.ToUpper(t.text)]:
		start := p.at
		name, err := p.className()
		if err != nil {
			return f, err
		}
		f.Kind, f.Class = FromClass, name
		if p.isOp("[") {
			// x[a:b] names no class: an expression of an outer alias.
			p.at = start
			if f.Expr, err = p.postfix(); err != nil {
				return f, err
			}
			f.Kind, f.Class = FromExpr, ""
		}
	default:
		return f, p.fail("a class name, a \"regex\", object ids or a (subquery)")
	}
	if t := p.peek(); t.kind == tokIdent && !keywords[strings.ToUpper(t.text)] {
		f.Alias = t.text
		p.next()
	}
	return f, nil
}

// className := ident { . ident } { [ ] }
func (p *parser) className() (string, error) {
	var b strings.Builder
	b.WriteString(p.next().text)
	for p.acceptOp(".") {
		t := p.next()
		if t.kind != tokIdent {
			p.at--
			return "", p.fail("a name after \".\" in the class name")
		}
		b.WriteString("." + t.text)
	}
	for p.isOp("[") && p.toks[p.at+1].kind == tokOp && p.toks[p.at+1].text == "]" {
		p.at += 2
		b.WriteString("[]")
	}
	return b.String(), nil
}

// parseID reads an object reference: an address in 0x hex, or an object
// id in decimal.
func parseID(s string) (ObjectRef, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		n, err := strconv.ParseUint(s[2:], 16, 64)
		return ObjectRef{N: n, Address: true}, err
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return ObjectRef{N: n}, err
}

// expr := and { OR and }
func (p *parser) expr() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.acceptKeyword("OR") {
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: "OR", L: l, R: r}
	}
	return l, nil
}

// and := not { AND not }
func (p *parser) and() (Expr, error) {
	l, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.acceptKeyword("AND") {
		r, err := p.not()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: "AND", L: l, R: r}
	}
	return l, nil
}

// not := NOT not | comparison
func (p *parser) not() (Expr, error) {
	if p.acceptKeyword("NOT") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return &Not{X: x}, nil
	}
	return p.comparison()
}

// comparison := sum [ (= | != | <> | < | <= | > | >=) sum | [NOT] LIKE sum | [NOT] IN sum | IMPLEMENTS class ]
func (p *parser) comparison() (Expr, error) {
	l, err := p.sum()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind == tokOp {
		switch t.text {
		case "=", "!=", "<>", "<", "<=", ">", ">=":
			p.next()
			r, err := p.sum()
			if err != nil {
				return nil, err
			}
			op := t.text
			if op == "<>" {
				op = "!="
			}
			return &Binary{Op: op, L: l, R: r}, nil
		}
	}
	negate := false
	if p.isKeyword("NOT") {
		after := p.toks[p.at+1]
		if after.kind == tokIdent && (strings.EqualFold(after.text, "LIKE") || strings.EqualFold(after.text, "IN")) {
			p.next()
			negate = true
		}
	}
	var cmp Expr
	switch {
	case !negate && p.acceptKeyword("IMPLEMENTS"):
		if t := p.peek(); t.kind != tokIdent {
			return nil, p.fail("a class name after IMPLEMENTS")
		}
		name, err := p.className()
		if err != nil {
			return nil, err
		}
		return &Binary{Op: "IMPLEMENTS", L: l, R: &Literal{Value: String(name)}}, nil
	case p.acceptKeyword("LIKE"):
		r, err := p.sum()
		if err != nil {
			return nil, err
		}
		cmp = &Binary{Op: "LIKE", L: l, R: r}
	case p.acceptKeyword("IN"):
		r, err := p.sum()
		if err != nil {
			return nil, err
		}
		cmp = &Binary{Op: "IN", L: l, R: r}
	default:
		return l, nil
	}
	if negate {
		cmp = &Not{X: cmp}
	}
	return cmp, nil
}

// sum := product { (+ | -) product }
func (p *parser) sum() (Expr, error) {
	l, err := p.product()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		op := p.next().text
		r, err := p.product()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: op, L: l, R: r}
	}
	return l, nil
}

// product := unary { (* | / | %) unary }
func (p *parser) product() (Expr, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") || p.isOp("%") {
		op := p.next().text
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: op, L: l, R: r}
	}
	return l, nil
}

// unary := - unary | postfix
func (p *parser) unary() (Expr, error) {
	if p.acceptOp("-") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &Binary{Op: "-", L: &Literal{Value: Int(0)}, R: x}, nil
	}
	return p.postfix()
}

// postfix := primary { . name | . @attr | . name ( [expr {, expr}] ) | [ expr [: expr] ] }
func (p *parser) postfix() (Expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.acceptOp("."):
			t := p.next()
			switch {
			case t.kind == tokAttr:
				x = &Attr{X: x, Name: t.text}
			case t.kind == tokIdent && p.isOp("("):
				p.next()
				args, err := p.arguments()
				if err != nil {
					return nil, err
				}
				x = &Method{X: x, Name: strings.ToLower(t.text), Args: args}
			case t.kind == tokIdent && !clauseWords[strings.ToUpper(t.text)]:
				x = &Field{X: x, Name: t.text}
			default:
				p.at--
				return nil, p.fail("a field name or @attribute after \".\"")
			}
		case p.acceptOp("["):
			i, err := p.expr()
			if err != nil {
				return nil, err
			}
			ix := &Index{X: x, I: i}
			if p.acceptOp(":") {
				if ix.Hi, err = p.expr(); err != nil {
					return nil, err
				}
				ix.Range = true
			}
			if err := p.expectOp("]"); err != nil {
				return nil, err
			}
			x = ix
		default:
			return x, nil
		}
	}
}

// primary := number | string | NULL | TRUE | FALSE | @attr | function ( args ) | name | ( expr ) | ( query ) | ( expr , expr … )
func (p *parser) primary() (Expr, error) {
	t := p.peek()
	switch t.kind {
	case tokNumber:
		p.next()
		v, ok := parseNumber(t.text)
		if !ok {
			p.at--
			return nil, p.fail("a number")
		}
		return &Literal{Value: v}, nil
	case tokString:
		p.next()
		return &Literal{Value: String(t.text)}, nil
	case tokAttr:
		p.next()
		return &Attr{X: &This{}, Name: t.text}, nil
	case tokIdent:
		switch strings.ToUpper(t.text) {
		case "NULL":
			p.next()
			return &Literal{Value: Null()}, nil
		case "TRUE", "FALSE":
			p.next()
			return &Literal{Value: Bool(strings.EqualFold(t.text, "true"))}, nil
		}
		if keywords[strings.ToUpper(t.text)] {
			return nil, p.fail("an expression")
		}
		p.next()
		if p.acceptOp("(") {
			return p.call(t)
		}
		return &Name{Name: t.text}, nil
	case tokOp:
		if t.text == "(" {
			p.next()
			return p.parenthesised()
		}
	}
	return nil, p.fail("an expression")
}

// call := function ( expr ), after the function's name fn and "(".
func (p *parser) call(fn token) (Expr, error) {
	if !knownFunction(fn.text) {
		p.at -= 2
		return nil, p.fail("a built-in function (" + functionList() + ")")
	}
	args, err := p.arguments()
	if err != nil {
		return nil, err
	}
	c := &Call{Name: strings.ToLower(fn.text), Args: args}
	if len(c.Args) != 1 {
		return nil, syntaxAt(p.q, fn.pos, "one argument to "+fn.text, fmt.Sprintf("%d", len(c.Args)))
	}
	return c, nil
}

// arguments := [ expr {, expr} ] ), after "(".
func (p *parser) arguments() ([]Expr, error) {
	var args []Expr
	if p.acceptOp(")") {
		return args, nil
	}
	for {
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		if !p.acceptOp(",") {
			break
		}
	}
	return args, p.expectOp(")")
}

// parenthesised := ( query ) | ( expr ) | ( expr , expr … ), after "(".
func (p *parser) parenthesised() (Expr, error) {
	if p.isKeyword("SELECT") {
		sub, err := p.query()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return &Subquery{Query: sub}, nil
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.isOp(",") {
		list := &List{Items: []Expr{x}}
		for p.acceptOp(",") {
			y, err := p.expr()
			if err != nil {
				return nil, err
			}
			list.Items = append(list.Items, y)
		}
		x = list
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return x, nil
}

// parseNumber reads an integer (decimal or 0x hex) or a decimal fraction,
// with Java's suffixes: L for a long, F or D for a floating-point number.
// A fraction too large for a double is infinite, as in Java.
func parseNumber(s string) (Value, bool) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		n, err := strconv.ParseUint(strings.TrimRight(s[2:], "lL"), 16, 64)
		return Int(int64(n)), err == nil
	}
	if strings.ContainsAny(s, "xXpP_") {
		return Null(), false
	}
	if body, ok := strings.CutSuffix(strings.ToUpper(s), "L"); ok {
		n, err := strconv.ParseInt(body, 10, 64)
		return Int(n), err == nil
	}
	body, fraction := strings.CutSuffix(strings.ToUpper(s), "D")
	if !fraction {
		body, fraction = strings.CutSuffix(body, "F")
	}
	if !fraction {
		if n, err := strconv.ParseInt(body, 10, 64); err == nil {
			return Int(n), true
		}
	}
	f, err := strconv.ParseFloat(body, 64)
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		err = nil
	}
	return Float(f), err == nil
}
