package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/report/html"
)

// The dominator tree page's bounds: how many objects may be open in place
// at once, and how many of what an open object dominates are shown
// beneath it (the rest are on its own page).
const (
	maxOpen  = 64
	openKids = 25
)

// treeQuery is the query of a dominator tree page: the object whose
// children it lists ("" for the top of the tree), the page of them, and
// the objects open in place.
type treeQuery struct {
	expand      string
	top, offset int
	open        []string
}

// href is the address of the page q asks, scrolled to the element of id
// fragment ("" for its top).
func (q treeQuery) href(fragment string) string {
	v := url.Values{}
	if q.expand != "" {
		v.Set("expand", q.expand)
	}
	if q.top != dominatorRows {
		v.Set("top", strconv.Itoa(q.top))
	}
	if q.offset > 0 {
		v.Set("offset", strconv.Itoa(q.offset))
	}
	if len(q.open) > 0 {
		v.Set("open", strings.Join(q.open, ","))
	}
	u := "/dominators"
	if enc := v.Encode(); enc != "" {
		u += "?" + enc
	}
	if fragment != "" {
		u += "#" + fragment
	}
	return u
}

// toggled is q with id opened, or closed when it is open.
func (q treeQuery) toggled(id string) treeQuery {
	if k := slices.Index(q.open, id); k >= 0 {
		q.open = slices.Delete(slices.Clone(q.open), k, k+1)
	} else {
		q.open = append(slices.Clone(q.open), id)
	}
	return q
}

// newPager places the page of the rows offset to offset+shown of a list
// of of rows, top a page; at gives the address of the page starting at an
// offset, with top rows. Lists of more than maxAll rows (the most a page
// may list) offer no page of all.
func newPager(of, offset, top, shown, maxAll int, at func(offset, top int) string) *html.Pager {
	p := &html.Pager{From: offset + 1, To: offset + shown, Of: of}
	if offset > 0 {
		p.Prev = at(max(offset-top, 0), top)
	}
	if offset+shown < of {
		p.Next = at(offset+shown, top)
	}
	if (p.Prev != "" || p.Next != "") && of <= maxAll {
		p.All = at(0, of)
	}
	return p
}

// treeQueryOf reads a dominator tree page's query: expand, top, offset
// and open (ids, comma-separated).
func (s *Server) treeQueryOf(r *http.Request) (treeQuery, error) {
	q := treeQuery{expand: r.URL.Query().Get("expand")}
	var err error
	if q.top, err = s.rowsParam(r, "top", dominatorRows); err != nil {
		return q, err
	}
	if q.offset, err = intParam(r, "offset", 0); err != nil {
		return q, err
	}
	if v := r.URL.Query().Get("open"); v != "" {
		q.open = strings.Split(v, ",")
	}
	if len(q.open) > maxOpen {
		return q, badRequest("open: %d objects, at most %d may be open at once", len(q.open), maxOpen)
	}
	return q, nil
}

func (s *Server) dominators(r *http.Request) (html.Page, error) {
	q, err := s.treeQueryOf(r)
	if err != nil {
		return nil, err
	}
	open := map[string]model.ObjectIndex{}
	for _, id := range q.open {
		if open[id], err = s.lookup(id); err != nil {
			return nil, err
		}
	}
	o := heap.DominatorOptions{Top: q.top, Offset: q.offset}
	var p html.DominatorsPage
	if q.expand == "" {
		p.Report, err = s.s.Dominators(o)
	} else {
		obj, lerr := s.lookup(q.expand)
		if lerr != nil {
			return nil, lerr
		}
		d, derr := s.s.DominatedBy(obj, o)
		p.Report, p.Parent, p.Chain, err = d.Report, &d.Object, d.Chain, derr
	}
	if err != nil {
		return nil, err
	}
	p.Site = s.site
	p.Pager = newPager(p.Report.Selected, q.offset, q.top, len(p.Report.Rows), s.limits.Rows, func(offset, top int) string {
		return treeQuery{expand: q.expand, top: top, offset: offset, open: q.open}.href("")
	})
	kids, err := s.openChildren(p.Report.Rows, open)
	if err != nil {
		return nil, err
	}
	p.Tree = flatten(q, p.Report.Rows, kids, 0, q.offset+1)
	return p, nil
}

// openChildren fetches, a level of the tree at a time, what each open
// object among rows and the rows opened beneath them dominates.
func (s *Server) openChildren(rows []heap.DominatorRow, open map[string]model.ObjectIndex) (map[string]heap.DominatorReport, error) {
	kids := map[string]heap.DominatorReport{}
	for level := rows; len(level) > 0; {
		var ids []string
		var objs []model.ObjectIndex
		for _, row := range level {
			if obj, ok := open[row.ObjectID]; ok && row.DominatedCount > 0 {
				if _, done := kids[row.ObjectID]; !done {
					ids, objs = append(ids, row.ObjectID), append(objs, obj)
				}
			}
		}
		if len(objs) == 0 {
			break
		}
		reports, err := s.s.DominatedByEach(objs, heap.DominatorOptions{Top: openKids})
		if err != nil {
			return nil, err
		}
		level = nil
		for k, id := range ids {
			kids[id] = reports[k]
			level = append(level, reports[k].Rows...)
		}
	}
	return kids, nil
}

// flatten lays out rows at depth, the first ranked rank (0: unranked),
// each open one followed by what it dominates (kids).
func flatten(q treeQuery, rows []heap.DominatorRow, kids map[string]heap.DominatorReport, depth, rank int) []html.TreeRow {
	var out []html.TreeRow
	for k := range rows {
		row := &rows[k]
		d, open := kids[row.ObjectID]
		t := html.TreeRow{Depth: depth, Row: row, Open: open, Toggle: q.toggled(row.ObjectID).href("n-" + row.ObjectID)}
		if rank > 0 {
			t.Rank = rank + k
		}
		out = append(out, t)
		if !open {
			continue
		}
		out = append(out, flatten(q, d.Rows, kids, depth+1, 0)...)
		if more := d.Selected - len(d.Rows); more > 0 {
			next := treeQuery{expand: row.ObjectID, top: dominatorRows, offset: len(d.Rows)}
			out = append(out, html.TreeRow{Depth: depth + 1, More: more, MoreHref: next.href("")})
		}
	}
	return out
}
