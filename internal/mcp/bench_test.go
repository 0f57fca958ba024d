package mcp

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/internal/benchdata"
)

// BenchmarkBenchDump asks the benchmark dump (make bench-dump: 2.3 GB)
// its first question, open, which builds the index, and reports its
// time; then each question the tools ask by default, from the session
// kept open: the first time each is asked, then per call.
func BenchmarkBenchDump(b *testing.B) {
	dump := benchdata.Real(b, benchdata.ServiceHeap)
	cs := connect(b, Config{Roots: []string{filepath.Dir(dump)}}, nil)
	path := filepath.Base(dump)
	start := time.Now()
	call(b, cs, "open", map[string]any{"path": path})
	b.Logf("open (index built): %v", time.Since(start).Round(time.Millisecond))
	for _, tool := range []string{"overview", "histogram", "dominators", "top_consumers", "leak_suspects", "threads"} {
		args := map[string]any{"path": path}
		start := time.Now()
		a, _ := call(b, cs, tool, args)
		b.Logf("%s: first %v, %d bytes", tool, time.Since(start).Round(time.Millisecond), len(a.Result))
		b.Run(tool, func(b *testing.B) {
			for b.Loop() {
				call(b, cs, tool, args)
			}
		})
	}
}
