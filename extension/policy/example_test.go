package policy_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func Example() {
	const governance = `
global:
  forbidden_paths: ["/etc/**"]
tools:
  write_file:
    allowed_in_modes: [normal]
    requires_approval_in_modes: [alert]
    forbidden_in_modes: [lockdown]
    allowed_paths: ["/srv/agent/**"]
`
	p, err := policy.Parse([]byte(governance))
	if err != nil {
		fmt.Println(err)
		return
	}
	type args struct {
		Path string `json:"path"`
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("write_file", "Write a file", func(_ context.Context, a args) (string, error) {
		return "wrote " + a.Path, nil
	}))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	call := func(path string) {
		b, _ := json.Marshal(args{Path: path})
		res, _ := ex.Execute(context.Background(), tool.Call{Name: "write_file", Args: b})
		if res.OK() {
			fmt.Println(p.Mode(), res.Text())
			return
		}
		fmt.Println(p.Mode(), res.Metadata[policy.MetaRule])
	}
	call("/srv/agent/notes.txt")
	call("/etc/passwd")
	call("/home/me/x")
	_ = p.SetMode("lockdown")
	call("/srv/agent/notes.txt")
	// Output:
	// normal wrote /srv/agent/notes.txt
	// normal global.forbidden_paths
	// normal tools.write_file.allowed_paths
	// lockdown tools.write_file.forbidden_in_modes
}

func ExampleParse_error() {
	_, err := policy.Parse([]byte("tools:\n  write_file:\n    allowed_modes: [normal, lockdwn]\n"))
	fmt.Println(err)
	// Output:
	// governance.yaml:3: tools.write_file.allowed_modes: unknown mode "lockdwn": did you mean "lockdown"?
}
