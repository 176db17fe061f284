package gemini_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"google.golang.org/genai"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/providers/gemini"
)

// Example runs a two-turn conversation against a local server that replays
// recorded Gemini API responses; against the real API, drop HTTPClient and
// HTTPOptions and pass your key. Gemini's function calls carry no id: the
// agent loop runs each under NAME#N with a tag random for the run
// (get_weather#1_9f3a1c2e), so this prints the tools.
func Example() {
	turns := []string{"testdata/turn1_function_call.json", "testdata/turn2_answer.json"}
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		data, _ := os.ReadFile(turns[n])
		n++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(data)
	}))
	defer srv.Close()

	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "test-key", // os.Getenv("GEMINI_API_KEY")
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  srv.Client(),
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	tr, err := agent.Run(context.Background(), gemini.New(client, "gemini-2.5-flash"), conversation(), agent.Options{
		Executor: weatherExecutor(),
		Tools:    []string{"get_weather"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range tr.Steps[0].Results {
		fmt.Println(r.Tool, r.Status, r.Err())
	}
	fmt.Println(tr.Final)
	// Output:
	// get_weather succeeded <nil>
	// get_weather failed not_found: no weather station for "Atlantis"
	// Lisbon is sunny at 21 °C. I have no weather station for Atlantis.
}
