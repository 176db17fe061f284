package httptool_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
)

// The stream held back six bytes per byte of the longest secret, the
// length of a secret written in \u00XX escapes. The masking finds longer
// forms: the secret in hex with each digit \u-escaped (a JSON encoder that
// escapes everything it is given) is twelve bytes a byte. Split so that
// the first chunk's cut fell inside that form, the stream showed the
// secret, though the result, masked whole, hid it. The server sends the
// rest only once the first chunk was streamed, so the split is certain.
func TestAttackEscapedHexSecretLongerThanTheStreamHold(t *testing.T) {
	var form strings.Builder
	for _, c := range hex.EncodeToString([]byte(cfgQueryKey)) {
		fmt.Fprintf(&form, `\u%04x`, c)
	}
	encoded := form.String()
	require.Len(t, encoded, 12*len(cfgQueryKey))
	split := len(encoded) - 28 // past the old hold (6 a byte), before the form's end
	u, onChunk := splitEcho(t, strings.Repeat("p", 4096)+` {"k":"`+encoded[:split], encoded[split:]+`"}`)
	tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: u + "/", Query: map[string]string{"api_key": cfgQueryKey}})
	run := runStreamed(t, tl, onChunk)
	require.NoError(t, run.err)
	require.GreaterOrEqual(t, run.chunks, 2, "the body was streamed in more than one chunk")
	require.NotContains(t, run.res.Text(), encoded, "the result is masked whole")
	assert.NotContains(t, run.streamed, encoded, "the stream shows the secret in escaped hex")
	assert.Equal(t, run.res.Text(), run.streamed, "the stream says what the result says")
	assert.True(t, strings.HasSuffix(run.streamed, `{"k":"`+httptool.Redacted+`"}`), "%q", run.streamed[max(0, len(run.streamed)-60):])
}

// A body cut at the size cap (or an error page at its excerpt's length)
// kept the beginning of a secret's encoded form: the cap only dropped a
// beginning of the secret as it is or JSON-escaped. An echo padded so that
// the cap fell before the form's last character showed all the key but
// its last byte, percent-encoded, as an echoed URL carries it.
func TestAttackSecretCutAtTheSizeCap(t *testing.T) {
	encoded := url.QueryEscape(cfgQueryKey)
	require.NotEqual(t, cfgQueryKey, encoded, "the key's URL form differs from it")
	const limit = 4096
	for _, tc := range []struct {
		name   string
		status int
		cap    int // where the body is cut
	}{
		{"size cap", http.StatusOK, limit},
		{"error excerpt", http.StatusBadRequest, 512},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := " url=/x?api_key="
			pad := strings.Repeat("p", tc.cap-len(prefix)-(len(encoded)-1))
			srv, _ := recorder(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, pad+prefix+encoded+"&from=echo"+strings.Repeat("q", 8192))
			})
			tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: srv.URL + "/", Query: map[string]string{"api_key": cfgQueryKey}},
				httptool.WithMaxResponseBytes(limit))
			run := runStreamed(t, tl, nil)
			if tc.status == http.StatusOK {
				require.NoError(t, run.err)
				require.Equal(t, true, run.res.Metadata["truncated"], "the body was cut")
			} else {
				require.Error(t, run.err)
				assert.NotContains(t, run.err.Error(), encoded[:len(encoded)-1])
			}
			assert.NotContains(t, run.res.Text(), encoded[:len(encoded)-1], "all of the key but its last byte")
			assert.NotContains(t, run.streamed, encoded[:len(encoded)-1], "streamed: all of the key but its last byte")
			assert.Contains(t, run.res.Text(), "pppp", "the text before it is kept")
		})
	}
}

// splitEcho serves first, flushed, and rest only once the first streamed
// chunk reached the tool's emitter (onChunk, for runStreamed), so that the
// body is certain to be streamed split where first ends.
func splitEcho(t *testing.T, first, rest string) (u string, onChunk func()) {
	firstStreamed := make(chan struct{})
	var once sync.Once
	srv, _ := recorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, first)
		w.(http.Flusher).Flush()
		select {
		case <-firstStreamed:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, rest)
	})
	return srv.URL, func() { once.Do(func() { close(firstStreamed) }) }
}

// streamRun is what runStreamed saw of a call.
type streamRun struct {
	res      *tool.Result
	err      error
	streamed string // the output events' data, joined
	chunks   int
}

// runStreamed runs tl with an emitter that keeps its output events,
// calling onChunk (when set) after each.
func runStreamed(t *testing.T, tl tool.Tool, onChunk func()) streamRun {
	t.Helper()
	var mu sync.Mutex
	var chunks []string
	ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) {
		mu.Lock()
		chunks = append(chunks, string(ev.Data))
		mu.Unlock()
		if onChunk != nil {
			onChunk()
		}
	})
	res, err := tl.Run(ctx, tool.Call{Name: "api", Args: json.RawMessage(`{}`)})
	mu.Lock()
	defer mu.Unlock()
	return streamRun{res: res, err: err, streamed: strings.Join(chunks, ""), chunks: len(chunks)}
}
