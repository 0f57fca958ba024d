package jvmpi

import (
	"strings"
	"testing"
)

// TestClassTableRejectsSuperLoops checks that super_id links that loop
// are refused, naming the loop from the first class that reaches it, and
// that a chain ending at a class the side channel lacks is not a loop.
func TestClassTableRejectsSuperLoops(t *testing.T) {
	for _, tc := range []struct {
		classes []ClassInfo
		want    string
	}{
		{[]ClassInfo{{Name: "A", ID: 1, SuperID: 1}}, "loops: A → A"},
		{[]ClassInfo{{Name: "A", ID: 1, SuperID: 2}, {Name: "B", ID: 2, SuperID: 3}, {Name: "C", ID: 3, SuperID: 2}}, "loops: A → B → C → B"},
		{[]ClassInfo{{Name: "A", ID: 1, SuperID: 2}, {Name: "B", ID: 2, SuperID: 9}}, ""},
	} {
		_, err := NewClassTable(tc.classes)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.classes, err, tc.want)
		}
	}
}
