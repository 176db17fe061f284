package anthropic_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

// Example runs a two-turn conversation against a local server that replays
// recorded Anthropic responses; against the real API, drop the base URL and
// pass your key.
func Example() {
	turns := []string{"testdata/turn1_tool_use.json", "testdata/turn2_answer.json"}
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		data, _ := os.ReadFile(turns[n])
		n++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(data)
	}))
	defer srv.Close()

	client := sdk.NewClient(option.WithBaseURL(srv.URL+"/"), option.WithAPIKey("sk-test"), option.WithHTTPClient(srv.Client()))
	tr, err := agent.Run(context.Background(), anthropic.New(client, "claude-sonnet-4-5"), conversation(), agent.Options{
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
	// toolu_01A09q90qw90lq917835lq9 succeeded
	// toolu_01Bq7rT3kZ8mW2vN5xYc4pLs failed
	// Lisbon is 21°C and sunny. There is no weather station for Atlantis.
}
