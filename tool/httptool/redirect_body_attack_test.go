package httptool_test

import (
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
)

// A 307 or 308 keeps the method and the body, and net/http resends the
// body wherever the Location points. The body holds the call's arguments,
// which may be private (a user's message, a token an argument carries);
// the credential headers are dropped for another origin, but the body went
// with the redirect: the second server, on another port, read it.
func TestAttackCrossOriginRedirectDoesNotResendTheBody(t *testing.T) {
	spec := tool.Spec{Name: "post", InputSchema: schema(`"note":{"type":"string"}`)}
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			other, last := recorder(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "landed") })
			first, _ := recorder(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+"/moved", code) // 127.0.0.1, another port
			})
			tl := newTool(t, spec, httptool.Config{Method: "POST", URL: first.URL + "/notes", Body: []string{"note"}})
			res, err := run(t, tl, `{"note":"private: the user's diagnosis"}`)
			assert.NotContains(t, last().Body, "diagnosis", "the body was resent to another origin")
			require.NotNil(t, err, "the cross-origin redirect with a body was followed: %v", res)
			t.Log(err.Message)
			assert.Equal(t, tool.CodeNetworkPolicy, err.Code)
			for _, want := range []string{strconv.Itoa(code), other.Listener.Addr().String(), "another origin", "body", "Config.URL"} {
				assert.Contains(t, err.Message, want)
			}
		})
	}
}

// What stays: a 307 within the origin resends the body, a cross-origin
// 307 of a request without a body is followed, and a cross-origin 302 or
// 303 (which net/http turns into a GET without the body) is followed.
func TestRedirectsThatSendNoBodyElsewhereAreFollowed(t *testing.T) {
	spec := tool.Spec{Name: "post", InputSchema: schema(`"note":{"type":"string"}`)}
	t.Run("307 within the origin", func(t *testing.T) {
		srv, last := recorder(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/notes" {
				http.Redirect(w, r, "/v2/notes", http.StatusTemporaryRedirect)
				return
			}
			_, _ = io.WriteString(w, "landed")
		})
		tl := newTool(t, spec, httptool.Config{Method: "POST", URL: srv.URL + "/notes", Body: []string{"note"}})
		res, err := run(t, tl, `{"note":"hi"}`)
		require.Nil(t, err)
		assert.Equal(t, "landed", res.Text())
		assert.Equal(t, "/v2/notes", last().Path)
		assert.JSONEq(t, `{"note":"hi"}`, last().Body)
	})
	for _, tc := range []struct {
		name   string
		method string
		body   []string
		code   int
	}{
		{"307 of a GET", "GET", nil, http.StatusTemporaryRedirect},
		{"302 of a POST", "POST", []string{"note"}, http.StatusFound},
		{"303 of a POST", "POST", []string{"note"}, http.StatusSeeOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other, last := recorder(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "landed") })
			first, _ := recorder(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+"/moved", tc.code)
			})
			tl := newTool(t, spec, httptool.Config{Method: tc.method, URL: first.URL + "/notes", Body: tc.body})
			res, err := run(t, tl, `{"note":"hi"}`)
			require.Nil(t, err)
			assert.Equal(t, "landed", res.Text())
			assert.Equal(t, "GET", last().Method)
			assert.Empty(t, last().Body)
		})
	}
}
