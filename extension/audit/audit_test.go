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
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

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
	f.ex = executor.New(reg, executor.WithExtensions(exts...))
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
			return tool.Fail(&req.Call, tool.CodeApprovalDenied, "operator said no")
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
	return out
}

// Both modes record the same: in batched mode the writer goroutine
// redacts and encodes what the caller queued.
func TestIntentAndOutcome(t *testing.T) {
	for name, opts := range map[string][]audit.Option{"sync": nil, "batched": {audit.WithBatch(100, time.Hour)}} {
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

			rep, err := audit.Verify(path)
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

func TestTornLastLineRepairedOnReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeTrail(t, path, 3) // 6 records
	good, err := os.ReadFile(path)
	require.NoError(t, err)

	// A crash in the middle of writing record 7.
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = fh.WriteString(`{"seq":7,"time":"2026-01-01T00:00:00Z","kind":"intent","too`)
	require.NoError(t, err)
	require.NoError(t, fh.Close())

	rep, err := audit.Verify(path)
	require.Error(t, err)
	assert.ErrorIs(t, err, audit.ErrTorn)
	assert.NotErrorIs(t, err, audit.ErrBroken)
	assert.True(t, rep.Torn)
	require.NotNil(t, rep.Break)
	assert.Equal(t, 7, rep.Break.Line)
	assert.Equal(t, 6, rep.Records)

	trail, err := audit.Open(path)
	require.NoError(t, err, "reopening repairs a torn tail")
	seq, _ := trail.Head()
	assert.EqualValues(t, 6, seq, "the chain continues from the last good record")
	f := newFixture(t, trail)
	_, err = f.call(t, "after-crash", false)
	require.NoError(t, err)
	require.NoError(t, trail.Close())

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(after, good), "earlier records are untouched")
	rep, err = audit.Verify(path)
	require.NoError(t, err)
	assert.Equal(t, 8, rep.Records)
	recs := readRecords(t, path)
	assert.Equal(t, "after-crash", recs[6].CallID)
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
	trail := audit.New(w, audit.WithErrorHandler(func(err error) { handled = append(handled, err) }))
	f := newFixture(t, trail)

	res, err := f.call(t, "c1", false)
	require.Error(t, err)
	assert.Equal(t, tool.CodeInternal, res.Error.Code)
	assert.True(t, strings.HasPrefix(res.Error.Message, "audit trail unavailable: "), res.Error.Message)
	assert.Contains(t, res.Error.Message, "no space left on device")
	assert.Contains(t, res.Error.Message, "not run")
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
	trail := audit.New(w, audit.FailOpen(), audit.WithErrorHandler(func(error) { handled.Add(1) }))
	f := newFixture(t, trail)
	res, err := f.call(t, "c1", false)
	require.NoError(t, err, "fail-open lets the call run")
	assert.True(t, res.OK())
	assert.EqualValues(t, 1, f.runs.Load())
	assert.EqualValues(t, 2, handled.Load(), "intent and outcome errors are both reported")
}

func TestFullDiskAfterIntent(t *testing.T) {
	// Both trails use the same fixed clock: RFC 3339 timestamps drop trailing
	// zeros, so with a wall clock the probe's intent record can be a byte
	// shorter or longer than the real one.
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	clock := audit.WithClock(func() time.Time { return fixed })
	w := &failingWriter{budget: 0}
	trail := audit.New(w, clock)
	f := newFixture(t, trail)
	// Room for exactly the intent record.
	probe := &failingWriter{budget: 1 << 20}
	pf := newFixture(t, audit.New(probe, clock))
	_, err := pf.call(t, "c1", false)
	require.NoError(t, err)
	intentLen := bytes.IndexByte(probe.buf.Bytes(), '\n') + 1
	w.budget = intentLen

	res, err := f.call(t, "c1", false)
	require.Error(t, err)
	assert.EqualValues(t, 1, f.runs.Load(), "the backend ran: only the outcome was lost")
	assert.Equal(t, tool.CodeInternal, res.Error.Code)
	assert.Contains(t, res.Error.Message, "audit trail unavailable")
	assert.Contains(t, res.Error.Message, `the call ran and ended "succeeded"`)
	assert.Contains(t, res.Metadata[audit.MetaError], "not recorded")
}

func TestPartialWriteStopsTheTrail(t *testing.T) {
	w := &failingWriter{budget: 10, partial: true}
	trail := audit.New(w)
	f := newFixture(t, trail)
	_, err := f.call(t, "c1", false)
	require.Error(t, err)
	w.mu.Lock()
	w.budget = 1 << 20
	w.mu.Unlock()
	res, err := f.call(t, "c2", false)
	require.Error(t, err, "after a torn write to a writer it cannot roll back, the trail refuses to go on")
	assert.Contains(t, res.Error.Message, "reopen the trail")
	assert.Zero(t, f.runs.Load())
}

func TestSyncFailureFailsClosed(t *testing.T) {
	w := &failingWriter{budget: 1 << 20, syncErr: syscall.EIO}
	f := newFixture(t, audit.New(w))
	res, err := f.call(t, "c1", false)
	require.Error(t, err)
	assert.Contains(t, res.Error.Message, "sync")
	assert.Zero(t, f.runs.Load())
}

func TestDurabilityModes(t *testing.T) {
	t.Run("default syncs every record", func(t *testing.T) {
		w := &failingWriter{budget: 1 << 20}
		trail := audit.New(w)
		for range 3 {
			require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
		}
		assert.Equal(t, 3, w.syncs)
	})
	t.Run("batch by size", func(t *testing.T) {
		w := &failingWriter{budget: 1 << 20}
		trail := audit.New(w, audit.WithBatch(2, 0))
		for range 5 {
			require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
		}
		// Full batches are written and synced in the background.
		assert.Eventually(t, func() bool { return syncs(w) >= 1 }, 5*time.Second, time.Millisecond)
		require.NoError(t, trail.Close())
		// Two full batches and the rest at Close; a writer that falls
		// behind may merge batches, never split them.
		assert.GreaterOrEqual(t, w.syncs, 2)
		assert.LessOrEqual(t, w.syncs, 3, "one fsync per batch of two, not one per record")
		rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
		require.NoError(t, err)
		assert.Equal(t, 5, rep.Records)
	})
	t.Run("batch by interval", func(t *testing.T) {
		w := &failingWriter{budget: 1 << 20}
		trail := audit.New(w, audit.WithBatch(0, 5*time.Millisecond))
		require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
		assert.Eventually(t, func() bool { w.mu.Lock(); defer w.mu.Unlock(); return w.syncs >= 1 }, 5*time.Second, time.Millisecond)
		require.NoError(t, trail.Close())
		assert.Error(t, trail.Write(audit.Record{Tool: "x"}), "writes after Close fail")
	})
}

func TestConcurrentCallsMakeAValidChain(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []audit.Option
	}{
		{name: "sync each record"},
		{name: "batched", opts: []audit.Option{audit.WithBatch(7, time.Millisecond)}},
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

func TestBatchedBuffersUntilTheBatchIsFull(t *testing.T) {
	w := &failingWriter{budget: 1 << 20}
	trail := audit.New(w, audit.WithBatch(3, 0))
	for i := range 2 {
		require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
		assert.Zero(t, writes(w), "record %d stays in memory until the batch is full", i+1)
	}
	seq, _ := trail.Head()
	assert.EqualValues(t, 2, seq, "buffered records count as written")
	assert.Zero(t, writes(w), "Head encodes the queued records but does not write them")
	require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
	assert.Eventually(t, func() bool { return syncs(w) == 1 }, 5*time.Second, time.Millisecond, "the full batch is written and synced in the background")
	assert.Equal(t, 1, writes(w), "one write per batch")
	require.NoError(t, trail.Flush())
	assert.Equal(t, 1, syncs(w), "one fsync per batch: Flush finds it done")
	rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Records)

	require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
	require.NoError(t, trail.Flush())
	assert.Equal(t, 2, w.writes, "Flush writes the partial batch")
	assert.Equal(t, 2, w.syncs)
	require.NoError(t, trail.Flush())
	assert.Equal(t, 2, w.syncs, "a Flush with nothing new does not sync again")
	require.NoError(t, trail.Close())
	rep, err = audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 4, rep.Records)
}

func TestBatchedFullDiskFailsClosedAndRecovers(t *testing.T) {
	w := &failingWriter{budget: 0}
	var handled atomic.Int64
	trail := audit.New(w, audit.WithBatch(2, 0), audit.WithErrorHandler(func(error) { handled.Add(1) }))
	f := newFixture(t, trail)

	// c1's intent and outcome fill the batch; the writer's flush fails,
	// but both records are in memory, so c1 ran and reports success.
	_, err := f.call(t, "c1", false)
	require.NoError(t, err)
	assert.EqualValues(t, 1, f.runs.Load())
	assert.Eventually(t, func() bool { return handled.Load() == 1 }, 5*time.Second, time.Millisecond, "the failed flush goes to the error handler")

	// The trail is stalled: the next intent cannot be written, so c2 does
	// not run.
	res, err := f.call(t, "c2", false)
	require.Error(t, err)
	assert.Equal(t, tool.CodeInternal, res.Error.Code)
	assert.Contains(t, res.Error.Message, "no space left on device")
	assert.Contains(t, res.Error.Message, "not run")
	assert.EqualValues(t, 1, f.runs.Load(), "the backend must not run while the trail cannot be written")

	// Space comes back: the kept batch is written first, then the new call.
	w.mu.Lock()
	w.budget = 1 << 20
	w.mu.Unlock()
	_, err = f.call(t, "c3", false)
	require.NoError(t, err)
	require.NoError(t, trail.Close())
	rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 4, rep.Records, "c1's buffered records survived the full disk; c2 left none")
}

func TestBatchedPartialWriteStopsTheTrail(t *testing.T) {
	w := &failingWriter{budget: 10, partial: true}
	failed := make(chan struct{}, 1)
	trail := audit.New(w, audit.WithBatch(1, time.Hour), audit.WithErrorHandler(func(error) {
		select {
		case failed <- struct{}{}:
		default:
		}
	}))
	require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}), "the record is in memory")
	<-failed // the writer's torn write
	w.mu.Lock()
	w.budget = 1 << 20
	w.mu.Unlock()
	err := trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"})
	require.Error(t, err, "after a torn write to a writer it cannot roll back, the trail refuses to go on")
	assert.Contains(t, err.Error(), "reopen the trail")
	err = trail.Close()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 buffered records (up to seq 1) were not written")
}

func TestBatchedChainContinuesAcrossOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(path, audit.WithBatch(2, 0))
	require.NoError(t, err)
	require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
	require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
	require.NoError(t, trail.Close())
	rep, err := audit.Verify(path)
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Records)

	// Reopen and continue: the chain goes on across batches and opens.
	trail, err = audit.Open(path, audit.WithBatch(100, 0))
	require.NoError(t, err)
	require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "y"}))
	require.NoError(t, trail.Close())
	rep, err = audit.Verify(path)
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Records)
}

func TestVerifyMissingFile(t *testing.T) {
	_, err := audit.Verify(filepath.Join(t.TempDir(), "nope.jsonl"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, os.ErrNotExist))
}

func TestPriority(t *testing.T) {
	tr := audit.New(&failingWriter{})
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

// blockingSyncWriter's Sync waits for release.
type blockingSyncWriter struct {
	failingWriter
	release chan struct{}
}

func (w *blockingSyncWriter) Sync() error {
	<-w.release
	return w.failingWriter.Sync()
}

// A full batch is written and fsynced in the background, and the next
// batch is not written before that fsync ends: at most one written batch
// is ever not durable, and callers do not wait for the disk.
func TestBatchedFsyncInBackgroundOneBatchAtATime(t *testing.T) {
	w := &blockingSyncWriter{failingWriter: failingWriter{budget: 1 << 20}, release: make(chan struct{})}
	trail := audit.New(w, audit.WithBatch(1, 0))
	require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}), "the filling write does not wait for the disk")
	assert.Eventually(t, func() bool { return writes(&w.failingWriter) == 1 }, 5*time.Second, time.Millisecond, "the writer goroutine writes the full batch")
	// The writer is now blocked in the first batch's fsync.
	second := make(chan error, 1)
	go func() { second <- trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}) }()
	select {
	case err := <-second:
		require.NoError(t, err, "the second record is accepted while the fsync runs")
	case <-time.After(5 * time.Second):
		t.Fatal("a write waited for another batch's fsync")
	}
	time.Sleep(20 * time.Millisecond)
	assert.Equal(t, 1, writes(&w.failingWriter), "the second batch waits for the first one's fsync")
	close(w.release)
	assert.Eventually(t, func() bool { return writes(&w.failingWriter) == 2 }, 5*time.Second, time.Millisecond)
	require.NoError(t, trail.Close())
	assert.Equal(t, 2, syncs(&w.failingWriter))
	rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Records)
}

// A batched Write returns before its record is encoded: the record must
// not share memory with the caller, who may reuse it at once.
func TestBatchedWriteKeepsNoReferenceToTheCaller(t *testing.T) {
	w := &failingWriter{budget: 1 << 20}
	trail := audit.New(w, audit.WithBatch(100, 0))
	args := []byte(`{"path":"a.txt"}`)
	roles := []string{"admin"}
	require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x", Args: args, Roles: roles}))
	copy(args, `{"path":"b.txt"}`)
	roles[0] = "guest"
	require.NoError(t, trail.Close())
	assert.Contains(t, w.buf.String(), `"args":{"path":"a.txt"}`)
	assert.Contains(t, w.buf.String(), `"roles":["admin"]`)
}

// A record the fast encoder leaves to encoding/json is encoded in the
// caller, so that its error reaches the caller and nothing half-accepted
// breaks the chain.
func TestBatchedUnencodableRecordIsRefused(t *testing.T) {
	w := &failingWriter{budget: 1 << 20}
	trail := audit.New(w, audit.WithBatch(100, 0))
	require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
	err := trail.Write(audit.Record{Kind: audit.KindOutcome, Tool: "x", DurationMS: math.NaN()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "encode record")
	err = trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x", Args: json.RawMessage(`{"a":`)})
	require.Error(t, err, "arguments that are not JSON")
	// A slow-path record that encodes keeps its place in the order.
	require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "local", Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600))}))
	require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "y"}))
	require.NoError(t, trail.Close())
	rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Records)
	var tools []string
	for _, line := range strings.Split(strings.TrimSpace(w.buf.String()), "\n") {
		var r audit.Record
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		tools = append(tools, r.Tool)
	}
	assert.Equal(t, []string{"x", "local", "y"}, tools)
}

// When the disk is slower than the callers, memory stays bounded: once a
// whole batch waits behind one being synced, a Write waits for the disk.
func TestBatchedWriterBehindMakesCallersWait(t *testing.T) {
	w := &blockingSyncWriter{failingWriter: failingWriter{budget: 1 << 20}, release: make(chan struct{})}
	trail := audit.New(w, audit.WithBatch(1, 0))
	require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
	assert.Eventually(t, func() bool { return writes(&w.failingWriter) == 1 }, 5*time.Second, time.Millisecond)
	require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}), "one batch may wait in memory")
	third := make(chan error, 1)
	go func() { third <- trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}) }()
	select {
	case err := <-third:
		t.Fatalf("a write went through with two batches waiting for the disk (err %v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(w.release)
	require.NoError(t, <-third)
	require.NoError(t, trail.Close())
	rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Records)
}

// Concurrent writers, some of whose records take the caller-side encoding
// path, leave one valid chain with every record, each writer's in its
// order.
func TestBatchedConcurrentMixedWritesKeepOrder(t *testing.T) {
	w := &failingWriter{budget: 64 << 20}
	trail := audit.New(w, audit.WithBatch(7, time.Millisecond))
	local := time.FixedZone("X", 3600)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				rec := audit.Record{Kind: audit.KindIntent, Tool: fmt.Sprintf("g%d", g), CallID: fmt.Sprintf("%04d", i)}
				if i%10 == 0 {
					rec.Time = time.Now().In(local) // not UTC: encoded in the caller
				}
				assert.NoError(t, trail.Write(rec))
			}
		}()
	}
	wg.Wait()
	require.NoError(t, trail.Close())
	rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 1600, rep.Records)
	last := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(w.buf.String()), "\n") {
		var r audit.Record
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		assert.Less(t, last[r.Tool], r.CallID, "writer %s's records keep their order", r.Tool)
		last[r.Tool] = r.CallID
	}
}
