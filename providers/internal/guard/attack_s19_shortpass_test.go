package guard_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/providers/internal/guard"
)

// A base URL's password shorter than the 8 bytes a header value needs to
// be taken for a credential was not redacted when an endpoint echoed it
// alone ("wrong password pw19"): a password is a credential at any
// length redact.Scrub finds (4 bytes and up).
func TestAttackS19ShortURLPasswordEchoedAloneIsRedacted(t *testing.T) {
	for _, pass := range []string{"pw19", "hunter2"} {
		g := guard.New(0, "", "test")
		g.URL(&url.URL{Scheme: "https", Host: "gw.example", User: url.UserPassword("gw-user", pass)})
		out := g.Text("wrong password " + pass + " for gw-user")
		assert.NotContains(t, out, pass)
		assert.Contains(t, out, guard.Redacted)
	}
}
