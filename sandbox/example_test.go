package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// Run a command with the process engine in a workspace, then read what it
// wrote through the Workspace, which refuses paths that leave it.
func Example() {
	dir, _ := os.MkdirTemp("", "example-ws-")
	defer os.RemoveAll(dir)

	ws, err := sandbox.OpenWorkspace(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()

	sb, err := sandbox.New("process",
		sandbox.WithWorkspace(ws.Dir()),
		sandbox.WithLimits(sandbox.Limits{Timeout: 10 * time.Second, OutputBytes: 1 << 16}),
	)
	if err != nil {
		fmt.Println(err) // e.g. prlimit missing, with the package to install
		return
	}
	out, err := sb.Run(context.Background(), sandbox.Spec{
		Argv:   []string{"sh", "-c", "echo hello > greeting.txt; echo done"},
		Limits: sandbox.Limits{Timeout: 5 * time.Second}, // within the engine's 10s
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("exit %d: %s", out.ExitCode, out.Stdout)

	data, _ := ws.ReadFile("greeting.txt")
	fmt.Printf("greeting.txt: %s", data)

	_, err = ws.ReadFile("../etc/passwd")
	fmt.Println(err != nil, errors.Is(err, sandbox.ErrOutsideWorkspace))
	// Output:
	// exit 0: done
	// greeting.txt: hello
	// true true
}

// One run gets more time than its spec gives, within the engine's limits;
// asking for more than the engine's is refused before the run starts.
func ExampleWithRunLimits() {
	sb, err := sandbox.New("process", sandbox.WithLimits(sandbox.Limits{Timeout: 30 * time.Second}))
	if err != nil {
		fmt.Println(err)
		return
	}
	spec := sandbox.Spec{Argv: []string{"sh", "-c", "sleep 0.3; echo built"}, Limits: sandbox.Limits{Timeout: 100 * time.Millisecond}}

	_, err = sb.Run(context.Background(), spec)
	fmt.Println(errors.Is(err, sandbox.ErrTimeout))

	out, err := sb.Run(sandbox.WithRunLimits(context.Background(), sandbox.Limits{Timeout: 10 * time.Second}), spec)
	fmt.Print(string(out.Stdout), err, "\n")

	_, err = sb.Run(sandbox.WithRunLimits(context.Background(), sandbox.Limits{Timeout: time.Hour}), spec)
	fmt.Println(errors.Is(err, sandbox.ErrExceedsParent))
	// Output:
	// true
	// built
	// <nil>
	// true
}
