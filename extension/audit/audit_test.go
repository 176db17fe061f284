package audit_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		crashChild()
		return
	}
	goleak.VerifyTestMain(m)
}

// testKey is the HMAC key of the keyed trails in these tests.
var testKey = []byte("0123456789abcdef0123456789abcdef")

func mustNew(t testing.TB, w audit.Writer, opts ...audit.Option) *audit.Trail {
	t.Helper()
	tr, err := audit.New(w, opts...)
	require.NoError(t, err)
	return tr
}

type deployIn struct {
	Env   string `json:"env"`
	Token string `json:"deploy_pin,omitempty" toolbelt:"secret"`
	Fail  bool   `json:"fail,omitempty"`
}

const secretValue = "s3cr3t-pin-value"

type fixture struct {
	ex   *executor.Executor
	runs atomic.Int64
}

func newFixture(t testing.TB, exts ...extension.Extension) *fixture {
	t.Helper()
	f := &fixture{}
	reg := registry.New()
	reg.MustRegister(tool.Func("deploy", "Deploy", func(_ context.Context, in deployIn) (string, error) {
		f.runs.Add(1)
		if in.Fail {
			return "", tool.NewError(tool.CodeNonZeroExit, "deploy script failed")
		}
		return "deployed " + in.Env, nil
	}, tool.WithRisk(tool.RiskHigh)))
	f.ex = executor.MustNew(reg, executor.WithExtensions(exts...))
	return f
}

func (f *fixture) call(t testing.TB, id string, fail bool) (*tool.Result, error) {
	t.Helper()
	args, _ := json.Marshal(deployIn{Env: "prod", Token: secretValue, Fail: fail})
	ctx := tool.WithPrincipal(context.Background(), tool.Principal{ID: "alice", Tenant: "acme"})
	return f.ex.Execute(ctx, tool.Call{ID: id, Name: "deploy", Args: args, Agent: "ops-bot"})
}

// approver stands in for the approval extension: it records its decision in
// the result metadata, and denies calls whose id starts with "deny".
var approver = extension.Func("approver", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		if strings.HasPrefix(req.Call.ID, "deny") {
			// As the approval extension denies: the decision in its metadata.
			res := tool.Fail(&req.Call, tool.CodeApprovalDenied, "operator said no")
			res.SetMeta(approval.MetaKey, map[string]any{"decision": "deny", "decided_by": "operator"})
			return res
		}
		res := next(ctx, req)
		// The shape the approval extension writes.
		res.SetMeta(audit.MetaApproval, map[string]any{"decision": "approve", "decided_by": "bob"})
		return res
	}
})

func readRecords(t *testing.T, path string) []audit.Record {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []audit.Record
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var r audit.Record
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		out = append(out, r)
	}
	require.NoError(t, sc.Err(), "a line over 64 KiB: use readLongRecords")
	return out
}

// Both modes record the same: in batched mode the writer goroutine
// redacts and encodes what the caller queued.
func TestIntentAndOutcome(t *testing.T) {
	for name, opts := range map[string][]audit.Option{"sync": nil, "interval": {audit.WithSyncInterval(time.Hour)}, "keyed": {audit.WithKey(testKey)}} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			trail, err := audit.Open(path, opts...)
			require.NoError(t, err)
			f := newFixture(t, trail, approver)

			_, err = f.call(t, "ok-1", false)
			require.NoError(t, err)
			_, err = f.call(t, "fail-1", true)
			require.Error(t, err)
			_, err = f.call(t, "deny-1", false)
			require.Error(t, err)
			require.NoError(t, trail.Close())

			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.NotContains(t, string(raw), secretValue, "a secret reached the audit trail")

			recs := readRecords(t, path)
			require.Len(t, recs, 6)
			want := []struct {
				kind, id, status, code, decision string
			}{
				{"intent", "ok-1", "", "", ""},
				{"outcome", "ok-1", "succeeded", "", "approve"},
				{"intent", "fail-1", "", "", ""},
				{"outcome", "fail-1", "failed", "non_zero_exit", "approve"},
				{"intent", "deny-1", "", "", ""},
				{"outcome", "deny-1", "denied", "approval_denied", "deny"},
			}
			for i, w := range want {
				r := recs[i]
				assert.Equal(t, uint64(i+1), r.Seq)
				assert.Equal(t, w.kind, r.Kind, "record %d", i)
				assert.Equal(t, w.id, r.CallID)
				assert.Equal(t, "deploy", r.Tool)
				assert.Equal(t, "alice", r.Principal)
				assert.Equal(t, "acme", r.Tenant)
				assert.Equal(t, "ops-bot", r.Agent)
				assert.Equal(t, w.status, r.Status)
				assert.Equal(t, w.code, r.ErrorCode)
				assert.Equal(t, w.decision, r.Decision)
				assert.Len(t, r.Hash, 64)
				if w.kind == "intent" {
					var args map[string]any
					require.NoError(t, json.Unmarshal(r.Args, &args))
					assert.Equal(t, "[REDACTED]", args["deploy_pin"], "the toolbelt:\"secret\" field is redacted")
					assert.Equal(t, "prod", args["env"])
					assert.Equal(t, "high", r.Risk)
				} else {
					assert.Empty(t, r.Args, "unchanged arguments are not repeated on the outcome")
					assert.Positive(t, r.DurationMS)
				}
			}
			assert.Equal(t, audit.Genesis, recs[0].Prev)
			assert.Equal(t, recs[0].Hash, recs[1].Prev)

			rep, err := audit.Verify(path, opts...)
			require.NoError(t, err)
			assert.True(t, rep.OK())
			assert.Equal(t, 6, rep.Records)
			assert.Equal(t, recs[5].Hash, rep.LastHash)
		})
	}
}

// writeTrail writes n calls (2n records) and returns the file's lines.
func writeTrail(t *testing.T, path string, n int) []string {
	t.Helper()
	trail, err := audit.Open(path)
	require.NoError(t, err)
	f := newFixture(t, trail)
	for i := range n {
		_, err := f.call(t, fmt.Sprintf("c%d", i), false)
		require.NoError(t, err)
	}
	require.NoError(t, trail.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
}

func rehash(t *testing.T, line string) string {
	t.Helper()
	var r audit.Record
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(line)), &r))
	r.Hash = ""
	body, err := json.Marshal(r)
	require.NoError(t, err)
	sum := sha256Hex(body)
	return string(body[:len(body)-1]) + `,"hash":"` + sum + `"}` + "\n"
}

func TestTamperingDetected(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, lines []string) []string
		line   int
		reason string
	}{
		{"edit a line", func(t *testing.T, l []string) []string {
			l[4] = strings.Replace(l[4], `"principal":"alice"`, `"principal":"mallory"`, 1)
			return l
		}, 5, "edited"},
		{"edit and rehash a line", func(t *testing.T, l []string) []string {
			l[4] = strings.Replace(l[4], `"principal":"alice"`, `"principal":"mallory"`, 1)
			l[4] = rehash(t, l[4])
			return l
		}, 6, "line 5"},
		{"delete a line", func(t *testing.T, l []string) []string { return append(l[:4:4], l[5:]...) }, 5, "missing"},
		{"delete the first line", func(t *testing.T, l []string) []string { return l[1:] }, 1, "missing"},
		{"reorder two lines", func(t *testing.T, l []string) []string { l[4], l[5] = l[5], l[4]; return l }, 5, "expected"},
		{"duplicate a line", func(t *testing.T, l []string) []string {
			return append(append(append([]string{}, l[:5]...), l[4]), l[5:]...)
		}, 6, "out of order"},
		{"blank a line", func(t *testing.T, l []string) []string { l[2] = "\n"; return l }, 3, "empty line"},
		{"drop the hash", func(t *testing.T, l []string) []string {
			l[3] = l[3][:strings.LastIndex(l[3], `,"hash"`)] + "}\n"
			return l
		}, 4, "hash"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			lines := writeTrail(t, path, 4) // 8 records
			rep, err := audit.Verify(path)
			require.NoError(t, err, "the untouched trail verifies")
			require.Equal(t, 8, rep.Records)

			require.NoError(t, os.WriteFile(path, []byte(strings.Join(tc.tamper(t, lines), "")), 0o600))
			rep, err = audit.Verify(path)
			require.Error(t, err)
			assert.ErrorIs(t, err, audit.ErrBroken)
			require.NotNil(t, rep.Break)
			assert.Equal(t, tc.line, rep.Break.Line, rep.Break.Reason)
			assert.Contains(t, rep.Break.Reason, tc.reason)
			assert.Equal(t, tc.line-1, rep.Records)

			// A tampered trail is never extended.
			_, err = audit.Open(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "not intact")
		})
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestTornLastLineIsReportedAndRepairedOnlyOnRequest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeTrail(t, path, 3) // 6 records
	good, err := os.ReadFile(path)
	require.NoError(t, err)

	// A crash in the middle of writing record 7.
	torn := `{"seq":7,"time":"2026-01-01T00:00:00Z","kind":"intent","too`
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = fh.WriteString(torn)
	require.NoError(t, err)
	require.NoError(t, fh.Close())

	rep, err := audit.Verify(path)
	require.Error(t, err)
	assert.ErrorIs(t, err, audit.ErrTorn)
	assert.NotErrorIs(t, err, audit.ErrBroken)
	assert.True(t, rep.Torn)
	assert.EqualValues(t, len(torn), rep.TornBytes)
	require.NotNil(t, rep.Break)
	assert.Equal(t, 7, rep.Break.Line)
	assert.Equal(t, 6, rep.Records)

	_, err = audit.Open(path)
	require.Error(t, err, "Open does not silently drop the torn bytes")
	assert.ErrorIs(t, err, audit.ErrTorn)
	assert.Contains(t, err.Error(), "audit.Repair")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(good)+torn, string(after), "a refused Open changes nothing")

	rep, err = audit.Repair(path)
	require.NoError(t, err)
	assert.Equal(t, 7, rep.Records, "the six records and the repair record")
	recs := readRecords(t, path)
	require.Len(t, recs, 7)
	assert.Equal(t, audit.KindRepair, recs[6].Kind)
	assert.Contains(t, recs[6].Error, fmt.Sprintf("torn last line of %d bytes after record 6", len(torn)))
	assert.Contains(t, recs[6].Error, sha256Hex([]byte(torn)), "the repair says what it removed")
	now, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(now, good), "earlier records are untouched")

	trail, err := audit.Open(path)
	require.NoError(t, err, "a repaired trail opens")
	f := newFixture(t, trail)
	_, err = f.call(t, "after-crash", false)
	require.NoError(t, err)
	require.NoError(t, trail.Close())
	rep, err = audit.Verify(path)
	require.NoError(t, err)
	assert.Equal(t, 9, rep.Records)

	_, err = audit.Repair(path)
	require.NoError(t, err, "repairing an intact trail does nothing")
	assert.Len(t, readRecords(t, path), 9)
}

func TestOpenInReadOnlyPlaces(t *testing.T) {
	// Tests run as root, and chmod does not stop root, so the "read-only
	// directory" is made with things root cannot write through either: a
	// path under a regular file (ENOTDIR), a directory as the file
	// (EISDIR), and sysfs, where nobody may create files.
	dir := t.TempDir()
	regular := filepath.Join(dir, "plain-file")
	require.NoError(t, os.WriteFile(regular, []byte("x"), 0o600))

	cases := []struct {
		name string
		path string
		errn syscall.Errno
	}{
		{"under a regular file", filepath.Join(regular, "audit.jsonl"), syscall.ENOTDIR},
		{"a directory", dir, syscall.EISDIR},
	}
	if _, err := os.Stat("/sys/kernel"); err == nil {
		cases = append(cases, struct {
			name string
			path string
			errn syscall.Errno
		}{"sysfs", "/sys/toolbelt-audit-test.jsonl", 0})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			trail, err := audit.Open(tc.path)
			require.Error(t, err)
			assert.Nil(t, trail)
			assert.Contains(t, err.Error(), tc.path, "the error names the path")
			if tc.errn != 0 {
				assert.ErrorIs(t, err, tc.errn)
			}
		})
	}
}

// failingWriter simulates a full disk: writes succeed until budget bytes have
// been written, then fail with ENOSPC (after writing what fits, when partial
// is set).
type failingWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	budget  int
	partial bool
	writes  int
	syncs   int
	syncErr error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	room := w.budget - w.buf.Len()
	if room >= len(p) {
		return w.buf.Write(p)
	}
	if w.partial && room > 0 {
		w.buf.Write(p[:room])
		return room, syscall.ENOSPC
	}
	return 0, syscall.ENOSPC
}

func writes(w *failingWriter) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes
}

func syncs(w *failingWriter) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.syncs
}

func (w *failingWriter) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.syncs++
	return w.syncErr
}

func TestFullDiskFailsClosed(t *testing.T) {
	w := &failingWriter{budget: 0}
	var handled []error
	trail := mustNew(t, w, audit.WithErrorHandler(func(err error) { handled = append(handled, err) }))
	f := newFixture(t, trail)

	res, err := f.call(t, "c1", false)
	require.Error(t, err)
	assert.Equal(t, tool.CodeInternal, res.Error.Code)
	// The model reads what happened to its call; the storage error is the
	// operator's, in the cause.
	assert.Equal(t, `tool "deploy" was not run: its audit record could not be written; do not retry now: tell the user`, res.Error.Message)
	require.Error(t, res.Error.Err)
	assert.True(t, strings.HasPrefix(res.Error.Err.Error(), "audit trail unavailable: "), res.Error.Err)
	assert.ErrorContains(t, res.Error.Err, "no space left on device")
	assert.ErrorContains(t, res.Error.Err, "fix the trail's storage")
	assert.Zero(t, f.runs.Load(), "the backend must not run when the intent cannot be written")
	assert.Len(t, handled, 1, "the error handler hears about it")

	// Space comes back: the trail works again (nothing partial was written).
	w.mu.Lock()
	w.budget = 1 << 20
	w.mu.Unlock()
	_, err = f.call(t, "c2", false)
	require.NoError(t, err)
	assert.EqualValues(t, 1, f.runs.Load())
	rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Records)
}

func TestFullDiskFailOpen(t *testing.T) {
	w := &failingWriter{budget: 0}
	var handled atomic.Int64
	trail := mustNew(t, w, audit.FailOpen(), audit.WithErrorHandler(func(error) { handled.Add(1) }))
	f := newFixture(t, trail)
	res, err := f.call(t, "c1", false)
	require.NoError(t, err, "fail-open lets the call run")
	assert.True(t, res.OK())
	assert.EqualValues(t, 1, f.runs.Load())
	assert.EqualValues(t, 2, handled.Load(), "intent and outcome errors are both reported")
}

func TestFullDiskAfterIntent(t *testing.T) {
	// Both trails stamp records at the same instant (synctest's clock stands
	// still): RFC 3339 timestamps drop trailing zeros, so with a moving
	// clock the probe's intent record can be a byte shorter or longer than
	// the real one.
	synctest.Test(t, func(t *testing.T) {
		w := &failingWriter{budget: 0}
		trail := mustNew(t, w)
		f := newFixture(t, trail)
		// Room for exactly the intent record.
		probe := &failingWriter{budget: 1 << 20}
		pf := newFixture(t, mustNew(t, probe))
		_, err := pf.call(t, "c1", false)
		require.NoError(t, err)
		intentLen := bytes.IndexByte(probe.buf.Bytes(), '\n') + 1
		w.budget = intentLen

		res, err := f.call(t, "c1", false)
		require.Error(t, err)
		assert.EqualValues(t, 1, f.runs.Load(), "the backend ran: only the outcome was lost")
		assert.Equal(t, tool.CodeInternal, res.Error.Code)
		assert.Equal(t, `tool "deploy" ran and ended "succeeded", but its outcome could not be recorded; do not run it again without asking the user`, res.Error.Message)
		assert.ErrorContains(t, res.Error.Err, "audit trail unavailable")
		assert.Contains(t, res.Metadata[audit.MetaError], "not recorded")
	})
}

func TestPartialWriteStopsTheTrail(t *testing.T) {
	w := &failingWriter{budget: 10, partial: true}
	trail := mustNew(t, w)
	f := newFixture(t, trail)
	_, err := f.call(t, "c1", false)
	require.Error(t, err)
	w.mu.Lock()
	w.budget = 1 << 20
	w.mu.Unlock()
	res, err := f.call(t, "c2", false)
	require.Error(t, err, "after a torn write to a writer it cannot roll back, the trail refuses to go on")
	assert.ErrorContains(t, res.Error.Err, "stopped after an earlier failure")
	assert.Zero(t, f.runs.Load())
}

func TestSyncFailureFailsClosed(t *testing.T) {
	w := &failingWriter{budget: 1 << 20, syncErr: syscall.EIO}
	f := newFixture(t, mustNew(t, w))
	res, err := f.call(t, "c1", false)
	require.Error(t, err)
	assert.ErrorContains(t, res.Error.Err, "sync")
	assert.Zero(t, f.runs.Load())
}

func TestConcurrentCallsMakeAValidChain(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []audit.Option
	}{
		{name: "sync each record"},
		{name: "sync interval", opts: []audit.Option{audit.WithSyncInterval(time.Millisecond)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			trail, err := audit.Open(path, tc.opts...)
			require.NoError(t, err)
			f := newFixture(t, trail)
			var wg sync.WaitGroup
			for i := range 100 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := f.call(t, fmt.Sprintf("c%03d", i), i%10 == 0)
					_ = err
				}()
			}
			wg.Wait()
			seq, head := trail.Head()
			require.NoError(t, trail.Close())

			rep, err := audit.Verify(path)
			require.NoError(t, err)
			assert.Equal(t, 200, rep.Records)
			assert.EqualValues(t, 200, seq)
			assert.Equal(t, head, rep.LastHash)
			kinds := map[string]string{}
			for _, r := range readRecords(t, path) {
				if r.Kind == audit.KindIntent {
					assert.Empty(t, kinds[r.CallID], "intent comes first")
				}
				kinds[r.CallID] += r.Kind[:1]
			}
			assert.Len(t, kinds, 100)
			for id, k := range kinds {
				assert.Equal(t, "io", k, "call %s has an intent then an outcome", id)
			}
		})
	}
}

func TestVerifyMissingFile(t *testing.T) {
	_, err := audit.Verify(filepath.Join(t.TempDir(), "nope.jsonl"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, os.ErrNotExist))
}

func TestPriority(t *testing.T) {
	tr := mustNew(t, &failingWriter{})
	assert.Equal(t, extension.PriorityAudit, tr.Priority())
	assert.Equal(t, "audit", tr.Name())
}

func TestRewrittenArgsRecordedOnOutcome(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(path)
	require.NoError(t, err)
	modify := extension.Func("modify", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			req.Call.Args, _ = json.Marshal(deployIn{Env: "staging", Token: secretValue})
			res := next(ctx, req)
			res.SetMeta("modified_args", true)
			return res
		}
	})
	f := newFixture(t, trail, modify)
	_, err = f.call(t, "c1", false)
	require.NoError(t, err)
	require.NoError(t, trail.Close())
	recs := readRecords(t, path)
	require.Len(t, recs, 2)
	assert.Contains(t, string(recs[0].Args), `"prod"`)
	assert.Contains(t, string(recs[1].Args), `"staging"`, "the arguments that actually ran are recorded")
	assert.NotContains(t, string(recs[1].Args), secretValue)
	assert.Equal(t, "modify", recs[1].Decision)
}
