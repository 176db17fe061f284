package classify

import "testing"

// TestAttackS23GhApiDelete: gh api -X DELETE repos/OWNER/REPO deletes
// the repository, as gh repo delete (Dangerous) does, and any other
// resource the token may delete (a release, a branch's protection, an
// organization's member); gh api with another method changes them, which
// is Warning, as gh's other commands are. It was Warning in every
// spelling of the method.
func TestAttackS23GhApiDelete(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`gh api -X DELETE repos/o/r`,
		`gh api -XDELETE repos/o/r`,
		`gh api --method DELETE repos/o/r`,
		`gh api --method=DELETE repos/o/r`,
		`gh api repos/o/r -X DELETE`,
		`gh api -X delete repos/o/r`,
		`gh api -X 'DELETE' repos/o/r`,
	})
	for _, line := range []string{
		`gh api repos/o/r`,
		`gh api -X POST repos/o/r/issues -f title=x`,
		`gh api repos/o/r/git/refs -X GET`,
	} {
		if v := Classify(line); v.Level != Warning {
			t.Errorf("%q: got %s %v, want warning", line, v.Level, v.Reasons)
		}
	}
}
