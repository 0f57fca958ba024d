package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// serverProcess is `hprofctl serve` running as a child process, whose CPU
// time and memory the test reads from /proc.
type serverProcess struct {
	url string
	pid int
}

// startServe writes a synthetic dump of about size bytes (Strings, maps,
// lists: a server's heap shape) and serves it from a child process with
// the request timeout given; it returns the server with the number of
// Strings in the dump.
func startServe(t testing.TB, size int64, requestTimeout string) (*serverProcess, int64) {
	t.Helper()
	dir := t.TempDir()
	dump := filepath.Join(dir, "service.hprof")
	f, err := os.Create(dump)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := hproftest.WriteRealistic(f, size, 7, 8)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	cmd := process(nil, "--index-dir", dir, "serve", "--addr", "127.0.0.1:0", "--request-timeout", requestTimeout, dump)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	serving := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/)`)
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if m := serving.FindStringSubmatch(lines.Text()); m != nil {
			go io.Copy(io.Discard, stderr)
			return &serverProcess{url: m[1], pid: cmd.Process.Pid}, stats.PerClass["java/lang/String"].Instances
		}
	}
	t.Fatalf("serve said no address: %v", lines.Err())
	return nil, 0
}

// usage is the process's CPU time so far and its peak resident memory.
func (p *serverProcess) usage(t testing.TB) (cpu time.Duration, peakRSS int64) {
	t.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command's closing parenthesis: state is 3, utime
	// 14 and stime 15 (proc(5)), in clock ticks of 1/100 s.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid))
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status); m != nil {
		kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
		peakRSS = kb << 10
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, peakRSS
}

// settles waits until the server uses less than a tenth of a core over
// half a second, failing past within.
func (p *serverProcess) settles(t *testing.T, what string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		before, _ := p.usage(t)
		time.Sleep(500 * time.Millisecond)
		after, _ := p.usage(t)
		if after-before < 50*time.Millisecond {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s: the server still computes %s after the client left (%s of CPU in 0.5 s)", what, within, after-before)
			return
		}
	}
}

// abandon asks path and gives the request up after wait.
func (p *serverProcess) abandon(t *testing.T, path string, wait time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", p.url+strings.TrimPrefix(path, "/"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// TestServeBoundsExpensiveRequests: the requests that took serve past
// 7 GB and kept both cores busy after their clients left (issue #27)
// leave it under 1 GB of peak memory and idle within 5 s of the client
// going away: 200 UNIONs of every String, a leak threshold of 1e-300,
// a quadratic IN over every String, clients that never read their big
// answers.
func TestServeBoundsExpensiveRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and serves a 64 MB dump")
	}
	srv, strs := startServe(t, 64<<20, "60s")
	if strs < 100000 {
		t.Fatalf("the dump holds %d Strings, want a heap of many", strs)
	}
	// The index is built and the pages' defaults warmed before the
	// server is measured.
	srv.abandon(t, "/api/leaks", time.Minute)
	srv.settles(t, "warming", time.Minute)

	// The server lists 10,000 rows at most: the first SELECT gives them.
	union := "SELECT * FROM java.lang.String" + strings.Repeat(" UNION (SELECT * FROM java.lang.String)", 200)
	status, _, body := get(t, "GET", srv.url+"api/query?q="+url.QueryEscape(union))
	if status != http.StatusOK || strings.Count(body, `"0x`) != 10000 {
		t.Errorf("200 UNIONs: status %d with %d objects, want 200 and 10,000", status, strings.Count(body, `"0x`))
	}
	// As a subquery, the UNIONs' rows are kept: past 256 MiB the query
	// is refused.
	status, _, body = get(t, "GET", srv.url+"api/query?q="+url.QueryEscape("SELECT * FROM java.lang.String s WHERE s IN ("+union+")"))
	if status != http.StatusBadRequest || !strings.Contains(body, "memory") {
		t.Errorf("200 UNIONs in a subquery: status %d, want 400 saying it needs too much memory: %.300s", status, body)
	}
	srv.settles(t, "200 UNIONs", 5*time.Second)

	status, _, body = get(t, "GET", srv.url+"api/leaks?threshold=1e-300")
	if status != http.StatusBadRequest || !strings.Contains(body, "0.01 to 100") {
		t.Errorf("threshold 1e-300: status %d, want 400 naming the range: %.300s", status, body)
	}

	quadratic := "SELECT * FROM java.lang.String s WHERE toString(s) IN (SELECT toString(x) FROM java.lang.String x)"
	for range 4 {
		srv.abandon(t, "/api/query?q="+url.QueryEscape(quadratic), time.Second)
	}
	srv.settles(t, "abandoned IN queries", 5*time.Second)

	var idle []net.Conn
	for range 6 {
		c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(srv.url, "http://"), "/"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET /api/dominators?top=10000&children=100 HTTP/1.1\r\nHost: localhost\r\n\r\n")
		idle = append(idle, c)
	}
	time.Sleep(3 * time.Second)
	for _, c := range idle {
		c.Close()
	}
	srv.settles(t, "clients that do not read", 5*time.Second)

	if _, peak := srv.usage(t); peak > 1<<30 {
		t.Errorf("peak resident memory %d MB, want under 1 GB", peak>>20)
	} else {
		t.Logf("peak resident memory %d MB", peak>>20)
	}
	if status, _, _ := get(t, "GET", srv.url+"api/histo?top=5"); status != http.StatusOK {
		t.Errorf("after the expensive requests: /api/histo status %d, want 200", status)
	}
}
