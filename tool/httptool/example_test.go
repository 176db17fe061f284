package httptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
)

func ExampleNew() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{
			"path":  r.URL.EscapedPath(),
			"state": r.URL.Query().Get("state"),
		})
	}))
	defer api.Close()

	issues, err := httptool.New(tool.Spec{
		Name:        "list_issues",
		Description: "List the issues of a repository",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"owner":{"type":"string"},"repo":{"type":"string"},"state":{"type":"string"}},
			"required":["owner","repo"]}`),
	}, httptool.Config{
		URL:   api.URL + "/repos/{owner}/{repo}/issues",
		Query: map[string]string{"state": "{state}"},
	}, httptool.WithPrivateHosts("127.0.0.1")) // httptest listens on loopback
	if err != nil {
		fmt.Println(err)
		return
	}
	defer issues.CloseIdleConnections()

	res, err := issues.Run(context.Background(), tool.Call{
		Name: "list_issues",
		Args: json.RawMessage(`{"owner":"octo","repo":"a/b?admin=1","state":"open"}`),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Output))

	// A dot segment would take the path elsewhere once the server decodes
	// %2F: it is refused.
	_, err = issues.Run(context.Background(), tool.Call{
		Name: "list_issues",
		Args: json.RawMessage(`{"owner":"octo","repo":"../admin"}`),
	})
	fmt.Println(err)
	// Output:
	// {"path":"/repos/octo/a%2Fb%3Fadmin=1/issues","state":"open"}
	// invalid_arguments: argument "repo" holds the dot segment "..": dot segments are not allowed in a URL path, not even between slashes of one value
}

// An API key written into the tool's config never reaches the model, also
// when the server echoes the request back.
func ExampleNew_echoedKey() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = fmt.Fprintf(w, "key %s may not read %s", r.Header.Get("X-Api-Key"), r.URL.Query().Get("city"))
	}))
	defer api.Close()

	weather, err := httptool.New(tool.Spec{
		Name:        "weather",
		Description: "Today's weather in a city",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
	}, httptool.Config{
		URL:     api.URL + "/today",
		Query:   map[string]string{"city": "{city}"},
		Headers: map[string]string{"X-Api-Key": "wk_live_5f2c9a81"},
	}, httptool.WithPrivateHosts("127.0.0.1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer weather.CloseIdleConnections()

	_, err = weather.Run(context.Background(), tool.Call{Name: "weather", Args: json.RawMessage(`{"city":"Oslo"}`)})
	_, answer, _ := strings.Cut(err.Error(), "answered ") // after the test server's random port
	fmt.Println(answer)
	// Output:
	// 403 Forbidden: key [REDACTED] may not read Oslo (the tool's credential was refused)
}
