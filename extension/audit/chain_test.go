package audit_test

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// forge rewrites a trail's lines the way an attacker who can write the
// file (but has no key) would: renumber, relink and rehash every line with
// plain SHA-256, so the result is a consistent unkeyed chain.
func forge(t *testing.T, lines []string) []string {
	t.Helper()
	prev := audit.Genesis
	out := make([]string, 0, len(lines))
	for i, l := range lines {
		var r audit.Record
		require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(l)), &r))
		r.Seq, r.Prev, r.Hash = uint64(i+1), prev, ""
		body, err := json.Marshal(r)
		require.NoError(t, err)
		h := sha256Hex(body)
		out = append(out, string(body[:len(body)-1])+`,"hash":"`+h+`"}`+"\n")
		prev = h
	}
	return out
}

func writeRecords(t *testing.T, path string, n int, opts ...audit.Option) []string {
	t.Helper()
	tr, err := audit.Open(path, opts...)
	require.NoError(t, err)
	for i := range n {
		require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "deploy", Principal: "alice", CallID: fmt.Sprint("c", i)}))
	}
	require.NoError(t, tr.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	return lines[:len(lines)-1] // each with its newline
}

// The attacks of the issue, each against a keyed trail: the attacker
// rewrites the file with a consistent chain (what fooled the unkeyed
// trail), and Verify with the key catches every one.
func TestKeyedChainCatchesForgery(t *testing.T) {
	attacks := map[string]func(l []string) []string{
		"edit and rehash every later line": func(l []string) []string {
			l[2] = strings.Replace(l[2], `"principal":"alice"`, `"principal":"mallory"`, 1)
			return l
		},
		"delete and renumber":  func(l []string) []string { return append(l[:1:1], l[2:]...) },
		"append a forged line": func(l []string) []string { return append(l, l[0]) },
		"reorder":              func(l []string) []string { l[0], l[1] = l[1], l[0]; return l },
	}
	for name, attack := range attacks {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			lines := writeRecords(t, path, 5, audit.WithKey(testKey))
			_, err := audit.Verify(path, audit.WithKey(testKey))
			require.NoError(t, err)

			forged := forge(t, attack(append([]string(nil), lines...)))
			require.NoError(t, os.WriteFile(path, []byte(strings.Join(forged, "")), 0o600))

			_, err = audit.Verify(path)
			assert.NoError(t, err, "without the key a consistent rewrite verifies: that is all an unkeyed chain proves")
			rep, err := audit.Verify(path, audit.WithKey(testKey))
			require.Error(t, err, "the key catches it")
			assert.ErrorIs(t, err, audit.ErrBroken)
			assert.True(t, rep.Keyed)
			assert.Equal(t, 1, rep.Break.Line, "the first rewritten line fails its keyed hash")
			_, err = audit.Open(path, audit.WithKey(testKey))
			assert.Error(t, err, "a forged keyed trail is never extended")
		})
	}
	t.Run("a forged line appended with the attacker's own chain", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		lines := writeRecords(t, path, 3, audit.WithKey(testKey))
		// Keep the real lines, add one hashed with a key the attacker chose.
		var last audit.Record
		require.NoError(t, json.Unmarshal([]byte(lines[2]), &last))
		w := &bytes.Buffer{}
		tr, err := audit.New(nopSync{w}, audit.WithKey([]byte("mallory-mallory-mallory-mallory-!")), audit.WithHead(3, last.Hash))
		require.NoError(t, err)
		require.NoError(t, tr.Write(audit.Record{Kind: audit.KindOutcome, Tool: "deploy", Status: "succeeded"}))
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "")+w.String()), 0o600))
		rep, err := audit.Verify(path, audit.WithKey(testKey))
		require.Error(t, err)
		assert.Equal(t, 4, rep.Break.Line)
		assert.Contains(t, rep.Break.Reason, "keyed hash")
	})
}

type nopSync struct{ *bytes.Buffer }

func (nopSync) Sync() error { return nil }

// Cutting records off the end leaves a valid chain; the signed checkpoint
// in another sink is what shows it.
func TestCheckpointDetectsTruncation(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	dir := t.TempDir()
	path, cpPath := filepath.Join(dir, "audit.jsonl"), filepath.Join(dir, "checkpoints.jsonl")
	sink, err := os.OpenFile(cpPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	require.NoError(t, err)
	lines := writeRecords(t, path, 25, audit.WithKey(testKey), audit.WithCheckpoints(priv, sink, 10))
	require.NoError(t, sink.Close())

	cps, err := func() ([]audit.Checkpoint, error) {
		f, err := os.Open(cpPath)
		require.NoError(t, err)
		defer f.Close()
		return audit.ReadCheckpoints(f, pub)
	}()
	require.NoError(t, err)
	require.Len(t, cps, 3, "after records 10 and 20, and at Close (25)")
	assert.EqualValues(t, []uint64{10, 20, 25}, []uint64{cps[0].Seq, cps[1].Seq, cps[2].Seq})
	last, err := audit.LastCheckpoint(cpPath, pub)
	require.NoError(t, err)
	assert.EqualValues(t, 25, last.Seq)

	rep, err := audit.Verify(path, audit.WithKey(testKey), audit.AgainstCheckpoint(last))
	require.NoError(t, err)
	assert.EqualValues(t, 25, rep.Checkpoint)

	// Truncate: the keyed chain that is left is valid on its own.
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:22], "")), 0o600))
	_, err = audit.Verify(path, audit.WithKey(testKey))
	require.NoError(t, err, "a cut chain is still a valid chain")
	rep, err = audit.Verify(path, audit.WithKey(testKey), audit.AgainstCheckpoint(last))
	require.Error(t, err)
	assert.ErrorIs(t, err, audit.ErrBroken)
	assert.Contains(t, rep.Break.Reason, "ends at record 22")
	assert.Contains(t, rep.Break.Reason, "reached record 25")

	// A checkpoint whose seq or hash was changed does not verify.
	fake := last
	fake.Seq = 22
	assert.Error(t, fake.Verify(pub))
	other, _, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	assert.Error(t, last.Verify(other), "only the trail's key verifies its checkpoints")
	require.NoError(t, os.WriteFile(cpPath+".x", []byte(`{"seq":22,"hash":"00","time":"2026-01-01T00:00:00Z","sig":"AAAA"}`+"\n"), 0o600))
	_, err = audit.LastCheckpoint(cpPath+".x", pub)
	assert.ErrorContains(t, err, "forged or altered")
}

func TestKeyOptions(t *testing.T) {
	_, err := audit.New(&failingWriter{}, audit.WithKey([]byte("short")))
	assert.ErrorContains(t, err, "at least 32")
	dir := t.TempDir()
	kf := filepath.Join(dir, "key")
	require.NoError(t, os.WriteFile(kf, []byte(strings.Repeat("0123456789abcdef", 4)+"\n"), 0o600))
	path := filepath.Join(dir, "a.jsonl")
	writeRecords(t, path, 3, audit.WithKeyFile(kf))
	_, err = audit.Verify(path, audit.WithKey(bytes.Repeat([]byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}, 4)))
	assert.NoError(t, err, "a hex key file is the key it spells")
	_, err = audit.Verify(path)
	assert.ErrorContains(t, err, "verify with its key", "verifying a keyed trail without its key says what to do")
	_, err = audit.Open(path, audit.WithKeyFile(filepath.Join(dir, "missing")))
	assert.ErrorContains(t, err, "read key file")
	assert.ErrorContains(t, err, "head -c 32 /dev/urandom | xxd -p -c 64 > "+filepath.Join(dir, "missing"), "a missing key file says how to make one")
	_, err = audit.New(&failingWriter{}, audit.WithCheckpoints(nil, &bytes.Buffer{}, 1))
	assert.ErrorContains(t, err, "Ed25519 private key")
}

// Concurrent writers share fsyncs: one fsync covers every record written
// before it started.
func TestGroupCommit(t *testing.T) {
	w := &slowSyncWriter{failingWriter: failingWriter{budget: 1 << 30}}
	tr := mustNew(t, w)
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			assert.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
		})
	}
	wg.Wait()
	require.NoError(t, tr.Close())
	assert.Equal(t, 64, writes(&w.failingWriter))
	assert.Less(t, syncs(&w.failingWriter), 64, "64 concurrent records took fewer fsyncs than records")
	rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 64, rep.Records)
}

// slowSyncWriter's fsync takes a while, as a disk's does, so that writers
// pile up behind it.
type slowSyncWriter struct{ failingWriter }

func (w *slowSyncWriter) Sync() error {
	time.Sleep(2 * time.Millisecond) // a disk's slow fsync, the condition under test; no wait for anything
	return w.failingWriter.Sync()
}

func TestSyncIntervalDefersFsync(t *testing.T) {
	w := &failingWriter{budget: 1 << 20}
	tr := mustNew(t, w, audit.WithSyncInterval(time.Hour))
	for range 5 {
		require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
	}
	assert.Zero(t, writes(w), "records wait in memory")
	assert.Zero(t, syncs(w))
	assert.Zero(t, tr.Durable())
	require.NoError(t, tr.Flush())
	assert.Equal(t, 1, writes(w), "one write for the five")
	assert.Equal(t, 1, syncs(w), "and one fsync")
	assert.EqualValues(t, 5, tr.Durable())
	require.NoError(t, tr.Close())
	assert.Error(t, tr.Write(audit.Record{Tool: "x"}), "writes after Close fail")
	rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 5, rep.Records)
}

// With an interval, a flush that fails (a full disk) keeps the records in
// memory, and Writes fail closed until a flush works again; nothing is lost.
func TestSyncIntervalFullDiskKeepsRecords(t *testing.T) {
	w := &failingWriter{budget: 0}
	tr := mustNew(t, w, audit.WithSyncInterval(time.Hour), audit.WithErrorHandler(func(error) {}))
	for range 3 {
		require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
	}
	require.Error(t, tr.Flush(), "the disk is full")
	err := tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"})
	require.Error(t, err, "Writes fail closed while the trail cannot flush")
	assert.Contains(t, err.Error(), "kept in memory")
	w.mu.Lock()
	w.budget = 1 << 20
	w.mu.Unlock()
	require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}), "the retried flush works, and so does the Write")
	require.NoError(t, tr.Close())
	rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 4, rep.Records, "the three from before the full disk and the one after")
}

// ---- kill -9 ---------------------------------------------------------------------

const crashChildEnv = "TOOLBELT_AUDIT_CRASH_CHILD"

// crashChild is the test binary re-run as a child: it writes records to
// the trail named in the environment as fast as it can and prints each
// acknowledged seq, until it is killed.
func crashChild() {
	var opts []audit.Option
	opts = append(opts, audit.WithKey(testKey))
	if os.Getenv("TOOLBELT_AUDIT_INTERVAL") != "" {
		opts = append(opts, audit.WithSyncInterval(50*time.Millisecond))
	}
	tr, err := audit.Open(os.Getenv(crashChildEnv), opts...)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	interval := os.Getenv("TOOLBELT_AUDIT_INTERVAL") != ""
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				if err := tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "deploy", CallID: fmt.Sprintf("g%d-%d", g, i)}); err != nil {
					fmt.Fprintln(os.Stderr, "write:", err)
					os.Exit(3)
				}
				seq, _ := tr.Head()
				mu.Lock()
				fmt.Fprintln(out, seq)
				// "d N": the trail says records up to N are on disk.
				fmt.Fprintln(out, "d", tr.Durable())
				out.Flush()
				mu.Unlock()
				if interval {
					time.Sleep(time.Millisecond) // paces the child's writes so some land between syncs; it waits for nothing
				}
			}
		})
	}
	wg.Wait()
}

// Kill -9 a process that writes records from four goroutines. Per-record
// mode: every record it acknowledged (printed after Write returned) is in
// the file after reopening. Sync-interval mode: the loss is within the
// documented bound, the records accepted since the last flush: every record
// the trail had reported durable survived. In both, the chain verifies with
// the key and the trail reopens.
func TestKill9LosesNoAcknowledgedRecord(t *testing.T) {
	for _, mode := range []string{"per-record fsync", "sync interval"} {
		t.Run(mode, func(t *testing.T) {
			for round := range 3 {
				path := filepath.Join(t.TempDir(), "audit.jsonl")
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
				if mode == "sync interval" {
					cmd.Env = append(cmd.Env, "TOOLBELT_AUDIT_INTERVAL=1")
				}
				stdout, err := cmd.StdoutPipe()
				require.NoError(t, err)
				require.NoError(t, cmd.Start())
				sc := bufio.NewScanner(stdout)
				var acked, durable uint64
				read := func(line string) {
					if d, ok := strings.CutPrefix(line, "d "); ok {
						n, err := strconv.ParseUint(d, 10, 64)
						require.NoError(t, err, "child said %q", line)
						durable = max(durable, n)
						return
					}
					n, err := strconv.ParseUint(line, 10, 64)
					require.NoError(t, err, "child said %q", line)
					acked = max(acked, n)
				}
				for sc.Scan() {
					read(sc.Text())
					// Past a few flushes in interval mode.
					if acked >= uint64(200+round*150) && (mode != "sync interval" || durable >= 200) {
						break
					}
				}
				require.NoError(t, syscall.Kill(cmd.Process.Pid, syscall.SIGKILL))
				// What was printed before the kill counts too.
				for sc.Scan() {
					read(sc.Text())
				}
				_ = cmd.Wait()
				rep, err := audit.Verify(path, audit.WithKey(testKey))
				if err != nil {
					// A kill cannot tear a write(2) to a regular file, but
					// if it ever did, Repair is the way back.
					require.ErrorIs(t, err, audit.ErrTorn)
					rep, err = audit.Repair(path, audit.WithKey(testKey))
					require.NoError(t, err)
				}
				if mode == "per-record fsync" {
					assert.GreaterOrEqual(t, rep.LastSeq, acked, "every acknowledged record survived kill -9")
				} else {
					require.Positive(t, durable, "the background flush ran")
					assert.GreaterOrEqual(t, rep.LastSeq, durable, "every record reported durable survived kill -9")
					assert.LessOrEqual(t, rep.LastSeq, acked+4, "nothing beyond what was accepted")
					t.Logf("round %d: accepted %d, durable %d, survived %d: lost %d from the last interval", round, acked, durable, rep.LastSeq, acked-min(acked, rep.LastSeq))
				}
				tr, err := audit.Open(path, audit.WithKey(testKey))
				require.NoError(t, err, "the trail reopens")
				require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "after"}))
				require.NoError(t, tr.Close())
			}
		})
	}
}
