package builtin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// The file tools on a temporary workspace: write, edit, read, and an
// attempt to leave the workspace.
func Example() {
	dir, _ := os.MkdirTemp("", "builtin-example-")
	defer os.RemoveAll(dir)
	ws, err := sandbox.OpenWorkspace(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()

	reg := registry.New()
	reg.MustRegister(builtin.Files(ws)...)
	ex := executor.MustNew(reg)
	run := func(name, args string) *tool.Result {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: name, Name: name, Args: json.RawMessage(args)})
		return res
	}

	fmt.Println(run("write_file", `{"path":"notes/todo.txt","content":"buy milk\nbuy bread\n"}`).Text())
	fmt.Println(run("edit_file", `{"path":"notes/todo.txt","old_string":"milk","new_string":"oat milk"}`).Text())
	fmt.Print(run("read_file", `{"path":"notes/todo.txt"}`).Text())
	res := run("edit_file", `{"path":"notes/todo.txt","old_string":"buy","new_string":"get"}`)
	fmt.Println(res.Error.Message)
	res = run("read_file", `{"path":"../../etc/passwd"}`)
	fmt.Println(res.Status, res.Error.Code)
	// Output:
	// created notes/todo.txt (19 bytes)
	// replaced 1 occurrence(s) in notes/todo.txt
	// buy oat milk
	// buy bread
	// old_string occurs 2 times in notes/todo.txt: include more surrounding text so it occurs exactly once, or set replace_all to replace all 2
	// denied filesystem_policy
}
