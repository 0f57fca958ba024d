// Package web serves one heap dump as a local web application: the pages
// of `hprofctl serve` and a JSON API under /api/.
//
// The handlers parse the query, ask the dump's session (internal/session)
// the question its command asks, and hand the answer to report/html
// (pages) or to package report's JSON writers (the API, so that it
// answers exactly what the command line's -o json does). The session
// reads the heap and its dominator tree once and checks the options as
// for the command line; the slow answers (leak suspects, threads,
// duplicate strings, collections) are kept for the questions asked most.
//
// The server is read-only and shows untrusted data: it answers GET and
// HEAD alone, parses ids strictly, serves nothing from the file system,
// and sends a Content-Security-Policy that lets pages run no script and
// load nothing but the embedded style sheet.
package web

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/oql"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/report"
	"github.com/hprofctl/hprofctl/report/html"
)

// Options are what a server shows beside its dump.
type Options struct {
	// Generator names the program in the pages, as "hprofctl VERSION".
	Generator string
	// Base is an earlier dump of the same application for /diff to
	// compare with (serve --base); nil for none.
	Base *session.Session
	// Limits bound each request; zero fields take DefaultLimits.
	Limits Limits
}

// Server answers the HTTP requests on one dump.
type Server struct {
	s    *session.Session
	base *session.Session
	site html.Site
	mux  *http.ServeMux
	// limits bound each request; turns holds a token per request
	// computing now (at most limits.Heavy); cache is the bytes the memos
	// may keep.
	limits Limits
	turns  chan struct{}
	cache  *cacheBudget
	// queries is the memory the queries computing now share
	// (limits.QueryBytes).
	queries *oql.Pool
	// opened is the Go runtime's memory once the server was ready
	// (MemoryLimit).
	opened int64

	leaks       *memo[session.LeakOptions, session.Leaks]
	threads     func() ([]threads.ThreadRow, error)
	strs        *memo[heap.StringOptions, heap.DuplicateStringReport]
	collections *memo[heap.CollectionOptions, heap.CollectionReport]
	// loopbackOnly refuses requests whose Host is not this machine's
	// loopback name (RequireLoopbackHost).
	loopbackOnly bool
	// busy counts the requests being answered; the last one to end
	// releases the sessions' memory (session.Session.Release).
	busy atomic.Int64
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

// LoopbackHost reports whether a Host header (host or host:port) names
// the loopback interface.
func LoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return IsLoopback(host)
}

// Defaults of the pages and the API; the ones the commands also have are
// the commands' flags' defaults.
const (
	histogramRows = 500
	dominatorRows = 50
	leakThreshold = 0.10
	leakClasses   = 5
)

// New returns the server of the dump the session s opened, reading its
// heap and dominator tree first. A file with profiling data only is
// served with its overview and profiling pages.
func New(s *session.Session, o Options) (*Server, error) {
	h, err := s.Heap()
	if err != nil {
		return nil, err
	}
	// The file as read now is the one every answer checks against.
	if err := s.Unchanged(); err != nil {
		return nil, err
	}
	limits := o.Limits.withDefaults()
	srv := &Server{s: s, base: o.Base, site: html.Site{File: h.Source.File, Generator: o.Generator},
		limits: limits, turns: make(chan struct{}, limits.Heavy), cache: &cacheBudget{left: limits.CacheBytes},
		queries: oql.NewPool(limits.QueryBytes)}
	if srv.site.HasHeap = h.Source.Dumps > 0; srv.site.HasHeap {
		if _, err := s.Retention(); err != nil {
			return nil, err
		}
	}
	p, err := s.Profile()
	if err != nil {
		return nil, err
	}
	srv.site.HasSites, srv.site.HasCPU = p.Sites != nil, p.CPU != nil
	if o.Base != nil {
		srv.site.Base = o.Base.Name()
	}
	srv.leaks = newMemo(s.Leaks, leaksBytes, srv.cache)
	srv.threads = sync.OnceValues(func() ([]threads.ThreadRow, error) {
		return s.HeapThreads(session.ThreadOptions{Retained: true})
	})
	srv.strs = newMemo(s.DuplicateStrings, stringsBytes, srv.cache)
	srv.collections = newMemo(s.Collections, collectionsBytes, srv.cache)
	srv.routes()
	srv.opened = goMemory()
	return srv, nil
}

// workingMargin is what MemoryLimit allows beyond the bounded memory
// for the work of the requests computing at once.
const workingMargin = 128 << 20

// MemoryLimit is a soft bound for the Go runtime's memory while serving:
// what it held once the server was ready, the memory its queries share,
// the answers it keeps, and a margin for the requests' work. Given to the
// runtime (debug.SetMemoryLimit), it makes the collector run before
// garbage doubles what the bounded answers keep.
func (s *Server) MemoryLimit() int64 {
	return s.opened + s.limits.QueryBytes + s.limits.CacheBytes + workingMargin
}

// goMemory is the memory the Go runtime holds from the system, less what
// it has returned.
func goMemory() int64 {
	m := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(m)
	return int64(m[0].Value.Uint64() - m[1].Value.Uint64())
}

// Warm computes what the pages show by default and keeps it: the leak
// suspects, threads, deadlocks, duplicate strings and collections, which
// take seconds on a big dump. A page asked meanwhile waits for its part.
func (s *Server) Warm() {
	if !s.site.HasHeap {
		return
	}
	ctx := context.Background()
	s.leaks.get(ctx, defaultLeaks)
	s.threads()
	s.strs.get(ctx, defaultStrings)
	s.collections.get(ctx, defaultCollections)
	s.busy.Add(1)
	s.idle()
}

// The options of the leaks, strings and collections commands' defaults,
// which their pages and API share.
var (
	defaultLeaks       = session.LeakOptions{Threshold: leakThreshold, Classes: leakClasses}
	defaultStrings     = heap.StringOptions{MinCount: 2, Top: 20}
	defaultCollections = heap.CollectionOptions{Top: 20}
)

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("/{$}", s.page(s.overview))
	m.HandleFunc("/histogram", s.needHeap(s.page(s.histogram)))
	m.HandleFunc("/dominators", s.needHeap(s.page(s.dominators)))
	m.HandleFunc("/object/{id}", s.needHeap(s.page(s.object)))
	m.HandleFunc("/class", s.needHeap(s.page(s.classPage)))
	m.HandleFunc("/retainers", s.needHeap(s.page(s.retainersPage)))
	m.HandleFunc("/top", s.needHeap(s.page(s.topPage)))
	m.HandleFunc("/icicle", s.needHeap(s.page(s.iciclePage)))
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
	if s.loopbackOnly && !LoopbackHost(r.Host) {
		http.Error(w, "this server answers only requests to localhost", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	s.busy.Add(1)
	defer s.idle()
	s.mux.ServeHTTP(w, r)
}

// idle ends a request; the last one running releases the memory the
// answers no longer need, so that the server's resident memory between
// requests is the answers it keeps, not every page of the index a
// question touched.
func (s *Server) idle() {
	if s.busy.Add(-1) > 0 {
		return
	}
	s.s.Release()
	if s.base != nil {
		s.base.Release()
	}
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

// page adapts a page handler (bounded): it renders into a buffer first,
// so that an error gives an error page and not half a page.
func (s *Server) page(build func(r *http.Request) (html.Page, error)) http.HandlerFunc {
	return s.bounded(func(w http.ResponseWriter, r *http.Request) {
		p, err := unchanged(s, build)(r)
		if err != nil {
			s.fail(w, err)
			return
		}
		status := http.StatusOK
		if sp, ok := p.(statusPage); ok {
			p, status = sp.Page, sp.status
		}
		var buf bytes.Buffer
		if err := html.WritePage(&buf, p); err != nil {
			s.fail(w, err)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		w.Write(buf.Bytes())
	})
}

// unchanged answers a question only while the dump's file is the one
// the server read (session.Session.Unchanged): a replaced dump would
// mix the old index with the new file's records.
func unchanged[T any](s *Server, answer func(*http.Request) (T, error)) func(*http.Request) (T, error) {
	return func(r *http.Request) (T, error) {
		if err := s.s.Unchanged(); err != nil {
			var none T
			return none, err
		}
		return answer(r)
	}
}

// answerOf is the answer to a question that failed with err: an
// httpError as it is; an option the session refuses or a query at fault,
// 400, named as the query parameter; an object outside the dominator
// tree, 404; a dump file replaced since it was read, 409; a request past
// its deadline 503; else 500.
func answerOf(err error) *httpError {
	var (
		he *httpError
		oe *session.OptionError
	)
	if a, ok := stoppedAnswer(err); ok {
		return a
	}
	if a, ok := queryAnswer(err); ok {
		return a
	}
	switch {
	case errors.As(err, &he):
		return he
	case errors.As(err, &oe):
		return &httpError{http.StatusBadRequest, oe.Param()}
	case errors.Is(err, session.ErrUnreachable):
		return &httpError{http.StatusNotFound, err.Error()}
	case errors.Is(err, session.ErrDumpChanged):
		return &httpError{http.StatusConflict, err.Error() + ": what the server read of it no longer matches the file. Restart hprofctl serve to read the new dump."}
	}
	return &httpError{http.StatusInternalServerError, err.Error()}
}

// fail answers an error page (answerOf).
func (s *Server) fail(w http.ResponseWriter, err error) {
	a := answerOf(err)
	var buf bytes.Buffer
	if html.WritePage(&buf, html.ErrorPage{Site: s.site, Status: a.status, Message: a.message}) != nil {
		http.Error(w, a.message, a.status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(a.status)
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
	i, err := s.s.Lookup(n)
	if errors.Is(err, session.ErrNoSuchObject) {
		return 0, &httpError{http.StatusNotFound, "object " + id + ": no such object in the dump"}
	}
	return i, err
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
func histogramQuery(r *http.Request, defTop int) (heap.HistoOptions, error) {
	o := heap.HistoOptions{Sort: r.URL.Query().Get("sort")}
	if o.Sort == "" {
		o.Sort = "bytes"
	}
	var err error
	if o.Top, err = intParam(r, "top", defTop); err != nil {
		return o, err
	}
	o.Match, err = regexpParam(r, "match")
	return o, err
}

// show describes one object, with as many referrers and elements as o
// asks, and its path from a GC root.
func (s *Server) show(obj model.ObjectIndex, o heap.ShowOptions) (heap.ShowObject, error) {
	shown, err := s.s.Show([]model.ObjectIndex{obj}, o)
	if err != nil {
		return heap.ShowObject{}, err
	}
	return shown[0], nil
}

// writeJSON answers with what a report writer writes in JSON, handing
// it on as it is written. A write that fails has lost its client: there
// is no one to tell.
func writeJSON(w http.ResponseWriter, write writer) {
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 64<<10)
	if write(bw, report.Options{Format: report.JSON}) == nil {
		bw.Flush()
	}
}
