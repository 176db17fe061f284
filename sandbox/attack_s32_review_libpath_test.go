package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s32ReviewLibProg is a program that uses the sandbox and links a shared
// library of its own through cgo, found at run time through its
// LD_LIBRARY_PATH (as programs using libgit2, libvips or Oracle's client
// are deployed).
const s32ReviewLibProg = `package main

/*
int s32_answer(void);
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

func main() {
	fmt.Println("answer", C.s32_answer())
	sb, err := sandbox.New(sandbox.EngineBwrap)
	if err != nil {
		fmt.Println("NEW-FAILED:", err)
		os.Exit(3)
	}
	out, err := sb.Run(context.Background(), sandbox.Spec{Argv: []string{"echo", "RAN-IN-BWRAP"}, Limits: sandbox.Limits{Timeout: 30 * time.Second}})
	if err != nil {
		fmt.Println("RUN-FAILED:", err)
		os.Exit(4)
	}
	fmt.Printf("exit %d stdout %q stderr %q\n", out.ExitCode, out.Stdout, out.Stderr)
}
`

// e1e6970 starts every bwrap run's first process from this program's own
// executable, in the sandbox, with the command's environment: a program
// that needs its own LD_LIBRARY_PATH to load (a cgo library outside the
// system's directories) must still run commands with bwrap.
func TestAttackS32ReviewProgramNeedsLibraryPath(t *testing.T) {
	requireRoot(t) // the library's directory is made under /, which the sandbox shows
	for _, tool := range []string{"gcc", "go"} {
		if !haveBinary(tool) {
			if os.Getenv("CI") != "" {
				t.Fatalf("needs %s to build the program (.ci/run installs it)", tool)
			}
			t.Skipf("needs %s to build the program", tool)
		}
	}
	repo, err := filepath.Abs("..")
	require.NoError(t, err)
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	require.NoError(t, err)

	lib := hostDir(t)
	src := filepath.Join(lib, "s32.c")
	require.NoError(t, os.WriteFile(src, []byte("int s32_answer(void) { return 42; }\n"), 0o644))
	out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", filepath.Join(lib, "libs32.so"), src).CombinedOutput()
	require.NoError(t, err, "%s", out)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(s32ReviewLibProg), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module s32prog\n\ngo 1.25.0\n\nrequire github.com/toolbelt-go/toolbelt v0.0.0\n\nreplace github.com/toolbelt-go/toolbelt => "+repo+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	prog := filepath.Join(dir, "prog")
	build := exec.Command("go", "build", "-mod=mod", "-o", prog, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-buildvcs=false", "CGO_ENABLED=1", "CGO_LDFLAGS=-L"+lib+" -ls32")
	out, err = build.CombinedOutput()
	require.NoError(t, err, "building the program: %s", out)
	require.NoError(t, os.Chmod(prog, 0o755))

	run := exec.Command(prog)
	run.Env = append(os.Environ(), "LD_LIBRARY_PATH="+lib)
	out, err = run.CombinedOutput()
	t.Logf("the program: %v\n%s", err, out)
	require.Contains(t, string(out), "answer 42", "the program did not start on the host")
	assert.NoError(t, err, "a program that needs its LD_LIBRARY_PATH cannot run commands with bwrap")
	assert.Contains(t, string(out), `stdout "RAN-IN-BWRAP\n"`)
}
