package main

import (
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
)

// chainLinks is how many fixture.ChainLink objects fixture.LongChain
// chains before the one fixture.ChainTail (testdata/java/src).
const chainLinks = 1000

// TestLongPathElided: the one path to jdk17-chain's ChainTail runs through
// all 1,000 links of the chain, which is longer than a path is shown
// whole. The path shows its ends, each step labeled "next" as the program
// wrote it, and one step standing for the links between, counted; from
// the dump and from its index, for retainers and for show --path.
func TestLongPathElided(t *testing.T) {
	dump := fixturePath(t, "jdk17-chain.hprof.gz")
	for _, how := range [][]string{{"--no-index"}, {"--index-dir", t.TempDir()}} {
		var r heap.Retainers
		runJSON(t, &r, append([]string{"retainers", "--class", `^fixture\.ChainTail$`, dump}, how...)...)
		if r.Targets != 1 || len(r.Paths) != 1 {
			t.Fatalf("%v: %d targets, %d paths; want the one ChainTail and its path", how, r.Targets, len(r.Paths))
		}
		checkChainPath(t, how, r.Paths[0].Chain)
		tail := r.Paths[0].Chain[len(r.Paths[0].Chain)-1].ObjectID
		var shown heap.ShowObject
		runJSON(t, &shown, append([]string{"show", "--path", dump, tail}, how...)...)
		if shown.Path == nil {
			t.Fatalf("%v: show --path %s: no path", how, tail)
		}
		checkChainPath(t, how, shown.Path.Chain)
	}
}

// checkChainPath checks the steps of a path to the ChainTail: the links
// shown and those left out number chainLinks, the tail comes last through
// "next", and every link after the first shown is reached through "next".
func checkChainPath(t *testing.T, how []string, chain []heap.PathStep) {
	t.Helper()
	var shownLinks, elidedSteps int
	var elided int64
	for k, s := range chain {
		switch {
		case s.Elided > 0:
			elidedSteps++
			elided += s.Elided
			want := []heap.ElidedClass{{Class: "fixture.ChainLink", Count: s.Elided}}
			if s.ObjectID != "" || s.Via != "…" || len(s.ElidedClasses) != 1 || s.ElidedClasses[0] != want[0] || !strings.HasPrefix(s.Class, "fixture.ChainLink ×") {
				t.Errorf("%v: elided step %+v; want %d links of fixture.ChainLink, no object", how, s, s.Elided)
			}
		case s.Class == "fixture.ChainLink":
			shownLinks++
			if shownLinks > 1 && s.Via != "next" {
				t.Errorf("%v: step %d, link %s, reached through %q, want next", how, k, s.ObjectID, s.Via)
			}
		}
	}
	if elidedSteps != 1 || shownLinks+int(elided) != chainLinks {
		t.Errorf("%v: %d links shown, %d left out in %d steps; want %d in all, left out in one step", how, shownLinks, elided, elidedSteps, chainLinks)
	}
	if len(chain) > graph.MaxShownObjects {
		t.Errorf("%v: %d steps shown, more than %d", how, len(chain), graph.MaxShownObjects)
	}
	if last := chain[len(chain)-1]; last.Class != "fixture.ChainTail" || last.Via != "next" {
		t.Errorf("%v: the path ends at %+v, want the ChainTail through next", how, last)
	}
}
