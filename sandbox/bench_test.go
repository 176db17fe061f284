package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
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
				run, cleanup := directCmd(b, eng, spec)
				b.StartTimer()
				err := run()
				b.StopTimer()
				cleanup()
				b.StartTimer()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunTrueInterleaved measures, per engine, Run(`true`) and the same
// command line run directly with os/exec in alternating blocks inside one
// loop, so that a shared machine's drifting speed hits both alike. It reports
// x_engine, the engine's time over the direct call's, and the time of one run
// of each (engine-ns/run, direct-ns/run). Building the direct command line
// (and removing gVisor's bundle) is not timed; the engine's building is.
func BenchmarkRunTrueInterleaved(b *testing.B) {
	ctx := context.Background()
	spec := Spec{Argv: []string{"true"}}
	type variant struct {
		name, engine string
		opts         []Option
	}
	var variants []variant
	for _, name := range Engines() {
		variants = append(variants, variant{name, name, nil})
	}
	if os.Geteuid() == 0 {
		// As root, bwrap binds a workspace owned by root through an
		// idmapped mount made for each run.
		ws, err := os.MkdirTemp("", "toolbelt-bench-ws-")
		if err != nil {
			b.Fatal(err)
		}
		defer os.RemoveAll(ws)
		variants = append(variants, variant{EngineBwrap + "+workspace", EngineBwrap, []Option{WithWorkspace(ws)}})
	}
	for _, v := range variants {
		sb := engine(b, v.engine, v.opts...)
		eng := baseOf(sb)
		block := 8
		if v.engine == EngineGVisor {
			block = 1
		}
		b.Run(v.name, func(b *testing.B) {
			var tEngine, tDirect time.Duration
			runs := 0
			runEngine := func() {
				for range block {
					t0 := time.Now()
					if _, err := sb.Run(ctx, spec); err != nil {
						b.Fatal(err)
					}
					tEngine += time.Since(t0)
				}
			}
			runDirect := func() {
				for range block {
					run, cleanup := directCmd(b, eng, spec)
					t0 := time.Now()
					err := run()
					tDirect += time.Since(t0)
					cleanup()
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				// Alternate which goes first, so neither always follows the other.
				if runs%2 == 0 {
					runEngine()
					runDirect()
				} else {
					runDirect()
					runEngine()
				}
				runs++
			}
			n := float64(runs * block)
			b.ReportMetric(float64(tEngine)/float64(tDirect), "x_engine")
			b.ReportMetric(float64(tEngine)/n, "engine-ns/run")
			b.ReportMetric(float64(tDirect)/n, "direct-ns/run")
		})
	}
}

// directCmd builds the engine's command line for spec as a plain exec.Cmd
// with the same environment, directory, user, pid namespace and inherited
// descriptors (bwrap's seccomp filter), and returns the function that runs
// it and the plan's cleanup. bwrap's starter (the private mount namespace
// of an idmapped workspace, without which its command line cannot run) is
// used too; the landlock engine's (the confinement measured) is not.
func directCmd(b *testing.B, eng *base, spec Spec) (func() error, func()) {
	p, _, err := eng.build(spec)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Env, cmd.Dir = p.env, p.dir
	cmd.SysProcAttr = sysProcAttr(p)
	cmd.ExtraFiles = p.extra
	cleanup := p.cleanup
	if cleanup == nil {
		cleanup = func() {}
	}
	run := cmd.Run
	if p.start != nil && eng.name != EngineLandlock {
		run = func() error {
			if err := p.start(cmd); err != nil {
				return err
			}
			return cmd.Wait()
		}
	}
	return run, cleanup
}

// BenchmarkBwrapConfinedInterleaved measures what confining writes costs a
// bwrap run (see internal/confine): Run(`true`) with this program's executable as
// the run's first process, which applies Landlock and execs the rest, and
// without it (the run as it was before 2026-11-29), in alternating blocks
// inside one loop. It reports x_confined, the confined run's time over the
// other's, and each one's time per run.
func BenchmarkBwrapConfinedInterleaved(b *testing.B) {
	ctx := context.Background()
	spec := Spec{Argv: []string{"true"}}
	confined := engine(b, EngineBwrap).(*Bwrap)
	plain := engine(b, EngineBwrap).(*Bwrap)
	if !confined.confine {
		b.Skip("the kernel has no Landlock: no run is confined")
	}
	plain.confine = false
	var tConfined, tPlain time.Duration
	runs := 0
	block := func(sb Sandbox, total *time.Duration) {
		for range 8 {
			t0 := time.Now()
			if _, err := sb.Run(ctx, spec); err != nil {
				b.Fatal(err)
			}
			*total += time.Since(t0)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if runs%2 == 0 {
			block(confined, &tConfined)
			block(plain, &tPlain)
		} else {
			block(plain, &tPlain)
			block(confined, &tConfined)
		}
		runs++
	}
	n := float64(8 * runs)
	b.ReportMetric(float64(tConfined.Nanoseconds())/n, "confined-ns/run")
	b.ReportMetric(float64(tPlain.Nanoseconds())/n, "plain-ns/run")
	b.ReportMetric(float64(tConfined)/float64(tPlain), "x_confined")
}
