package heap

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/internal/testload"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// showFixture runs Show as the show command does on the objects of the
// dump at path that pick chooses.
func showFixture(t *testing.T, path string, pick func(h *model.Heap) []model.ObjectIndex, o ShowOptions) []ShowObject {
	t.Helper()
	h := testload.Heap(t, path)
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	objs := pick(h)
	var d ShowData
	d.Referrers, d.ReferrerTotals = Referrers(h, objs, o.MaxReferrers, model.HeapSelection{})
	if d.Values, err = model.ReadValues(h, ShowReads(h, objs, o), model.ValueOptions{Elements: ShowReadElements(o)}); err != nil {
		t.Fatal(err)
	}
	if d.Labels, err = model.ReadLabels(h, AllReferrers(d.Referrers, objs)); err != nil {
		t.Fatal(err)
	}
	return Show(h, r, objs, d, o)
}

// instancesNamed lists the instances of the class named name.
func instancesNamed(h *model.Heap, name string) []model.ObjectIndex {
	var out []model.ObjectIndex
	for i := range h.NumObjects() {
		if c := h.ClassOf(model.ObjectIndex(i)); c != model.NoClass && h.Classes[c].Name == name && !graph.IsClassObject(h, model.ObjectIndex(i)) {
			out = append(out, model.ObjectIndex(i))
		}
	}
	return out
}

// TestShowInspectTarget checks show of fixture.InspectTarget against what
// fixture.Inspect put in the heap (testdata/jvm/EXPECTED.md,
// "fixture.InspectTarget"): values, texts, sizes and the two referrers.
func TestShowInspectTarget(t *testing.T) {
	for _, jdk := range []string{"jdk17", "jdk25"} {
		t.Run(jdk, func(t *testing.T) {
			path := filepath.Join("..", "..", "testdata", "jvm", jdk+"-inspect-before.hprof.gz")
			got := showFixture(t, path, func(h *model.Heap) []model.ObjectIndex {
				return instancesNamed(h, "fixture.InspectTarget")
			}, ShowOptions{Elements: 10, Referrers: true})
			if len(got) != 1 {
				t.Fatalf("%d objects shown, want 1", len(got))
			}
			s := got[0]
			if s.Class != "fixture.InspectTarget" || s.ShallowBytes != 88 || s.RetainedBytes != 416 || len(s.GCRoot) != 0 || s.Length != nil || !s.Read {
				t.Errorf("target: %+v", s)
			}
			type want struct {
				typ, value, class, text string
			}
			wants := map[string]want{
				"flag":        {"boolean", "true", "", ""},
				"tiny":        {"byte", "-7", "", ""},
				"letter":      {"char", `"Q"`, "", ""},
				"shortValue":  {"short", "1234", "", ""},
				"intValue":    {"int", "305419896", "", ""},
				"longValue":   {"long", "1234605616436508552", "", ""},
				"floatValue":  {"float", "1.5", "", ""},
				"doubleValue": {"double", "-2.25", "", ""},
				"text":        {"object", "", "java.lang.String", "inspect-target-text"},
				"latin1Text":  {"object", "", "java.lang.String", "café"},
				"utf16Text":   {"object", "", "java.lang.String", "utf16-Ω-text"},
				"ints":        {"object", "", "int[]", ""},
				"asciiBytes":  {"object", "", "byte[]", "hello, inspect!"},
				"chars":       {"object", "", "char[]", "hprof"},
				"boxedInt":    {"object", "", "java.lang.Integer", "987654"},
				"boxedLong":   {"object", "", "java.lang.Long", "-5000000000"},
				"color":       {"object", "", "fixture.InspectColor", "GREEN"},
				"nothing":     {"object", "null", "", ""},
			}
			if len(s.Fields) != len(wants) {
				t.Errorf("%d fields, want %d", len(s.Fields), len(wants))
			}
			for _, f := range s.Fields {
				w, ok := wants[f.Name]
				if !ok {
					t.Errorf("unexpected field %s", f.Name)
					continue
				}
				value, _ := json.Marshal(f.Value)
				if f.Type != w.typ || f.Class != w.class || f.Text != w.text || (w.value != "" && string(value) != w.value) || (w.class != "" && len(value) < 4) {
					t.Errorf("field %s = %+v (value %s), want %+v", f.Name, f, value, w)
				}
			}
			vias := map[string]string{}
			for _, r := range s.Referrers {
				vias[r.Class] = r.Via
			}
			if len(s.Referrers) != 2 || vias["fixture.InspectReferrerA"] != "target" || vias["fixture.InspectReferrerB"] != "held" {
				t.Errorf("referrers %+v, want InspectReferrerA.target and InspectReferrerB.held", s.Referrers)
			}
		})
	}
}

// TestShowStackHeldArray: the long[1 << 20] held only by the frame of
// InspectStackHolder.hold on thread "inspect-stack-holder" (EXPECTED.md),
// with its first elements 0x4649525354 ("FIRST") and zeros, and no
// referrer.
func TestShowStackHeldArray(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "jvm", "jdk17-inspect-before.hprof.gz")
	got := showFixture(t, path, func(h *model.Heap) []model.ObjectIndex {
		for _, a := range instancesNamed(h, "long[]") {
			if h.ArrayLength(a) == 1<<20 {
				return []model.ObjectIndex{a}
			}
		}
		t.Fatal("no long[1048576]")
		return nil
	}, ShowOptions{Elements: 3, Referrers: true})
	s := got[0]
	if s.Length == nil || *s.Length != 1<<20 || s.ShallowBytes != 8388624 || s.RetainedBytes != 8388624 || len(s.Referrers) != 0 {
		t.Errorf("long[]: %+v", s)
	}
	if len(s.Elements) != 3 || s.Elements[0].Value != int64(0x4649525354) || s.Elements[1].Value != int64(0) || s.Elements[2].Index != 2 {
		t.Errorf("elements %+v", s.Elements)
	}
	if len(s.GCRoot) != 1 || s.GCRoot[0].Kind != model.RootJavaFrame.String() || s.GCRoot[0].Thread != "inspect-stack-holder" ||
		s.GCRoot[0].FrameDepth == nil || *s.GCRoot[0].FrameDepth != 5 {
		t.Errorf("gc roots %+v, want the java frame 5 of inspect-stack-holder", s.GCRoot)
	} else if s.GCRoot[0].Frame == "" {
		t.Errorf("root frame not named: %+v", s.GCRoot[0])
	}
}

// serialReferrers is every reference to target, one entry per reference
// in object order, by the plainest scan.
func serialReferrers(h *model.Heap, target model.ObjectIndex) []model.ObjectIndex {
	out := []model.ObjectIndex{}
	for i := range h.NumObjects() {
		for _, r := range h.Refs(model.ObjectIndex(i)) {
			if r == target {
				out = append(out, model.ObjectIndex(i))
			}
		}
	}
	return out
}

// TestReferrersMatchesSerial compares Referrers, in one goroutine and in
// four over chunks of 7 objects, with the plain scan on random heaps: the
// first limit references to each target (some listed twice, the hubs
// referenced from many chunks) and their total.
func TestReferrersMatchesSerial(t *testing.T) {
	for seed := range uint64(20) {
		h := analysistest.RandomHeap(t, seed)
		n := h.NumObjects()
		targets := []model.ObjectIndex{0, 1, 2, model.ObjectIndex(n / 2), model.ObjectIndex(n - 1), 1}
		for _, limit := range []int{0, 1, 3, 50} {
			for _, procs := range []int{1, 4} {
				analysistest.WithParallelism(procs, func() {
					first, total := Referrers(h, targets, limit, model.HeapSelection{})
					for _, target := range targets {
						want := serialReferrers(h, target)
						if total[target] != int64(len(want)) {
							t.Errorf("seed %d, limit %d, %d procs: object %d has %d references, want %d", seed, limit, procs, target, total[target], len(want))
						}
						if limit > 0 {
							want = want[:min(limit, len(want))]
						}
						if !slices.Equal(first[target], want) {
							t.Errorf("seed %d, limit %d, %d procs: referrers of %d %v, want %v", seed, limit, procs, target, first[target], want)
						}
					}
				})
			}
		}
	}
}

// TestShowReferrerRows: a holder referencing the target through two
// fields is two rows, a Reference whose referent and queue are the
// target only the queue's (the referent is no strong reference); at most
// MaxReferrers rows, and the total counts all three references.
func TestShowReferrerRows(t *testing.T) {
	var holderID, refID, targetID hproftest.ID
	h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
		holder := w.Class("Holder", nil, hproftest.Field{Name: "a", Type: hproftest.TypeObject}, hproftest.Field{Name: "b", Type: hproftest.TypeObject})
		reference := w.Class("java/lang/ref/Reference", nil,
			hproftest.Field{Name: "referent", Type: hproftest.TypeObject},
			hproftest.Field{Name: "queue", Type: hproftest.TypeObject})
		target := w.Class("Target", nil)
		targetID = w.Instance(target)
		holderID = w.Instance(holder, hproftest.Ref(targetID), hproftest.Ref(targetID))
		refID = w.Instance(reference, hproftest.Ref(targetID), hproftest.Ref(targetID))
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: holderID, JNIRef: 1})
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: refID, JNIRef: 2})
	})
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	target, holder, ref := analysistest.Lookup(t, h, targetID), analysistest.Lookup(t, h, holderID), analysistest.Lookup(t, h, refID)
	labels := map[model.ObjectIndex][]model.LabeledRef{
		holder: {{To: target, Label: "a"}, {To: target, Label: "b"}},
		ref:    {{To: target, Label: "referent", Weak: true}, {To: target, Label: "queue"}},
	}
	rows := map[model.ObjectIndex][]ShowReferrer{
		holder: {{ObjectID: fmt.Sprintf("0x%x", holderID), Class: "Holder", Via: "a"}, {ObjectID: fmt.Sprintf("0x%x", holderID), Class: "Holder", Via: "b"}},
		ref:    {{ObjectID: fmt.Sprintf("0x%x", refID), Class: "java.lang.ref.Reference", Via: "queue"}},
	}
	var all []ShowReferrer
	for _, u := range []model.ObjectIndex{min(holder, ref), max(holder, ref)} {
		all = append(all, rows[u]...)
	}
	for _, limit := range []int{0, 1, 2, 3} {
		o := ShowOptions{Referrers: true, MaxReferrers: limit}
		var d ShowData
		d.Referrers, d.ReferrerTotals = Referrers(h, []model.ObjectIndex{target}, limit, model.HeapSelection{})
		d.Labels = labels
		s := Show(h, r, []model.ObjectIndex{target}, d, o)[0]
		want := all
		if limit > 0 {
			want = all[:limit]
		}
		if !slices.Equal(s.Referrers, want) || s.ReferrersTotal == nil || *s.ReferrersTotal != 3 {
			t.Errorf("limit %d: referrers %+v of %v, want %+v of 3", limit, s.Referrers, s.ReferrersTotal, want)
		}
	}
}
