package dashboard_test

import (
	"bufio"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawRequest sends method and target as written (a client that cleans
// nothing, as an attacker's does not) to f's server, with the extra
// header lines hdr ("Name: value\r\n" each) and body, and returns the
// status code of the answer.
func (f *fixture) rawRequest(t *testing.T, method, target, hdr, body string) int {
	t.Helper()
	u, err := url.Parse(f.srv.URL)
	require.NoError(t, err)
	conn, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	req := method + " " + target + " HTTP/1.1\r\nHost: " + u.Host + "\r\n" + hdr +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n" + body
	_, err = conn.Write([]byte(req))
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "%q", req)
	res.Body.Close()
	return res.StatusCode
}

// Ways past the token by the path or the method: a path that is not
// clean (doubled or encoded slashes, dot segments, case), a trailing
// slash, HEAD and OPTIONS, the ?token= branch on another path, a
// request-target in absolute form, methods the routes do not name.
// Without the token each is refused (401) or redirected to the clean
// path, never served; with it, a method other than GET, HEAD and POST
// is refused before routing. Nothing is decided.
func TestAttackS28PathAndMethodTricksGetNothingWithoutTheToken(t *testing.T) {
	f := newFixture(t)
	done := f.startCall(t, `{"path":"docs/a.md","content":"x"}`)
	id := f.waitPending(t, 1)[0].ID
	targets := []string{
		"/api/approvals", "//api/approvals", "/api//approvals", "/api/approvals/", "/API/approvals",
		"/api/./approvals", "/static/../api/approvals", "/static/%2e%2e/api/approvals", "/%61pi/approvals",
		"/api%2fapprovals", "/api/history?tenant=acme", "/api/events", "/api/stats",
		"/api/approvals?token=" + url.QueryEscape("wrong-token-0123456789"),
		"/static/", "/index.html", "/static/app.js/", "/static//app.js", "/static/app.js/../../api/approvals",
		"/api/session?token=x", "/?token=wrong-token-0123456789",
		"http://localhost/api/approvals", // absolute form, naming another host
	}
	refused := []int{http.StatusUnauthorized, http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect}
	for _, target := range targets {
		for _, method := range []string{"GET", "HEAD", "OPTIONS"} {
			code := f.rawRequest(t, method, target, "", "")
			assert.Contains(t, refused, code, "%s %s was answered %d without the token", method, target, code)
		}
	}
	// The page's own files are served to anyone, by GET and HEAD alone,
	// and hold nothing of this dashboard (TestEveryRequestNeedsTheToken):
	// another method on them needs the token.
	for _, target := range []string{"/", "/static/app.js", "/static/app.css", "/?token=", "/static/app.js?token=x"} {
		for _, method := range []string{"OPTIONS", "POST", "PUT", "DELETE"} {
			code := f.rawRequest(t, method, target, "Content-Type: text/plain\r\n", `{"action":"approve"}`)
			assert.Equal(t, http.StatusUnauthorized, code, "%s %s without the token", method, target)
		}
	}
	for _, method := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		for _, target := range []string{"/api/approvals/" + id, "//api/approvals/" + id, "/api/approvals/" + id + "/"} {
			code := f.rawRequest(t, method, target, "Content-Type: text/plain\r\n", `{"action":"approve"}`)
			assert.Contains(t, refused, code, "%s %s was answered %d without the token", method, target, code)
		}
	}
	for _, method := range []string{"PUT", "DELETE", "PATCH", "OPTIONS"} {
		code := f.rawRequest(t, method, "/api/approvals/"+id, "Authorization: Bearer "+token+"\r\n", `{"action":"approve"}`)
		assert.Equal(t, http.StatusForbidden, code, "%s with the token but no CSRF header", method)
	}
	assert.Equal(t, []string{id}, pendingIDs(t, f.queue), "nothing was decided")

	hdr := bearer()
	hdr.Set("X-Toolbelt-CSRF", f.csrf(t))
	code, out := f.post(t, "/api/approvals/"+id, `{"action":"deny","message":"done"}`, hdr)
	require.Equal(t, http.StatusOK, code, "%v", out)
	<-done
}
