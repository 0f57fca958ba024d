package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

type siteShareJSON struct {
	Rank       int     `json:"rank"`
	Class      string  `json:"class"`
	LiveBytes  int64   `json:"live_bytes"`
	Trace      uint32  `json:"trace"`
	Percent    float64 `json:"percent"`
	CumPercent float64 `json:"cumulative_percent"`
	PercentOf  string  `json:"percent_of"`
}

func percentField(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSitesASCIIPrintedShares checks that the sites of an ASCII SITES
// section carry the agent's printed self and accum (shares of all live
// bytes, not of the listed rows), and that a roll-up by class derives
// its shares from the same total.
func TestSitesASCIIPrintedShares(t *testing.T) {
	path := filepath.Join(sharedCorpus(t), "kevinlights_jvm-learn", "java.hprof.txt")
	_, rows := sectionRows(t, path, "SITES BEGIN", "SITES END", 2)
	// rank self accum live-bytes objs alloc-bytes objs trace class
	type key struct {
		trace string
		class string
	}
	printed := map[key][]string{}
	classSelf := map[string]float64{}
	classRows := map[string]int{}
	for _, r := range rows {
		printed[key{r[7], r[8]}] = r
		classSelf[r[8]] += percentField(t, r[1])
		classRows[r[8]]++
	}
	var sites []siteShareJSON
	runJSON(t, &sites, "sites", path)
	if len(sites) != len(rows) {
		t.Fatalf("%d sites, the file lists %d", len(sites), len(rows))
	}
	for _, s := range sites {
		r, ok := printed[key{strconv.FormatUint(uint64(s.Trace), 10), s.Class}]
		if !ok {
			t.Fatalf("site %+v not in the file", s)
		}
		if s.Percent != percentField(t, r[1]) {
			t.Errorf("site %+v: self %v, the file prints %s", s, s.Percent, r[1])
		}
		if strconv.Itoa(s.Rank) == r[0] && s.CumPercent != percentField(t, r[2]) {
			t.Errorf("site %+v: accum %v, the file prints %s", s, s.CumPercent, r[2])
		}
	}
	out, err := runCLI(t, "sites", "--by", "class", "--top", "1", path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "derived from the listed sites' ") || !strings.Contains(out, "last accum the file prints ("+rows[len(rows)-1][2]+")") {
		t.Errorf("--by class does not say how the total was derived:\n%s", out)
	}
	var byClass []siteShareJSON
	runJSON(t, &byClass, "sites", "--by", "class", path)
	if len(byClass) == 0 || !strings.Contains(byClass[0].PercentOf, "derived from") {
		t.Fatalf("--by class -o json does not say how the total was derived: %+v", byClass)
	}
	for _, c := range byClass[:min(5, len(byClass))] {
		// Each printed share is rounded to 0.005 percent.
		tol := 0.005*float64(classRows[c.Class]) + 0.01
		if math.Abs(c.Percent-classSelf[c.Class]) > tol {
			t.Errorf("--by class %s: %v%%, the file's self shares sum to %v%%", c.Class, c.Percent, classSelf[c.Class])
		}
	}
}

// TestSitesBinaryRecordShares checks that the shares of binary
// ALLOC_SITES rows are of the record's total live bytes.
func TestSitesBinaryRecordShares(t *testing.T) {
	path := filepath.Join(sharedCorpus(t), "agourlay_hprof-slurp", "hprof-32.bin")
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := hprof.NewReader(f, hprof.Options{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	var rec *hprof.AllocSites
	for r.Next() {
		if x := r.Record(); x.Tag == hprof.TagAllocSites {
			a := x.AllocSites
			rec = &a
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if rec == nil || rec.LiveBytes == 0 {
		t.Fatal("no ALLOC_SITES record with live bytes")
	}
	for _, by := range []string{"site", "class"} {
		var sites []siteShareJSON
		runJSON(t, &sites, "sites", "--by", by, "--sort", "alloc", path)
		for _, s := range sites {
			want := 100 * float64(s.LiveBytes) / float64(rec.LiveBytes)
			if math.Abs(s.Percent-want) > 1e-9 {
				t.Fatalf("--by %s: %+v, want %v%% of the record's %d live bytes", by, s, want, rec.LiveBytes)
			}
		}
	}
}
