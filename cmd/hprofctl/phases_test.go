package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/session"
)

// TestBuildTraceSteps: the trace of an index build has a line for each
// of the jobs the build runs side by side, once each, within one of its
// phases, the index's commit last.
func TestBuildTraceSteps(t *testing.T) {
	t.Setenv(buildTraceEnv, "1")
	root := newRootCommand()
	var out, trace bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&trace)
	root.SetArgs([]string{"index", "--index-dir", t.TempDir(), "../../testdata/jvm/jdk17-default.hprof.gz"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	var phases []string
	for _, p := range session.BuildPhases {
		phases = append(phases, p.Name)
	}
	var steps []string
	for _, line := range strings.Split(trace.String(), "\n") {
		rest, ok := strings.CutPrefix(line, "step  ")
		if !ok {
			continue
		}
		name, phase, ok := strings.Cut(rest, "s into ")
		if !ok || !slices.Contains(phases, phase) {
			t.Errorf("step line %q names no phase of the build", line)
		}
		steps = append(steps, strings.TrimSpace(strings.TrimRightFunc(name, func(r rune) bool { return r == '.' || r >= '0' && r <= '9' })))
	}
	want := []string{"heap's sections written", "shortest-path tree found", "retainers' paths described", "collections summed", "trees written", "thread edges found", "accumulation points found", "answers kept", "index committed"}
	for _, w := range want {
		if n := slices.Index(steps, w); n < 0 || slices.Index(steps[n+1:], w) >= 0 {
			t.Errorf("steps %q: want %q once", steps, w)
		}
	}
	if len(steps) != len(want) || steps[len(steps)-1] != "index committed" {
		t.Errorf("steps %q: want the %d above, the commit last", steps, len(want))
	}
}
