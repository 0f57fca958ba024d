package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestShowInspect runs show on the fixture.Inspect dumps' InspectTarget and
// stack-held long[] (testdata/jvm/EXPECTED.md), from an index and with
// --no-index: the same JSON, with what the program put in the heap.
func TestShowInspect(t *testing.T) {
	for _, jdk := range []string{"jdk17", "jdk25"} {
		t.Run(jdk, func(t *testing.T) {
			dump := filepath.Join("..", "..", "testdata", "jvm", jdk+"-inspect-before.hprof.gz")
			var rows []struct {
				ObjectID string `json:"object_id"`
				Class    string `json:"class"`
			}
			out, err := runCLI(t, "--no-index", "dominators", "--class", `^fixture\.InspectTarget$|^long\[\]$`, "--top", "0", "-o", "json", dump)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(out), &rows); err != nil {
				t.Fatal(err)
			}
			ids := map[string]string{}
			for _, r := range rows {
				if _, ok := ids[r.Class]; !ok {
					ids[r.Class] = r.ObjectID // the biggest long[] comes first
				}
			}
			args := []string{"show", "--referrers", "--path", "--elements", "2", "-o", "json", dump, ids["fixture.InspectTarget"], ids["long[]"]}
			direct := runBoth(t, args...)
			var got []struct {
				Retained int64 `json:"retained_bytes"`
				GCRoot   []struct {
					Kind, Thread string
				} `json:"gc_root"`
				Fields []struct {
					Name  string `json:"name"`
					Value any    `json:"value"`
					Text  string `json:"text"`
				} `json:"fields"`
				Length    *int64                                  `json:"length"`
				Elements  []struct{ Value any }                   `json:"elements"`
				Referrers []struct{ Class, Via string }           `json:"referrers"`
				Path      *struct{ Chain []struct{ Via string } } `json:"path"`
			}
			if err := json.Unmarshal([]byte(direct), &got); err != nil {
				t.Fatal(err)
			}
			target, array := got[0], got[1]
			fields := map[string]string{}
			for _, f := range target.Fields {
				v, _ := json.Marshal(f.Value)
				fields[f.Name] = string(v) + " " + f.Text
			}
			for name, want := range map[string]string{"intValue": "305419896 ", "letter": `"Q" `, "flag": "true ", "doubleValue": "-2.25 ", "nothing": "null "} {
				if fields[name] != want {
					t.Errorf("%s = %q, want %q", name, fields[name], want)
				}
			}
			for name, text := range map[string]string{"utf16Text": "utf16-Ω-text", "latin1Text": "café", "asciiBytes": "hello, inspect!", "boxedLong": "-5000000000", "color": "GREEN"} {
				if f := fields[name]; !strings.HasPrefix(f, `"0x`) || !strings.HasSuffix(f, `" `+text) {
					t.Errorf("%s = %q, want an id and %q", name, fields[name], text)
				}
			}
			if target.Retained != 416 || len(target.Referrers) != 2 || target.Path == nil || target.Path.Chain[len(target.Path.Chain)-1].Via == "" {
				t.Errorf("target: retained %d, referrers %+v, path %+v", target.Retained, target.Referrers, target.Path)
			}
			if array.Length == nil || *array.Length != 1<<20 || len(array.Elements) != 2 || array.Elements[0].Value != float64(0x4649525354) ||
				len(array.GCRoot) != 1 || array.GCRoot[0].Thread != "inspect-stack-holder" || len(array.Referrers) != 0 {
				t.Errorf("long[]: %s", direct)
			}

			if _, err := runCLI(t, "--no-index", "show", dump, "0x1"); err == nil {
				t.Error("show of an unknown id did not fail")
			}
		})
	}
}
