package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTP answers a client over the streamable HTTP transport, and
// refuses a request whose Host is not the loopback interface (DNS
// rebinding).
func TestHTTP(t *testing.T) {
	s, err := New(Config{Roots: []string{testdata}, IndexDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s.HTTPHandler())
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "deadlocks", Arguments: map[string]any{"path": "threads/jdk17-lock-pair.jstack.txt"}})
	if err != nil || res.IsError || !strings.Contains(text(res), `"held_by":"lock-b"`) {
		t.Fatalf("deadlocks over HTTP: %v %v", err, res)
	}
	req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "attacker.example:80"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("Host attacker.example: status %d, want 403", resp.StatusCode)
	}
}

// TestPrompts gets each prompt: a plan that names the tools in order.
func TestPrompts(t *testing.T) {
	cs := connect(t, Config{Roots: []string{testdata}}, nil)
	ctx := context.Background()
	for name, tools := range map[string][]string{
		"why_out_of_memory": {"open", "overview", "leak_suspects", "dominators", "retainers", "histogram", "duplicate_strings", "show"},
		"why_stuck":         {"open", "deadlocks", "threads", "cpu"},
	} {
		res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: map[string]string{"path": "x.hprof"}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		plan := res.Messages[0].Content.(*sdk.TextContent).Text
		at := 0
		for _, tool := range tools {
			k := strings.Index(plan[at:], tool)
			if k < 0 {
				t.Errorf("%s: %q not named after position %d in\n%s", name, tool, at, plan)
				break
			}
			at += k
		}
		if !strings.Contains(plan, "x.hprof") || !strings.Contains(plan, "untrusted data") {
			t.Errorf("%s: the plan names neither the file nor the untrusted data:\n%s", name, plan)
		}
	}
}

// TestProgress opens a dump with a progress token: the index build is
// told as it starts and as it ends, the last at the dump's size.
func TestProgress(t *testing.T) {
	notes := make(chan *sdk.ProgressNotificationParams, 100)
	c := sdk.NewClient(&sdk.Implementation{Name: "test"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) { notes <- req.Params },
	})
	cs := connect(t, Config{Roots: []string{testdata}}, c)
	params := &sdk.CallToolParams{Name: "open", Arguments: map[string]any{"path": "jvm/jdk17-default.hprof.gz"}}
	params.SetProgressToken("index-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("open: %v %v", err, res)
	}
	var last *sdk.ProgressNotificationParams
	for last == nil || last.Progress != last.Total {
		select {
		case last = <-notes:
		case <-time.After(5 * time.Second):
			t.Fatalf("last progress %+v, want the whole dump read", last)
		}
	}
	if last.ProgressToken != "index-1" || last.Total == 0 {
		t.Errorf("last progress %+v, want the dump's size under token index-1", last)
	}
}
