package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var errCrash = errors.New("simulated crash")

// Repair cut the torn line, synced, then appended the record of the cut: a
// crash between the two left an intact trail that had silently lost a
// line. Here Repair is stopped after each step that reaches the disk (and
// again at each step of the Repair run after that "crash"), and every state
// it leaves is either torn (Repair runs again) or a trail that says what
// was removed, by its SHA-256.
func TestRepairSurvivesACrashAtEveryStep(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	partial := `{"seq":4,"time":"2026-01-01T00:00:00Z","kind":"intent","call_id":"c3","tool":"deploy","args":{"blob":"`
	for name, torn := range map[string]string{
		"shorter than the repair record": partial[:60],
		"longer than the repair record":  partial + strings.Repeat("a", 3000),
		"a whole record but its newline": "", // filled in below
		"a record followed by junk":      "", // filled in below
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			tr, err := Open(path, WithKey(key))
			require.NoError(t, err)
			for i := range 4 {
				require.NoError(t, tr.Write(Record{Kind: KindIntent, Tool: "deploy", CallID: fmt.Sprint("c", i)}))
			}
			require.NoError(t, tr.Close())
			all, err := os.ReadFile(path)
			require.NoError(t, err)
			lines := strings.SplitAfter(string(all), "\n")
			good := []byte(strings.Join(lines[:3], ""))
			junk := strings.Repeat("junk", 200)
			switch name {
			case "a whole record but its newline":
				torn = strings.TrimSuffix(lines[3], "\n")
			case "a record followed by junk":
				torn = strings.TrimSuffix(lines[3], "\n") + junk
			}
			require.NoError(t, os.WriteFile(path, append(append([]byte(nil), good...), torn...), 0o600))
			sum := sha256.Sum256([]byte(torn))
			want := hex.EncodeToString(sum[:])
			switch name {
			case "a whole record but its newline":
				want = "added the newline missing after record 4"
			case "a record followed by junk":
				sum = sha256.Sum256([]byte(junk))
				want = hex.EncodeToString(sum[:])
				good = []byte(strings.Join(lines[:4], "")) // record 4 is kept
			}
			check := func(t *testing.T, final bool) {
				t.Helper()
				_, err := Verify(path, WithKey(key))
				if err != nil {
					require.ErrorIs(t, err, ErrTorn, "a crashed repair leaves a torn trail or a repaired one")
					require.False(t, final, "Repair finished and left %v", err)
					return
				}
				b, err := os.ReadFile(path)
				require.NoError(t, err)
				require.True(t, bytes.HasPrefix(b, good), "the records before the torn line are untouched")
				for _, l := range strings.Split(strings.TrimSuffix(string(b[len(good):]), "\n"), "\n") {
					if l == "" {
						continue
					}
					var r Record
					require.NoError(t, json.Unmarshal([]byte(l), &r))
					if r.Kind == KindRepair && strings.Contains(r.Error, want) {
						return
					}
				}
				t.Fatalf("the trail verifies but no repair record says %q: the repair lost what it did:\n%s", want, b[len(good):])
			}
			crashEach(t, path, key, 2, check)
		})
	}
}

// crashEach runs Repair on the trail at path, stopping it after its nth
// step for n = 1, 2, ... until a run finishes; after each stop it checks
// the state, then (depth > 1) does the same to that state.
func crashEach(t *testing.T, path string, key []byte, depth int, check func(*testing.T, bool)) {
	start, err := os.ReadFile(path)
	require.NoError(t, err)
	defer func() { repairCrash = nil }()
	for n := 1; ; n++ {
		require.NoError(t, os.WriteFile(path, start, 0o600))
		steps := 0
		repairCrash = func(step string) error {
			if steps++; steps == n {
				return fmt.Errorf("after %s: %w", step, errCrash)
			}
			return nil
		}
		_, err := Repair(path, WithKey(key))
		repairCrash = nil
		if !errors.Is(err, errCrash) {
			require.NoError(t, err)
			check(t, true)
			return
		}
		check(t, false)
		if depth > 1 {
			crashEach(t, path, key, depth-1, check)
			continue
		}
		_, err = Repair(path, WithKey(key))
		require.NoError(t, err, "Repair after a crash at step %d", n)
		check(t, true)
	}
}
