package session

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store/storetest"
)

// leakQuestion is what the lazy path tests ask: the suspects above 1%.
var leakQuestion = LeakOptions{Threshold: 0.01, Classes: 3}

// pathExceptions are the objects whose parent on the shortest paths the
// index keeps apart from their immediate dominator, in the order of the
// section paths.strong-parent.other.
func pathExceptions(t *testing.T, data []byte) []uint32 {
	t.Helper()
	differs := storetest.Section(data, "paths.strong-parent.differs")
	var out []uint32
	for w := 0; w+8 <= len(differs); w += 8 {
		for word := binary.LittleEndian.Uint64(differs[w:]); word != 0; word &= word - 1 {
			out = append(out, uint32(w/8*64+bits.TrailingZeros64(word)))
		}
	}
	if len(out) == 0 {
		t.Fatal("the fixture's shortest path tree has no parent apart from the dominators")
	}
	return out
}

// onLeakPaths returns the objects on the paths that the leak report l of
// heap h shows, and those on the paths of every object at the top of the
// dominator tree, which leaks may follow for a class group: all from the
// sound session s.
func onLeakPaths(t *testing.T, s *Session, l Leaks) (shown, followed map[uint32]bool) {
	t.Helper()
	h, err := s.Heap()
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Retention()
	if err != nil {
		t.Fatal(err)
	}
	tree, err := s.StrongPaths()
	if err != nil {
		t.Fatal(err)
	}
	followed = map[uint32]bool{}
	for _, top := range r.TopLevel() {
		for _, obj := range tree.ChainTo(top) {
			followed[uint32(obj)] = true
		}
	}
	shown = map[uint32]bool{}
	for _, s := range l.Report.Suspects {
		for _, step := range s.Path {
			i := stepObject(t, h, step)
			shown[i] = true
			followed[i] = true
		}
	}
	return shown, followed
}

// TestLeaksCheckPathsTheyFollow: leaks check the index's shortest path
// tree only along the paths they follow. A parent cycle off those paths
// and off those retainers of a class show leaves both answers and says
// nothing (the tree is not walked as a whole), while a question that
// walks the whole tree (retainers of an object) still finds it; a
// cycle on one of their paths makes the tree computed again with a
// warning, and the answer is a sound index's.
func TestLeaksCheckPathsTheyFollow(t *testing.T) {
	path, good := fixtureIndex(t)
	s, err := Open(fixture, Options{Dump: -1, Index: path})
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.Leaks(leakQuestion)
	if err != nil {
		t.Fatal(err)
	}
	shown, followed := onLeakPaths(t, s, want)
	classTarget := graph.RetainerOptions{Class: regexp.MustCompile(`^fixture\.Payload$`), Paths: 3}
	wantClass, err := s.Retainers(classTarget)
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Heap()
	if err != nil {
		t.Fatal(err)
	}
	classShown := objectsOnPaths(t, h, wantClass)
	s.Close()
	if len(want.Report.Suspects) == 0 || len(shown) == 0 {
		t.Fatalf("the fixture has %d suspects on %d objects of paths; the test needs some", len(want.Report.Suspects), len(shown))
	}
	cases := []struct {
		name    string
		choose  func(obj uint32) bool
		warnsAt string // the question that says the tree is damaged
	}{
		{"on the paths leaks show", func(obj uint32) bool { return shown[obj] }, "leaks"},
		{"off every path leaks may follow", func(obj uint32) bool { return !followed[obj] && !classShown[obj] }, "retainers"},
	}
	for _, c := range cases {
		data, looped := loopedParents(t, good, c.choose)
		if looped == 0 {
			t.Fatalf("%s: no object to loop", c.name)
		}
		s, notes := openIndexWithNotes(t, path, data)
		got, err := s.Leaks(leakQuestion)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s (%d looped): leaks %v; equal to a sound index's: %v", c.name, looped, err, reflect.DeepEqual(got, want))
		}
		afterLeaks := notes.String()
		// A class target follows a few chains of the tree too; an
		// object target walks the whole tree.
		if gotClass, err := s.Retainers(classTarget); err != nil || !reflect.DeepEqual(gotClass, wantClass) {
			t.Errorf("%s: retainers --class %v; equal to a sound index's: %v", c.name, err, reflect.DeepEqual(gotClass, wantClass))
		}
		if c.warnsAt == "retainers" && notes.Len() > 0 {
			t.Errorf("%s: retainers --class said %q", c.name, notes.String())
		}
		if _, err := s.Retainers(graph.RetainerOptions{Objects: []model.ObjectIndex{0}, Paths: 3}); err != nil {
			t.Errorf("%s: retainers: %v", c.name, err)
		}
		s.Close()
		const says = "the index's shortest path tree is not used, it is computed again"
		saidByLeaks := strings.Contains(afterLeaks, says) && strings.Contains(afterLeaks, "cycle")
		if saidByLeaks != (c.warnsAt == "leaks") || !strings.Contains(notes.String(), says) {
			t.Errorf("%s: after leaks the session said %q, after retainers %q; want the warning from %s on", c.name, afterLeaks, notes.String(), c.warnsAt)
		}
	}
}

// TestCraftedAccumulationPoints: the accumulation points an index keeps
// give the leak suspects the dump gives, at the default threshold and at
// the smallest, and points whose checksum is valid but which cannot be
// the tree's (an object out of range, a walk said to end where it goes
// on, one a step deeper than it is, one that does not climb back to its
// object) are not used: the session says so and finds them again.
func TestCraftedAccumulationPoints(t *testing.T) {
	questions := []LeakOptions{leakQuestion, {Threshold: 0.1, Classes: 5}, {Threshold: 0.0001, Classes: 2}}
	ask := func(s *Session) []Leaks {
		t.Helper()
		var out []Leaks
		for _, q := range questions {
			l, err := s.Leaks(q)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, l)
		}
		return out
	}
	s, err := Open(fixture, Options{Dump: -1, NoIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	direct := ask(s)
	s.Close()
	path, good := fixtureIndex(t)
	askIndex := func(data []byte) ([]Leaks, string, *heap.AccumulationPoints) {
		t.Helper()
		s, notes := openIndexWithNotes(t, path, data)
		defer s.Close()
		got := ask(s)
		return got, notes.String(), s.indexOf().summaries.points
	}
	got, said, points := askIndex(good)
	if !reflect.DeepEqual(got, direct) || said != "" || points == nil {
		t.Fatalf("from the index: answers equal the dump's: %v; said %q; points used: %v", reflect.DeepEqual(got, direct), said, points != nil)
	}
	singles, deeper := 0, 0
	for _, l := range direct {
		for _, s := range l.Report.Suspects {
			if s.ObjectID != "" {
				singles++
				if s.AccumulationPoint != nil && s.AccumulationPoint.ObjectID != s.ObjectID {
					deeper++
				}
			}
		}
	}
	walks := storetest.Section(good, heap.SectionAccumulationPoints)
	if singles == 0 || deeper == 0 || len(walks) < 12 {
		t.Fatalf("the fixture has %d single suspects, %d with a point below them, %d bytes of walks; the test needs some", singles, deeper, len(walks))
	}
	// each changes every walk (top, end, depth) that has a step.
	each := func(change func(w []byte)) func([]byte) {
		return func(b []byte) {
			for k := 0; k+12 <= len(b); k += 12 {
				if binary.LittleEndian.Uint32(b[k+8:]) > 0 {
					change(b[k : k+12])
				}
			}
		}
	}
	put := func(w []byte, at int, v uint32) { binary.LittleEndian.PutUint32(w[4*at:], v) }
	get := func(w []byte, at int) uint32 { return binary.LittleEndian.Uint32(w[4*at:]) }
	cases := []struct {
		name   string
		change func([]byte)
		says   string
	}{
		{"objects out of range", fill(0xFFFFFFFF), "is not one of a top object"},
		{"walks ending at their object", each(func(w []byte) { put(w, 1, get(w, 0)); put(w, 2, 0) }), "which object"},
		{"walks a step deeper", each(func(w []byte) { put(w, 2, get(w, 2)+1) }), "does not step into"},
		{"walks from another object", each(func(w []byte) { put(w, 1, get(w, 0)) }), "does not step into"},
	}
	for _, c := range cases {
		data := bytes.Clone(good)
		c.change(storetest.Section(data, heap.SectionAccumulationPoints))
		storetest.Reseal(data)
		got, said, points := askIndex(data)
		if !reflect.DeepEqual(got, direct) {
			t.Errorf("%s: the suspects differ from the dump's", c.name)
		}
		if points != nil || !strings.Contains(said, "accumulation points are not used") || !strings.Contains(said, c.says) {
			t.Errorf("%s: points used: %v; the session said %q; want %q", c.name, points != nil, said, c.says)
		}
	}
}

// TestRetainersOfClassCheckPathsTheyShow: retainers of a class answered
// from the index's class chains check the shortest path tree along the
// chains they show: a parent cycle on one of them makes the tree
// computed again with a warning, and the answer is a sound index's. The
// class is the first of the fixture whose paths shown pass through an
// object whose parent the index keeps apart from its dominator (the
// parents a damaged index can loop).
func TestRetainersOfClassCheckPathsTheyShow(t *testing.T) {
	path, good := fixtureIndex(t)
	s, err := Open(fixture, Options{Dump: -1, Index: path})
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Heap()
	if err != nil {
		t.Fatal(err)
	}
	exceptions := pathExceptions(t, good)
	isException := map[uint32]bool{}
	for _, obj := range exceptions {
		isException[obj] = true
	}
	var (
		target graph.RetainerOptions
		want   heap.Retainers
		shown  map[uint32]bool
	)
	for c := range h.Classes {
		o := graph.RetainerOptions{Class: regexp.MustCompile("^" + regexp.QuoteMeta(h.Classes[c].Name) + "$"), Paths: 3}
		r, err := s.Retainers(o)
		if err != nil {
			t.Fatal(err)
		}
		on := objectsOnPaths(t, h, r)
		for obj := range on {
			if isException[obj] {
				target, want, shown = o, r, on
			}
		}
		if shown != nil {
			break
		}
	}
	s.Close()
	if shown == nil {
		t.Fatal("no class's paths pass through an object whose parent is not its dominator")
	}
	data, _ := loopedParents(t, good, func(obj uint32) bool { return shown[obj] })
	s, notes := openIndexWithNotes(t, path, data)
	defer s.Close()
	got, err := s.Retainers(target)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("retainers --class %s: %v; equal to a sound index's: %v", target.Class, err, reflect.DeepEqual(got, want))
	}
	if says := "the index's shortest path tree is not used, it is computed again"; !strings.Contains(notes.String(), says) {
		t.Errorf("the session said %q; want %q", notes.String(), says)
	}
}

// objectsOnPaths are the objects of r's paths.
func objectsOnPaths(t *testing.T, h *model.Heap, r heap.Retainers) map[uint32]bool {
	t.Helper()
	on := map[uint32]bool{}
	for _, p := range r.Paths {
		for _, step := range p.Chain {
			on[stepObject(t, h, step)] = true
		}
	}
	return on
}

// stepObject is the object of a path's step.
func stepObject(t *testing.T, h *model.Heap, step heap.PathStep) uint32 {
	t.Helper()
	id, err := strconv.ParseUint(strings.TrimPrefix(step.ObjectID, "0x"), 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	i, ok := h.Lookup(id)
	if !ok {
		t.Fatalf("path step %s is no object of the heap", step.ObjectID)
	}
	return uint32(i)
}

// loopedParents is the index good with each object choose picks, among
// those whose parent on the shortest paths it keeps apart from their
// immediate dominator (pathExceptions), made its own parent, and how
// many it picked.
func loopedParents(t *testing.T, good []byte, choose func(obj uint32) bool) ([]byte, int) {
	t.Helper()
	data := bytes.Clone(good)
	other := storetest.Section(data, "paths.strong-parent.other")
	looped := 0
	for k, obj := range pathExceptions(t, good) {
		if choose(obj) {
			binary.LittleEndian.PutUint32(other[4*k:], obj)
			looped++
		}
	}
	storetest.Reseal(data)
	return data, looped
}

// openIndexWithNotes writes data as the index at path and opens the
// fixture with it, the session's notes kept.
func openIndexWithNotes(t *testing.T, path string, data []byte) (*Session, *bytes.Buffer) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	notes := &bytes.Buffer{}
	s, err := Open(fixture, Options{Dump: -1, Index: path, Notes: notes})
	if err != nil {
		t.Fatal(err)
	}
	return s, notes
}
