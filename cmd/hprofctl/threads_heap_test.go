package main

import (
	"bufio"
	"encoding/json"
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

// TestThreadsRetainedInspect checks threads --retained on the inspect
// dumps (testdata/jvm/EXPECTED.md, thread "inspect-stack-holder"): frame
// 5, InspectStackHolder.hold, holds the long[1048576] of 8,388,624 bytes
// that nothing else keeps alive, so the thread retains at least that; the
// answer is the same from an index and with --no-index.
func TestThreadsRetainedInspect(t *testing.T) {
	for _, jdk := range []string{"jdk17", "jdk25"} {
		t.Run(jdk, func(t *testing.T) {
			dump := filepath.Join("..", "..", "testdata", "jvm", jdk+"-inspect-before.hprof.gz")
			args := []string{"threads", "--retained", "-o", "json", dump}
			direct, err := runCLI(t, append([]string{"--no-index"}, args...)...)
			if err != nil {
				t.Fatal(err)
			}
			indexed, err := runCLI(t, append([]string{"--index-dir", t.TempDir()}, args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if indexed != direct {
				t.Errorf("threads --retained from the index differs from --no-index:\n%.800s\n%.800s", indexed, direct)
			}
			var rows []struct {
				Name     string `json:"name"`
				Retained *int64 `json:"retained_bytes"`
				Frames   []struct {
					Method string `json:"method"`
					Locals []struct {
						ObjectID string `json:"object_id"`
						Class    string `json:"class"`
						Retained int64  `json:"retained_bytes"`
					} `json:"locals"`
				} `json:"frames"`
			}
			if err := json.Unmarshal([]byte(direct), &rows); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, r := range rows {
				if r.Retained == nil {
					t.Errorf("thread %q: no retained_bytes", r.Name)
				}
				if r.Name != "inspect-stack-holder" {
					continue
				}
				found = true
				if *r.Retained < 8388624 {
					t.Errorf("inspect-stack-holder retains %d bytes, want at least 8388624", *r.Retained)
				}
				if len(r.Frames) < 6 || r.Frames[5].Method != "fixture.InspectStackHolder.hold" {
					t.Fatalf("frames %+v, want InspectStackHolder.hold at 5", r.Frames)
				}
				held := false
				for _, l := range r.Frames[5].Locals {
					held = held || l.Class == "long[]" && l.Retained == 8388624 && strings.HasPrefix(l.ObjectID, "0x")
				}
				if !held {
					t.Errorf("frame 5 locals %+v, want the long[] retaining 8388624 bytes", r.Frames[5].Locals)
				}
			}
			if !found {
				t.Error("no thread inspect-stack-holder")
			}
		})
	}
}

// TestThreadsRetainedNeedsHeapDump: --retained on a thread dump is an
// error that says why.
func TestThreadsRetainedNeedsHeapDump(t *testing.T) {
	_, err := runCLI(t, "threads", "--retained", filepath.Join("..", "..", "testdata", "threads", "jdk17-busy.jstack.txt"))
	if err == nil || !strings.Contains(err.Error(), "--retained") {
		t.Errorf("error %v, want one about --retained", err)
	}
}
