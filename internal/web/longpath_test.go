package web

import (
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/internal/session"
)

// TestLongPathPage: the step standing for the links a long path leaves
// out (testdata/jvm/jdk17-chain: 1,000 links to one tail) names their
// class with a link to its page and their count, not a class named after
// the count.
func TestLongPathPage(t *testing.T) {
	dump := filepath.Join("..", "..", "testdata", "jvm", "jdk17-chain.hprof.gz")
	s, err := session.Open(dump, session.Options{Dump: -1, IndexDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv, err := New(s, Options{Generator: "hprofctl test"})
	if err != nil {
		t.Fatal(err)
	}
	a := ask(srv, "GET", `/retainers?class=fixture%5C.ChainTail`)
	if a.status != http.StatusOK {
		t.Fatalf("status %d: %s", a.status, a.body)
	}
	elided := regexp.MustCompile(`<tr><td class="n">([0-9,]+)–([0-9,]+)</td><td>→ <code>…</code></td><td></td><td><a class="cls" href="/class\?name=fixture.ChainLink"><code class="cls">fixture.<wbr>ChainLink</code></a> ×([1-9][0-9,]*)</td>`)
	found := elided.FindAllStringSubmatch(a.body, -1)
	if len(found) != 1 || strings.Contains(a.body, "ChainLink%20") {
		t.Fatalf("%d steps for the links left out, linked to ChainLink's page; want 1 and no class named after a count", len(found))
	}
	// The step stands for the depths from the first after the path's
	// first graph.ShownEnds objects to the one before its last ones.
	first, last, count := number(t, found[0][1]), number(t, found[0][2]), number(t, found[0][3])
	steps := regexp.MustCompile(`<tr><td class="n">([0-9,]+)</td>`).FindAllStringSubmatch(a.body, -1)
	end := number(t, steps[len(steps)-1][1])
	if first != graph.ShownEnds || last-first+1 != count || end != last+graph.ShownEnds {
		t.Errorf("steps %d–%d for %d links left out, the tail at step %d; want them from %d, as many, the tail %d after", first, last, count, end, graph.ShownEnds, graph.ShownEnds)
	}
}

// number reads a step number as the page writes it.
func number(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
