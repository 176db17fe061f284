package sandbox

import (
	"context"
	"fmt"
	"time"
)

// Limits bounds one run. A zero field is unset: it inherits the parent's value
// in [Limits.Resolve], and means "no limit" once resolved. Negative values are
// invalid.
//
// Limits nest: a tool's limits are resolved against its agent's, which are
// resolved against the engine's ([WithLimits], default [DefaultLimits]); a child
// never gets more than its parent. One run can be given other limits than
// its spec's through its context ([WithRunLimits]), within the engine's.
type Limits struct {
	// Timeout is the wall-clock time after which the whole process tree is killed.
	Timeout time.Duration
	// CPUTime is the CPU time (user+system) of the command, RLIMIT_CPU. It is
	// rounded up to whole seconds; the command gets SIGXCPU when it is reached.
	CPUTime time.Duration
	// Memory is the address-space size in bytes, RLIMIT_AS (virtual memory, so
	// runtimes that reserve large address ranges need generous values).
	Memory int64
	// Processes is the number of processes, RLIMIT_NPROC. The kernel counts it
	// per user id and does not enforce it for root: see the package
	// documentation for what each engine does about that.
	Processes int
	// FileSize is the largest file the command may write, in bytes, RLIMIT_FSIZE.
	FileSize int64
	// OutputBytes caps what is kept of stdout and of stderr, each. The head and
	// the tail are kept; a producer that goes on far past the cap is killed.
	OutputBytes int64
}

// DefaultLimits are the limits an engine uses when [WithLimits] is not given.
// They suit a build or a test run of an agent's tool; tighten them per tool.
var DefaultLimits = Limits{
	Timeout:     2 * time.Minute,
	CPUTime:     2 * time.Minute,
	Memory:      4 << 30,
	Processes:   512,
	FileSize:    1 << 30,
	OutputBytes: 1 << 20,
}

// Limit names, as they appear in errors ([Error.Limit]).
const (
	LimitTimeout   = "timeout"
	LimitCPU       = "cpu"
	LimitMemory    = "memory"
	LimitProcesses = "processes"
	LimitFileSize  = "file size"
	LimitOutput    = "output"
)

type limitField struct {
	name          string
	child, parent int64
}

func (l Limits) fields(p Limits) []limitField {
	return []limitField{
		{LimitTimeout, int64(l.Timeout), int64(p.Timeout)},
		{LimitCPU, int64(l.CPUTime), int64(p.CPUTime)},
		{LimitMemory, l.Memory, p.Memory},
		{LimitProcesses, int64(l.Processes), int64(p.Processes)},
		{LimitFileSize, l.FileSize, p.FileSize},
		{LimitOutput, l.OutputBytes, p.OutputBytes},
	}
}

// Validate reports the first negative field, naming it.
func (l Limits) Validate() error {
	for _, f := range l.fields(Limits{}) {
		if f.child < 0 {
			return newError(CodeCreateFailed, "", f.name, ErrInvalidSpec,
				"limit %q is negative (%d); use 0 to inherit the parent's value", f.name, f.child)
		}
	}
	return nil
}

// Within reports whether every limit the child sets is no larger than the
// parent's. An unset child limit is within any parent; a parent's unset limit
// admits anything. The error names the first limit that is over, is an
// [*Error] with [CodeResourceLimit], and matches [ErrExceedsParent].
func (l Limits) Within(parent Limits) error {
	if err := l.Validate(); err != nil {
		return err
	}
	if err := parent.Validate(); err != nil {
		return err
	}
	for _, f := range l.fields(parent) {
		if f.child != 0 && f.parent != 0 && f.child > f.parent {
			return newError(CodeResourceLimit, "", f.name, ErrExceedsParent,
				"%s limit %s is over the parent's %s; ask for at most the parent's value",
				f.name, formatLimit(f.name, f.child), formatLimit(f.name, f.parent))
		}
	}
	return nil
}

// Resolve checks the child against the parent ([Limits.Within]) and returns
// the child with every unset field taken from the parent.
func (l Limits) Resolve(parent Limits) (Limits, error) {
	if err := l.Within(parent); err != nil {
		return Limits{}, err
	}
	return l.inherit(parent), nil
}

// inherit returns l with every unset field taken from p.
func (l Limits) inherit(p Limits) Limits {
	r := l
	if r.Timeout == 0 {
		r.Timeout = p.Timeout
	}
	if r.CPUTime == 0 {
		r.CPUTime = p.CPUTime
	}
	if r.Memory == 0 {
		r.Memory = p.Memory
	}
	if r.Processes == 0 {
		r.Processes = p.Processes
	}
	if r.FileSize == 0 {
		r.FileSize = p.FileSize
	}
	if r.OutputBytes == 0 {
		r.OutputBytes = p.OutputBytes
	}
	return r
}

type runLimitsKey struct{}

// WithRunLimits returns a context whose sandboxed runs use the limits l
// sets in place of the run's own (Spec.Limits: a shell tool's WithLimits,
// say); the fields l leaves unset keep the run's. It is how a program
// gives one call more or less than its tool's defaults (npm run build:
// ten minutes and 8 GiB) without a tool of its own: pass the context to
// executor.Execute. The engine's limits ([WithLimits]) still bound every
// run: asking for more is refused before the run starts
// ([ErrExceedsParent]). The model cannot set it; only the program calling
// the executor can.
func WithRunLimits(ctx context.Context, l Limits) context.Context {
	return context.WithValue(ctx, runLimitsKey{}, l)
}

// RunLimits returns the limits WithRunLimits put in ctx.
func RunLimits(ctx context.Context) (Limits, bool) {
	l, ok := ctx.Value(runLimitsKey{}).(Limits)
	return l, ok
}

func formatLimit(name string, v int64) string {
	switch name {
	case LimitTimeout, LimitCPU:
		return time.Duration(v).String()
	case LimitProcesses:
		return fmt.Sprint(v)
	default:
		return fmt.Sprintf("%d bytes", v)
	}
}
