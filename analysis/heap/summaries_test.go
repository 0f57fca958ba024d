package heap

import (
	"reflect"
	"regexp"
	"testing"
	"unsafe"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/internal/testload"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// summaryFixtures are dumps of real JVMs the summaries an index keeps are
// checked on: the collections and threads of fixture.Inspect, and a
// default dump.
var summaryFixtures = []string{"jdk17-inspect-before.hprof.gz", "jdk25-inspect-after.hprof.gz", "jdk17-default.hprof.gz"}

// TestCollectionSumsAnswerAsRead: the sums worked out for an index give
// the answer that reading every collection gives, in both size modes and
// with the rows cut; a question they cannot answer (the objects, another
// size mode) reads the collections.
func TestCollectionSumsAnswerAsRead(t *testing.T) {
	for _, name := range summaryFixtures {
		t.Run(name, func(t *testing.T) {
			h, _ := testload.Fixture(t, name)
			sums, err := SumCollections(h, model.SizeJVM)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []CollectionOptions{{}, {Top: 3}, {Size: model.SizeFields}, {Objects: true, Top: 5}} {
				want, err := Collections(h, o)
				if err != nil {
					t.Fatal(err)
				}
				if want.Collections == 0 || len(want.Arrays) == 0 && len(want.ArrayObjects) == 0 {
					t.Fatalf("%+v: no collections or no wasteful arrays to compare: %+v", o, want)
				}
				o.Sums = sums
				if used := o.Size == model.SizeJVM && !o.Objects; sums.answers(o) != used {
					t.Errorf("%+v: the sums answer: %v, want %v", o, !used, used)
				}
				got, err := Collections(h, o)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%+v: from the sums %+v\nread %+v", o, got, want)
				}
				o.Sums = nil
				analysistest.WithParallelism(3, func() {
					got, err = Collections(h, o)
				})
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%+v: found on 3 goroutines in chunks of a few objects %+v (%v)\nin the default chunks %+v", o, got, err, want)
				}
			}
			analysistest.WithParallelism(3, func() {
				parallelSums, err := SumCollections(h, model.SizeJVM)
				if err != nil || !reflect.DeepEqual(parallelSums, sums) {
					t.Errorf("sums on 3 goroutines in chunks of a few objects %+v (%v), in the default chunks %+v", parallelSums, err, sums)
				}
			})
		})
	}
}

// TestClassChainsAnswerAsComputed: `retainers --class` answered from the
// class chains an index keeps gives the paths keying every instance now
// gives, for one class, several, every class and every array class, and
// that keying in parallel (four goroutines, objects cut in chunks of
// seven) gives too.
func TestClassChainsAnswerAsComputed(t *testing.T) {
	patterns := []string{`^java\.lang\.String$`, `^java\.lang\.(String|Class|Thread)$`, `\[\]$`, `.`, `HashMap`}
	for _, name := range summaryFixtures {
		t.Run(name, func(t *testing.T) {
			h, _ := testload.Fixture(t, name)
			tree := graph.StrongPaths(h)
			chains := graph.SummarizeClassChains(h, tree)
			for _, pattern := range patterns {
				for _, paths := range []int{1, 3, 64} {
					o := graph.RetainerOptions{Class: regexp.MustCompile(pattern), Paths: paths, Strong: tree}
					want := graph.ShortestPaths(h, o)
					if len(want.Chains) == 0 {
						t.Fatalf("%s: no paths to compare", pattern)
					}
					analysistest.WithParallelism(4, func() {
						if got := graph.ShortestPaths(h, o); !reflect.DeepEqual(got, want) {
							t.Errorf("%s, %d paths, keyed in parallel: %+v, keyed in one pass %+v", pattern, paths, got, want)
						}
					})
					o.Chains = chains
					if got := graph.ShortestPaths(h, o); !reflect.DeepEqual(got, want) {
						t.Errorf("%s, %d paths, from the class chains: %+v, computed %+v", pattern, paths, got, want)
					}
				}
			}
		})
	}
}

// TestCollectionsOutOfCore: under a memory budget of one byte the
// collections' states are a mapped scratch file; the sums, the report and
// the measured objects are those worked out in memory.
func TestCollectionsOutOfCore(t *testing.T) {
	h, _ := testload.Fixture(t, "jdk17-inspect-before.hprof.gz")
	colls, _ := findCollections(h, jdkClassesOf(h), model.HeapSelection{})
	if len(colls) == 0 {
		t.Fatal("the fixture has no collections")
	}
	ask := func() (*CollectionSums, CollectionReport, []CollectionObject) {
		sums, err := SumCollections(h, model.SizeJVM)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Collections(h, CollectionOptions{Objects: true})
		if err != nil {
			t.Fatal(err)
		}
		objs, err := MeasureCollection(h, colls)
		if err != nil {
			t.Fatal(err)
		}
		return sums, rep, objs
	}
	sums, rep, objs := ask()
	restore := bigmem.SetBudget(1, t.TempDir())
	before := bigmem.MappedBytes()
	states := makeStates(len(colls))
	mapped := bigmem.MappedBytes() - before
	freeStates(states)
	sumsOut, repOut, objsOut := ask()
	left := bigmem.MappedBytes() - before
	restore()
	if mapped < int64(len(colls))*int64(unsafe.Sizeof(collectionState{})) {
		t.Errorf("%d bytes mapped for %d states under a one-byte budget", mapped, len(colls))
	}
	if left != 0 {
		t.Errorf("%d bytes of states still mapped after the questions", left)
	}
	if !reflect.DeepEqual(sumsOut, sums) || !reflect.DeepEqual(repOut, rep) || !reflect.DeepEqual(objsOut, objs) {
		t.Errorf("out of core: %+v, %+v, %d objects; in memory: %+v, %+v, %d objects", sumsOut, repOut, len(objsOut), sums, rep, len(objs))
	}
}
