package web

import (
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
	elided := regexp.MustCompile(`<td>→ <code>…</code></td><td></td><td><a class="cls" href="/class\?name=fixture.ChainLink"><code class="cls">fixture.<wbr>ChainLink</code></a> ×[1-9][0-9,]*</td>`)
	if n := len(elided.FindAllString(a.body, -1)); n != 1 || strings.Contains(a.body, "ChainLink%20") {
		t.Errorf("%d steps for the links left out, linked to ChainLink's page; want 1 and no class named after a count", n)
	}
}
