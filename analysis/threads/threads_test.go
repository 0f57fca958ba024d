package threads

import (
	"slices"
	"testing"
)

// TestThreadStates counts threads by state in the order the states first
// appear, threads without one as unknown.
func TestThreadStates(t *testing.T) {
	threads := []ThreadRow{{State: "RUNNABLE"}, {State: ""}, {State: "WAITING"}, {State: "RUNNABLE"}, {State: "WAITING"}, {State: "RUNNABLE"}}
	want := []ThreadStateCount{{"RUNNABLE", 3}, {"unknown", 1}, {"WAITING", 2}}
	if got := ThreadStates(threads); !slices.Equal(got, want) {
		t.Errorf("states %+v, want %+v", got, want)
	}
	if got := ThreadStates(nil); got != nil {
		t.Errorf("states of no thread %+v, want none", got)
	}
}
