package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// threadStates reads the state of each thread of the Thread.print output
// in path: the word after "java.lang.Thread.State: " below the thread's
// quoted name.
func threadStates(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	states := map[string]string{}
	name := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, `"`) {
			name = line[1 : 1+strings.Index(line[1:], `"`)]
			continue
		}
		if _, state, ok := strings.Cut(line, "java.lang.Thread.State: "); ok && name != "" {
			states[name] = strings.Fields(state)[0]
			name = ""
		}
	}
	return states
}

// TestThreadsHeapNamesAndStates checks that the threads of a HotSpot
// heap dump carry the names and states of their Thread objects, as the
// Thread.print taken with the dump shows them.
func TestThreadsHeapNamesAndStates(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "testdata", "jvm")
	states := threadStates(t, filepath.Join(dir, "jdk17-default.info.txt"))
	var threads []struct {
		Name   string `json:"name"`
		State  string `json:"state"`
		Frames []struct {
			Method string `json:"method"`
		} `json:"frames"`
	}
	runJSON(t, &threads, "threads", filepath.Join(dir, "jdk17-default.hprof.gz"))
	found := map[string]bool{}
	for _, th := range threads {
		if th.Name == "" {
			t.Errorf("a thread without a name: %+v", th)
			continue
		}
		found[th.Name] = true
		if want, ok := states[th.Name]; ok && th.State != want {
			t.Errorf("thread %q: state %q, Thread.print says %q", th.Name, th.State, want)
		}
		if th.Name == "fixture-holder" {
			hold := false
			for _, f := range th.Frames {
				hold = hold || f.Method == "fixture.StackHolder.hold"
			}
			if !hold {
				t.Errorf("fixture-holder: no frame fixture.StackHolder.hold in %+v", th.Frames)
			}
		}
	}
	for _, name := range []string{"main", "fixture-holder"} {
		if !found[name] {
			t.Errorf("no thread %q among %d", name, len(threads))
		}
		if states[name] == "" {
			t.Errorf("Thread.print output has no state for %q", name)
		}
	}
}
