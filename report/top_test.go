package report

import (
	"io"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

func TestTopConsumersGolden(t *testing.T) {
	rows := []heap.TopConsumerRow{
		{Name: "jdk.internal.loader.ClassLoaders$AppClassLoader @ 0xfd59aff8", Objects: 1, RetainedBytes: sixGiB, Percent: 75.5},
		{Name: heap.BootstrapLoader, Objects: 2_216, RetainedBytes: 9_437_184, Percent: 24.25},
		{Name: weirdClass, Objects: 3, RetainedBytes: 72, Percent: 0.001},
	}
	top := heap.TopConsumerReport{By: heap.ByClassLoader, Rows: rows, Groups: 5, TotalBytes: sixGiB + 9_437_184 + 72 + 500, TopLevelObjects: 2_300}
	out := renderGolden(t, "top", allVariants, func(w io.Writer, o Options) error { return TopConsumers(w, top, o) })
	recs := readCSV(t, out["csv"])
	if len(recs) != 1+len(rows) || recs[0][3] != "class_loader" || recs[1][1] != "6442451067" || recs[1][2] != "75.5" || recs[3][3] != weirdClass {
		t.Errorf("CSV %q, want the header and 3 exact rows", recs)
	}
	var back []struct {
		ClassLoader   string  `json:"class_loader"`
		Objects       int64   `json:"objects"`
		RetainedBytes int64   `json:"retained_bytes"`
		Percent       float64 `json:"percent"`
	}
	decodeJSON(t, out["json"], &back)
	for k, r := range rows {
		if k >= len(back) || back[k].ClassLoader != r.Name || back[k].Objects != r.Objects || back[k].RetainedBytes != r.RetainedBytes || back[k].Percent != r.Percent {
			t.Errorf("JSON decodes to %+v, want %+v", back, rows)
			break
		}
	}
	wantContains(t, "table", out["table"], "6.0 GiB", "75.50%", "2,216", "<bootstrap>", "reachable heap (3 of 5 groups shown)", "2,300")
	wantContains(t, "table --bytes", out["bytes"], "6442451067", "9437184")

	pkg := heap.TopConsumerReport{By: heap.ByPackage, Rows: rows[1:2], Groups: 1, TotalBytes: 9_437_184, TopLevelObjects: 2_216, KeptUnreachable: true}
	out = renderGolden(t, "top-package", []variant{asTable}, func(w io.Writer, o Options) error { return TopConsumers(w, pkg, o) })
	wantContains(t, "table by package", out["table"], "package", "reachable heap, unreachable objects kept")
}

func TestTopConsumersEmptyGolden(t *testing.T) {
	out := renderGolden(t, "top-empty", allVariants, func(w io.Writer, o Options) error {
		return TopConsumers(w, heap.TopConsumerReport{By: heap.ByClass}, o)
	})
	if out["json"] != "[]\n" || out["csv"] != "objects,retained_bytes,percent,class\n" {
		t.Errorf("empty JSON %q, CSV %q", out["json"], out["csv"])
	}
}
