package httptool_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
)

func benchServer(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":42,"title":"hello"}`)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkCall is one tool call: URL template, escaping, guarded dial
// (connection reused), JSON response into structured output.
func BenchmarkCall(b *testing.B) {
	srv := benchServer(b)
	tl, err := httptool.New(tool.Spec{Name: "get", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)},
		httptool.Config{URL: srv.URL + "/items/{id}"}, httptool.WithPrivateHosts("127.0.0.1"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(tl.CloseIdleConnections)
	call := tool.Call{Name: "get", Args: json.RawMessage(`{"id":"42"}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := tl.Run(ctx, call)
		if err != nil || len(res.Output) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlainClient is the baseline: the same request with a plain
// http.Client, reading the body into memory.
func BenchmarkPlainClient(b *testing.B) {
	srv := benchServer(b)
	c := &http.Client{Transport: &http.Transport{}}
	b.Cleanup(c.CloseIdleConnections)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/items/42", nil)
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if len(body) == 0 {
			b.Fatal("empty")
		}
	}
}
