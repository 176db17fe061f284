// Command agent-loop runs a governed agent end to end with a scripted model
// standing in for a provider: the model reads a file, fixes a typo in it
// (a write, so a human is asked first at an [A]pprove/[D]eny/[M]odify/[V]iew
// prompt — answered here from a script), runs the project's tests in a
// sandbox, and reports. Every call goes through the executor with the audit
// and approval extensions (no logging); the transcript records every call,
// decision and result, and the audit trail, kept outside the agent's
// workspace, is verified at the end.
//
//	go run ./examples/agent-loop
//	go run ./examples/agent-loop -ask     # answer the prompt yourself
//
// Swap the scripted model for providers/openai, providers/anthropic or
// providers/gemini (nested modules) to drive it with a real model.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

func main() {
	ask := flag.Bool("ask", false, "answer the approval prompt yourself, on this terminal, instead of the scripted answers")
	flag.Parse()
	// The scripted human's answers fit the scripted model only: view the
	// details, then approve its one edit. When you swap in a real model,
	// keep os.Stdin (a person) here: scripted answers would approve
	// whatever that model asks first.
	human := io.Reader(strings.NewReader("v\na\n"))
	if *ask {
		human = os.Stdin
	}
	// Ctrl-C cancels the run, so a command run_tests started is killed and
	// the workspace removed, rather than left behind.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, human, scriptedModel()); err != nil {
		stop()
		fmt.Fprintln(os.Stderr, "agent-loop:", err)
		os.Exit(1)
	}
}

// project is the workspace the agent works in: a greeting with a typo and a
// test that checks it.
var project = map[string]string{
	"greeting.txt": "Helo, world!\n",
	"test.sh":      "grep -q '^Hello, world!$' greeting.txt && echo 'PASS greeting' || { echo 'FAIL greeting: got' \"$(cat greeting.txt)\"; exit 1; }\n",
}

func run(ctx context.Context, w io.Writer, human io.Reader, model agent.Model) error {
	dir, err := os.MkdirTemp("", "agent-loop-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// The audit trail records what the agent did, so it lives beside the
	// workspace, never in it: there the agent could read it, and rewrite it
	// with edit_file or the commands run_tests runs.
	work, trailPath := filepath.Join(dir, "project"), filepath.Join(dir, "audit.jsonl")
	if err := os.Mkdir(work, 0o755); err != nil {
		return err
	}
	for name, body := range project {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	ws, err := sandbox.OpenWorkspace(work)
	if err != nil {
		return err
	}
	defer ws.Close()

	// bubblewrap when it is installed; otherwise say so and use the process
	// engine, which confines only the process tree.
	engine := sandbox.EngineBwrap
	sb, err := sandbox.New(engine, sandbox.WithWorkspace(ws.Dir()))
	if err != nil {
		engine = sandbox.EngineProcess
		fmt.Fprintf(w, "note: %v\nnote: running tests with the %s engine instead\n", err, engine)
		if sb, err = sandbox.New(engine, sandbox.WithWorkspace(ws.Dir())); err != nil {
			return err
		}
	}
	runTests, err := builtin.RunTests(sb, []string{"sh", "test.sh"}, shell.WithWorkspace(ws)) // the model writes test.sh: what ws hides stays hidden from it
	if err != nil {
		return err
	}
	reg := registry.New()
	reg.MustRegister(builtin.ReadFile(ws), builtin.EditFile(ws), runTests)

	trail, err := audit.Open(trailPath)
	if err != nil {
		return err
	}
	defer trail.Close()
	policy, err := approval.NewPolicy(approval.ModeAuto, approval.AlwaysApprove("run_tests"))
	if err != nil {
		return err
	}
	appr := approvalgate.New(approval.NewTerminal(human, w, approval.TerminalUser("alice")), approvalgate.WithPolicy(policy))
	ex, err := executor.New(reg, executor.WithExtensions(trail, appr, appr.Guard()))
	if err != nil {
		return err
	}

	fmt.Fprintf(w, "== workspace %s (tests run with %s)\n", filepath.Base(dir), engine)
	tr, err := agent.Run(ctx, model, []agent.Message{{Role: agent.RoleUser, Text: "The greeting has a typo. Fix it and make sure the tests pass."}},
		agent.Options{Executor: ex, Tools: []string{"read_file", "edit_file", "run_tests"}, Agent: "fixer", Session: "demo"})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "== transcript")
	for _, s := range tr.Steps {
		for i, c := range s.Calls {
			fmt.Fprintf(w, "turn %d: %s(%s)\n  → %s: %s\n", s.Iteration, c.Name, c.Args, s.Results[i].Status, oneLine(wire.Text(s.Results[i])))
		}
		for _, d := range s.Decisions {
			fmt.Fprintf(w, "  approval: %s by %s for %s\n", d.Decision, d.DecidedBy, d.Tool)
		}
	}
	fmt.Fprintf(w, "== final answer (%s after %d turns)\n%s\n", tr.Stop, tr.Iterations, tr.Final)
	if err := trail.Close(); err != nil {
		return err
	}
	rep, err := audit.Verify(trailPath)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "== audit trail: %d records, chain intact\n", rep.Records)
	return nil
}

// scriptedModel plays a model that works step by step from what the tools
// returned: read, fix, test, answer.
func scriptedModel() agent.Model {
	return agent.ModelFunc(func(ctx context.Context, conv []agent.Message, tools []tool.Spec) (agent.Message, error) {
		last := conv[len(conv)-1]
		call := func(name string, args any) agent.Message {
			b, _ := json.Marshal(args)
			return agent.Message{Calls: []tool.Call{{Name: name, Args: b}}}
		}
		if last.Role != agent.RoleTool {
			return call("read_file", map[string]any{"path": "greeting.txt"}), nil
		}
		r := last.Results[0]
		switch r.Tool {
		case "read_file":
			if strings.Contains(r.Text(), "Helo,") {
				return call("edit_file", map[string]any{"path": "greeting.txt", "old_string": "Helo,", "new_string": "Hello,"}), nil
			}
			return call("run_tests", map[string]any{}), nil
		case "edit_file":
			if !r.OK() {
				return agent.Message{Text: "I could not fix the file: " + wire.Text(r)}, nil
			}
			return call("run_tests", map[string]any{}), nil
		case "run_tests":
			if r.OK() {
				return agent.Message{Text: "Fixed the typo in greeting.txt; the tests pass: " + strings.TrimSpace(r.Text())}, nil
			}
			return agent.Message{Text: "The tests still fail: " + wire.Text(r)}, nil
		}
		return agent.Message{Text: "done"}, nil
	})
}

func oneLine(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ⏎ ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
