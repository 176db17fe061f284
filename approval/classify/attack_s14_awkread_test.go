package classify

import "testing"

// TestAttackAwkReadsAFileNamedAtRunTime: the awk check judges the file
// getline < "FILE" reads by its name, so a name awk builds (".e" "nv", a
// variable, ENVIRON["HOME"] "/.ssh/id_rsa") hid a secret file; and awk
// reads the files in ARGV, which the program may set (ARGV[1] = ".env",
// getline ARGV[1], split(s, ARGV), sub(/x/, ".env", ARGV[1])). All were
// Safe, as awk '{print}' .env is not.
func TestAttackAwkReadsAFileNamedAtRunTime(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`awk 'BEGIN { f = ".e" "nv"; while ((getline l < f) > 0) print l }'`,
		`awk 'BEGIN { getline l < (ENVIRON["HOME"] "/.ssh/id_rsa"); print l }'`,
		`awk 'BEGIN { getline < ENVIRON["HOME"] "/.ssh/id_rsa"; print }'`,
		`awk -v f=.env 'BEGIN { while ((getline line < f) > 0) print line }'`,
		`awk 'BEGIN { ARGV[1] = ".env"; ARGC = 2 } { print }'`,
		`awk 'BEGIN { ARGV[ARGC++]=".e" "nv" } { print }'`,
		`awk 'BEGIN { split(".env", ARGV); ARGC = 2 } { print }'`,
		`awk 'BEGIN { ARGC = 2; sub(/x/, ".env", ARGV[1]) } { print }' x`,
		`gawk 'BEGIN { getline ARGV[1]; ARGC = 2 } { print }'`,
	})
	attackSafe(t, []string{
		`awk 'NR < 10' f`,
		`awk '$1 < max { print }' f`,
		`awk 'BEGIN { while ((getline l < "f") > 0) print l }'`,
		`awk '{ print ARGV[1], $0 }' f`,
		`awk 'BEGIN { for (i = 1; i < ARGC; i++) print ARGV[i] }' a b`,
		`awk '{ if (ARGV[1] == "f") print }' f`,
		`awk '{ getline; print }' f`,
		`awk '{ getline x; print x }' f`,
	})
}
