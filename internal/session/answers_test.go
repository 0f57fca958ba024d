package session

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/model/store/storetest"
)

// keptQuestions asks s what the index answers from its classes and kept
// answers: the histogram, the top of the dominator tree (the default
// page, and one further down with fewer children), the leak suspects at
// the default threshold and the retainers of a few classes and of every
// class; each answer as JSON, as reports write it.
func keptQuestions(t *testing.T, s *Session) []string {
	t.Helper()
	var out []string
	add := func(v any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	add(s.Histogram(heap.HistoOptions{}))
	add(s.Histogram(heap.HistoOptions{Sort: "count", Top: 5}))
	add(s.Dominators(heap.DominatorOptions{Top: 20, Children: 10}))
	add(s.Dominators(heap.DominatorOptions{Top: 7, Offset: 5, Children: 3}))
	add(s.Leaks(LeakOptions{Threshold: keptLeakThreshold, Classes: 5}))
	add(s.Retainers(graph.RetainerOptions{Class: regexp.MustCompile(`java\.lang\.String`), Paths: 3}))
	add(s.Retainers(graph.RetainerOptions{Class: regexp.MustCompile(`.`), Paths: heap.KeptRetainerPaths}))
	return out
}

// askDump answers keptQuestions about the dump at path from an index at
// index (building it when there is none), or from the dump itself when
// index is "", with what the session said.
func askDump(t *testing.T, path, index string) (answers []string, said string, s *Session) {
	t.Helper()
	var notes bytes.Buffer
	s, err := Open(path, Options{Dump: -1, Index: index, NoIndex: index == "", Notes: &notes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return keptQuestions(t, s), notes.String(), s
}

// TestKeptAnswersAsComputed: JVM dumps' histogram, top of the dominator
// tree, leak suspects and retainers of classes, asked of a fresh index, are answered from its
// classes and kept answers without reading its objects (the session
// holds no heap with objects after them), and equal those computed from
// the dump itself. The index of a file gzipped whole keeps neither leak
// suspects nor retainers of classes (those questions read the index's
// objects); that of a dump the JVM gzipped keeps both, the leak
// suspects' paths read from their gzip members, the retainers' paths
// with their records' offsets, labeled by the question from the members
// it shows.
func TestKeptAnswersAsComputed(t *testing.T) {
	dumps := []string{fixture, filepath.Join("..", "..", "testdata", "jvm", "jdk17-gz.hprof.gz")}
	for _, name := range []string{"jdk17-default", "jdk17-oom", "jdk17-nocoops-noccp", "jdk25-default"} {
		dumps = append(dumps, testshared.Gunzip(t, filepath.Join("..", "..", "testdata", "jvm", name+".hprof.gz")))
	}
	for _, dump := range dumps {
		name := filepath.Base(dump)
		direct, _, _ := askDump(t, dump, "")
		index := filepath.Join(t.TempDir(), name+store.Suffix)
		if built, _, _ := askDump(t, dump, index); !equalAnswers(built, direct) {
			t.Fatalf("%s: the answers while building the index differ from the dump's", name)
		}
		got, said, s := askDump(t, dump, index)
		if !equalAnswers(got, direct) || said != "" {
			t.Errorf("%s: from the index, answers equal the dump's: %v; said %q", name, equalAnswers(got, direct), said)
		}
		// jdk17-gz is the JVM's -gz dump, the default fixture a file
		// gzipped afterwards (one member: read again only as a stream).
		keeps := !strings.HasSuffix(dump, ".gz") || name == "jdk17-gz.hprof.gz"
		if objects := s.index != nil; objects == keeps {
			t.Errorf("%s: the session read the index's objects: %v, want %v", name, objects, !keeps)
		}
		if s.classes == nil {
			t.Fatalf("%s: the index was not opened for its classes", name)
		}
		if _, ok := s.classes.ix.Section(heap.SectionKeptLeaks); ok != keeps {
			t.Errorf("%s: the index keeps leak suspects: %v, want %v", name, ok, keeps)
		}
		if _, ok := s.classes.ix.Section(heap.SectionKeptRetainers); ok != keeps {
			t.Errorf("%s: the index keeps retainers of classes: %v, want %v", name, ok, keeps)
		}
		if !keeps {
			continue
		}
		k, err := heap.ReadKeptRetainers(s.classes.ix, s.classes.heap)
		if err != nil {
			t.Fatal(err)
		}
		offsets := slices.ContainsFunc(k.Classes, func(c heap.KeptClassRetainers) bool { return len(c.Offsets) > 0 })
		if gz := strings.HasSuffix(dump, ".gz"); offsets != gz {
			t.Errorf("%s: the kept paths hold offsets for the question to label: %v, want %v", name, offsets, gz)
		}
	}
}

// TestKeptRetainersLabeledAtBuild: where the build of a -gz dump's index
// labels the steps from every object array (labeledAtBuild with no size
// too small), leaving the others to the question, the retainers of
// classes the index keeps still equal those computed from the dump.
func TestKeptRetainersLabeledAtBuild(t *testing.T) {
	defer func(was int64) { bigArrayBytes = was }(bigArrayBytes)
	bigArrayBytes = 0
	dump := filepath.Join("..", "..", "testdata", "jvm", "jdk17-gz.hprof.gz")
	direct, _, _ := askDump(t, dump, "")
	index := filepath.Join(t.TempDir(), "gz"+store.Suffix)
	askDump(t, dump, index)
	got, _, s := askDump(t, dump, index)
	if !equalAnswers(got, direct) {
		t.Error("from the index, the answers differ from the dump's")
	}
	k, err := heap.ReadKeptRetainers(s.classes.ix, s.classes.heap)
	if err != nil {
		t.Fatal(err)
	}
	built, asked := 0, 0
	for _, c := range k.Classes {
		for _, offsets := range c.Offsets {
			for _, at := range offsets {
				if at < 0 {
					built++
				} else {
					asked++
				}
			}
		}
	}
	if built == 0 || asked == 0 {
		t.Errorf("%d steps labeled by the build, %d left to the question: the comparison shows less than it should", built, asked)
	}
}

// equalAnswers reports whether two lists of answers are the same.
func equalAnswers(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// rewriteJSON returns what rewrites a JSON section: change applied to
// its value decoded as a T, written back in its place, padded with
// spaces (the test fails when it does not fit).
func rewriteJSON[T any](t *testing.T, change func(*T)) func([]byte) {
	return func(b []byte) {
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		change(&v)
		out, err := json.Marshal(&v)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > len(b) {
			t.Fatalf("the changed section takes %d bytes, it has %d", len(out), len(b))
		}
		copy(b, out)
		copy(b[len(out):], bytes.Repeat([]byte(" "), len(b)-len(out)))
	}
}

// TestCraftedKeptAnswers: kept answers whose checksums are valid but
// whose content cannot be the tree's are not used: the session says so
// and computes the answer, which equals the dump's.
func TestCraftedKeptAnswers(t *testing.T) {
	dump := testshared.Gunzip(t, filepath.Join("..", "..", "testdata", "jvm", "jdk17-oom.hprof.gz"))
	direct, _, _ := askDump(t, dump, "")
	path := filepath.Join(t.TempDir(), "oom"+store.Suffix)
	askDump(t, dump, path)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	garbage := func(b []byte) { copy(b, `[`) }
	dominators := func(change func(*heap.KeptDominators)) func([]byte) { return rewriteJSON(t, change) }
	leaks := func(change func(*heap.KeptLeaks)) func([]byte) { return rewriteJSON(t, change) }
	retainers := func(change func(*heap.KeptRetainers)) func([]byte) { return rewriteJSON(t, change) }
	cases := []struct {
		name, section string
		change        func([]byte)
		says          string
	}{
		{"cut", heap.SectionKeptDominators, garbage, "kept dominators are not used"},
		{"rows swapped", heap.SectionKeptDominators, dominators(func(k *heap.KeptDominators) {
			k.Report.Rows[0], k.Report.Rows[1] = k.Report.Rows[1], k.Report.Rows[0]
		}), "retains more than the row before it"},
		{"other totals", heap.SectionKeptDominators, dominators(func(k *heap.KeptDominators) { k.Report.ReachableBytes++ }), "totals are not the tree's"},
		{"not at the top", heap.SectionKeptDominators, dominators(func(k *heap.KeptDominators) { k.Report.Rows[2].ImmediateDominator = "0x1" }), "not the root"},
		{"big child", heap.SectionKeptDominators, dominators(func(k *heap.KeptDominators) {
			k.Report.Rows[0].Dominated[0].RetainedBytes = k.Report.Rows[0].RetainedBytes
		}), "child 0 retains"},
		{"fewer selected than rows", heap.SectionKeptDominators, dominators(func(k *heap.KeptDominators) { k.Report.Selected = len(k.Report.Rows) - 1 }), "selected"},
		{"cut", heap.SectionKeptLeaks, garbage, "kept leak suspects are not used"},
		{"other percent", heap.SectionKeptLeaks, leaks(func(k *heap.KeptLeaks) { k.Report.Suspects[0].Percent /= 2 }), "suspect 0"},
		{"other total", heap.SectionKeptLeaks, leaks(func(k *heap.KeptLeaks) { k.Report.TotalBytes /= 2 }), "a total of"},
		{"a step without its size", heap.SectionKeptLeaks, leaks(func(k *heap.KeptLeaks) { k.PathRetained[0] = k.PathRetained[0][1:] }), "sizes"},
		{"too many classes", heap.SectionKeptLeaks, leaks(func(k *heap.KeptLeaks) { k.Classes = 0 }), "classes"},
		{"cut", heap.SectionKeptRetainers, garbage, "kept retainers are not used"},
		{"class out of range", heap.SectionKeptRetainers, retainers(func(k *heap.KeptRetainers) {
			// As many digits as the last class's index, past every class.
			last := &k.Classes[len(k.Classes)-1]
			last.Class = int32(math.Pow10(len(strconv.Itoa(int(last.Class))))) - 1
		}), "out of order or range"},
		{"classes out of order", heap.SectionKeptRetainers, retainers(func(k *heap.KeptRetainers) {
			k.Classes[0], k.Classes[1] = k.Classes[1], k.Classes[0]
		}), "out of order or range"},
		{"path to another class", heap.SectionKeptRetainers, retainers(func(k *heap.KeptRetainers) {
			c := &k.Classes[len(k.Classes)-1]
			c.Paths[0].Chain = c.Paths[0].Chain[:len(c.Paths[0].Chain)-1]
		}), "does not end at one of its"},
		{"more held than reached", heap.SectionKeptRetainers, retainers(func(k *heap.KeptRetainers) { k.Classes[0].Targets = 0 }), "instances"},
	}
	for _, c := range cases {
		data := bytes.Clone(good)
		sec := storetest.Section(data, c.section)
		if len(sec) == 0 {
			t.Fatalf("the index has no section %s", c.section)
		}
		c.change(sec)
		storetest.Reseal(data)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, said, _ := askDump(t, dump, path)
		if !equalAnswers(got, direct) {
			t.Errorf("%s %s: the answers differ from the dump's", c.section, c.name)
		}
		if !strings.Contains(said, "are not used") || !strings.Contains(said, c.says) {
			t.Errorf("%s %s: the session said %q; want %q", c.section, c.name, said, c.says)
		}
	}
}
