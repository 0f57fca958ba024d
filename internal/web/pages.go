package web

import (
	"net/http"
	"strings"

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

func (s *Server) dominators(r *http.Request) (html.Page, error) {
	top, err := s.rowsParam(r, "top", dominatorRows)
	if err != nil {
		return nil, err
	}
	o := heap.DominatorOptions{Top: top, Children: dominatedKids}
	p := html.DominatorsPage{Site: s.site, Top: top}
	id := r.URL.Query().Get("expand")
	if id == "" {
		p.Report, err = s.s.Dominators(o)
		return p, err
	}
	obj, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	d, err := s.s.DominatedBy(obj, o)
	if err != nil {
		return nil, err
	}
	p.Report, p.Parent, p.Chain = d.Report, &d.Object, d.Chain
	return p, nil
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

// queryRows is how many rows the query page lists unless asked otherwise.
const queryRows = 100

func (s *Server) queryPage(r *http.Request) (html.Page, error) {
	p := html.QueryPage{Site: s.site, Query: r.URL.Query().Get("q")}
	var err error
	if p.Limit, err = s.rowsParam(r, "limit", queryRows); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Query) == "" {
		return p, nil
	}
	if p.Result, err = s.runQuery(r, p.Query, p.Limit); err != nil {
		a := answerOf(err)
		if a.status >= http.StatusInternalServerError || a.status == 499 {
			return nil, err
		}
		p.Error = a.message
		return statusPage{p, a.status}, nil
	}
	return p, nil
}

// runQuery parses and answers an OQL query, with at most limit rows
// (1 or more), within the request's deadline and the server's memory
// bound for a query.
func (s *Server) runQuery(r *http.Request, query string, limit int) (*oql.Result, error) {
	q, err := oql.Parse(query)
	if err != nil {
		return nil, badRequest("query: %v", err)
	}
	return s.s.Query(q, oql.Options{Limit: limit, Context: r.Context(), MaxBytes: s.limits.QueryBytes})
}
