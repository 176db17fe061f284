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
