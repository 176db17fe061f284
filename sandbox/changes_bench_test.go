package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolbelt-go/toolbelt/internal/benchcore"
)

// BenchmarkTrackChanges runs `true` with the process engine in a workspace
// of 100 directories of 10 files each (1,100 entries), with and without
// Spec.TrackChanges, in alternating blocks of one loop: x_tracked is the
// tracked run's time over the plain one's, and ns/<path> each run's time.
// The difference is the two walks of the workspace.
func BenchmarkTrackChanges(b *testing.B) {
	ws := b.TempDir()
	for d := range 100 {
		dir := filepath.Join(ws, fmt.Sprintf("d%03d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 10 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", f)), []byte("package x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	sb := engine(b, EngineProcess, WithWorkspace(ws))
	ctx := context.Background()
	run := func(track bool) func() {
		return func() {
			out, err := sb.Run(ctx, Spec{Argv: []string{"true"}, TrackChanges: track})
			if err != nil {
				b.Fatal(err)
			}
			if track && (len(out.Changes) != 0 || out.ChangesUntracked != "") {
				b.Fatalf("changes of true: %v %q", out.Changes, out.ChangesUntracked)
			}
		}
	}
	benchcore.Interleave(b, 4, []string{"plain", "tracked"}, run(false), run(true))
}
