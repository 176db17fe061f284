// Command dashboard runs a governed agent with the web dashboard beside it:
// a scripted model asks to write a file, the write waits for a person to
// click Approve (or Deny, or Modify) in the browser, and the page shows the
// calls live and in the history.
//
//	go run ./examples/dashboard
//
// It prints the page's address, with a token for this run only, on
// 127.0.0.1; open it, decide, and watch the agent finish. Ctrl-C stops it.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8765", "where the dashboard listens (keep it on loopback)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dashboard:", err)
		os.Exit(1)
	}
	var b [24]byte
	_, _ = rand.Read(b[:])
	if err := run(ctx, os.Stdout, ln, base64.RawURLEncoding.EncodeToString(b[:]), true); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "dashboard:", err)
		os.Exit(1)
	}
}

// run serves the dashboard on ln and runs the agent once. With stayUp it
// keeps serving after the agent has finished, until ctx ends.
func run(ctx context.Context, w io.Writer, ln net.Listener, token string, stayUp bool) error {
	dir, err := os.MkdirTemp("", "dashboard-demo-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Demo project\n"), 0o644); err != nil {
		return err
	}
	ws, err := sandbox.OpenWorkspace(dir)
	if err != nil {
		return err
	}
	defer ws.Close()

	reg := registry.New()
	reg.MustRegister(builtin.ReadFile(ws), builtin.WriteFile(ws))
	queue := approval.NewQueue(approval.QueueTimeout(30 * time.Minute))
	gate := approvalgate.New(queue, approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAuto)))
	mem := metrics.NewMemory()
	ex, err := executor.New(reg, executor.WithExtensions(metrics.New(metrics.WithMemory(mem)), gate, gate.Guard()))
	if err != nil {
		return err
	}

	dash, err := dashboard.New(ex, dashboard.WithToken(token), dashboard.WithQueue(queue), dashboard.WithMetrics(mem))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/dashboard/", http.StripPrefix("/dashboard", dash))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
		<-served
	}()
	// The token in the link's fragment, which a browser never sends to a
	// server: the page keeps it in the tab and sends it as a header.
	fmt.Fprintf(w, "dashboard: http://%s/dashboard/#token=%s\n", ln.Addr(), token)

	tr, err := agent.Run(ctx, scriptedModel(), []agent.Message{{Role: agent.RoleUser, Text: "Write a notes file for the project."}},
		agent.Options{Executor: ex, Tools: []string{"read_file", "write_file"}, Agent: "writer", Session: "demo",
			Principal: tool.Principal{ID: "alice"}})
	if err != nil {
		return err
	}
	for _, s := range tr.Steps {
		for i, c := range s.Calls {
			fmt.Fprintf(w, "%s(%s) → %s: %s\n", c.Name, c.Args, s.Results[i].Status, strings.TrimSpace(wire.Text(s.Results[i])))
		}
		for _, d := range s.Decisions {
			fmt.Fprintf(w, "  approval: %s by %s\n", d.Decision, d.DecidedBy)
		}
	}
	fmt.Fprintf(w, "agent: %s\n", tr.Final)
	if stayUp {
		fmt.Fprintln(w, "the dashboard stays up: Ctrl-C to stop")
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

// scriptedModel reads the README, then asks to write notes.md (a write: it
// waits for a person), then answers.
func scriptedModel() agent.Model {
	return agent.ModelFunc(func(_ context.Context, conv []agent.Message, _ []tool.Spec) (agent.Message, error) {
		call := func(name string, args any) agent.Message {
			b, _ := json.Marshal(args)
			return agent.Message{Calls: []tool.Call{{Name: name, Args: b}}}
		}
		last := conv[len(conv)-1]
		if last.Role != agent.RoleTool {
			return call("read_file", map[string]any{"path": "README.md"}), nil
		}
		r := last.Results[0]
		switch r.Tool {
		case "read_file":
			return call("write_file", map[string]any{"path": "notes.md", "content": "# Notes\n\nRead the README first.\n"}), nil
		case "write_file":
			if r.OK() {
				return agent.Message{Text: "I wrote notes.md."}, nil
			}
			return agent.Message{Text: "I could not write notes.md: " + wire.Text(r)}, nil
		}
		return agent.Message{Text: "done"}, nil
	})
}
