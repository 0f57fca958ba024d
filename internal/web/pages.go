package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/oql"
	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report/html"
)

// The ways the pages show an object: its first elements and referrers,
// and its path from a GC root.
var objectPage = heap.ShowOptions{Elements: 100, Referrers: true, MaxReferrers: 100, Path: true}

func (s *Server) overview(*http.Request) (html.Page, error) {
	in, err := s.s.Info()
	if err != nil {
		return nil, err
	}
	p := html.OverviewPage{Site: s.site, Info: in}
	if s.site.HasHeap {
		if p.Dominators, err = s.s.Totals(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (s *Server) histogram(r *http.Request) (html.Page, error) {
	o, err := histogramQuery(r, histogramRows)
	if err != nil {
		return nil, err
	}
	histo, err := s.s.Histogram(o)
	if err != nil {
		return nil, err
	}
	return html.HistogramPage{Site: s.site, Histogram: histo, Sort: o.Sort, Match: r.URL.Query().Get("match"), Top: o.Top}, nil
}

func (s *Server) object(r *http.Request) (html.Page, error) {
	obj, err := s.lookup(r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	shown, err := s.show(obj, objectPage)
	if err != nil {
		return nil, err
	}
	return html.ObjectPage{Site: s.site, Object: shown}, nil
}

func (s *Server) leakPage(r *http.Request) (html.Page, error) {
	l, err := s.leaksFor(r)
	if err != nil {
		return nil, err
	}
	return html.LeaksPage{Site: s.site, Leaks: l.Report, PathRetained: l.PathRetained}, nil
}

func (s *Server) threadPage(*http.Request) (html.Page, error) {
	rows, err := s.threads()
	if err != nil {
		return nil, err
	}
	return html.ThreadsPage{Site: s.site, Threads: rows}, nil
}

func (s *Server) deadlockPage(*http.Request) (html.Page, error) {
	r, notes, err := s.s.HeapDeadlocks()
	if err != nil {
		return nil, err
	}
	return html.DeadlocksPage{Site: s.site, Deadlocks: r, Notes: notes}, nil
}

func (s *Server) stringPage(r *http.Request) (html.Page, error) {
	str, err := s.stringsFor(r)
	if err != nil {
		return nil, err
	}
	return html.StringsPage{Site: s.site, Strings: str}, nil
}

func (s *Server) collectionPage(r *http.Request) (html.Page, error) {
	c, _, err := s.collectionsFor(r)
	if err != nil {
		return nil, err
	}
	return html.CollectionsPage{Site: s.site, Collections: c}, nil
}

func (s *Server) sitePage(*http.Request) (html.Page, error) {
	if !s.site.HasSites {
		return nil, &httpError{http.StatusNotFound, "the dump holds no allocation sites"}
	}
	r, err := s.s.Sites(profile.SiteOptions{By: "site", Sort: "live"})
	if err != nil {
		return nil, err
	}
	return html.SitesPage{Site: s.site, Sites: r}, nil
}

func (s *Server) cpuPage(*http.Request) (html.Page, error) {
	if !s.site.HasCPU {
		return nil, &httpError{http.StatusNotFound, "the dump holds no CPU samples or times"}
	}
	r, err := s.s.CPU(profile.CPUOptions{})
	if err != nil {
		return nil, err
	}
	return html.CPUPage{Site: s.site, CPU: r}, nil
}

func (s *Server) diffPage(r *http.Request) (html.Page, error) {
	d, top, err := s.diffFor(r)
	if err != nil {
		return nil, err
	}
	return html.DiffPage{Site: s.site, Diff: d, Top: top}, nil
}

// diffFor compares the base dump with this one, with the query's top
// (20 rows of each list unless it says otherwise, as the CLI).
func (s *Server) diffFor(r *http.Request) (heap.HeapDiff, int, error) {
	if s.base == nil {
		return heap.HeapDiff{}, 0, &httpError{http.StatusNotFound, "no base dump to compare with: start serve with --base OLD"}
	}
	top, err := intParam(r, "top", 20)
	if err != nil {
		return heap.HeapDiff{}, 0, err
	}
	d, err := session.Diff(s.base, s.s, true, heap.DiffOptions{Top: top})
	return d, top, err
}

// queryRows is how many rows the query page lists unless asked
// otherwise.
const queryRows = 100

// queryExamples are the queries the query page offers to start from.
var queryExamples = []html.QueryExample{
	{Query: "SELECT * FROM java.util.HashMap", What: "every HashMap"},
	{Query: "SELECT s, toString(s), s.@retainedHeapSize FROM java.lang.String s WHERE s.@retainedHeapSize > 1000", What: "the Strings that retain more than 1,000 bytes, with their text"},
	{Query: "SELECT l, l.size, l.@retainedHeapSize FROM java.util.ArrayList l WHERE l.size > 100", What: "the ArrayLists of more than 100 elements"},
	{Query: "SELECT a, a.@length, a.@usedHeapSize FROM byte[] a WHERE a.@length > 10000", What: "the byte arrays longer than 10,000"},
	{Query: "SELECT t, t.name FROM java.lang.Thread t", What: "the threads and their name objects"},
}

func (s *Server) queryPage(r *http.Request) (html.Page, error) {
	p := html.QueryPage{Site: s.site, Query: r.URL.Query().Get("q"), Examples: queryExamples}
	var err error
	if p.Limit, err = s.rowsParam(r, "limit", queryRows); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Query) == "" {
		return p, nil
	}
	var sums columnSums
	p.Result, err = s.countQuery(r, p.Query, p.Limit, &sums)
	if err != nil {
		a := answerOf(err)
		if a.status >= http.StatusInternalServerError || a.status == 499 {
			return nil, err
		}
		p.Error, p.Result = a.message, nil
		return statusPage{p, a.status}, nil
	}
	p.Total, p.Sums = sums.rows, sums.text()
	return p, nil
}

// countQuery answers an OQL query as runQuery does, keeping its first
// limit rows but counting and summing (sums) every row of the answer as
// it streams by.
func (s *Server) countQuery(r *http.Request, query string, limit int, sums *columnSums) (*oql.Result, error) {
	q, err := oql.Parse(query)
	if err != nil {
		return nil, badRequest("query: %v", err)
	}
	var kept [][]oql.Value
	keep := func(row []oql.Value) error {
		if len(kept) < limit {
			kept = append(kept, slices.Clone(row))
		}
		sums.add(row)
		return nil
	}
	res, err := s.s.Query(q, oql.Options{Context: r.Context(), Pool: s.queries, Row: keep})
	if err != nil {
		return nil, err
	}
	res.Rows = kept
	return res, nil
}

// columnSums counts the rows of an answer and sums each of its columns
// that holds whole numbers (nulls aside).
type columnSums struct {
	rows  int
	sum   []int64
	kinds []oql.Kind
}

// mixed marks a column that holds something other than whole numbers.
const mixed oql.Kind = -1

// add counts row and adds its values.
func (c *columnSums) add(row []oql.Value) {
	c.rows++
	for len(c.sum) < len(row) {
		c.sum, c.kinds = append(c.sum, 0), append(c.kinds, oql.KindNull)
	}
	for k, v := range row {
		switch {
		case v.Kind == oql.KindNull || c.kinds[k] == mixed:
		case v.Kind == oql.KindInt:
			c.sum[k], c.kinds[k] = c.sum[k]+v.Int, oql.KindInt
		default:
			c.kinds[k] = mixed
		}
	}
}

// text is each column's sum, "" for a column of other values; nil when no
// column holds whole numbers.
func (c *columnSums) text() []string {
	out := make([]string, len(c.sum))
	some := false
	for k, kind := range c.kinds {
		if kind == oql.KindInt {
			out[k], some = humanize.Comma(c.sum[k]), true
		}
	}
	if !some {
		return nil
	}
	return out
}

// runQuery parses and answers an OQL query, with at most limit rows
// (1 or more), within the request's deadline and the server's memory
// bound for a query.
func (s *Server) runQuery(r *http.Request, query string, limit int) (*oql.Result, error) {
	q, err := oql.Parse(query)
	if err != nil {
		return nil, badRequest("query: %v", err)
	}
	return s.s.Query(q, oql.Options{Limit: limit, Context: r.Context(), Pool: s.queries})
}
