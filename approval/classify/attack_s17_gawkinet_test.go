package classify

import "testing"

// TestAttackGawkNetworkFileOpensAConnection: gawk opens a TCP or UDP
// connection for a file named /inet/PROTOCOL/LOCALPORT/HOST/PORT (and
// /inet4/..., /inet6/...), wherever it opens a file: getline < FILE, and
// a file operand, which it reads as data (its devopen). awk is gawk on
// many systems. Both were Safe, as reads of an ordinary file: the line
// reached any host, and the host name is a DNS query of text the line
// chooses. print > FILE was already a write outside the working
// directory, and |& a pipe. Reading an ordinary file stays Safe.
func TestAttackGawkNetworkFileOpensAConnection(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`gawk 'BEGIN { getline l < "/inet/tcp/0/example.com/80"; print l }'`,
		`awk 'BEGIN { while ((getline l < "/inet/udp/0/example.com/53") > 0) print l }'`,
		`gawk 'BEGIN { getline < "/inet4/tcp/0/example.com/80"; print }'`,
		`gawk 'BEGIN { getline x < "/inet6/tcp/0/example.com/80" }'`,
		`gawk 1 /inet/tcp/0/example.com/80`,
		`awk '{ print }' /inet/tcp/0/example.com/80`,
		`awk -F: '{ print $1 }' x /inet/tcp/0/example.com/80`,
		`gawk -f prog.awk /inet/tcp/0/example.com/80`,
		`gawk -e '{ print }' /inet/tcp/0/example.com/80`,
	})
	attackSafe(t, []string{
		`awk 'BEGIN { while ((getline l < "notes.txt") > 0) print l }'`,
		`gawk '{ print $2 }' inet/tcp.log`,
		`awk -v x=/inet/tcp/0/h/80 '{ print x }' f`,
		`awk '{ print }' x=/inet/tcp/0/h/80 f`,
		`cat /inet/tcp/0/example.com/80`,
	})
}
