package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/providers/openai"
)

// Example runs a two-turn conversation against a local server that replays
// recorded OpenAI responses; against the real API, drop the base URL and
// pass your key.
func Example() {
	turns := []string{"testdata/turn1_tool_calls.json", "testdata/turn2_answer.json"}
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		data, _ := os.ReadFile(turns[n])
		n++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(data)
	}))
	defer srv.Close()

	client := sdk.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("sk-test"), option.WithHTTPClient(srv.Client()))
	tr, err := agent.Run(context.Background(), openai.New(client, "gpt-4.1"), conversation(), agent.Options{
		Executor: weatherExecutor(),
		Tools:    []string{"get_weather"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range tr.Steps[0].Results {
		fmt.Println(r.CallID, r.Status)
	}
	fmt.Println(tr.Final)
	// Output:
	// call_Xa8fQ2mZkL0vR7tYc3Hn1DwE succeeded
	// call_9pTmB4sWq6KjN2eUv8YhZ5rA failed
	// Lisbon is 21°C and sunny. I could not find a weather station for Atlantis.
}
