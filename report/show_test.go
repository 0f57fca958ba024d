package report

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

func TestShowGolden(t *testing.T) {
	length, depth, referrers := int64(1048576), int32(5), int64(1234)
	objs := []heap.ShowObject{
		{
			ObjectID: "0x7a0000010", Class: "fixture.Target", ShallowBytes: 88, RetainedBytes: 416, Reachable: true, Read: true,
			GCRoot: []heap.ShowRoot{},
			Fields: []heap.ShowField{
				{Name: "flag", Type: "boolean", Value: true},
				{Name: "letter", Type: "char", Value: "Q"},
				{Name: "tiny", Type: "byte", Value: int8(-7)},
				{Name: "longValue", Type: "long", Value: int64(1234605616436508552)},
				{Name: "floatValue", Type: "float", Value: json.Number("1.5")},
				{Name: "ratio", Type: "double", Value: "NaN"},
				{Name: "text", Type: "object", Value: "0x7a0000100", Class: "java.lang.String", Text: "utf16-Ω-text"},
				{Name: "nothing", Type: "object", Value: nil},
			},
			Referrers: []heap.ShowReferrer{
				{ObjectID: "0x7a0000200", Class: "fixture.ReferrerA", Via: "target"},
				{ObjectID: "0x7a0000300", Class: weirdClass, Via: "[3]"},
			},
			ReferrersTotal: &referrers,
		},
		{
			ObjectID: "0x7b0000000", Class: "long[]", ShallowBytes: 8388624, RetainedBytes: 8388624, Reachable: true, Read: true,
			GCRoot: []heap.ShowRoot{{Kind: "java-frame", Thread: "holder «main»", Frame: "fixture.Holder.hold(Holder.java:7)", FrameDepth: &depth}},
			Fields: []heap.ShowField{}, Length: &length,
			Elements: []heap.ShowElement{{Index: 0, Value: int64(0x4649525354)}, {Index: 1, Value: int64(0)}},
			Path: &heap.RetainerPath{RootKind: "java-frame", RootThread: "holder «main»", Objects: 1,
				Chain: []heap.PathStep{{ObjectID: "0x7b0000000", Class: "long[]"}}},
		},
	}
	out := renderGolden(t, "show", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Show(w, objs, o) })
	wantContains(t, "table", out["table"], `"utf16-Ω-text"`, "'Q'", "null", "NaN", "first 2 of 1,048,576 elements", "first 2 of 1,234 references",
		"java-frame, thread holder «main», at fixture.Holder.hold(Holder.java:7)")
	var back []map[string]any
	decodeJSON(t, out["json"], &back)
	if len(back) != 2 || back[0]["fields"].([]any)[4].(map[string]any)["value"] != 1.5 || back[1]["length"] != float64(length) ||
		back[0]["referrers_total"] != float64(referrers) || back[1]["referrers_total"] != nil {
		t.Errorf("JSON decodes to %v", back)
	}
	recs := readCSV(t, out["csv"])
	if recs[0][1] != "part" || len(recs) != 1+3+8+1+2+1+3+1+2+1 {
		t.Errorf("CSV has %d records: %q", len(recs), recs)
	}

	one := renderGolden(t, "show-one", []variant{asJSON}, func(w io.Writer, o Options) error { return Show(w, objs[:1], o) })
	var single map[string]any
	decodeJSON(t, one["json"], &single)
	if single["object_id"] != "0x7a0000010" || single["length"] != nil || single["path"] != nil {
		t.Errorf("one object's JSON is not that object: %v", single)
	}
}
