package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"

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

// A tool that fails because the disk is full switches the policy to
// degraded, where the governance file forbids writing; the operator is
// told, and decides when to go back (SetMode).
func ExampleWithDegradeOnExhaustion() {
	const governance = `
tools:
  save_report:
    forbidden_in_modes: [degraded, lockdown]
`
	p, err := policy.Parse([]byte(governance), policy.WithDegradeOnExhaustion(func(from string, cause error) {
		fmt.Printf("operator: left %s: %v\n", from, cause)
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	type args struct {
		Name string `json:"name"`
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("save_report", "Save a report", func(_ context.Context, a args) (string, error) {
		return "", fmt.Errorf("save %s: %w", a.Name, syscall.ENOSPC) // as os.WriteFile on a full disk
	}))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for range 2 {
		res, _ := ex.Execute(context.Background(), tool.Call{Name: "save_report", Args: json.RawMessage(`{"name":"q3"}`)})
		fmt.Println(res.Error.Code, "| mode:", p.Mode())
	}
	// Output:
	// operator: left normal: tool_error: save q3: no space left on device
	// tool_error | mode: degraded
	// policy_denied | mode: degraded
}

// Allows, as registry.Filter.Keep (or agent.Options.Offer), shows the
// model only the tools the current mode lets run.
func ExamplePolicy_Allows() {
	p, err := policy.Parse([]byte(`
tools:
  write_note: {forbidden_in_modes: [lockdown]}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := registry.New()
	reg.MustRegister(
		tool.Func("read_note", "Read a note", func(context.Context, struct{}) (string, error) { return "", nil }),
		tool.Func("write_note", "Write a note", func(context.Context, struct{}) (string, error) { return "", nil }),
	)
	for _, mode := range []string{tool.ModeNormal, tool.ModeLockdown} {
		if err := p.SetMode(mode); err != nil {
			fmt.Println(err)
			return
		}
		var names []string
		for _, s := range reg.List(registry.Filter{Keep: p.Allows}) {
			names = append(names, s.Name)
		}
		fmt.Println(mode+":", names)
	}
	// Output:
	// normal: [read_note write_note]
	// lockdown: [read_note]
}
