//go:build linux

package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// Confine a command with Landlock: it writes in the workspace, while the
// rest of the host is read-only to it and the network is off.
func ExampleNewLandlock() {
	dir, _ := os.MkdirTemp("", "example-ws-")
	defer os.RemoveAll(dir)
	if os.Geteuid() == 0 {
		// A root host's commands run as nobody, who must be able to write
		// the workspace.
		_ = os.Chown(dir, 65534, 65534)
	}

	sb, err := sandbox.New("landlock",
		sandbox.WithWorkspace(dir),
		sandbox.WithLimits(sandbox.Limits{Timeout: 10 * time.Second}),
	)
	if err != nil {
		fmt.Println(err) // e.g. a kernel without Landlock: unavailable, never weaker
		return
	}
	out, err := sb.Run(context.Background(), sandbox.Spec{Argv: []string{"sh", "-c", `
echo hello > note.txt && cat note.txt
echo pwned > /etc/landlock-example 2>/dev/null || echo "/etc: refused"
echo tmp > "$TMPDIR/t" && echo "TMPDIR: writable"
`}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out.Stdout))
	// Output:
	// hello
	// /etc: refused
	// TMPDIR: writable
}
