package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/report"
)

// fixture is the HeapShapes dump of testdata/jvm (EXPECTED.md there): 100
// fixture.Payload objects, the leak fixture's HashMap in the static field
// fixture.Registry.MAP, a thread named fixture-holder.
var fixture = filepath.Join("..", "..", "testdata", "jvm", "jdk17-default.hprof.gz")

// opened is the session of the fixture and its server, made once for all
// tests and closed by TestMain.
var opened = struct {
	once sync.Once
	s    *session.Session
	srv  *Server
	err  error
	dir  string
}{}

func TestMain(m *testing.M) {
	code := m.Run()
	if opened.s != nil {
		opened.s.Close()
	}
	if opened.dir != "" {
		os.RemoveAll(opened.dir)
	}
	os.Exit(code)
}

// fixtureServer returns the fixture's session and its server, which keeps
// its index in a directory of its own.
func fixtureServer(t *testing.T) (*session.Session, *Server) {
	t.Helper()
	opened.once.Do(func() {
		if opened.dir, opened.err = os.MkdirTemp("", "hprofctl-web-test"); opened.err != nil {
			return
		}
		o := session.Options{Dump: -1, IndexDir: opened.dir}
		if opened.s, opened.err = session.Open(fixture, o); opened.err != nil {
			return
		}
		opened.srv, opened.err = New(opened.s, Options{Generator: "hprofctl test"})
	})
	if opened.err != nil {
		t.Fatal(opened.err)
	}
	return opened.s, opened.srv
}

// answer is what the server answered a request.
type answer struct {
	status int
	header http.Header
	body   string
}

// ask sends the server a request as a browser on this machine would.
func ask(srv http.Handler, method, target string) answer {
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, httptest.NewRequest(method, "http://localhost"+target, nil))
	return answer{w.Code, w.Header(), w.Body.String()}
}

// jsonOf writes what write writes as JSON, as the command line's -o json.
func jsonOf(t *testing.T, write func(io.Writer, report.Options) error) string {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf, report.Options{Format: report.JSON}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// registryMap is the id of the HashMap in fixture.Registry.MAP: the step
// through the static field MAP of a leak suspect's path.
func registryMap(t *testing.T, s *session.Session) string {
	t.Helper()
	l, err := s.Leaks(defaultLeaks)
	if err != nil {
		t.Fatal(err)
	}
	for _, suspect := range l.Report.Suspects {
		for _, step := range suspect.Path {
			if step.Via == "static MAP" {
				return step.ObjectID
			}
		}
	}
	t.Fatal("no suspect's path goes through static MAP")
	return ""
}

// TestRoutesAnswer asks every page and API question of the fixture and
// looks in each answer for what the fixture program made.
func TestRoutesAnswer(t *testing.T) {
	s, srv := fixtureServer(t)
	mapID := registryMap(t, s)
	query := url.QueryEscape(`SELECT * FROM fixture.Payload`)
	for _, tc := range []struct{ path, want string }{
		{"/", "hprof 1.0.2"},
		{"/histogram?match=%5Efixture%5C.Payload%24", "fixture.Payload"},
		{"/dominators", "jdk.internal.loader.ClassLoaders$AppClassLoader"},
		{"/dominators?expand=" + mapID, "java.util.HashMap$Node[]"},
		{"/object/" + mapID, "static MAP"},
		{"/leaks", "accumulation point"},
		{"/threads", "fixture-holder"},
		{"/deadlocks", "no deadlock"},
		{"/strings", "Strings hold"},
		{"/collections", "java.util.HashMap"},
		{"/query?q=" + query, "fixture.Payload"},
		{"/dominators?open=" + mapID, `class="toggle"`},
		{"/class?name=fixture.Payload", "Instances by retained size"},
		{"/retainers?object=" + mapID, "static MAP"},
		{"/top?by=package", "fixture"},
		{"/icicle?root=" + mapID, "java.util.HashMap$Node[]"},
		{"/api/top", "retained_bytes"},
		{"/api/retainers?object=" + mapID, "static MAP"},
		{"/static/style.css", "--accent"},
		{"/api/", "/api/histo"},
		{"/api/info", `"format"`},
		{"/api/histo?match=Payload", "fixture.Payload"},
		{"/api/dominators?top=3", "retained_bytes"},
		{"/api/show/" + mapID + "?path=1", "MAP"},
		{"/api/leaks", "accumulation_point"},
		{"/api/threads", "fixture-holder"},
		{"/api/deadlocks", "deadlocks"},
		{"/api/strings", "wasted"},
		{"/api/collections", "java.util.HashMap"},
		{"/api/query?q=" + query, `"0x`},
	} {
		a := ask(srv, "GET", tc.path)
		if a.status != http.StatusOK || !strings.Contains(a.body, tc.want) {
			t.Errorf("%s: %d, want 200 with %q in:\n%.400s", tc.path, a.status, tc.want, a.body)
		}
	}
}

// TestAPIEqualsSession checks that the API answers what the session
// answers the same question, in the JSON the command line writes, and
// that the histogram counts the fixture program's 100 Payloads.
func TestAPIEqualsSession(t *testing.T) {
	s, srv := fixtureServer(t)
	histo, err := s.Histogram(heap.HistoOptions{Sort: "count", Top: 3})
	if err != nil {
		t.Fatal(err)
	}
	leaks, err := s.Leaks(session.LeakOptions{Threshold: 0.01, Classes: 2})
	if err != nil {
		t.Fatal(err)
	}
	threads, err := s.HeapThreads(session.ThreadOptions{Retained: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		api  string
		want string
	}{
		{"/api/histo?sort=count&top=3", jsonOf(t, func(w io.Writer, o report.Options) error { return report.Histogram(w, histo, o) })},
		{"/api/leaks?threshold=1&classes=2", jsonOf(t, func(w io.Writer, o report.Options) error { return report.Leaks(w, leaks.Report, o) })},
		{"/api/threads", jsonOf(t, func(w io.Writer, o report.Options) error { return report.Threads(w, threads, o) })},
	} {
		a := ask(srv, "GET", tc.api)
		if a.status != http.StatusOK || a.header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s", tc.api, a.status, a.header.Get("Content-Type"))
		}
		if a.body != tc.want {
			t.Errorf("%s differs from the session's answer:\n%.600s\nwant:\n%.600s", tc.api, a.body, tc.want)
		}
	}
	var rows []struct {
		Class     string `json:"class"`
		Instances int64  `json:"instances"`
	}
	a := ask(srv, "GET", "/api/histo?match=%5Efixture%5C.Payload%24")
	if err := json.Unmarshal([]byte(a.body), &rows); err != nil {
		t.Fatalf("/api/histo: %v in %.300s", err, a.body)
	}
	if len(rows) != 1 || rows[0].Class != "fixture.Payload" || rows[0].Instances != 100 {
		t.Errorf("/api/histo of fixture.Payload: %+v, want 100 instances", rows)
	}
}

// TestRefusals checks the answers to what the server does not give: bad
// or unknown object ids (404), options the commands refuse too (400, named
// as query parameters), and a sort the command line takes, which the API
// takes too.
func TestRefusals(t *testing.T) {
	_, srv := fixtureServer(t)
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/object/0x1", 404, "no such object"},
		{"/object/12345", 404, "no object id"},
		{"/object/0xZZ", 404, "no object id"},
		{"/object/0x" + strings.Repeat("f", 17), 404, "no object id"},
		{"/api/show/0xnope", 404, "no object id"},
		{"/api/show/0x1", 404, "no such object"},
		{"/dominators?expand=0x1", 404, "no such object"},
		{"/nope", 404, "no such page"},
		{"/sites", 404, "no allocation sites"},
		{"/cpu", 404, "no CPU"},
		{"/diff", 404, "no base dump"},
		{"/histogram?sort=size", 400, "want bytes, count or name"},
		{"/histogram?top=-1", 400, "top"},
		{"/histogram?match=(", 400, "match"},
		{"/api/leaks?threshold=0", 400, `threshold=\"0\": want a percentage`},
		{"/api/strings?min-count=1", 400, "min-count=1: want 2 or more"},
		{"/api/cpu?by=frame", 400, `by=\"frame\": want trace or method`},
		{"/api/query?q=SELECT", 400, "query"},
		{"/api/histo?sort=native", 200, "fixture.Payload"},
	} {
		a := ask(srv, "GET", tc.path)
		if a.status != tc.status || !strings.Contains(a.body, tc.want) {
			t.Errorf("%s: %d, want %d with %q in:\n%.400s", tc.path, a.status, tc.status, tc.want, a.body)
		}
	}
}

// TestReadOnlyAndHeaders checks that only GET and HEAD are answered, and
// that every answer carries the security headers.
func TestReadOnlyAndHeaders(t *testing.T) {
	_, srv := fixtureServer(t)
	for _, method := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		a := ask(srv, method, "/api/info")
		if a.status != http.StatusMethodNotAllowed || a.header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: %d, Allow %q; want 405, GET, HEAD", method, a.status, a.header.Get("Allow"))
		}
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	resp, err := http.Head(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || len(body) != 0 {
		t.Errorf("HEAD /: %d with %d bytes (%v), want 200 and no body", resp.StatusCode, len(body), err)
	}
	for _, path := range []string{"/", "/api/info", "/nope"} {
		h := ask(srv, "GET", path).header
		if p := h.Get("Content-Security-Policy"); !strings.HasPrefix(p, "default-src 'none'") || strings.Contains(p, "script-src") {
			t.Errorf("%s: Content-Security-Policy %q", path, p)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", path, h)
		}
	}
}

// TestLoopbackHost checks that a server asked to answer loopback names
// alone refuses another Host (DNS rebinding) and answers its own.
func TestLoopbackHost(t *testing.T) {
	s, _ := fixtureServer(t)
	srv, err := New(s, Options{Generator: "hprofctl test"})
	if err != nil {
		t.Fatal(err)
	}
	srv.RequireLoopbackHost()
	for host, want := range map[string]int{
		"localhost:8080": 200, "127.0.0.1:8080": 200, "[::1]:8080": 200,
		"evil.example:8080": 403, "127.0.0.1.evil.example": 403,
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = host
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("Host %s: %d, want %d", host, w.Code, want)
		}
	}
	for host, want := range map[string]bool{"localhost": true, "127.0.0.2": true, "::1": true, "[::1]": true, "example.com": false, "10.0.0.1": false} {
		if IsLoopback(host) != want {
			t.Errorf("IsLoopback(%q) = %v", host, !want)
		}
	}
}

// TestDiffAgainstItself serves the fixture with itself as the base: the
// diff finds no class that grew.
func TestDiffAgainstItself(t *testing.T) {
	s, _ := fixtureServer(t)
	srv, err := New(s, Options{Generator: "hprofctl test", Base: s})
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Classes []json.RawMessage `json:"classes"`
	}
	a := ask(srv, "GET", "/api/diff")
	if err := json.Unmarshal([]byte(a.body), &d); err != nil || a.status != 200 {
		t.Fatalf("/api/diff: %d %v in %.300s", a.status, err, a.body)
	}
	if len(d.Classes) != 0 {
		t.Errorf("/api/diff of a dump with itself lists %d changed classes", len(d.Classes))
	}
	if a := ask(srv, "GET", "/diff"); a.status != 200 {
		t.Errorf("/diff: %d", a.status)
	}
}

// TestChangedDumpAnswers409: a read of the dump that finds other records
// than the index promised, as the second read of a replaced dump does, is
// answered 409 with what happened, on pages and in the API alike.
func TestChangedDumpAnswers409(t *testing.T) {
	_, srv := fixtureServer(t)
	err := fmt.Errorf("object 0x1: the record at offset 7 is not it: %w", input.ErrChanged)
	page := httptest.NewRecorder()
	srv.fail(page, err)
	api := httptest.NewRecorder()
	writeAPIError(api, err)
	for _, w := range []*httptest.ResponseRecorder{page, api} {
		if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "the dump changed since it was indexed") || !strings.Contains(w.Body.String(), "Restart hprofctl serve") {
			t.Errorf("status %d, want 409 saying the dump changed:\n%.500s", w.Code, w.Body.String())
		}
	}
}
