package main

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

type dominatedJSON struct {
	ObjectID      string `json:"object_id"`
	Class         string `json:"class"`
	RetainedBytes int64  `json:"retained_bytes"`
}

type dominatorJSON struct {
	ObjectID           string          `json:"object_id"`
	Class              string          `json:"class"`
	ShallowBytes       int64           `json:"shallow_bytes"`
	RetainedBytes      int64           `json:"retained_bytes"`
	RetainedObjects    int64           `json:"retained_objects"`
	ImmediateDominator string          `json:"immediate_dominator"`
	Dominated          []dominatedJSON `json:"dominated"`
}

// dominatorsOf runs `hprofctl dominators --class REGEX` with every row and
// every dominated object listed.
func dominatorsOf(t *testing.T, path, class string, extra ...string) []dominatorJSON {
	t.Helper()
	var rows []dominatorJSON
	runJSON(t, &rows, append([]string{"dominators", path, "--class", class, "--top", "0", "--children", "1000"}, extra...)...)
	return rows
}

// dominatedSuffixes lists the class names an object immediately dominates,
// each cut after its last '$'.
func dominatedSuffixes(row dominatorJSON) []string {
	var out []string
	for _, d := range row.Dominated {
		out = append(out, d.Class[strings.LastIndex(d.Class, "$")+1:])
	}
	sort.Strings(out)
	return out
}

// TestDominatorsEclipseMAT is Eclipse MAT's own dominator test on the dumps
// of its CreateSampleDump program: the DominatorTestData graph (the one of
// Lengauer and Tarjan's paper) under its single R instance.
func TestDominatorsEclipseMAT(t *testing.T) {
	dir := filepath.Join(sharedCorpus(t), "eclipse-mat_mat")
	const prefix = `^org\.eclipse\.mat\.tests\.CreateSampleDump\$DominatorTestData\$`
	want := map[string]string{"R": "A B C D E H I K", "C": "F G", "D": "L", "G": "J"}
	for _, c := range []struct {
		dump          string
		retainedBytes int64
	}{{"sun_jdk6_32bit.hprof.gz", 224}, {"sun_jdk5_64bit.hprof.gz", 376}} {
		t.Run(c.dump, func(t *testing.T) {
			path := filepath.Join(dir, c.dump)
			rows := dominatorsOf(t, path, prefix)
			byName := map[string]dominatorJSON{}
			for _, r := range rows {
				byName[r.Class[strings.LastIndex(r.Class, "$")+1:]] = r
			}
			if len(rows) != 13 || len(byName) != 13 {
				t.Fatalf("%d instances of %d classes, want 13 of 13", len(rows), len(byName))
			}
			for name, row := range byName {
				got := strings.Join(dominatedSuffixes(row), " ")
				if got != want[name] {
					t.Errorf("%s immediately dominates [%s], want [%s]", name, got, want[name])
				}
			}
			r := byName["R"]
			if r.RetainedObjects != 13 || r.RetainedBytes != c.retainedBytes {
				t.Errorf("R retains %d objects, %d bytes; want 13 and %d", r.RetainedObjects, r.RetainedBytes, c.retainedBytes)
			}
			if !strings.HasPrefix(r.ImmediateDominator, "0x") && r.ImmediateDominator != "root" {
				t.Errorf("R's immediate dominator %q is no object id", r.ImmediateDominator)
			}
			for name, row := range byName {
				if name != "R" && !strings.HasPrefix(row.ObjectID, "0x") {
					t.Errorf("%s: object id %q", name, row.ObjectID)
				}
			}
		})
	}
}

// TestDominatorsRegistryMap checks the retained size of the static map of
// fixture.Registry against EXPECTED.md's sum: HashMap 48 + Node[256] 1040 +
// 100 × (Node 32 + String 24 + byte[11] 32 + Payload 24 + byte[1000] 1016),
// 502 objects; each Payload retains itself and its byte[1000].
func TestDominatorsRegistryMap(t *testing.T) {
	path := fixturePath(t, "jdk17-default.hprof.gz")
	var found bool
	for _, r := range dominatorsOf(t, path, `^java\.util\.HashMap$`) {
		if r.RetainedObjects == 502 {
			found = true
			if r.RetainedBytes != 113888 || r.ShallowBytes != 48 {
				t.Errorf("the map retains %d bytes with shallow %d; want 113888 and 48", r.RetainedBytes, r.ShallowBytes)
			}
		}
	}
	if !found {
		t.Error("no HashMap retains 502 objects")
	}
	payloads := dominatorsOf(t, path, `^fixture\.Payload$`)
	if len(payloads) != 100 {
		t.Fatalf("%d Payloads, want 100", len(payloads))
	}
	for _, p := range payloads {
		if p.RetainedBytes != 24+1016 || p.RetainedObjects != 2 || len(p.Dominated) != 1 || p.Dominated[0].Class != "byte[]" {
			t.Errorf("Payload %s: retains %d bytes, %d objects, dominates %+v; want 1040, 2, its byte[1000]",
				p.ObjectID, p.RetainedBytes, p.RetainedObjects, p.Dominated)
		}
	}
}

// TestDominatorsWeakOnly checks that an object reachable only through a
// WeakReference's referent is not in the dominator tree, and with
// --keep-unreachable hangs right under the virtual root.
func TestDominatorsWeakOnly(t *testing.T) {
	path := fixturePath(t, "jdk17-default.hprof.gz")
	if rows := dominatorsOf(t, path, `^fixture\.WeakOnly$`); len(rows) != 0 {
		t.Errorf("WeakOnly is in the tree: %+v", rows)
	}
	rows := dominatorsOf(t, path, `^fixture\.WeakOnly$`, "--keep-unreachable")
	if len(rows) != 1 || rows[0].ImmediateDominator != "root" || rows[0].RetainedBytes != 24 {
		t.Errorf("with --keep-unreachable: %+v; want one WeakOnly of 24 bytes under root", rows)
	}
}

// TestDominatorsTopAndByClass checks the default rows (the top of the
// tree, all under the virtual root, biggest first) and --by-class.
func TestDominatorsTopAndByClass(t *testing.T) {
	path := fixturePath(t, "jdk17-default.hprof.gz")
	var rows []dominatorJSON
	runJSON(t, &rows, "dominators", path, "--top", "5")
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	for k, r := range rows {
		if r.ImmediateDominator != "root" {
			t.Errorf("row %d: immediate dominator %s, want root", k, r.ImmediateDominator)
		}
		if k > 0 && r.RetainedBytes > rows[k-1].RetainedBytes {
			t.Errorf("row %d retains more than row %d", k, k-1)
		}
	}
	var classes []struct {
		Class         string `json:"class"`
		Objects       int64  `json:"objects"`
		RetainedBytes int64  `json:"retained_bytes"`
	}
	runJSON(t, &classes, "dominators", path, "--by-class", "--class", `^fixture\.Payload$`)
	if len(classes) != 1 || classes[0].Objects != 100 || classes[0].RetainedBytes != 100*1040 {
		t.Errorf("--by-class Payload: %+v; want 100 objects retaining 104000 bytes", classes)
	}
	table, err := runCLI(t, "dominators", path, "--top", "3", "--bytes")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table, "unreachable objects") || !strings.Contains(table, "reachable heap") {
		t.Errorf("table lacks the totals and the unreachable note:\n%s", table)
	}
}
