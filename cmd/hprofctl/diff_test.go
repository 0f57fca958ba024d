package main

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// inspectPairs are the before and after dumps of fixture.Inspect, one
// process per JDK (testdata/jvm/EXPECTED.md).
var inspectPairs = []string{"jdk17-inspect-", "jdk25-inspect-"}

// runDiff runs diff with -o json on the inspect pair and decodes it.
func runDiff(t *testing.T, pair string, args ...string) (heap.HeapDiff, string, error) {
	t.Helper()
	args = append(append([]string{"diff", "-o", "json"}, args...), fixturePath(t, pair+"before.hprof.gz"), fixturePath(t, pair+"after.hprof.gz"))
	out, err := runCLI(t, args...)
	var d heap.HeapDiff
	if jerr := json.Unmarshal([]byte(out), &d); out != "" && jerr != nil {
		t.Fatalf("diff %q: %v (%v)", args, jerr, err)
	}
	return d, out, err
}

// TestDiffInspectMatchesJVMHistograms checks diff's rows against the JVM's
// own histograms of the two moments (GC.class_histogram after each dump):
// every class whose line changed is a row with both lines' numbers, no
// other class is, the new and gone classes are the lines only one
// histogram has, and the growth the program made (10,000 InspectGrowth
// of 24 bytes, one InspectGrowth[10000]) is there.
func TestDiffInspectMatchesJVMHistograms(t *testing.T) {
	for _, pair := range inspectPairs {
		t.Run(pair, func(t *testing.T) {
			before := readJVMHistogram(t, fixturePath(t, pair+"before.histo.txt"))
			after := readJVMHistogram(t, fixturePath(t, pair+"after.histo.txt"))
			d, _, err := runDiff(t, pair, "--no-index", "--top", "0")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]heap.DiffRow{}
			for _, r := range d.Classes {
				got[r.Class] = r
			}
			var want heap.DiffRow
			var newClasses, goneClasses []string
			names := map[string]bool{}
			for n := range before {
				names[n] = true
			}
			for n := range after {
				names[n] = true
			}
			changed := 0
			for n := range names {
				a, b := before[n], after[n]
				row := heap.DiffRow{Class: n, OldInstances: a.Instances, NewInstances: b.Instances, InstancesDelta: b.Instances - a.Instances,
					OldBytes: a.ShallowBytes, NewBytes: b.ShallowBytes, BytesDelta: b.ShallowBytes - a.ShallowBytes}
				want.OldBytes += a.ShallowBytes
				want.NewBytes += b.ShallowBytes
				want.OldInstances += a.Instances
				want.NewInstances += b.Instances
				switch {
				case a.Instances == 0:
					newClasses = append(newClasses, n)
				case b.Instances == 0:
					goneClasses = append(goneClasses, n)
				}
				if row.InstancesDelta == 0 && row.BytesDelta == 0 {
					if r, ok := got[n]; ok {
						t.Errorf("%s did not change in the JVM's histograms, diff has %+v", n, r)
					}
					continue
				}
				changed++
				if got[n] != row {
					t.Errorf("%s: diff has %+v, the JVM's histograms %+v", n, got[n], row)
				}
			}
			if len(d.Classes) != changed {
				t.Errorf("%d rows, %d classes changed", len(d.Classes), changed)
			}
			slices.Sort(newClasses)
			slices.Sort(goneClasses)
			if !slices.Equal(d.NewClasses, newClasses) || !slices.Equal(d.GoneClasses, goneClasses) {
				t.Errorf("new %q, gone %q; the histograms say %q, %q", d.NewClasses, d.GoneClasses, newClasses, goneClasses)
			}
			if d.Total.OldBytes != want.OldBytes || d.Total.NewBytes != want.NewBytes || d.Total.OldInstances != want.OldInstances || d.Total.NewInstances != want.NewInstances {
				t.Errorf("total %+v, the histograms' totals %+v", d.Total, want)
			}
			g := got["fixture.InspectGrowth"]
			arr := got["fixture.InspectGrowth[]"]
			if g.InstancesDelta != 10_000 || g.BytesDelta != 10_000*24 || arr.InstancesDelta != 1 || arr.NewBytes-arr.OldBytes != 16+4*10_000 {
				t.Errorf("the program's growth: %+v and %+v, want +10,000 InspectGrowth (+240,000 bytes) and one InspectGrowth[10000] (+40,016 bytes)", g, arr)
			}
			if d.Classes[0].Class != "fixture.InspectGrowth" || d.Classes[1].Class != "fixture.InspectGrowth[]" {
				t.Errorf("rows start with %q, %q; want the program's growth first", d.Classes[0].Class, d.Classes[1].Class)
			}
			// The retained sizes at the top of the tree grow by what the
			// reachable heap grows by.
			var grown int64
			for _, r := range d.Retained {
				grown += r.RetainedDelta
			}
			if len(d.Retained) == 0 || grown != d.NewReachableBytes-d.OldReachableBytes {
				t.Errorf("top-level retained deltas add up to %d, the reachable heap grew by %d", grown, d.NewReachableBytes-d.OldReachableBytes)
			}
			// --no-retained gives the same class rows without the tree.
			if histOnly, _, err := runDiff(t, pair, "--no-index", "--top", "0", "--no-retained"); err != nil || !slices.Equal(histOnly.Classes, d.Classes) || histOnly.Retained != nil {
				t.Errorf("--no-retained: %v, %d rows, retained %v", err, len(histOnly.Classes), histOnly.Retained)
			}
		})
	}
}

// TestDiffExitCode checks --exit-code against limits around the total
// growth of the JVM's histograms: a limit just below it fails the gate
// (status 3) for the total alone, a limit at it passes.
func TestDiffExitCode(t *testing.T) {
	const pair = "jdk17-inspect-"
	var grew int64
	before := readJVMHistogram(t, fixturePath(t, pair+"before.histo.txt"))
	for n, r := range readJVMHistogram(t, fixturePath(t, pair+"after.histo.txt")) {
		grew += r.ShallowBytes - before[n].ShallowBytes
	}
	d, _, err := runDiff(t, pair, "--no-index", "--no-retained", "--exit-code", "--max-growth", strconv.FormatInt(grew-1, 10))
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != growthExitCode || !slices.Equal(d.OverLimit, []string{"total"}) {
		t.Errorf("limit %d: %v, over %q; want status 3 for the total", grew-1, err, d.OverLimit)
	}
	if d, _, err := runDiff(t, pair, "--no-index", "--no-retained", "--exit-code", "--max-growth", strconv.FormatInt(grew, 10)+" B"); err != nil || d.Limit == nil || *d.Limit != grew || len(d.OverLimit) != 0 {
		t.Errorf("limit %d: %v, over %q; want status 0", grew, err, d.OverLimit)
	}
	// Without --exit-code a limit only lists; without a limit any growth fails.
	if _, _, err := runDiff(t, pair, "--no-index", "--no-retained", "--max-growth", "1KB"); err != nil {
		t.Errorf("--max-growth alone: %v", err)
	}
	if _, _, err := runDiff(t, pair, "--no-index", "--no-retained", "--exit-code"); !errors.As(err, &exit) || exit.Code != growthExitCode {
		t.Errorf("--exit-code alone: %v, want status 3", err)
	}
	// The same dump twice passes any gate.
	same := fixturePath(t, pair+"before.hprof.gz")
	if _, err := runCLI(t, "diff", "--no-index", "--no-retained", "--exit-code", same, same); err != nil {
		t.Errorf("a dump against itself: %v", err)
	}
	for _, bad := range []string{"lots", "-5%", "%", "10XB"} {
		if _, _, err := runDiff(t, pair, "--no-index", "--no-retained", "--max-growth", bad); err == nil {
			t.Errorf("--max-growth %q: no error", bad)
		}
	}
	if _, _, err := runDiff(t, pair, "--index", "x.idx"); err == nil {
		t.Error("--index with two dumps: no error")
	}
}

// TestDiffIndexIdentity checks that diff answers the same from the two
// dumps' indexes (building them, then reading them) as without.
func TestDiffIndexIdentity(t *testing.T) {
	for _, pair := range inspectPairs {
		dir := t.TempDir()
		_, direct, err := runDiff(t, pair, "--no-index", "--top", "0")
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range []string{"building the indexes", "from the indexes"} {
			if _, got, err := runDiff(t, pair, "--index-dir", dir, "--top", "0"); err != nil || got != direct {
				t.Errorf("%s %s: %v, differs from --no-index:\n%.600s\n%.600s", pair, run, err, got, direct)
			}
		}
	}
}

// TestTopInspect checks top on the fixture.Inspect dump: the stack-held
// long[1 << 20] (8,388,624 bytes, EXPECTED.md) makes long[] the biggest
// class and primitive arrays the biggest package; every grouping adds up
// to the reachable heap dominators reports; an unknown grouping is an
// error before the dump is read.
func TestTopInspect(t *testing.T) {
	dump := fixturePath(t, "jdk17-inspect-after.hprof.gz")
	var dom []struct {
		RetainedBytes int64 `json:"retained_bytes"`
	}
	out, err := runCLI(t, "dominators", "--no-index", "--top", "0", "--children", "0", "-o", "json", dump)
	if err != nil || json.Unmarshal([]byte(out), &dom) != nil {
		t.Fatalf("dominators: %v", err)
	}
	var reachable int64
	for _, r := range dom {
		reachable += r.RetainedBytes
	}
	for by, first := range map[string]string{"class": "long[]", "package": heap.PrimitiveArrays, "classloader": heap.BootstrapLoader} {
		var rows []heap.TopConsumerRow
		out, err := runCLI(t, "top", "--no-index", "--by", by, "--top", "0", "-o", "json", dump)
		if err != nil || json.Unmarshal([]byte(out), &rows) != nil {
			t.Fatalf("top --by %s: %v", by, err)
		}
		var groups []map[string]any
		if err := json.Unmarshal([]byte(out), &groups); err != nil {
			t.Fatal(err)
		}
		key := map[string]string{"class": "class", "package": "package", "classloader": "class_loader"}[by]
		for k := range rows {
			rows[k].Name, _ = groups[k][key].(string)
		}
		var objects, bytes int64
		for _, r := range rows {
			objects += r.Objects
			bytes += r.RetainedBytes
		}
		if objects != int64(len(dom)) || bytes != reachable {
			t.Errorf("--by %s: %d objects, %d bytes; dominators has %d top-level objects, %d bytes", by, objects, bytes, len(dom), reachable)
		}
		if rows[0].Name != first || rows[0].RetainedBytes < 8_388_624 {
			t.Errorf("--by %s: first row %+v, want %s with the 8,388,624-byte long[]", by, rows[0], first)
		}
	}
	if _, err := runCLI(t, "top", "--by", "module", "/nonexistent.hprof"); err == nil || err.Error() != `unknown grouping "module": expected class, classloader or package` {
		t.Errorf("--by module: %v", err)
	}
}
