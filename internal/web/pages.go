package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/oql"
	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/report/html"
)

// The ways the pages show an object: its first elements and referrers,
// and its path from a GC root.
var objectPage = heap.ShowOptions{Elements: 100, Referrers: true, MaxReferrers: 100, Path: true}

func (s *Server) overview(*http.Request) (html.Page, error) {
	d := s.d
	p := html.OverviewPage{Site: s.site, Info: s.summary()}
	if d.Retention != nil {
		p.Dominators = heap.TreeTotals(d.Retention)
	}
	return p, nil
}

func (s *Server) histogram(r *http.Request) (html.Page, error) {
	o, err := histogramQuery(r, histogramRows)
	if err != nil {
		return nil, err
	}
	o.Size, o.Heaps, o.Native = s.d.Size, s.d.Heaps, s.d.Native
	histo, err := heap.Histogram(s.d.Heap, o)
	if err != nil {
		return nil, err
	}
	return html.HistogramPage{Site: s.site, Histogram: histo, Sort: o.Sort, Match: r.URL.Query().Get("match"), Top: o.Top}, nil
}

func (s *Server) dominators(r *http.Request) (html.Page, error) {
	d := s.d
	top, err := intParam(r, "top", dominatorRows)
	if err != nil {
		return nil, err
	}
	o := heap.DominatorOptions{Top: top, Children: dominatedKids, Size: d.Size, Heaps: d.Heaps, Native: d.Native}
	p := html.DominatorsPage{Site: s.site, Top: top}
	id := r.URL.Query().Get("expand")
	if id == "" {
		p.Report = heap.Dominators(d.Heap, d.Retention, o)
		return p, nil
	}
	obj, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	if !d.Retention.Reachable(obj) {
		return nil, &httpError{http.StatusNotFound, "object " + id + " is unreachable: it is in no dominator tree"}
	}
	p.Report = heap.DominatedBy(d.Heap, d.Retention, obj, o)
	parent := heap.DominatorRowOf(d.Heap, d.Retention, obj, o)
	p.Parent = &parent
	for up := d.Retention.ImmediateDominator(obj); up != model.NoObject; up = d.Retention.ImmediateDominator(up) {
		p.Chain = append(p.Chain, heap.DominatedObject{ObjectID: heap.ObjectID(d.Heap, up), Class: heap.ClassName(d.Heap, up), RetainedBytes: d.Retention.RetainedBytes(up)})
	}
	slices.Reverse(p.Chain)
	return p, nil
}

func (s *Server) object(r *http.Request) (html.Page, error) {
	obj, err := s.lookup(r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	o := objectPage
	o.Heaps = s.d.Heaps
	o.Size = s.d.Size
	shown, err := s.show(obj, o)
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
	return html.LeaksPage{Site: s.site, Leaks: l.report, PathRetained: l.pathRetained}, nil
}

func (s *Server) threadPage(*http.Request) (html.Page, error) {
	rows, err := s.threads()
	if err != nil {
		return nil, err
	}
	return html.ThreadsPage{Site: s.site, Threads: rows}, nil
}

func (s *Server) deadlockPage(*http.Request) (html.Page, error) {
	r, notes, err := s.deadlocks()
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
	r, err := s.sites(profile.SiteOptions{By: "site", Sort: "live"})
	if err != nil {
		return nil, err
	}
	return html.SitesPage{Site: s.site, Sites: r}, nil
}

func (s *Server) cpuPage(*http.Request) (html.Page, error) {
	if !s.site.HasCPU {
		return nil, &httpError{http.StatusNotFound, "the dump holds no CPU samples or times"}
	}
	r, err := profile.CPU(s.d.Profile, profile.CPUOptions{})
	if err != nil {
		return nil, err
	}
	return html.CPUPage{Site: s.site, CPU: r}, nil
}

// sites lists the allocation sites as o asks.
func (s *Server) sites(o profile.SiteOptions) (profile.SitesReport, error) {
	o.Size = s.d.Size
	o.Retention = s.d.Retention
	return profile.Sites(s.d.Profile, s.d.Heap, o)
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
	sides, err := s.base()
	if err != nil {
		return heap.HeapDiff{}, 0, err
	}
	return heap.Diff(sides.Histos[0], sides.Histos[1], sides.Tops[0], sides.Tops[1], heap.DiffOptions{Top: top}), top, nil
}

// queryRows is how many rows the query page lists unless asked otherwise.
const queryRows = 100

func (s *Server) queryPage(r *http.Request) (html.Page, error) {
	p := html.QueryPage{Site: s.site, Query: r.URL.Query().Get("q")}
	var err error
	if p.Limit, err = intParam(r, "limit", queryRows); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Query) == "" {
		return p, nil
	}
	if p.Result, err = s.runQuery(p.Query, p.Limit); err != nil {
		p.Error = err.Error()
	}
	return p, nil
}

// runQuery parses and answers an OQL query, with at most limit rows (0:
// all).
func (s *Server) runQuery(query string, limit int) (*oql.Result, error) {
	q, err := oql.Parse(query)
	if err != nil {
		return nil, badRequest("query: %v", err)
	}
	return oql.Run(s.d.Heap, s.d.Retention, q, oql.Options{Size: s.d.Size, Limit: limit, Heaps: s.d.Heaps})
}
