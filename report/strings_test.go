package report

import (
	"io"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

func TestDuplicateStringsGolden(t *testing.T) {
	long := strings.Repeat("x", 100)
	rows := []heap.DuplicateString{
		{Value: "duplicate-value-42", Count: 5_000, WastedBytes: 319_936},
		{Value: "duplicate-Ω-9", Count: 50, WastedBytes: 3_528},
		{Value: long, Count: 2, WastedBytes: 144},
		{Value: "tab\tand \"quote\"", Count: 3, WastedBytes: 96},
	}
	d := heap.DuplicateStringReport{Rows: rows, Groups: 7, WastedBytes: 400_000, Strings: 1_234_567}
	out := renderGolden(t, "strings", allVariants, func(w io.Writer, o Options) error { return DuplicateStrings(w, d, o) })
	recs := readCSV(t, out["csv"])
	if len(recs) != 1+len(rows) || recs[1][0] != "5000" || recs[1][1] != "319936" || recs[3][2] != long || recs[4][2] != rows[3].Value {
		t.Errorf("CSV %q, want the header and 4 exact rows", recs)
	}
	var back []heap.DuplicateString
	decodeJSON(t, out["json"], &back)
	if len(back) != len(rows) || back[0] != rows[0] || back[2] != rows[2] {
		t.Errorf("JSON decodes to %+v, want %+v", back, rows)
	}
	wantContains(t, "table", out["table"], `"duplicate-Ω-9"`, "312 KiB", "5,000", `"`+long[:80]+`"…`, "all 7 duplicated values (4 shown), of 1,234,567 Strings")
	wantContains(t, "table --bytes", out["bytes"], "319936", "400000")
}

func TestDuplicateStringsEmptyGolden(t *testing.T) {
	out := renderGolden(t, "strings-empty", allVariants, func(w io.Writer, o Options) error {
		return DuplicateStrings(w, heap.DuplicateStringReport{}, o)
	})
	if out["json"] != "[]\n" || out["csv"] != "count,wasted_bytes,value\n" {
		t.Errorf("empty JSON %q, CSV %q", out["json"], out["csv"])
	}
}
