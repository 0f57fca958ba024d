// Package web serves one heap dump as a local web application: the pages
// of `hprofctl serve` and a JSON API under /api/.
//
// The handlers orchestrate: they parse the query, call the analysis
// package, and hand the result to report/html (pages) or to package
// report's JSON writers (the API, so that it answers exactly what the
// command line's -o json does). The heap and its dominator tree are
// loaded once, by the caller; the slow analyses that take no parameter
// (duplicate strings, collections, leak suspects, threads, deadlocks) are
// computed on first use and kept.
//
// The server is read-only and shows untrusted data: it answers GET and
// HEAD alone, parses ids strictly, serves nothing from the file system,
// and sends a Content-Security-Policy that lets pages run no script and
// load nothing but the embedded style sheet.
package web

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/report"
	"github.com/hprofctl/hprofctl/report/html"
)

// Dump is the dump a server shows, loaded by the caller, and the reads of
// its file that the command line makes for its commands, so that a page
// and a command answer alike.
type Dump struct {
	// Path is the dump's file, read again for values and names; Name is
	// how commands name it in their reports.
	Path, Name string
	Generator  string
	Heap       *model.Heap
	Retention  *graph.Retention
	// Strong is the strong shortest path tree kept in the index; nil
	// computes it on first use.
	Strong *graph.PathTree
	Size   model.SizeMode
	// Binary tells a binary HPROF file, whose lock state can be read.
	Binary bool
	// ShowData reads what heap.Show needs of objs beyond the heap.
	ShowData func(objs []model.ObjectIndex, strong *graph.PathTree, o heap.ShowOptions) (heap.ShowData, error)
	// PathLabels reads the field names and thread names along paths.
	PathLabels func(p graph.RetainerPaths) (map[model.ObjectIndex][]model.LabeledRef, map[model.ObjectIndex]string, error)
	// Deadlocks finds the deadlocks of the heap from its lock state hl
	// (nil when it has none), with the notes on what it cannot tell.
	Deadlocks func(hl *threads.HeapLocks) (*threads.DeadlockReport, []string)
	// BaseName names an earlier dump of the same application to compare
	// with (serve --base), "" for none; Base gives both dumps' sides of
	// the comparison, the base's first.
	BaseName string
	Base     func() (DiffSides, error)
	// Heaps are the Android heaps whose objects the pages count and list
	// (serve --heap), and Suspected those whose objects the leaks page
	// suspects.
	Heaps, Suspected model.HeapSelection
	// Native are the native sizes an Android dump shows registered to
	// its objects; nil when it shows none.
	Native *heap.NativeSizes
	// Profile is the file's profiling data (allocation sites, CPU) when
	// it is not the heap's (an hprof agent ASCII file without a heap
	// dump); nil takes Heap.Profile().
	Profile *model.Profile
}

// DiffSides is what heap.Diff compares of two dumps, the older first:
// their histograms and the classes at the top of their dominator trees.
type DiffSides struct {
	Histos [2]heap.Histo
	Tops   [2]*heap.TopConsumerReport
}

// Server answers the HTTP requests on one dump.
type Server struct {
	d    Dump
	site html.Site
	mux  *http.ServeMux

	strong      func() *graph.PathTree
	heapLocks   func() (*threads.HeapLocks, error)
	threads     func() ([]threads.ThreadRow, error)
	leaks       *memo[leakQuery, leakResult]
	strs        *memo[heap.StringOptions, heap.DuplicateStringReport]
	collections *memo[heap.CollectionOptions, heap.CollectionReport]
	base        func() (DiffSides, error)
	// loopbackOnly refuses requests whose Host is not this machine's
	// loopback name (RequireLoopbackHost).
	loopbackOnly bool
}

// RequireLoopbackHost makes s answer only requests whose Host header names
// the loopback interface (localhost, 127.0.0.1, ::1, with any port). A
// server that listens on loopback alone needs it: otherwise a web page the
// user visits could rename its own host to 127.0.0.1 (DNS rebinding) and
// read the dump through the user's browser.
func (s *Server) RequireLoopbackHost() { s.loopbackOnly = true }

// IsLoopback reports whether host (a name or an address, without port)
// names this machine's loopback interface.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// loopbackHost reports whether a Host header names the loopback
// interface.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return IsLoopback(host)
}

// leakQuery is what leak suspects are asked for: a threshold share of the
// heap and how many classes to list beneath each.
type leakQuery struct {
	threshold float64
	classes   int
}

// leakResult is the leak suspects described, with what each step of their
// paths retains.
type leakResult struct {
	report       heap.LeakReport
	pathRetained [][]int64
}

// Defaults of the pages and the API; the ones the commands also have are
// the commands' flags' defaults.
const (
	histogramRows = 500
	dominatorRows = 50
	dominatedKids = 10
	leakThreshold = 0.10
	leakClasses   = 5
)

// New returns the server of d.
func New(d Dump) *Server {
	if d.Profile == nil {
		d.Profile = d.Heap.Profile()
	}
	p := d.Profile
	s := &Server{d: d, site: html.Site{File: d.Heap.Source.File, Generator: d.Generator,
		HasSites: p != nil && p.Sites != nil, HasCPU: p != nil && p.CPU != nil}}
	s.site.HasHeap = d.Retention != nil
	if d.Base != nil {
		s.site.Base = d.BaseName
		s.base = sync.OnceValues(d.Base)
	}
	s.strong = sync.OnceValue(func() *graph.PathTree {
		if d.Strong != nil {
			return d.Strong
		}
		return graph.StrongPaths(d.Heap)
	})
	s.heapLocks = sync.OnceValues(func() (*threads.HeapLocks, error) {
		if !d.Binary || !d.Heap.HasObjects {
			return nil, nil
		}
		return threads.ReadHeapLocks(d.Heap)
	})
	s.threads = sync.OnceValues(s.findThreads)
	s.leaks = newMemo(s.findLeaks)
	s.strs = newMemo(func(o heap.StringOptions) (heap.DuplicateStringReport, error) {
		if err := needValues(d.Heap); err != nil {
			return heap.DuplicateStringReport{}, err
		}
		return heap.DuplicateStrings(d.Heap, o)
	})
	s.collections = newMemo(func(o heap.CollectionOptions) (heap.CollectionReport, error) {
		if err := needValues(d.Heap); err != nil {
			return heap.CollectionReport{}, err
		}
		return heap.Collections(d.Heap, o)
	})
	s.routes()
	return s
}

// Warm computes what the pages show by default and keeps it: the leak
// suspects, threads, deadlocks, duplicate strings and collections, which
// take seconds on a big dump. A page asked meanwhile waits for its part.
func (s *Server) Warm() {
	if !s.site.HasHeap {
		return
	}
	s.leaks.get(leakQuery{leakThreshold, leakClasses})
	s.threads()
	s.strs.get(defaultStrings(&s.d))
	s.collections.get(defaultCollections(&s.d))
}

// defaultStrings and defaultCollections are the options of the strings
// and collections commands' defaults, which their pages and API share.
func defaultStrings(d *Dump) heap.StringOptions {
	return heap.StringOptions{MinCount: 2, Top: 20, Size: d.Size, Heaps: d.Heaps}
}

func defaultCollections(d *Dump) heap.CollectionOptions {
	return heap.CollectionOptions{Top: 20, Size: d.Size, Heaps: d.Heaps}
}

// needValues refuses a dump that records no primitive values.
func needValues(h *model.Heap) error {
	if h.Source.Lines > 0 {
		return errors.New("the dump records no primitive values (references only): String values and collection sizes cannot be read")
	}
	return nil
}

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("/{$}", s.page(s.overview))
	m.HandleFunc("/histogram", s.needHeap(s.page(s.histogram)))
	m.HandleFunc("/dominators", s.needHeap(s.page(s.dominators)))
	m.HandleFunc("/object/{id}", s.needHeap(s.page(s.object)))
	m.HandleFunc("/leaks", s.needHeap(s.page(s.leakPage)))
	m.HandleFunc("/threads", s.needHeap(s.page(s.threadPage)))
	m.HandleFunc("/deadlocks", s.needHeap(s.page(s.deadlockPage)))
	m.HandleFunc("/strings", s.needHeap(s.page(s.stringPage)))
	m.HandleFunc("/collections", s.needHeap(s.page(s.collectionPage)))
	m.HandleFunc("/sites", s.page(s.sitePage))
	m.HandleFunc("/cpu", s.page(s.cpuPage))
	m.HandleFunc("/diff", s.needHeap(s.page(s.diffPage)))
	m.HandleFunc("/query", s.needHeap(s.page(s.queryPage)))
	m.HandleFunc("/static/style.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		io.WriteString(w, html.ServeStyle)
	})
	// Browsers ask for an icon by themselves; there is none.
	m.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	s.apiRoutes(m)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, &httpError{http.StatusNotFound, "no such page: " + r.URL.Path})
	})
	s.mux = m
}

// policy forbids the pages every script, and every load but their own
// style sheet, so that markup from a dump could run nothing even if a page
// ever read it as markup.
const policy = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// ServeHTTP answers r: GET and HEAD alone, with the security headers on
// every answer.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", policy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	if s.loopbackOnly && !loopbackHost(r.Host) {
		http.Error(w, "this server answers only requests to localhost", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// needHeap answers a page or API question that needs the heap's objects
// with 404 when the file holds no heap dump (an hprof agent file with
// profiling data only: its sites and CPU pages are served).
func (s *Server) needHeap(h http.HandlerFunc) http.HandlerFunc {
	if s.site.HasHeap {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		err := &httpError{http.StatusNotFound, s.site.File + " holds no heap dump: only its profiling pages (allocation sites, CPU) are served"}
		if strings.HasPrefix(r.URL.Path, "/api/") {
			writeAPIError(w, err)
			return
		}
		s.fail(w, err)
	}
}

// httpError is an answer other than 200, with what to tell the reader.
type httpError struct {
	status  int
	message string
}

func (e *httpError) Error() string { return e.message }

// badRequest is the error of a query parameter that does not parse.
func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// page adapts a page handler: it renders into a buffer first, so that an
// error gives an error page and not half a page.
func (s *Server) page(build func(r *http.Request) (html.Page, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := build(r)
		if err != nil {
			s.fail(w, err)
			return
		}
		var buf bytes.Buffer
		if err := html.WritePage(&buf, p); err != nil {
			s.fail(w, err)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(buf.Bytes())
	}
}

// fail answers an error page: the status of an httpError, 500 otherwise.
func (s *Server) fail(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	var he *httpError
	if errors.As(err, &he) {
		status = he.status
	}
	var buf bytes.Buffer
	if html.WritePage(&buf, html.ErrorPage{Site: s.site, Status: status, Message: err.Error()}) != nil {
		http.Error(w, err.Error(), status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// objectID matches an object id as the pages write it: 0x and hex.
var objectID = regexp.MustCompile(`^0x[0-9a-f]{1,16}$`)

// lookup finds the object of an id written as the pages write it.
func (s *Server) lookup(id string) (model.ObjectIndex, error) {
	if !objectID.MatchString(id) {
		return 0, &httpError{http.StatusNotFound, fmt.Sprintf("%q is no object id: want 0x and hex digits", id)}
	}
	n, err := strconv.ParseUint(id[2:], 16, 64)
	if err != nil {
		return 0, &httpError{http.StatusNotFound, fmt.Sprintf("object id %q: %v", id, err)}
	}
	i, ok := s.d.Heap.Lookup(n)
	if !ok {
		return 0, &httpError{http.StatusNotFound, "object " + id + ": no such object in the dump"}
	}
	return i, nil
}

// intParam parses the query parameter name as a count of 0 or more, def
// when it is absent.
func intParam(r *http.Request, name string, def int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, badRequest("%s=%q: want a whole number, 0 or more", name, v)
	}
	return n, nil
}

// boolParam parses the query parameter name as a flag: absent, empty, 0
// or false is false, 1 or true is true.
func boolParam(r *http.Request, name string) (bool, error) {
	switch v := r.URL.Query().Get(name); strings.ToLower(v) {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	default:
		return false, badRequest("%s=%q: want 1 or 0", name, v)
	}
}

// regexpParam compiles the query parameter name; nil when absent.
func regexpParam(r *http.Request, name string) (*regexp.Regexp, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return nil, nil
	}
	re, err := regexp.Compile(v)
	if err != nil {
		return nil, badRequest("%s: %v", name, err)
	}
	return re, nil
}

// histogramQuery reads the histogram's query: sort, match and top.
// summary is the overview of the dump, with its native sizes, as info
// gives it.
func (s *Server) summary() heap.Info {
	in := heap.Summarize(s.d.Heap, s.d.Size)
	in.AddNative(s.d.Heap, s.d.Native)
	return in
}

func histogramQuery(r *http.Request, defTop int) (heap.HistoOptions, error) {
	var o heap.HistoOptions
	o.Sort = r.URL.Query().Get("sort")
	switch o.Sort {
	case "":
		o.Sort = "bytes"
	case "bytes", "count", "name":
	default:
		return o, badRequest("sort=%q: want bytes, count or name", o.Sort)
	}
	var err error
	if o.Top, err = intParam(r, "top", defTop); err != nil {
		return o, err
	}
	o.Match, err = regexpParam(r, "match")
	return o, err
}

// findLeaks finds and describes the leak suspects, as leaks and report do.
func (s *Server) findLeaks(q leakQuery) (leakResult, error) {
	d := s.d
	l := heap.FindLeaks(d.Heap, d.Retention, heap.LeakOptions{Threshold: q.threshold, Classes: q.classes, Strong: s.strong(), Heaps: d.Suspected})
	labels, names, err := d.PathLabels(l.Paths())
	if err != nil {
		return leakResult{}, err
	}
	l.Describe(d.Heap, labels, names)
	return leakResult{report: l, pathRetained: l.PathRetainedBytes(d.Retention)}, nil
}

// findThreads lists the threads with their stacks and what each retains,
// as threads --retained does.
func (s *Server) findThreads() ([]threads.ThreadRow, error) {
	hl, err := s.heapLocks()
	if err != nil {
		return nil, err
	}
	rows := threads.ThreadsFromHeap(s.d.Heap, hl, 0)
	if err := threads.AddThreadRetention(s.d.Heap, s.d.Retention, rows); err != nil {
		return nil, err
	}
	return rows, nil
}

// deadlocks finds the dump's deadlocks.
func (s *Server) deadlocks() (*threads.DeadlockReport, []string, error) {
	hl, err := s.heapLocks()
	if err != nil {
		return nil, nil, err
	}
	r, notes := s.d.Deadlocks(hl)
	return r, notes, nil
}

// show describes one object, with as many referrers and elements as o
// asks, and its path from a GC root.
func (s *Server) show(obj model.ObjectIndex, o heap.ShowOptions) (heap.ShowObject, error) {
	objs := []model.ObjectIndex{obj}
	data, err := s.d.ShowData(objs, s.strong(), o)
	if err != nil {
		return heap.ShowObject{}, err
	}
	return heap.Show(s.d.Heap, s.d.Retention, objs, data, o)[0], nil
}

// writeJSON answers with what a report writer writes in JSON.
func writeJSON(w http.ResponseWriter, write func(io.Writer, report.Options) error) error {
	var buf bytes.Buffer
	if err := write(&buf, report.Options{Format: report.JSON}); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err := w.Write(buf.Bytes())
	return err
}
