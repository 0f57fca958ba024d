package main

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// BenchmarkServeLoad is the load test of serve: 50 clients ask every
// route, pages and API, in turn for HPROFCTL_LOAD_SECONDS (default 60)
// against a child process serving a 64 MB synthetic dump. It reports
// the requests answered, the server errors (5xx or a failed request),
// the 4xx answers, the median and 99th percentile latency and the
// server's peak resident memory.
func BenchmarkServeLoad(b *testing.B) {
	seconds := 60
	if s := os.Getenv("HPROFCTL_LOAD_SECONDS"); s != "" {
		var err error
		if seconds, err = strconv.Atoi(s); err != nil || seconds <= 0 {
			b.Fatalf("HPROFCTL_LOAD_SECONDS=%q: want seconds", s)
		}
	}
	srv, _ := startServe(b, 64<<20, "30s")
	resp, err := http.Get(srv.url + "api/dominators?top=20")
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	ids := regexp.MustCompile(`"(0x[0-9a-f]+)"`).FindAllStringSubmatch(string(body), 20)
	routes := []string{"", "histogram", "dominators", "leaks", "threads", "deadlocks", "strings", "collections",
		"query?q=" + url.QueryEscape("SELECT s FROM java.lang.String s WHERE s.@retainedHeapSize > 100"),
		"api/info", "api/histo?top=50", "api/dominators?top=100", "api/leaks", "api/threads", "api/deadlocks",
		"api/strings", "api/collections", "api/query?limit=500&q=" + url.QueryEscape("SELECT * FROM java.util.HashMap")}
	for _, id := range ids {
		routes = append(routes, "object/"+id[1], "api/show/"+id[1]+"?referrers=1&path=1")
	}
	var (
		mu                     sync.Mutex
		latencies              []time.Duration
		serverErrors, refusals int
	)
	end := time.Now().Add(time.Duration(seconds) * time.Second)
	var wg sync.WaitGroup
	for c := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := c; time.Now().Before(end); n++ {
				start := time.Now()
				resp, err := http.Get(srv.url + routes[n%len(routes)])
				status := 0
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					status = resp.StatusCode
				}
				mu.Lock()
				latencies = append(latencies, time.Since(start))
				switch {
				case err != nil || status >= 500:
					serverErrors++
				case status >= 400:
					refusals++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(latencies)
	_, peak := srv.usage(b)
	b.ReportMetric(float64(len(latencies)), "requests")
	b.ReportMetric(float64(serverErrors), "server-errors")
	b.ReportMetric(float64(refusals), "4xx")
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(peak>>20), "peak-RSS-MB")
}
