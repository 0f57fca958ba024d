package oql

import (
	"encoding/json"
	"math"
	"testing"
)

// Values show as a table cell (Text) and as JSON as their doc comments
// say: null as "" and null, objects by their "0x…" id, lists between
// brackets, floats that are not finite numbers as JSON strings.
func TestValueText(t *testing.T) {
	obj := Value{Kind: KindObject, ID: 0xcafe}
	list := Value{Kind: KindList, List: []Value{Int(1), String("a"), Null(), obj}}
	for _, c := range []struct {
		v          Value
		text, json string
	}{
		{Null(), "", "null"},
		{Int(-42), "-42", "-42"},
		{Float(1.5), "1.5", "1.5"},
		{Float(1e21), "1e+21", "1e+21"},
		{Float(math.NaN()), "NaN", `"NaN"`},
		{Float(math.Inf(-1)), "-Inf", `"-Inf"`},
		{Bool(true), "true", "true"},
		{String("café"), "café", `"café"`},
		{obj, "0xcafe", `"0xcafe"`},
		{list, "[1, a, , 0xcafe]", `[1,"a",null,"0xcafe"]`},
	} {
		b, err := json.Marshal(c.v.JSON())
		if err != nil {
			t.Fatal(err)
		}
		if got := c.v.Text(); got != c.text {
			t.Errorf("%s: Text %q, want %q", c.json, got, c.text)
		}
		if string(b) != c.json {
			t.Errorf("%s: JSON %s", c.json, b)
		}
	}
}
