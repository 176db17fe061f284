package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestAttackScrubManyValues: SecretValues returns the parts of strings the
// rule masks (34059418), so one 1 MiB command of password=... pairs gives
// 65,534 values, and Scrub searched a 1 MiB output once for each: 19 s
// (seen with a timing run; 21 ms in one pass). Every echoed value is
// still masked, the longest where values overlap, long ones too.
func TestAttackScrubManyValues(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20-40; i++ {
		fmt.Fprintf(&b, "password=p%05d ", i)
	}
	args, _ := json.Marshal(map[string]string{"command": b.String()})
	vals := SecretValues(args, nil)
	if len(vals) < 60000 {
		t.Fatalf("SecretValues gave %d values", len(vals))
	}
	out := strings.Repeat("ordinary output line that echoes nothing\n", 20000) + "rejected p00007 and p65000."
	if got := Scrub(out, vals); !strings.HasSuffix(got, "rejected "+Mask+" and "+Mask+".") || !strings.HasPrefix(got, "ordinary output") {
		t.Errorf("Scrub ends %q", got[len(got)-60:])
	}
	long := strings.Repeat("L", 100)
	got := Scrub("a pin1234567 b pin1234 c "+long+"x d", []string{"pin1234", "pin1234567", long, "abc"})
	if want := "a " + Mask + " b " + Mask + " c " + Mask + "x d"; got != want {
		t.Errorf("Scrub = %q, want %q", got, want)
	}
}
