// Command monitor runs one model turn's parallel tool calls from three
// agents through the executor and prints, live, what happens to each call,
// per agent, the way a provider monitor panel would: a slow build that
// streams its output from a real process, two agents writing the same file
// (the second waits for the first's lock), a call a policy denies, and a
// fetch that times out. It ends with a summary table read from the
// executor's history.
//
//	go run ./examples/monitor
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func main() {
	// Ctrl-C cancels the batch: run_tests's process group (in a group of
	// its own, so the terminal's SIGINT does not reach it) is killed and
	// the workspace removed, rather than left running and behind.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		stop()
		fmt.Fprintln(os.Stderr, "monitor:", err)
		os.Exit(1)
	}
}

// RunArgs are the arguments of run_tests.
type RunArgs struct {
	Packages int `json:"packages" jsonschema:"minimum=1,maximum=10" jsonschema_description:"How many packages to test"`
}

// runTests runs a real process tree (sh) that prints one line per package,
// and streams each line to the executor's subscribers as it comes. The
// process group is killed if the call is cancelled or times out.
func runTests(ctx context.Context, in RunArgs) (string, error) {
	script := fmt.Sprintf(`for i in $(seq 1 %d); do sleep 0.15; echo "ok  example.com/pkg$i  0.1${i}s"; done`, in.Packages)
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	var all strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		tool.EmitOutput(ctx, "stdout", append(sc.Bytes(), '\n'))
		all.WriteString(sc.Text() + "\n")
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", tool.Errorf(tool.CodeNonZeroExit, "tests failed: %v", err)
	}
	return all.String(), nil
}

// WriteArgs are the arguments of write_file.
type WriteArgs struct {
	Path    string `json:"path" jsonschema_description:"File to write, relative to the workspace"`
	Content string `json:"content"`
}

// writeFile builds the write_file tool for a workspace directory. It
// declares a write on its path, so the executor runs two writes of one
// file one after the other, in the order they were submitted.
//
// The file is written through an os.Root, so neither ".." nor a symlink in
// the workspace leads the write outside it. In production, prefer
// builtin.WriteFile over a sandbox.Workspace, which also hides .git, .env
// and keys and writes atomically.
func writeFile(dir string) tool.Tool {
	return tool.Func("write_file", "Write a file in the workspace", func(ctx context.Context, in WriteArgs) (string, error) {
		select { // a slow disk makes the wait visible
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return "", ctx.Err()
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			return "", err
		}
		defer root.Close()
		if err := root.MkdirAll(filepath.Dir(in.Path), 0o755); err != nil {
			return "", err
		}
		if err := root.WriteFile(in.Path, []byte(in.Content), 0o644); err != nil {
			return "", err
		}
		return fmt.Sprintf("wrote %d bytes to %s", len(in.Content), in.Path), nil
	}, tool.WithResources(func(args json.RawMessage) []tool.Resource {
		var in WriteArgs
		if json.Unmarshal(args, &in) != nil {
			return nil
		}
		return []tool.Resource{{Key: "file:" + filepath.Clean("/"+in.Path), Access: tool.Write}}
	}))
}

// RemoveArgs are the arguments of remove_tree.
type RemoveArgs struct {
	Path string `json:"path"`
}

// FetchArgs are the arguments of fetch_url.
type FetchArgs struct {
	URL string `json:"url"`
}

// guard is a small policy extension: it denies remove_tree outright.
var guard = extension.Hooks{ExtName: "guard", Prio: extension.PriorityPolicy,
	Before: func(_ context.Context, req *extension.Request) *tool.Result {
		if req.Call.Name == "remove_tree" {
			return tool.Fail(&req.Call, tool.CodePolicyDenied, "remove_tree is forbidden in this workspace: delete single files instead")
		}
		return nil
	}}

func call(id, agent, name string, args any) tool.Call {
	b, _ := json.Marshal(args)
	return tool.Call{ID: id, Agent: agent, Name: name, Args: b}
}

func run(ctx context.Context, w io.Writer) error {
	dir, err := os.MkdirTemp("", "monitor")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	reg := registry.New()
	for _, t := range []tool.Tool{
		tool.Func("run_tests", "Run the test suite, streaming its output", runTests),
		writeFile(dir),
		tool.Func("remove_tree", "Remove a directory tree", func(context.Context, RemoveArgs) (string, error) {
			return "", fmt.Errorf("must never run")
		}),
		tool.Func("fetch_url", "Fetch a URL", func(ctx context.Context, in FetchArgs) (string, error) {
			<-ctx.Done() // the network never answers
			return "", ctx.Err()
		}, tool.WithTimeout(300*time.Millisecond)),
	} {
		if err := reg.Register(t); err != nil {
			return err
		}
	}
	ex, err := executor.New(reg, executor.WithExtensions(guard), executor.WithAgentConcurrency(3))
	if err != nil {
		return err
	}

	calls := []tool.Call{
		call("c1", "anthropic", "run_tests", RunArgs{Packages: 4}),
		call("c2", "anthropic", "write_file", WriteArgs{Path: "lib/app.go", Content: "package app // by anthropic\n"}),
		call("c3", "openai", "write_file", WriteArgs{Path: "lib/app.go", Content: "package app // by openai\n"}),
		call("c4", "openai", "write_file", WriteArgs{Path: "README.md", Content: "# app\n"}),
		call("c5", "gemini", "remove_tree", RemoveArgs{Path: "/"}),
		call("c6", "gemini", "fetch_url", FetchArgs{URL: "https://example.com/slow"}),
	}

	events, stop := ex.Subscribe(executor.EventFilter{Buffer: 1024})
	defer stop()
	shown := make(chan error)
	go func() { shown <- live(w, events, len(calls)) }()

	fmt.Fprintf(w, "── live: %d calls from 3 agents ──────────────────────────────\n", len(calls))
	began := time.Now()
	results := ex.ExecuteBatch(ctx, calls)
	if err := <-shown; err != nil {
		return err
	}
	wall := time.Since(began)

	fmt.Fprintf(w, "\n── summary (from history, %v wall) ─────────────────────────\n", wall.Round(10*time.Millisecond))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tCALL\tTOOL\tSTATUS\tCODE\tDURATION")
	for _, agent := range []string{"anthropic", "openai", "gemini"} {
		for _, r := range ex.History(executor.HistoryQuery{Agent: agent}) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\n", r.Agent, r.CallID, r.Tool, r.Status, dash(string(r.Code)), r.Duration.Round(10*time.Millisecond))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ok := 0
	for _, r := range results {
		if r.OK() {
			ok++
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "lib/app.go"))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d of %d calls succeeded; lib/app.go now reads %q (the writes ran in call order)\n", ok, len(results), strings.TrimSpace(string(b)))
	return nil
}

// live prints each event as it arrives, prefixed by its agent, until every
// call has finished.
func live(w io.Writer, events <-chan tool.Event, calls int) error {
	icons := map[tool.EventKind]string{
		tool.EventSubmitted: "→", tool.EventQueued: "⏳", tool.EventStarted: "⚡", tool.EventOutput: "│",
		tool.EventCompleted: "✓", tool.EventFailed: "✗", tool.EventCancelled: "⊘",
		tool.EventApprovalRequested: "?", tool.EventApprovalDecided: "!", tool.EventRetried: "↻",
	}
	start := time.Now()
	timeout := time.After(30 * time.Second)
	for finished := 0; finished < calls; {
		var ev tool.Event
		select {
		case ev = <-events:
		case <-timeout:
			return fmt.Errorf("only %d of %d calls finished", finished, calls)
		}
		if ev.Dropped > 0 {
			fmt.Fprintf(w, "  (%d events lost: the display was too slow)\n", ev.Dropped)
		}
		detail := ev.Tool
		switch ev.Kind {
		case tool.EventOutput:
			detail = strings.TrimRight(string(ev.Data), "\n")
		case tool.EventQueued:
			detail += ": " + ev.Reason
		case tool.EventCompleted:
			detail += fmt.Sprintf(" in %v", ev.Result.Timings.Total.Round(10*time.Millisecond))
			finished++
		case tool.EventFailed, tool.EventCancelled:
			detail += fmt.Sprintf(": %s: %s", ev.Result.Status, ev.Reason)
			finished++
		}
		fmt.Fprintf(w, "%5dms  %-12s %s %-9s %s  %s\n", time.Since(start).Milliseconds(), "["+ev.Agent+"]", icons[ev.Kind], ev.Kind, ev.CallID, detail)
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
