package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hprofctl/hprofctl/internal/mcp"
)

// mcpClient starts an MCP server whose root is dir (indexes in a
// temporary directory, which the command line then uses too) and returns
// a client connected to it in memory.
func mcpClient(t *testing.T, dir string) *sdk.ClientSession {
	t.Helper()
	idx := t.TempDir()
	t.Setenv("HPROFCTL_INDEX_DIR", idx)
	s, err := mcp.New(mcp.Config{Roots: []string{dir}, IndexDir: idx})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		cancel()
		s.Close()
	})
	return cs
}

// mcpResult calls the tool name with args and returns the result of its
// structured content, decoded.
func mcpResult(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s %v: tool error %v", name, args, res.Content)
	}
	m, ok := res.StructuredContent.(map[string]any)
	if !ok {
		t.Fatalf("%s: structured content %T, want an object", name, res.StructuredContent)
	}
	return m["result"]
}

// cliResult runs hprofctl with args and -o json and returns its output,
// decoded.
func cliResult(t *testing.T, args ...string) any {
	t.Helper()
	out, err := runCLI(t, append(args, "-o", "json")...)
	if err != nil {
		t.Fatalf("hprofctl %s: %v", strings.Join(args, " "), err)
	}
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("hprofctl %s: %v", strings.Join(args, " "), err)
	}
	return v
}

// TestMCPEqualsCLI calls every tool of hprofctl mcp with its defaults and
// checks that its structured result is what the command of the same
// question writes with -o json, given the flags of the tool's defaults.
func TestMCPEqualsCLI(t *testing.T) {
	dir, err := filepath.EvalSymlinks(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	dir, _ = filepath.Abs(dir)
	cs := mcpClient(t, dir)
	dump := filepath.Join(dir, "jvm", "jdk17-default.hprof.gz")
	jstack := filepath.Join(dir, "threads", "jdk17-lock-pair.jstack.txt")
	sites := filepath.Join(dir, "agent", "sites-ascii.hprof.txt.gz")
	cpu := filepath.Join(dir, "agent", "cpu-samples.hprof.txt.gz")
	monitors := filepath.Join(dir, "agent", "monitor-deadlock.hprof.txt.gz")
	heapLocks := filepath.Join(dir, "threads", "heap", "jdk17-lock-pair.hprof.gz")
	before := filepath.Join(dir, "jvm", "jdk17-inspect-before.hprof.gz")
	after := filepath.Join(dir, "jvm", "jdk17-inspect-after.hprof.gz")
	const str = "0xfd5db530" // the String "static-string" of jdk17-default
	query := "SELECT p, p.id FROM fixture.Payload p"
	for _, c := range []struct {
		tool string
		args map[string]any
		cli  []string
	}{
		{"overview", map[string]any{"path": dump}, []string{"info", dump}},
		{"histogram", map[string]any{"path": dump}, []string{"histo", "--top", "20", dump}},
		{"dominators", map[string]any{"path": dump}, []string{"dominators", dump}},
		{"leak_suspects", map[string]any{"path": dump}, []string{"leaks", dump}},
		{"retainers", map[string]any{"path": dump, "class": `^fixture\.Payload$`}, []string{"retainers", "--class", `^fixture\.Payload$`, dump}},
		{"show", map[string]any{"path": dump, "objects": []string{str}, "referrers": true}, []string{"show", "--referrers", "--max-referrers", "20", dump, str}},
		{"duplicate_strings", map[string]any{"path": dump}, []string{"strings", dump}},
		{"collections", map[string]any{"path": dump}, []string{"collections", "--top", "20", dump}},
		{"top_consumers", map[string]any{"path": dump}, []string{"top", dump}},
		{"threads", map[string]any{"path": dump}, []string{"threads", "--depth", "20", dump}},
		{"threads", map[string]any{"path": jstack}, []string{"threads", "--depth", "20", jstack}},
		{"deadlocks", map[string]any{"path": jstack}, []string{"deadlocks", jstack}},
		{"deadlocks", map[string]any{"path": heapLocks}, []string{"deadlocks", heapLocks}},
		{"deadlocks", map[string]any{"path": monitors}, []string{"deadlocks", monitors}},
		{"monitors", map[string]any{"path": monitors}, []string{"monitors", "--depth", "20", monitors}},
		{"sites", map[string]any{"path": sites}, []string{"sites", "--depth", "20", "--top", "20", sites}},
		{"cpu", map[string]any{"path": cpu}, []string{"cpu", "--depth", "20", "--top", "20", cpu}},
		{"cpu", map[string]any{"path": cpu, "by": "method"}, []string{"cpu", "--by", "method", "--depth", "20", "--top", "20", cpu}},
		{"diff", map[string]any{"old": before, "new": after}, []string{"diff", before, after}},
		{"query", map[string]any{"path": dump, "query": query}, []string{"query", "--limit", "20", dump, query}},
	} {
		got, want := mcpResult(t, cs, c.tool, c.args), cliResult(t, c.cli...)
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Errorf("%s %v:\n%.600s\nwant (hprofctl %s -o json):\n%.600s", c.tool, c.args, g, strings.Join(c.cli, " "), w)
		}
	}
}

// TestMCPCommand checks the flags of hprofctl mcp: a root that does not
// exist and a non-loopback --http address are refused.
func TestMCPCommand(t *testing.T) {
	if _, err := runCLI(t, "mcp", "--root", filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "root") {
		t.Errorf("mcp --root missing: %v, want an error naming the root", err)
	}
	if _, err := runCLI(t, "mcp", "--root", t.TempDir(), "--http", "0.0.0.0:0"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("mcp --http 0.0.0.0:0: %v, want refused", err)
	}
}
