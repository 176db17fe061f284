package shell_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// An argv tool: the model's value fills one argument and is never
// interpreted by a shell. A bash tool: a blocked command line is refused
// before it runs.
func Example() {
	dir, _ := os.MkdirTemp("", "shell-example-")
	defer os.RemoveAll(dir)
	ws, _ := sandbox.OpenWorkspace(dir)
	defer ws.Close()
	sb, err := sandbox.New("process", sandbox.WithWorkspace(ws.Dir()),
		sandbox.WithLimits(sandbox.Limits{Timeout: 10 * time.Second, OutputBytes: 1 << 20}))
	if err != nil {
		fmt.Println(err)
		return
	}

	echo, _ := shell.NewCommand("echo_word", "Echo a word", sb, []string{"echo", "{word}"})
	bash, _ := shell.NewBash(sb, ws)
	reg := registry.New()
	reg.MustRegister(echo, bash)
	ex := executor.MustNew(reg)
	ctx := context.Background()

	res, _ := ex.Execute(ctx, tool.Call{ID: "1", Name: "echo_word", Args: json.RawMessage(`{"word":"$(id); rm -rf ~"}`)})
	fmt.Print(res.Text())

	res, _ = ex.Execute(ctx, tool.Call{ID: "2", Name: "bash", Args: json.RawMessage(`{"command":"echo hi | tr a-z A-Z"}`)})
	fmt.Print(res.Text())

	res, _ = ex.Execute(ctx, tool.Call{ID: "3", Name: "bash", Args: json.RawMessage(`{"command":"sudo reboot"}`)})
	fmt.Println(res.Status, res.Error.Code)
	// Output:
	// $(id); rm -rf ~
	// HI
	// denied policy_denied
}

// TrackChanges: each run says what it changed in the workspace, to the
// model (the end of the text) and to the program (metadata).
func ExampleTrackChanges() {
	dir, _ := os.MkdirTemp("", "shell-example-")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(dir+"/draft.txt", []byte("draft\n"), 0o644)
	ws, _ := sandbox.OpenWorkspace(dir)
	defer ws.Close()
	sb, err := sandbox.New("process", sandbox.WithWorkspace(ws.Dir()),
		sandbox.WithLimits(sandbox.Limits{Timeout: 10 * time.Second, OutputBytes: 1 << 20}))
	if err != nil {
		fmt.Println(err)
		return
	}
	bash, _ := shell.NewBash(sb, ws, shell.TrackChanges())
	res, err := bash.Run(context.Background(), tool.Call{Name: "bash",
		Args: json.RawMessage(`{"command":"echo final > notes.txt && rm draft.txt && echo ok"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	fmt.Println(res.Metadata[shell.MetaChanges])
	// Output:
	// ok
	// [changed: deleted draft.txt, created notes.txt]
	// [deleted draft.txt created notes.txt]
}

// A Command tool given the workspace hides from its runs what the
// workspace hides (here secrets/, as a policy's forbidden_paths would):
// bwrap and gvisor mount an empty directory over it, so a recursive grep
// of the workspace finds nothing there. The process and landlock engines
// cannot mask, and refuse such a run. (Not run: it needs bwrap.)
func ExampleWithWorkspace() {
	dir, _ := os.MkdirTemp("", "shell-example-")
	defer os.RemoveAll(dir)
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithHide(func(rel, _ string) string {
		if rel == "secrets" || strings.HasPrefix(rel, "secrets/") {
			return "secrets/**"
		}
		return ""
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()
	sb, err := sandbox.New("bwrap", sandbox.WithWorkspace(ws.Dir()))
	if err != nil {
		fmt.Println(err)
		return
	}
	grep, err := shell.NewCommand("grep_workspace", "Search every file of the workspace", sb,
		[]string{"grep", "-rn", "--", "{pattern}", "."}, shell.WithWorkspace(ws))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, _ := grep.Run(context.Background(), tool.Call{Name: "grep_workspace", Args: json.RawMessage(`{"pattern":"KEY"}`)})
	fmt.Println(res.Text())
}
