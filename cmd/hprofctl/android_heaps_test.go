package main

import (
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
)

// heapFlagCommands are the commands that read a heap dump, each with the
// arguments it needs besides the file; show takes its id after the file.
var heapFlagCommands = [][]string{
	{"info"}, {"histo"}, {"histo", "--by-heap"}, {"dominators"}, {"retainers", "--class", "^java.lang.Thread$"},
	{"strings"}, {"collections"}, {"leaks"}, {"top"}, {"threads"}, {"deadlocks"},
	{"query", "SELECT * FROM java.lang.Thread"}, {"report"},
}

// TestHeapFlagOnJVMDump checks that --heap on a JVM dump, which has no
// heaps, is an error that says so, for every command that reads a heap,
// and that histo --by-heap is one too.
func TestHeapFlagOnJVMDump(t *testing.T) {
	dump := "../../testdata/jvm/jdk17-default.hprof.gz"
	for _, c := range heapFlagCommands {
		args := append([]string{"--heap", "app", c[0], dump}, c[1:]...)
		if c[0] == "histo" && len(c) > 1 {
			args = []string{"histo", "--by-heap", dump}
		}
		_, err := runCLI(t, args...)
		if err == nil || !strings.Contains(err.Error(), "has no heaps") {
			t.Errorf("hprofctl %s: error %v, want one saying the dump has no heaps", strings.Join(args, " "), err)
		}
	}
}

// TestHeapFlagAndroid runs every heap command with --heap on the
// LeakCanary dump (heaps zygote and app), and checks what the selection
// means for each: the heaps' histograms add up to the whole one, listed
// objects lie in the selected heap, leaks suspects the app heap alone by
// default and lists app-heap suspects first when asked for both.
func TestHeapFlagAndroid(t *testing.T) {
	dump := testshared.Path(t, "corpus", "android", "leak_service_binder_ignored.hprof.gz")
	for _, c := range heapFlagCommands {
		args := append([]string{"--heap", "app", c[0], dump}, c[1:]...)
		if _, err := runCLI(t, args...); err != nil {
			t.Errorf("hprofctl %s: %v", strings.Join(args, " "), err)
		}
	}
	if _, err := runCLI(t, "--heap", "image", "histo", dump); err == nil || !strings.Contains(err.Error(), "its heaps: zygote, app") {
		t.Errorf("--heap image: error %v, want one naming the heaps zygote and app", err)
	}

	type histoHeaps struct {
		Class     string `json:"class"`
		Instances int64  `json:"instances"`
		Heaps     []struct {
			Heap      string `json:"heap"`
			Instances int64  `json:"instances"`
		} `json:"heaps"`
	}
	var whole, app, zygote, divided []histoHeaps
	runJSON(t, &whole, "histo", dump)
	runJSON(t, &app, "--heap", "app", "histo", dump)
	runJSON(t, &zygote, "--heap", "zygote", "histo", dump)
	runJSON(t, &divided, "histo", "--by-heap", dump)
	count := func(rows []histoHeaps) map[string]int64 {
		m := map[string]int64{}
		for _, r := range rows {
			m[r.Class] += r.Instances
		}
		return m
	}
	appCounts, zygoteCounts := count(app), count(zygote)
	for class, n := range count(whole) {
		if appCounts[class]+zygoteCounts[class] != n {
			t.Errorf("%s: %d in app and %d in zygote, %d in all", class, appCounts[class], zygoteCounts[class], n)
		}
	}
	for _, r := range divided {
		if len(r.Heaps) != 2 || r.Heaps[0].Heap != "zygote" || r.Heaps[1].Heap != "app" ||
			r.Heaps[0].Instances != zygoteCounts[r.Class] || r.Heaps[1].Instances != appCounts[r.Class] {
			t.Errorf("--by-heap row %+v, want zygote %d and app %d", r, zygoteCounts[r.Class], appCounts[r.Class])
		}
	}

	type heapRow struct {
		ObjectID string `json:"object_id"`
		Heap     string `json:"heap"`
	}
	for _, heap := range []string{"app", "zygote"} {
		var rows []heapRow
		runJSON(t, &rows, "--heap", heap, "dominators", "--top", "0", dump)
		if len(rows) == 0 {
			t.Errorf("dominators --heap %s lists nothing", heap)
		}
		for _, r := range rows {
			if r.Heap != heap {
				t.Errorf("dominators --heap %s lists %s of heap %q", heap, r.ObjectID, r.Heap)
			}
		}
	}

	var suspects []heapRow
	runJSON(t, &suspects, "leaks", "--threshold", "1", dump)
	if len(suspects) == 0 {
		t.Fatal("leaks --threshold 1: no suspect")
	}
	for _, s := range suspects {
		if s.Heap != "app" {
			t.Errorf("leaks suspects %s of heap %q by default, want the app heap alone", s.ObjectID, s.Heap)
		}
	}
	runJSON(t, &suspects, "--heap", "zygote", "--heap", "app", "leaks", "--threshold", "1", dump)
	seen := map[string]bool{}
	for _, s := range suspects {
		if s.Heap == "app" && seen["zygote"] {
			t.Errorf("app-heap suspect %s after a zygote suspect", s.ObjectID)
		}
		seen[s.Heap] = true
	}
	if !seen["app"] || !seen["zygote"] {
		t.Errorf("leaks --heap zygote --heap app suspects in heaps %v, want both", seen)
	}

	// The binder leak: the LeakyService instances lie in the app heap.
	type retainers struct {
		Targets int64 `json:"targets"`
		Paths   []struct {
			Chain []heapRow `json:"chain"`
		} `json:"paths"`
	}
	var inZygote, inApp retainers
	runJSON(t, &inZygote, "--heap", "zygote", "retainers", "--class", `^com\.example\.leakcanary\.LeakyService$`, dump)
	runJSON(t, &inApp, "--heap", "app", "retainers", "--class", `^com\.example\.leakcanary\.LeakyService$`, dump)
	if inZygote.Targets != 0 || inApp.Targets == 0 || appCounts["com.example.leakcanary.LeakyService"] != inApp.Targets {
		t.Errorf("LeakyService targets: %d in zygote, %d in app; the app histogram counts %d",
			inZygote.Targets, inApp.Targets, appCounts["com.example.leakcanary.LeakyService"])
	}
	for _, p := range inApp.Paths {
		for _, s := range p.Chain {
			if s.Heap != "app" && s.Heap != "zygote" {
				t.Errorf("path step %s has heap %q", s.ObjectID, s.Heap)
			}
		}
	}

	var q struct {
		Rows [][]any `json:"rows"`
	}
	runJSON(t, &q, "--heap", "app", "query", dump, "SELECT * FROM java.lang.String")
	if int64(len(q.Rows)) != appCounts["java.lang.String"] {
		t.Errorf("query --heap app: %d Strings, the app histogram counts %d", len(q.Rows), appCounts["java.lang.String"])
	}
}
