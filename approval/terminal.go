package approval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// MaxTerminalLine is the longest line a Terminal reads (modified arguments
// are entered as one line of JSON).
const MaxTerminalLine = 1 << 20

// Terminal is an Approver that asks a human on a text terminal:
//
//	[A]pprove | [S]ession (these arguments) | [T]ool (this session) | [D]eny | [M]odify | [V]iew details
//
// A approves this call; S approves it and later calls in the session with
// the same arguments; T approves this tool for the session; D denies, after
// asking for a reason the model will see; M shows the arguments as JSON and
// reads new ones as one line, refusing (and asking again) until they are a
// JSON object valid against the tool's input schema; V shows every detail
// and asks again. End of input at any point denies.
//
// Reads cannot be interrupted, so a Terminal notices a done context only
// between lines; run it under the approval extension, which stops waiting
// when the context ends. One prompt is shown at a time.
//
// Keystrokes typed before a call's summary is shown (an Enter pressed
// twice, a paste, typing while the agent works) do not answer it: when in
// is a terminal (an *os.File such as os.Stdin) in its usual line mode, on
// Linux, macOS and FreeBSD, what was typed and not yet read is dropped
// before the summary, as sudo does before it asks. Other input (a pipe, a
// reader of scripted answers) is read as it comes.
type Terminal struct {
	mu   sync.Mutex
	src  io.Reader // what in reads: a terminal's type-ahead is dropped from it
	in   *bufio.Scanner
	out  io.Writer
	name string
}

// TerminalOption configures NewTerminal.
type TerminalOption func(*Terminal)

// TerminalUser names the human at the terminal in Decision.DecidedBy
// (default "terminal").
func TerminalUser(name string) TerminalOption { return func(t *Terminal) { t.name = name } }

// NewTerminal returns a Terminal that reads answers from in and writes
// prompts to out (typically os.Stdin and os.Stderr).
func NewTerminal(in io.Reader, out io.Writer, opts ...TerminalOption) *Terminal {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), MaxTerminalLine)
	t := &Terminal{src: in, in: sc, out: out, name: "terminal"}
	for _, o := range opts {
		if o != nil {
			o(t)
		}
	}
	return t
}

var errEOF = errors.New("input closed")

func (t *Terminal) readLine(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if !t.in.Scan() {
		if err := t.in.Err(); err != nil {
			return "", err
		}
		return "", errEOF
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return strings.TrimSpace(t.in.Text()), nil
}

// printf writes to the person. Every value that came from the call (names,
// arguments, reasons, the subject) is made Visible first, so what is shown
// is what will run; a lines value keeps its line breaks.
func (t *Terminal) printf(format string, args ...any) {
	for i, a := range args {
		switch v := a.(type) {
		case lines:
			args[i] = VisibleLines(string(v))
		case string:
			args[i] = Visible(v)
		case fmt.Stringer:
			args[i] = Visible(v.String())
		case []string:
			out := make([]string, len(v))
			for j := range v {
				out[j] = Visible(v[j])
			}
			args[i] = out
		}
	}
	fmt.Fprintf(t.out, format, args...)
}

// lines is text shown on several lines (indented JSON).
type lines string

// Approve prompts for req and returns the human's decision. End of input
// is a denial, not an error; a read error or a done context is an error.
func (t *Terminal) Approve(ctx context.Context, req Request) (Decision, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	discardTypeAhead(t.src)
	t.summary(req)
	for {
		if req.OnceOnly { // a session-wide choice would approve this call alone
			t.printf("[A]pprove (this call; asked again each time) | [D]eny | [M]odify | [V]iew details\n> ")
		} else {
			t.printf("[A]pprove | [S]ession (these arguments) | [T]ool (this session) | [D]eny | [M]odify | [V]iew details\n> ")
		}
		line, err := t.readLine(ctx)
		if err != nil {
			return t.eof(err)
		}
		answer := strings.ToLower(line)
		if req.OnceOnly && (answer == "s" || answer == "session" || answer == "t" || answer == "tool") {
			t.printf("This call is asked about every time: approve it alone with A.\n")
			continue
		}
		switch answer {
		case "a", "approve":
			return Approved(t.name), nil
		case "s", "session":
			return Approved(t.name).WithScope(ScopeSessionArgs), nil
		case "t", "tool":
			return Approved(t.name).WithScope(ScopeSessionTool), nil
		case "d", "deny":
			t.printf("Reason for the model (empty for none):\n> ")
			msg, err := t.readLine(ctx)
			if err != nil && err != errEOF {
				return Decision{}, err
			}
			if msg == "" {
				msg = "the user denied this call"
			}
			return Denied(t.name, msg), nil
		case "m", "modify":
			d, ok, err := t.modify(ctx, req)
			if err != nil {
				return t.eof(err)
			}
			if ok {
				return d, nil
			}
		case "v", "view":
			t.details(req)
		default:
			if req.OnceOnly {
				t.printf("Please answer A, D, M or V.\n")
			} else {
				t.printf("Please answer A, S, T, D, M or V.\n")
			}
		}
	}
}

func (t *Terminal) eof(err error) (Decision, error) {
	if err == errEOF {
		return Denied(t.name, "no answer: the approval input was closed"), nil
	}
	return Decision{}, err
}

// modify reads new arguments until they are valid, or an empty line (back
// to the menu: ok false).
func (t *Terminal) modify(ctx context.Context, req Request) (Decision, bool, error) {
	t.printf("Current arguments:\n%s\n", indent(req.Call.Args))
	for {
		t.printf("New arguments as one line of JSON (empty line to go back):\n> ")
		line, err := t.readLine(ctx)
		if err != nil {
			return Decision{}, false, err
		}
		if line == "" {
			return Decision{}, false, nil
		}
		args, err := ValidateArgs(&req.Spec, json.RawMessage(line))
		if err != nil {
			t.printf("Not accepted: %v\n", err)
			continue
		}
		t.printf("Will run with:\n%s\n", indent(args))
		return Modified(t.name, args), true, nil
	}
}

func (t *Terminal) summary(req Request) {
	t.printf("\nApproval required: %s", req.Call.Name)
	if req.Call.ID != "" {
		t.printf(" (call %s)", req.Call.ID)
	}
	t.printf("\n")
	if req.Principal.ID != "" || req.Call.Agent != "" {
		t.printf("  Caller:  %s", req.Principal.ID)
		if req.Call.Agent != "" {
			t.printf(" via agent %s", req.Call.Agent)
		}
		t.printf("\n")
	}
	if req.Subject != "" {
		t.printf("  Subject: %s\n", req.Subject)
	}
	t.printf("  Danger:  %s\n", req.Level)
	if len(req.Reasons) > 0 {
		t.printf("  Reason:  %s\n", req.Reasons[0])
	}
	if req.Required != "" {
		t.printf("  Required: %s\n", req.Required)
	} else if req.Why != "" {
		t.printf("  Asked:   %s\n", req.Why)
	}
	t.printf("  Args:    %s\n", compactJSON(req.Call.Args))
}

func (t *Terminal) details(req Request) {
	s := &req.Spec
	t.printf("Tool:        %s", s.Name)
	if s.Version != "" {
		t.printf(" v%s", s.Version)
	}
	t.printf("\nDescription: %s\nRisk:        %s\n", s.Description, s.Risk)
	if s.Category != "" {
		t.printf("Category:    %s\n", s.Category)
	}
	if s.RequiresApproval {
		t.printf("The tool requires approval for every call.\n")
	}
	t.printf("Call:        id=%q session=%q agent=%q mode=%q\n", req.Call.ID, req.Call.Session, req.Call.Agent, req.Call.Mode)
	if req.Principal.ID != "" {
		t.printf("Principal:   %s roles=%v tenant=%q\n", req.Principal.ID, req.Principal.Roles, req.Principal.Tenant)
	}
	t.printf("Danger:      %s\n", req.Level)
	for _, r := range req.Reasons {
		t.printf("  - %s\n", r)
	}
	t.printf("Arguments:\n%s\nInput schema:\n%s\n", indent(req.Call.Args), indent(s.InputSchema))
}

func indent(raw json.RawMessage) lines {
	var b bytes.Buffer
	if len(raw) == 0 || json.Indent(&b, raw, "  ", "  ") != nil {
		return lines("  " + string(raw))
	}
	return lines("  " + b.String())
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if len(raw) == 0 {
		return "{}"
	}
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
