package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// testdata is the repository's testdata directory, the root of the
// tests' servers.
var testdata = filepath.Join("..", "..", "testdata")

// connect starts a server with cfg (its index directory a temporary one)
// and returns client (nil: a plain one) connected to it over the SDK's
// in-memory transport.
func connect(t testing.TB, cfg Config, client *sdk.Client, opts ...*sdk.ClientSessionOptions) *sdk.ClientSession {
	t.Helper()
	if cfg.IndexDir == "" {
		cfg.IndexDir = t.TempDir()
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if client == nil {
		client = sdk.NewClient(&sdk.Implementation{Name: "test"}, nil)
	}
	var o *sdk.ClientSessionOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	cs, err := client.Connect(ctx, ct, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		cancel()
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return cs
}

// call calls the tool name with args and returns its answer; the call
// must succeed.
func call(t testing.TB, cs *sdk.ClientSession, name string, args map[string]any) (answerJSON, *sdk.CallToolResult) {
	t.Helper()
	res := callRaw(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", name, args, text(res))
	}
	var a answerJSON
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
	return a, res
}

// callRaw calls the tool name with args within a minute.
func callRaw(t testing.TB, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
}

// text is the text content of res.
func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// answerJSON is an Answer as a client reads it.
type answerJSON struct {
	Answer
	Result json.RawMessage `json:"result"`
}

// decode decodes the result of a into v.
func decode(t *testing.T, a answerJSON, v any) {
	t.Helper()
	if err := json.Unmarshal(a.Result, v); err != nil {
		t.Fatalf("result %.300s: %v", a.Result, err)
	}
}

func TestListTools(t *testing.T) {
	cs := connect(t, Config{Roots: []string{testdata}}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"open", "overview", "histogram", "dominators", "leak_suspects", "retainers", "show", "duplicate_strings", "collections", "top_consumers", "threads", "deadlocks", "monitors", "sites", "cpu", "diff", "query"}
	got := map[string]*sdk.Tool{}
	for _, tool := range res.Tools {
		got[tool.Name] = tool
	}
	for _, name := range want {
		tool := got[name]
		switch {
		case tool == nil:
			t.Errorf("no tool %s", name)
		case tool.Annotations == nil || !tool.Annotations.ReadOnlyHint:
			t.Errorf("tool %s is not marked read-only", name)
		case tool.InputSchema == nil:
			t.Errorf("tool %s has no input schema", name)
		}
	}
	if len(res.Tools) != len(want) {
		t.Errorf("%d tools, want %d", len(res.Tools), len(want))
	}
}

// TestLeakFixture asks about jdk17-oom (fixture.OomMain): the suspect is
// the class OomMain, its accumulation point the Object[] of the static
// ArrayList CHUNKS, which holds exactly 1881 OomChunks.
func TestLeakFixture(t *testing.T) {
	cs := connect(t, Config{Roots: []string{testdata}}, nil)
	dump := "jvm/jdk17-oom.hprof.gz"
	call(t, cs, "open", map[string]any{"path": dump})
	a, _ := call(t, cs, "leak_suspects", map[string]any{"path": dump})
	var suspects []struct {
		Class        string `json:"class"`
		Label        string `json:"label"`
		Accumulation struct {
			ObjectID string `json:"object_id"`
			Class    string `json:"class"`
		} `json:"accumulation_point"`
		Path []struct {
			Class, Via string
		} `json:"path"`
	}
	decode(t, a, &suspects)
	if len(suspects) == 0 || suspects[0].Class != "java.lang.Class" || suspects[0].Label != "class fixture.OomMain" || suspects[0].Accumulation.Class != "java.lang.Object[]" {
		t.Fatalf("suspects %+v, want class fixture.OomMain accumulating in an Object[]", suspects)
	}
	var vias []string
	for _, step := range suspects[0].Path {
		vias = append(vias, step.Via)
	}
	if !strings.Contains(strings.Join(vias, " "), "static CHUNKS") {
		t.Errorf("path %+v does not go through static CHUNKS", suspects[0].Path)
	}
	acc := suspects[0].Accumulation.ObjectID
	a, _ = call(t, cs, "dominators", map[string]any{"path": dump, "object": acc, "top": 5})
	var children []struct {
		Class string `json:"class"`
	}
	decode(t, a, &children)
	if len(children) != 5 || children[0].Class != "fixture.OomChunk" || a.Total != 1881 || !a.Cut {
		t.Errorf("dominated by %s: %+v, total %d, cut %v; want 5 of 1881 OomChunks", acc, children, a.Total, a.Cut)
	}
	a, _ = call(t, cs, "histogram", map[string]any{"path": dump, "match": `^fixture\.OomChunk$`})
	var rows []struct {
		Instances int `json:"instances"`
	}
	decode(t, a, &rows)
	if len(rows) != 1 || rows[0].Instances != 1881 {
		t.Errorf("OomChunk rows %+v, want 1881 instances", rows)
	}
	a, _ = call(t, cs, "retainers", map[string]any{"path": dump, "class": `^fixture\.OomChunk$`, "paths": 1})
	if !strings.Contains(string(a.Result), "static CHUNKS") {
		t.Errorf("retainers of OomChunk: %.500s, want a path through static CHUNKS", a.Result)
	}
}

// TestDeadlockFixture finds the cycle of the lock-pair program, whose
// lock-a waits for lock-b and lock-b for lock-a, in its thread dump and
// its heap dump, and the monitor cycle of the agent's MONITOR DUMP.
func TestDeadlockFixture(t *testing.T) {
	cs := connect(t, Config{Roots: []string{testdata}}, nil)
	for path, want := range map[string]map[string]string{
		"threads/jdk17-lock-pair.jstack.txt":    {"lock-a": "lock-b", "lock-b": "lock-a"},
		"threads/heap/jdk17-lock-pair.hprof.gz": {"lock-a": "lock-b", "lock-b": "lock-a"},
		"agent/monitor-deadlock.hprof.txt.gz":   nil,
	} {
		a, _ := call(t, cs, "deadlocks", map[string]any{"path": path})
		var report struct {
			Deadlocks []struct {
				Threads []struct {
					Name   string `json:"name"`
					HeldBy string `json:"held_by"`
				} `json:"threads"`
			} `json:"deadlocks"`
		}
		decode(t, a, &report)
		if len(report.Deadlocks) != 1 {
			t.Errorf("%s: deadlocks %.500s, want one", path, a.Result)
			continue
		}
		held := map[string]string{}
		for _, th := range report.Deadlocks[0].Threads {
			held[th.Name] = th.HeldBy
		}
		for waiter, holder := range held {
			if held[holder] == "" || (want != nil && want[waiter] != holder) {
				t.Errorf("%s: cycle %v, want %v", path, held, want)
				break
			}
		}
	}
}

// TestStringAndQuery finds the String "static-string" (LayoutStaticOnly.STR)
// with OQL, shows it, and counts the 100 Payloads.
func TestStringAndQuery(t *testing.T) {
	cs := connect(t, Config{Roots: []string{testdata}}, nil)
	dump := "jvm/jdk17-default.hprof.gz"
	a, _ := call(t, cs, "query", map[string]any{"path": dump, "query": `SELECT s FROM java.lang.String s WHERE toString(s) = "static-string"`})
	var q struct {
		Rows [][]string `json:"rows"`
	}
	decode(t, a, &q)
	if len(q.Rows) != 1 {
		t.Fatalf("rows %v, want one String", q.Rows)
	}
	a, _ = call(t, cs, "show", map[string]any{"path": dump, "objects": []string{q.Rows[0][0]}})
	var shown struct {
		Class string `json:"class"`
		Text  string `json:"text"`
	}
	decode(t, a, &shown)
	if shown.Class != "java.lang.String" || shown.Text != "static-string" {
		t.Errorf("show %s: %+v, want the String static-string", q.Rows[0][0], shown)
	}
	a, _ = call(t, cs, "query", map[string]any{"path": dump, "query": "SELECT p FROM fixture.Payload p", "limit": 500})
	decode(t, a, &q)
	if len(q.Rows) != 100 || a.Cut {
		t.Errorf("%d Payloads (cut %v), want 100", len(q.Rows), a.Cut)
	}
	a, res := call(t, cs, "query", map[string]any{"path": dump, "query": "SELECT p FROM fixture.Payload p"})
	if a.Shown != defaultRows || !a.Cut || !strings.Contains(text(res), "cut at the limit") {
		t.Errorf("query by default: %d rows, cut %v, %q; want %d, cut at the limit", a.Shown, a.Cut, text(res), defaultRows)
	}
}

// TestPaging pages through the histogram: each page says where the next
// begins, the last is not cut.
func TestPaging(t *testing.T) {
	cs := connect(t, Config{Roots: []string{testdata}}, nil)
	dump := "jvm/jdk17-default.hprof.gz"
	first, res := call(t, cs, "histogram", map[string]any{"path": dump, "top": 5})
	if first.Shown != 5 || !first.Cut || first.NextOffset != 5 || first.Total <= 5 {
		t.Fatalf("first page %+v, want 5 rows, cut, next offset 5", first)
	}
	if !strings.Contains(text(res), "offset 5") {
		t.Errorf("summary %q does not say how to get the next page", text(res))
	}
	next, _ := call(t, cs, "histogram", map[string]any{"path": dump, "top": 5, "offset": 5})
	all, _ := call(t, cs, "histogram", map[string]any{"path": dump, "top": 10})
	var a, b, c []json.RawMessage
	decode(t, first, &a)
	decode(t, next, &b)
	decode(t, all, &c)
	if got, want := mustJSON(t, append(a, b...)), mustJSON(t, c); got != want {
		t.Errorf("pages 1 and 2 differ from the first 10 rows")
	}
	last, _ := call(t, cs, "histogram", map[string]any{"path": dump, "top": 500, "offset": first.Total - 2})
	if last.Shown != 2 || last.Cut {
		t.Errorf("last page %+v, want 2 rows, not cut", last)
	}
}

// mustJSON is v in compact JSON.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEveryTool calls each tool on a fixture it answers about and checks
// that each answers.
func TestEveryTool(t *testing.T) {
	cs := connect(t, Config{Roots: []string{testdata}}, nil)
	dump := "jvm/jdk17-default.hprof.gz"
	for _, c := range toolCalls(dump) {
		a, res := call(t, cs, c.tool, c.args)
		if len(a.Result) == 0 || a.Untrusted == "" || !strings.Contains(text(res), "untrusted data") {
			t.Errorf("%s: answer %+v lacks its result or the untrusted-data note", c.tool, a)
		}
	}
}

// toolCall is a tool and its arguments.
type toolCall struct {
	tool string
	args map[string]any
}

// toolCalls call every tool on the fixtures, dump a heap dump.
func toolCalls(dump string) []toolCall {
	return []toolCall{
		{"open", map[string]any{"path": dump}},
		{"overview", map[string]any{"path": dump}},
		{"histogram", map[string]any{"path": dump}},
		{"dominators", map[string]any{"path": dump}},
		{"leak_suspects", map[string]any{"path": dump}},
		{"retainers", map[string]any{"path": dump, "class": `^fixture\.Payload$`}},
		{"duplicate_strings", map[string]any{"path": dump}},
		{"collections", map[string]any{"path": dump}},
		{"top_consumers", map[string]any{"path": dump}},
		{"threads", map[string]any{"path": dump}},
		{"deadlocks", map[string]any{"path": "threads/jdk17-lock-pair.jstack.txt"}},
		{"monitors", map[string]any{"path": "agent/monitor-deadlock.hprof.txt.gz"}},
		{"sites", map[string]any{"path": "agent/sites-ascii.hprof.txt.gz"}},
		{"cpu", map[string]any{"path": "agent/cpu-samples.hprof.txt.gz"}},
		{"diff", map[string]any{"old": "jvm/jdk17-inspect-before.hprof.gz", "new": "jvm/jdk17-inspect-after.hprof.gz"}},
		{"query", map[string]any{"path": dump, "query": "SELECT p FROM fixture.Payload p"}},
	}
}

// TestRefused refuses a file outside the roots, a path with "..", and a
// symbolic link out of a root, with a tool error that says why.
func TestRefused(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.hprof")
	if err := os.WriteFile(secret, []byte("JAVA PROFILE 1.0.2\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "link.hprof")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "dir")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, Config{Roots: []string{root}}, nil)
	for path, want := range map[string]string{
		secret:             "outside the roots",
		"link.hprof":       "outside the roots",
		"dir/secret.hprof": "outside the roots",
		"../" + filepath.Base(outside) + "/secret.hprof": `".."`,
		"sub/../link.hprof":    `".."`,
		"/etc/passwd":          "outside the roots",
		"/nonexistent/x.hprof": "outside the roots",
		"missing.hprof":        "no such file",
	} {
		res := callRaw(t, cs, "overview", map[string]any{"path": path})
		if !res.IsError || !strings.Contains(text(res), want) {
			t.Errorf("overview %s: error %v %q, want a tool error saying %q", path, res.IsError, text(res), want)
		}
	}
	res := callRaw(t, cs, "diff", map[string]any{"old": secret, "new": "link.hprof"})
	if !res.IsError || !strings.Contains(text(res), "outside the roots") {
		t.Errorf("diff outside the roots: %q, want refused", text(res))
	}
}

// TestMaxOpen refuses to open more files than Config.MaxOpen, and still
// answers on the file already open.
func TestMaxOpen(t *testing.T) {
	first, second := "jvm/jdk17-default.hprof.gz", "jvm/jdk17-oom.hprof.gz"
	cs := connect(t, Config{Roots: []string{testdata}, MaxOpen: 1}, nil)
	if res := callRaw(t, cs, "overview", map[string]any{"path": first}); res.IsError {
		t.Fatalf("overview %s: %s", first, text(res))
	}
	res := callRaw(t, cs, "overview", map[string]any{"path": second})
	if !res.IsError || !strings.Contains(text(res), "1 files are open already") {
		t.Errorf("overview %s with one file open: error %v %q, want refused", second, res.IsError, text(res))
	}
	if res := callRaw(t, cs, "overview", map[string]any{"path": first}); res.IsError {
		t.Errorf("overview %s again: %s", first, text(res))
	}
}

// TestClientRoots narrows the server's root to the client's: a file of
// the server's root outside the client's is refused. Roots are asked of
// clients before protocol version 2026-07-28, which deprecates them.
func TestClientRoots(t *testing.T) {
	abs, err := filepath.Abs(testdata)
	if err != nil {
		t.Fatal(err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{}}})
	c.AddRoots(&sdk.Root{URI: "file://" + filepath.Join(abs, "threads")})
	cs := connect(t, Config{Roots: []string{testdata}}, c, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if res := callRaw(t, cs, "open", map[string]any{"path": "jdk17-lock-pair.jstack.txt"}); res.IsError || !strings.Contains(text(res), `"dumps":1`) {
		t.Errorf("a file under the client's root: %s", text(res))
	}
	res := callRaw(t, cs, "overview", map[string]any{"path": filepath.Join(abs, "jvm", "jdk17-default.hprof.gz")})
	if !res.IsError || !strings.Contains(text(res), "outside the roots") {
		t.Errorf("a file outside the client's root: %q, want refused", text(res))
	}
}
