package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttackArgvOfManyMaskedWords: an argv of 161,318 words "--password",
// "x" (1 MiB) searched the list of elements masked whole once per word:
// 9.8 s (seen with a timing run; 21 ms before "password" became a rule's
// hint, which makes such an array judged as a command line). Every value
// is still masked and every flag kept.
func TestAttackArgvOfManyMaskedWords(t *testing.T) {
	words := strings.Fields(strings.Repeat("--password xyzw ", 20000))
	b, _ := json.Marshal(map[string]any{"argv": words})
	var got struct{ Argv []string }
	if err := json.Unmarshal(Args(b, nil), &got); err != nil || len(got.Argv) != len(words) {
		t.Fatalf("Args gave %d words (%v)", len(got.Argv), err)
	}
	for i, w := range got.Argv {
		if want := map[bool]string{true: "--password", false: Mask}[i%2 == 0]; w != want {
			t.Fatalf("word %d = %q, want %q", i, w, want)
		}
	}
}
