package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// inspectorEnv, set to 1 (as in CI), makes TestMCPInspector fail rather
// than skip when the MCP Inspector is not installed.
const inspectorEnv = "HPROFCTL_REQUIRE_MCP_INSPECTOR"

// inspectorVersion is the MCP Inspector the test drives; .ci/run installs
// it (npm install -g @modelcontextprotocol/inspector@VERSION).
const inspectorVersion = "2.12.0"

// inspector returns the command line that starts the MCP Inspector
// installed with npm install -g: node and the script of its bin.
func inspector(t *testing.T) []string {
	t.Helper()
	skip := func(why string, args ...any) {
		t.Helper()
		if os.Getenv(inspectorEnv) == "1" {
			t.Fatalf(why, args...)
		}
		t.Skipf(why+" ("+inspectorEnv+"=1 fails instead)", args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("no node: %v", err)
	}
	root, err := exec.Command("npm", "root", "-g").Output()
	if err != nil {
		skip("npm root -g: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(root)), "@modelcontextprotocol", "inspector")
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		skip("the MCP Inspector is not installed (npm install -g @modelcontextprotocol/inspector@%s): %v", inspectorVersion, err)
	}
	var pkg struct {
		Version string            `json:"version"`
		Bin     map[string]string `json:"bin"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Bin["mcp-inspector"] == "" {
		t.Fatalf("%s/package.json: %v, bin %v", dir, err, pkg.Bin)
	}
	if pkg.Version != inspectorVersion {
		skip("MCP Inspector %s installed, want %s", pkg.Version, inspectorVersion)
	}
	return []string{node, filepath.Join(dir, pkg.Bin["mcp-inspector"]), "--cli"}
}

// TestMCPInspector has a real client, the MCP Inspector's command-line
// mode, start hprofctl mcp (this test binary running hprofctl), list its
// tools and call three of them on the fixtures.
func TestMCPInspector(t *testing.T) {
	cli := inspector(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(t.TempDir(), "hprofctl")
	script := "#!/bin/sh\n" + runMainEnv + "=1 exec '" + self + "' -- \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	// The Inspector starts the server with a few variables of the
	// environment only: the index directory is given as a flag.
	idx := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		full := append(append(cli[1:], wrapper, "mcp", "--root", testdata, "--index-dir", idx), args...)
		out, err := exec.CommandContext(ctx, cli[0], full...).CombinedOutput()
		if err != nil {
			t.Fatalf("inspector %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	list := run("--method", "tools/list")
	for _, tool := range []string{"open", "overview", "histogram", "dominators", "leak_suspects", "retainers", "show", "duplicate_strings", "collections", "top_consumers", "threads", "deadlocks", "monitors", "sites", "cpu", "diff", "query"} {
		if !strings.Contains(list, `"name": "`+tool+`"`) {
			t.Errorf("tools/list lacks %s", tool)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tool-name", "open", "--tool-arg", "path=jvm/jdk17-oom.hprof.gz"}, `\"objects\":12967`},
		{[]string{"--tool-name", "leak_suspects", "--tool-arg", "path=jvm/jdk17-oom.hprof.gz"}, `class fixture.OomMain`},
		{[]string{"--tool-name", "deadlocks", "--tool-arg", "path=threads/jdk17-lock-pair.jstack.txt"}, `\"held_by\":\"lock-b\"`},
	} {
		if out := run(append([]string{"--method", "tools/call"}, c.args...)...); !strings.Contains(out, c.want) {
			t.Errorf("inspector tools/call %s: no %s in\n%.1500s", strings.Join(c.args, " "), c.want, out)
		}
	}
}
