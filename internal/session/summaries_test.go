package session

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/model/store/storetest"
)

// summaryQuestions asks s the questions the summaries answer: the
// retainers of classes with more paths than the index keeps described
// (heap.KeptRetainers), which the class chains then answer.
func summaryQuestions(s *Session) (any, error) {
	r, err := s.Retainers(graph.RetainerOptions{Class: regexp.MustCompile(`^java\.lang\.(String|Thread)$`), Paths: heap.KeptRetainerPaths + 1})
	if err != nil {
		return nil, err
	}
	th, err := s.HeapThreads(ThreadOptions{Retained: true})
	if err != nil {
		return nil, err
	}
	c, err := s.Collections(heap.CollectionOptions{})
	if err != nil {
		return nil, err
	}
	return []any{r, th, c}, nil
}

// TestCraftedSummaries: the summaries an index keeps (class chains,
// thread edges, collection sums) answer as the dump does, and one whose
// checksum is valid but whose content cannot be the heap's is not used:
// the session says so and computes the answer.
func TestCraftedSummaries(t *testing.T) {
	dump := testshared.Gunzip(t, fixture)
	direct, err := func() (any, error) {
		s, err := Open(dump, Options{Dump: -1, NoIndex: true})
		if err != nil {
			return nil, err
		}
		defer s.Close()
		return summaryQuestions(s)
	}()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fixture"+store.Suffix)
	ask := func() (any, string) {
		t.Helper()
		var notes bytes.Buffer
		s, err := Open(dump, Options{Dump: -1, Index: path, Notes: &notes})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got, err := summaryQuestions(s)
		if err != nil {
			t.Fatal(err)
		}
		return got, notes.String()
	}
	if got, _ := ask(); !reflect.DeepEqual(got, direct) { // builds the index
		t.Fatal("the answers while building the index differ from the dump's")
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, said := ask(); !reflect.DeepEqual(got, direct) || said != "" {
		t.Fatalf("from the index: answers equal the dump's: %v; said %q", reflect.DeepEqual(got, direct), said)
	}
	json := func(text string) func([]byte) {
		return func(b []byte) { copy(b, text+strings.Repeat(" ", len(b)-len(text))) }
	}
	cases := []struct {
		section string
		change  func([]byte)
		says    string
	}{
		{"paths.class-chains", json(`[{"class":0,"targets":1,"unreached":0,"groups":[[4000000000,1]]}]`), "class chains are not used"},
		{"paths.class-chains", json(`{`), "class chains are not used"},
		{"threads.contracted-edges", fill(0xFFFFFFFF), "thread edges are not used"},
		{"threads.contracted-edges", fill(0), "thread edges are not used"},
		{"collections.sums", json(`{"size":0,"classes":[{"class":100000,"instances":1}]}`), "collection sums are not used"},
		{"collections.sums", json(`{"size":0,"classes":[{"class":0,"instances":-1}]}`), "collection sums are not used"},
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
		got, said := ask()
		if !reflect.DeepEqual(got, direct) {
			t.Errorf("%s crafted: the answers differ from the dump's", c.section)
		}
		if !strings.Contains(said, c.says) {
			t.Errorf("%s crafted: the session said %q; want %q", c.section, said, c.says)
		}
	}
}

// TestBackgroundSums: the collections' sums a build starts alongside the
// dominator tree are the ones worked out directly, started once however
// many times start is called, and the fixture's JDK collections are in
// them.
func TestBackgroundSums(t *testing.T) {
	h, stop, err := loadForIndex(testshared.Gunzip(t, fixture), indexOptions{}, func(string) {})
	defer stop()
	if err != nil {
		t.Fatal(err)
	}
	want := collectionSums(h)
	if want == nil || len(want.Classes) == 0 {
		t.Fatalf("the fixture's collections summed to %+v", want)
	}
	b := newBackground[*heap.CollectionSums]()
	b.start(func() *heap.CollectionSums { return collectionSums(h) })
	b.start(func() *heap.CollectionSums { return collectionSums(h) })
	if got := b.wait(); !reflect.DeepEqual(got, want) {
		t.Errorf("sums in the background %+v, want %+v", got, want)
	}
	select {
	case extra := <-b.done:
		t.Errorf("summed twice: %+v", extra)
	case <-time.After(100 * time.Millisecond):
	}
}
