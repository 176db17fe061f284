package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// AppendArgs are the arguments of the append example tool.
type AppendArgs struct {
	Path string `json:"path"`
	Line string `json:"line"`
}

// exampleAppend appends a line to a file and declares a write on the path,
// so that calls on one file run one at a time, in order.
func exampleAppend() tool.Tool {
	return tool.Func("append", "Append a line to a file", func(_ context.Context, in AppendArgs) (string, error) {
		f, err := os.OpenFile(in.Path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return "", err
		}
		defer f.Close()
		_, err = fmt.Fprintln(f, in.Line)
		return "appended", err
	}, tool.WithResources(func(args json.RawMessage) []tool.Resource {
		var in AppendArgs
		if json.Unmarshal(args, &in) != nil {
			return nil
		}
		return []tool.Resource{{Key: "file:" + in.Path, Access: tool.Write}}
	}))
}

func ExampleExecutor_ExecuteBatch() {
	dir, _ := os.MkdirTemp("", "batch")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "notes.txt")

	reg := registry.New()
	reg.MustRegister(exampleAppend())
	ex := executor.MustNew(reg)

	// The parallel tool calls of one model turn.
	var calls []tool.Call
	for i, line := range []string{"first", "second", "third"} {
		args, _ := json.Marshal(AppendArgs{Path: path, Line: line})
		calls = append(calls, tool.Call{ID: fmt.Sprint("call_", i), Name: "append", Args: args})
	}
	calls = append(calls, tool.Call{ID: "call_3", Name: "delete_everything"})

	for _, res := range ex.ExecuteBatch(context.Background(), calls) {
		fmt.Println(res.CallID, res.Status)
	}
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	// Output:
	// call_0 succeeded
	// call_1 succeeded
	// call_2 succeeded
	// call_3 failed
	// first
	// second
	// third
}

func ExampleExecutor_Submit() {
	reg := registry.New()
	reg.MustRegister(tool.Func("greet", "Say hello", func(_ context.Context, in struct {
		Name string `json:"name"`
	}) (string, error) {
		return "hello " + in.Name, nil
	}))
	ex := executor.MustNew(reg)

	id, err := ex.Submit(context.Background(), tool.Call{ID: "c1", Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`)})
	if err != nil {
		panic(err)
	}
	res, err := ex.Wait(context.Background(), id)
	fmt.Println(res.Text(), err)
	st, _ := ex.Status(id)
	fmt.Println(st.State, st.CallID)
	// Output:
	// hello Ada <nil>
	// done c1
}

func ExampleExecutor_Subscribe() {
	reg := registry.New()
	reg.MustRegister(tool.New("build", "Build and stream the log", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
		tool.EmitOutput(ctx, "stdout", []byte("compiling\n"))
		return &tool.Result{Content: []tool.Content{tool.TextContent("built")}}, nil
	}))
	ex := executor.MustNew(reg)
	events, stop := ex.Subscribe(executor.EventFilter{Agents: []string{"claude"}})
	defer stop()

	ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "build", Agent: "claude"})
	for ev := range events {
		fmt.Printf("%s %s %s %q\n", ev.Agent, ev.CallID, ev.Kind, ev.Data)
		if ev.Kind == tool.EventCompleted {
			break
		}
	}
	// Output:
	// claude c1 submitted ""
	// claude c1 started ""
	// claude c1 output "compiling\n"
	// claude c1 completed ""
}

func ExampleExecutor_History() {
	reg := registry.New()
	reg.MustRegister(tool.New("ping", "Answer", func(context.Context, tool.Call) (*tool.Result, error) { return &tool.Result{}, nil }))
	ex := executor.MustNew(reg, executor.WithHistory(100))
	for _, agent := range []string{"ann", "bob", "ann"} {
		ex.Execute(context.Background(), tool.Call{Name: "ping", Agent: agent})
	}
	ex.Execute(context.Background(), tool.Call{Name: "pong", Agent: "ann"})

	for _, r := range ex.History(executor.HistoryQuery{Agent: "ann"}) {
		fmt.Println(r.Seq, r.Tool, r.Status, r.Code != "")
	}
	failed := ex.History(executor.HistoryQuery{Status: tool.StatusFailed})
	fmt.Println(len(failed), strings.HasPrefix(failed[0].Message, `no tool named "pong"`))
	// Output:
	// 1 ping succeeded false
	// 3 ping succeeded false
	// 4 pong failed true
	// 1 true
}
