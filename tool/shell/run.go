package shell

import (
	"bytes"
	"context"
	"strconv"
	"strings"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// DefaultOutputBudget is how many bytes of each stream (stdout, stderr) go
// into the text a model reads, unless WithOutputBudget says otherwise.
const DefaultOutputBudget = 16 << 10

// Metadata keys a shell tool sets on its results.
const (
	MetaStdout     = "stdout"     // string: the whole captured stdout (up to the sandbox's output cap)
	MetaStderr     = "stderr"     // string: the whole captured stderr
	MetaExitCode   = "exit_code"  // int: the exit status, -1 when killed by a signal
	MetaDuration   = "duration"   // time.Duration: wall-clock time of the command
	MetaArgv       = "argv"       // []string: the arguments the command ran with (before the engine's wrapper)
	MetaEngine     = "engine"     // string: the sandbox engine
	MetaDanger     = "danger"     // string: the classifier's level ("safe", "warning", ...)
	MetaDangerWhy  = "danger_why" // []string: the classifier's reasons
	MetaKilledBy   = "killed_by"  // string: the limit that stopped the command, if any
	MetaUnenforced = "unenforced" // []string: limits the engine could not enforce
	// MetaChanges is what the run created, modified and deleted in the
	// workspace ([]sandbox.Change, TrackChanges), and MetaChangesNote why
	// they are not all there (more than the sandbox lists, or not tracked).
	MetaChanges     = "changes"
	MetaChangesNote = "changes_note"
	// MetaTruncated (bool) says the model's text or the capture was cut:
	// tool.MetaTruncated, the key every cap writes.
	MetaTruncated = tool.MetaTruncated
)

// runner runs one argv in a sandbox and turns the outcome into a result.
type runner struct {
	sb     sandbox.Sandbox
	env    []string
	limits sandbox.Limits
	budget int
	track  bool // TrackChanges
}

func (r *runner) run(ctx context.Context, argv []string, dir string, mask []string, v *classify.Verdict) (*tool.Result, error) {
	out, err := r.sb.Run(ctx, sandbox.Spec{
		Argv:         argv,
		Dir:          dir,
		Env:          r.env,
		Limits:       r.limits,
		TrackChanges: r.track,
		Mask:         mask,
		OnOutput: func(stream string, chunk []byte) {
			tool.EmitOutput(ctx, stream, chunk)
		},
	})
	res := &tool.Result{}
	res.SetMeta(MetaArgv, argv)
	if v != nil {
		res.SetMeta(MetaDanger, v.Level.String())
		res.SetMeta(MetaDangerWhy, v.Reasons)
	}
	if out == nil {
		// The command never started (bad spec, engine missing, workspace
		// refusal, concurrency bound, cancelled before start).
		te := ToolError(err)
		if te == nil {
			te = tool.NewError(tool.CodeSandbox, "the sandbox returned no outcome")
		}
		res.Error, res.Status = te, te.Code.Status()
		return res, te
	}
	res.Usage = &tool.Usage{UserCPU: out.Usage.UserCPU, SystemCPU: out.Usage.SystemCPU, MaxRSS: out.Usage.MaxRSS}
	res.SetMeta(MetaStdout, string(out.Stdout))
	res.SetMeta(MetaStderr, string(out.Stderr))
	res.SetMeta(MetaExitCode, out.ExitCode)
	res.SetMeta(MetaDuration, out.Duration)
	res.SetMeta(MetaEngine, out.Engine)
	if out.KilledBy != "" {
		res.SetMeta(MetaKilledBy, out.KilledBy)
	}
	if len(out.Unenforced) > 0 {
		res.SetMeta(MetaUnenforced, out.Unenforced)
	}
	stdout, cutOut := fit(out.Stdout, out.StdoutBytes, r.budget)
	stderr, cutErr := fit(out.Stderr, out.StderrBytes, r.budget)
	res.SetMeta(MetaTruncated, out.Truncated || cutOut || cutErr)

	var text strings.Builder
	text.Grow(len(stdout) + len(stderr) + 32)
	text.Write(stdout)
	if len(stderr) > 0 {
		if text.Len() > 0 && !bytes.HasSuffix(stdout, []byte("\n")) {
			text.WriteByte('\n')
		}
		text.WriteString("[stderr]\n")
		text.Write(stderr)
	}
	if err != nil {
		if text.Len() > 0 && !strings.HasSuffix(text.String(), "\n") {
			text.WriteByte('\n')
		}
		if out.ExitCode >= 0 && out.Signal == 0 {
			text.WriteString("[exit status " + strconv.Itoa(out.ExitCode) + "]")
		} else {
			text.WriteString("[killed: " + killReason(out) + "]")
		}
	}
	if r.track {
		if note := trackChanges(res, out); note != "" {
			if text.Len() > 0 && !strings.HasSuffix(text.String(), "\n") {
				text.WriteByte('\n')
			}
			text.WriteString(note)
		}
	}
	if text.Len() > 0 {
		res.Content = []tool.Content{tool.TextContent(text.String())}
	}
	if err != nil {
		te := ToolError(err)
		if te.Code == tool.CodeNonZeroExit {
			te = &tool.Error{Code: tool.CodeNonZeroExit, Message: exitMessage(argv[0], out), Err: err}
		}
		res.Error, res.Status = te, te.Code.Status()
		return res, te
	}
	res.Status = tool.StatusSucceeded
	return res, nil
}

// maxChangesShown is how many changes the model's text names, and
// maxChangeShown how many bytes of each it shows (the metadata has every
// path whole): twenty paths of many 255-byte names would flood the text
// past the output budget.
const (
	maxChangesShown = 20
	maxChangeShown  = 256
)

// trackChanges puts a tracked run's changes on res's metadata and returns
// the line that tells the model about them ("" when nothing changed).
func trackChanges(res *tool.Result, out *sandbox.Outcome) string {
	if out.ChangesUntracked != "" {
		res.SetMeta(MetaChangesNote, out.ChangesUntracked)
		return "[" + out.ChangesUntracked + "]"
	}
	res.SetMeta(MetaChanges, out.Changes)
	more := out.ChangesOmitted
	if more > 0 {
		res.SetMeta(MetaChangesNote, strconv.Itoa(more)+" more changes not listed")
	}
	if len(out.Changes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("[changed: ")
	for i, c := range out.Changes {
		if i == maxChangesShown {
			more += len(out.Changes) - i
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		s := c.String() // names that could forge a line are quoted
		if len(s) > maxChangeShown {
			s = textcut.Head(s, maxChangeShown) + "..."
		}
		b.WriteString(s)
	}
	if more > 0 {
		b.WriteString(", and " + strconv.Itoa(more) + " more")
	}
	b.WriteString("]")
	return b.String()
}

func killReason(out *sandbox.Outcome) string {
	if out.KilledBy != "" {
		return out.KilledBy + " limit"
	}
	if out.Signal != 0 {
		return "signal " + out.Signal.String()
	}
	return "stopped"
}

// exitMessage says which program failed with which status, and quotes the
// last line of stderr, which is usually the reason.
func exitMessage(prog string, out *sandbox.Outcome) string {
	msg := prog + " exited with status " + strconv.Itoa(out.ExitCode)
	if line := lastLine(out.Stderr); line != "" {
		msg += ": " + line
	}
	return msg
}

func lastLine(b []byte) string {
	b = bytes.TrimRight(b, " \t\r\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	if len(b) > 200 {
		b = append(textcut.Head(b, 200), "..."...)
	}
	return string(b)
}

// fit keeps the head and the tail of kept within budget bytes, with a marker
// saying how many of the total bytes the stream produced were cut. kept may
// itself be the sandbox's head-and-tail capture of total bytes; as long as
// budget is below the capture cap, the head and tail taken here lie inside
// the capture's own head and tail. budget <= 0 keeps everything.
func fit(kept []byte, total int64, budget int) ([]byte, bool) {
	if budget <= 0 || len(kept) <= budget {
		return kept, false
	}
	head := textcut.Head(kept, budget/2)
	tail := textcut.Tail(kept, budget-budget/2)
	if total < int64(len(kept)) {
		total = int64(len(kept))
	}
	cut := total - int64(len(head)) - int64(len(tail))
	marker := sandbox.TruncationMarker(cut)
	b := make([]byte, 0, len(head)+len(marker)+len(tail))
	b = append(b, head...)
	b = append(b, marker...)
	b = append(b, tail...)
	return b, true
}

// quoteArgv writes argv as a shell command line, each argument quoted when
// needed, for the classifier and for approval subjects.
func quoteArgv(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quote(a))
	}
	return b.String()
}

func quote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_./=:,+@%", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// refuseBlocked is the default guard: a Blocked verdict fails the call with
// tool.CodePolicyDenied naming the reasons, before anything runs.
func refuseBlocked(call *tool.Call, v classify.Verdict, what string) *tool.Result {
	why := strings.Join(v.Reasons, "; ")
	if why == "" {
		why = "no reason given"
	}
	res := tool.Fail(call, tool.CodePolicyDenied, what+" is blocked by the command classifier ("+why+"): it is never run; do this another way or ask the user to do it")
	res.SetMeta(MetaDanger, v.Level.String())
	res.SetMeta(MetaDangerWhy, v.Reasons)
	return res
}
