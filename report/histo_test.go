package report

import (
	"io"
	"reflect"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// weirdClass is a class name that CSV must quote (a comma, quotes and a
// newline): the JVM forbids none of them in a class name.
const weirdClass = "com.example.Weird,\"Name\"\nNext"

// sixGiB is a byte count above 4 GiB, not a multiple of a KiB.
const sixGiB = 6<<30 + 123

func TestHistogramGolden(t *testing.T) {
	rows := []heap.HistoRow{
		{Class: "byte[]", Instances: 1_250_000, ShallowBytes: sixGiB},
		{Class: weirdClass, Instances: 3, ShallowBytes: 72},
		{Class: "com.exämple.Größe", Instances: 1, ShallowBytes: 16},
		{Class: "中文.类", Instances: 2, ShallowBytes: 32},
	}
	h := heap.Histo{Rows: rows, MatchedClasses: 7,
		Total: heap.HistoRow{Instances: 1_250_016, ShallowBytes: sixGiB + 72 + 16 + 32 + 4000}}
	out := renderGolden(t, "histo", allVariants, func(w io.Writer, o Options) error { return Histogram(w, h, o) })

	recs := readCSV(t, out["csv"])
	if len(recs) != 1+len(rows) {
		t.Fatalf("CSV has %d records, want the header and %d rows:\n%s", len(recs), len(rows), out["csv"])
	}
	if got := recs[0]; len(got) != 3 || got[0] != "instances" || got[1] != "shallow_bytes" || got[2] != "class" {
		t.Errorf("CSV header %q, want instances,shallow_bytes,class", got)
	}
	if got := recs[1]; got[0] != "1250000" || got[1] != "6442451067" || got[2] != "byte[]" {
		t.Errorf("CSV row 1 %q, want exact counts 1250000 and 6442451067", got)
	}
	if got := recs[2][2]; got != weirdClass {
		t.Errorf("CSV row 2 class %q, want %q back", got, weirdClass)
	}
	var back []heap.HistoRow
	decodeJSON(t, out["json"], &back)
	if len(back) != len(rows) || !reflect.DeepEqual(back[0], rows[0]) || back[1].Class != weirdClass || back[3].Class != "中文.类" {
		t.Errorf("JSON decodes to %+v, want %+v", back, rows)
	}
	wantContains(t, "table", out["table"], "6.0 GiB", "1,250,000", "total of all 7 classes", "1,250,016", "com.exämple.Größe")
	wantContains(t, "table --bytes", out["bytes"], "6442451067", "6442455187")

	all := heap.Histo{Rows: rows[2:], MatchedClasses: 2, Total: heap.HistoRow{Instances: 3, ShallowBytes: 48}}
	out = renderGolden(t, "histo-all", []variant{asTable}, func(w io.Writer, o Options) error { return Histogram(w, all, o) })
	wantContains(t, "table of every class", out["table"], "total ")
}

func TestHistogramEmptyGolden(t *testing.T) {
	out := renderGolden(t, "histo-empty", allVariants, func(w io.Writer, o Options) error { return Histogram(w, heap.Histo{}, o) })
	if out["json"] != "[]\n" {
		t.Errorf("JSON of an empty histogram is %q, want []", out["json"])
	}
	if out["table"] != "no class with objects matches\n" {
		t.Errorf("table of an empty histogram is %q, want the line saying no class matches", out["table"])
	}
	if out["csv"] != "instances,shallow_bytes,class\n" {
		t.Errorf("CSV of an empty histogram is %q, want the header alone", out["csv"])
	}
}
