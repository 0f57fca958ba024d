package main

import (
	"strings"
	"testing"
)

type retainersJSON struct {
	Paths []struct {
		RootKind            string `json:"root_kind"`
		RootThread          string `json:"root_thread"`
		RootThreadAllocator bool   `json:"root_thread_allocator"`
		RootFrame           string `json:"root_frame"`
		RootFrameDepth      *int32 `json:"root_frame_depth"`
		Objects             int64  `json:"objects"`
		Chain               []struct {
			ObjectID string `json:"object_id"`
			Class    string `json:"class"`
			Via      string `json:"via"`
		} `json:"chain"`
	} `json:"paths"`
	Targets   int64 `json:"targets"`
	Unreached int64 `json:"unreached"`
}

// TestRetainersStaticMap checks that the shortest paths to the 100
// Payloads of fixture.Registry.MAP all run through the static field MAP,
// the map's table and a Node's value, and that the merged paths count
// every Payload.
func TestRetainersStaticMap(t *testing.T) {
	var r retainersJSON
	runJSON(t, &r, "retainers", fixturePath(t, "jdk17-default.hprof.gz"), "--class", `^fixture\.Payload$`, "--paths", "100")
	var total int64
	for _, p := range r.Paths {
		total += p.Objects
		steps := map[string]string{}
		for _, s := range p.Chain {
			steps[s.Via] = s.Class
		}
		if steps["static MAP"] != "java.util.HashMap" || steps["table"] != "java.util.HashMap$Node[]" || steps["value"] != "fixture.Payload" {
			t.Errorf("path %+v does not run through static MAP, table and value", p.Chain)
		}
		if first := p.Chain[0]; first.Via != "" || p.RootKind == "" {
			t.Errorf("path starts with %+v, root kind %q", first, p.RootKind)
		}
		if last := p.Chain[len(p.Chain)-1]; last.Class != "fixture.Payload" {
			t.Errorf("path ends at %s", last.Class)
		}
	}
	if total != 100 || r.Targets != 100 || r.Unreached != 0 {
		t.Errorf("paths cover %d of %d targets (%d unreached), want all 100", total, r.Targets, r.Unreached)
	}
}

// TestRetainersStackRoot checks that the value held only by a thread's
// stack frame shows that thread and frame as its root.
func TestRetainersStackRoot(t *testing.T) {
	for _, name := range []string{"jdk17-default", "jdk25-default"} {
		var r retainersJSON
		runJSON(t, &r, "retainers", fixturePath(t, name+".hprof.gz"), "--class", `^fixture\.StackOnly$`)
		if len(r.Paths) != 1 || len(r.Paths[0].Chain) != 1 {
			t.Fatalf("%s: %+v, want one path of the StackOnly alone", name, r.Paths)
		}
		p := r.Paths[0]
		if p.RootKind != "java-frame" || p.RootThread != "fixture-holder" || !strings.HasPrefix(p.RootFrame, "fixture.StackHolder.hold(") {
			t.Errorf("%s: root %s, thread %q, frame %q; want java-frame in fixture-holder at StackHolder.hold", name, p.RootKind, p.RootThread, p.RootFrame)
		}
	}
}

// TestRetainersWeakOnly checks that the object reachable only through a
// WeakReference has no strong path, and with --include-weak a path whose
// last step is the referent.
func TestRetainersWeakOnly(t *testing.T) {
	path := fixturePath(t, "jdk17-default.hprof.gz")
	var r retainersJSON
	runJSON(t, &r, "retainers", path, "--class", `^fixture\.WeakOnly$`)
	if len(r.Paths) != 0 || r.Unreached != 1 {
		t.Errorf("strong paths to WeakOnly: %+v, unreached %d", r.Paths, r.Unreached)
	}
	runJSON(t, &r, "retainers", path, "--class", `^fixture\.WeakOnly$`, "--include-weak")
	if len(r.Paths) != 1 {
		t.Fatalf("--include-weak: %d paths, want 1", len(r.Paths))
	}
	chain := r.Paths[0].Chain
	if n := len(chain); n < 2 || chain[n-1].Via != "referent (weak)" || chain[n-2].Class != "java.lang.ref.WeakReference" || chain[n-2].Via != "static REF" {
		t.Errorf("--include-weak path %+v, want static REF → WeakReference → referent", chain)
	}
	// The same target by id: its weak path, and the root object alone.
	id := chain[len(chain)-1].ObjectID
	runJSON(t, &r, "retainers", path, "--object", id, "--include-weak")
	if len(r.Paths) != 1 || r.Paths[0].Chain[len(r.Paths[0].Chain)-1].ObjectID != id {
		t.Errorf("--object %s: %+v", id, r.Paths)
	}
}
