package sandbox

import (
	"context"
	"os/exec"
	"testing"
)

// BenchmarkRunTrue runs `true` through each engine, next to running the very
// command line the engine builds directly with os/exec, and next to a bare
// exec.Command("true"): the difference is the engine's own cost (pipes,
// process group handling, output capture), the rest is the wrapper's.
func BenchmarkRunTrue(b *testing.B) {
	ctx := context.Background()
	spec := Spec{Argv: []string{"true"}}
	b.Run("bare-exec", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, name := range Engines() {
		sb := engine(b, name)
		eng := baseOf(sb)
		b.Run(name+"/engine", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sb.Run(ctx, spec); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/direct-argv", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				p, _, err := eng.build(spec)
				if err != nil {
					b.Fatal(err)
				}
				cmd := exec.Command(p.argv[0], p.argv[1:]...)
				cmd.Env, cmd.Dir = p.env, p.dir
				b.StartTimer()
				err = cmd.Run()
				b.StopTimer()
				if p.cleanup != nil {
					p.cleanup()
				}
				b.StartTimer()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
