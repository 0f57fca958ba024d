package web

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
)

// apiEndpoints are the API's questions, each answered in the JSON of the
// command named, with its flags as query parameters.
var apiEndpoints = map[string]string{
	"/api/info":        "info",
	"/api/histo":       "histo: sort, match, top",
	"/api/dominators":  "dominators: top, class, children, by-class",
	"/api/show/{id}":   "show: elements, referrers, max-referrers, path",
	"/api/leaks":       "leaks: threshold, classes",
	"/api/threads":     "threads --retained",
	"/api/deadlocks":   "deadlocks",
	"/api/strings":     "strings: min-count, top",
	"/api/collections": "collections: objects, top",
	"/api/sites":       "sites: by, sort, depth, top",
	"/api/cpu":         "cpu: by, depth, top",
	"/api/diff":        "diff BASE THIS (serve --base): top",
	"/api/query":       "query: q (the OQL query), limit",
}

func (s *Server) apiRoutes(m *http.ServeMux) {
	m.HandleFunc("/api/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(apiEndpoints)
	})
	m.HandleFunc("/api/info", s.api(s.apiInfo))
	m.HandleFunc("/api/histo", s.needHeap(s.api(s.apiHisto)))
	m.HandleFunc("/api/dominators", s.needHeap(s.api(s.apiDominators)))
	m.HandleFunc("/api/show/{id}", s.needHeap(s.api(s.apiShow)))
	m.HandleFunc("/api/leaks", s.needHeap(s.api(s.apiLeaks)))
	m.HandleFunc("/api/threads", s.needHeap(s.api(s.apiThreads)))
	m.HandleFunc("/api/deadlocks", s.needHeap(s.api(s.apiDeadlocks)))
	m.HandleFunc("/api/strings", s.needHeap(s.api(s.apiStrings)))
	m.HandleFunc("/api/collections", s.needHeap(s.api(s.apiCollections)))
	m.HandleFunc("/api/sites", s.api(s.apiSites))
	m.HandleFunc("/api/cpu", s.api(s.apiCPU))
	m.HandleFunc("/api/diff", s.needHeap(s.api(s.apiDiff)))
	m.HandleFunc("/api/query", s.needHeap(s.api(s.apiQuery)))
}

// writer is a report writer with its data bound: what an API question
// answers.
type writer func(io.Writer, report.Options) error

// api adapts an API handler: the answer in JSON, or the error as a JSON
// object {"error": …} with its status.
func (s *Server) api(answer func(r *http.Request) (writer, error)) http.HandlerFunc {
	return s.bounded(func(w http.ResponseWriter, r *http.Request) {
		write, err := answer(r)
		if err != nil {
			writeAPIError(w, err)
			return
		}
		writeJSON(w, write)
	})
}

// writeAPIError answers with err as a JSON object {"error": …}, with its
// status (answerOf).
func writeAPIError(w http.ResponseWriter, err error) {
	a := answerOf(err)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	json.NewEncoder(w).Encode(map[string]string{"error": a.message})
}

func (s *Server) apiInfo(*http.Request) (writer, error) {
	in, err := s.s.Info()
	return func(w io.Writer, o report.Options) error { return report.Info(w, in, o) }, err
}

func (s *Server) apiHisto(r *http.Request) (writer, error) {
	ho, err := histogramQuery(r, 0)
	if err != nil {
		return nil, err
	}
	h, err := s.s.Histogram(ho)
	return func(w io.Writer, o report.Options) error { return report.Histogram(w, h, o) }, err
}

func (s *Server) apiDominators(r *http.Request) (writer, error) {
	var do heap.DominatorOptions
	var err error
	if do.Top, err = s.rowsParam(r, "top", 20); err != nil {
		return nil, err
	}
	if do.Children, err = intParam(r, "children", 10); err != nil {
		return nil, err
	}
	if do.Children > s.limits.Rows {
		return nil, badRequest("children=%d: the server lists at most %d", do.Children, s.limits.Rows)
	}
	if do.ByClass, err = boolParam(r, "by-class"); err != nil {
		return nil, err
	}
	if do.Class, err = regexpParam(r, "class"); err != nil {
		return nil, err
	}
	d, err := s.s.Dominators(do)
	return func(w io.Writer, o report.Options) error { return report.Dominators(w, d, o) }, err
}

func (s *Server) apiShow(r *http.Request) (writer, error) {
	obj, err := s.lookup(r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	var so heap.ShowOptions
	if so.Elements, err = intParam(r, "elements", 10); err != nil {
		return nil, err
	}
	if so.Elements > s.limits.Rows {
		return nil, badRequest("elements=%d: the server lists at most %d", so.Elements, s.limits.Rows)
	}
	if so.MaxReferrers, err = s.rowsParam(r, "max-referrers", 100); err != nil {
		return nil, err
	}
	if so.Referrers, err = boolParam(r, "referrers"); err != nil {
		return nil, err
	}
	if so.Path, err = boolParam(r, "path"); err != nil {
		return nil, err
	}
	shown, err := s.show(obj, so)
	return func(w io.Writer, o report.Options) error {
		return report.Show(w, []heap.ShowObject{shown}, o)
	}, err
}

func (s *Server) apiLeaks(r *http.Request) (writer, error) {
	l, err := s.leaksFor(r)
	return func(w io.Writer, o report.Options) error { return report.Leaks(w, l.Report, o) }, err
}

// leaksFor finds the leak suspects as the query asks: threshold (a
// percentage) and classes, as leaks's flags.
func (s *Server) leaksFor(r *http.Request) (session.Leaks, error) {
	q := defaultLeaks
	if v := r.URL.Query().Get("threshold"); v != "" {
		var err error
		if q.Threshold, err = session.ParseThreshold(v); err != nil {
			return session.Leaks{}, err
		}
	}
	var err error
	if q.Classes, err = intParam(r, "classes", leakClasses); err != nil {
		return session.Leaks{}, err
	}
	return s.leaks.get(r.Context(), q)
}

func (s *Server) apiThreads(*http.Request) (writer, error) {
	rows, err := s.threads()
	return func(w io.Writer, o report.Options) error { return report.Threads(w, rows, o) }, err
}

func (s *Server) apiDeadlocks(*http.Request) (writer, error) {
	d, _, err := s.s.HeapDeadlocks()
	var reports []threads.DeadlockReport
	if d != nil {
		reports = append(reports, *d)
	}
	return func(w io.Writer, o report.Options) error { return report.Deadlocks(w, reports, o) }, err
}

func (s *Server) apiStrings(r *http.Request) (writer, error) {
	d, err := s.stringsFor(r)
	return func(w io.Writer, o report.Options) error { return report.DuplicateStrings(w, d, o) }, err
}

// stringsFor finds the duplicate strings as the query asks: min-count
// and top, as strings's flags.
func (s *Server) stringsFor(r *http.Request) (heap.DuplicateStringReport, error) {
	so := defaultStrings
	var err error
	if so.MinCount, err = intParam(r, "min-count", so.MinCount); err != nil {
		return heap.DuplicateStringReport{}, err
	}
	if so.Top, err = s.rowsParam(r, "top", so.Top); err != nil {
		return heap.DuplicateStringReport{}, err
	}
	return s.strs.get(r.Context(), so)
}

func (s *Server) apiCollections(r *http.Request) (writer, error) {
	c, objects, err := s.collectionsFor(r)
	return func(w io.Writer, o report.Options) error { return report.Collections(w, c, objects, o) }, err
}

// collectionsFor finds the wasteful collections as the query asks:
// objects and top, as collections's flags.
func (s *Server) collectionsFor(r *http.Request) (heap.CollectionReport, bool, error) {
	co := defaultCollections
	var err error
	if co.Objects, err = boolParam(r, "objects"); err != nil {
		return heap.CollectionReport{}, false, err
	}
	if co.Top, err = s.rowsParam(r, "top", co.Top); err != nil {
		return heap.CollectionReport{}, false, err
	}
	c, err := s.collections.get(r.Context(), co)
	return c, co.Objects, err
}

func (s *Server) apiSites(r *http.Request) (writer, error) {
	so := profile.SiteOptions{By: r.URL.Query().Get("by"), Sort: r.URL.Query().Get("sort")}
	if so.By == "" {
		so.By = "site"
	}
	if so.Sort == "" {
		so.Sort = "live"
	}
	var err error
	if so.Depth, err = intParam(r, "depth", 0); err != nil {
		return nil, err
	}
	if so.Top, err = intParam(r, "top", 0); err != nil {
		return nil, err
	}
	rep, err := s.s.Sites(so)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	return func(w io.Writer, o report.Options) error { return report.Sites(w, rep, o) }, nil
}

func (s *Server) apiCPU(r *http.Request) (writer, error) {
	by := r.URL.Query().Get("by")
	if err := session.CheckCPUBy(by); err != nil {
		return nil, err
	}
	var co profile.CPUOptions
	var err error
	if co.Depth, err = intParam(r, "depth", 0); err != nil {
		return nil, err
	}
	if co.Top, err = intParam(r, "top", 0); err != nil {
		return nil, err
	}
	rep, err := s.s.CPU(co)
	if err != nil {
		return nil, &httpError{http.StatusNotFound, err.Error()}
	}
	if by == "method" {
		return func(w io.Writer, o report.Options) error { return report.CPUMethods(w, rep, o) }, nil
	}
	return func(w io.Writer, o report.Options) error { return report.CPU(w, rep, o) }, nil
}

func (s *Server) apiDiff(r *http.Request) (writer, error) {
	d, _, err := s.diffFor(r)
	return func(w io.Writer, o report.Options) error { return report.Diff(w, d, o) }, err
}

func (s *Server) apiQuery(r *http.Request) (writer, error) {
	limit, err := s.rowsParam(r, "limit", s.limits.Rows)
	if err != nil {
		return nil, err
	}
	res, err := s.runQuery(r, r.URL.Query().Get("q"), limit)
	return func(w io.Writer, o report.Options) error { return report.Query(w, res, o) }, err
}
