// Command local-model runs the agent loop against a model served on your
// own machine by any server that speaks the OpenAI Chat Completions API —
// Ollama, vLLM, llama.cpp's llama-server, LM Studio — through
// providers/openai with a base URL. No API key leaves the machine.
//
//	ollama pull qwen3:8b && ollama serve                    # http://localhost:11434/v1/
//	vllm serve Qwen/Qwen3-8B --enable-auto-tool-choice --tool-call-parser hermes   # http://localhost:8000/v1/
//	llama-server -m qwen3-8b.gguf --jinja                   # http://localhost:8080/v1/
//
//	cd examples/local-model
//	go run . -base-url http://localhost:11434/v1/ -model qwen3:8b
//
// A server that checks a key (vLLM --api-key) gets $LOCAL_MODEL_API_KEY or
// -api-key; $OPENAI_API_KEY, your key for api.openai.com, is never sent.
//
// A server on another machine of your network over plain http needs
// -insecure-http (the key and the conversation cross it in clear text);
// over https, or on this machine, no flag.
//
// Tool schemas go non-strict by default (-strict turns strict mode on for
// servers that implement it, such as vLLM's guided decoding): most local
// servers ignore "strict", and the executor validates every call against
// the full schema either way.
//
// For a model without native tool calling (or a server whose tool parser
// mangles it), -prompt-tools sends no tools: the system message describes
// them, the model writes <tool_call> blocks in its text, and the results go
// back as <tool_response> blocks (agent.PromptTools, wire.Prompt).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/providers/openai"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Config says where the model is served and what to ask it.
type Config struct {
	BaseURL string // the server's OpenAI-compatible root, ending in /v1/
	Model   string // the model's name on that server
	APIKey  string // most local servers ignore it; vLLM --api-key checks it
	Strict  bool   // OpenAI strict mode for tool schemas
	// InsecureHTTP allows an http:// base URL on another machine (a LAN
	// model server): the key and the conversation cross the network in
	// clear text. http to this machine needs no flag.
	InsecureHTTP bool
	// PromptTools describes the tools in the system message instead of
	// the API's tools parameter, for models without native tool calling.
	PromptTools bool
	Question    string
	Timeout     time.Duration
}

func main() {
	cfg := Config{}
	flag.StringVar(&cfg.BaseURL, "base-url", envOr("OPENAI_BASE_URL", "http://localhost:11434/v1/"), "OpenAI-compatible base URL (Ollama :11434/v1/, vLLM :8000/v1/, llama.cpp :8080/v1/)")
	flag.StringVar(&cfg.Model, "model", "qwen3:8b", "model name as the server knows it")
	// Not OPENAI_API_KEY: a shell that holds the user's key for
	// api.openai.com would send it to whatever server -base-url names.
	flag.StringVar(&cfg.APIKey, "api-key", envOr(APIKeyEnv, "local"), "API key, if the server checks one (default $"+APIKeyEnv+"; a flag shows in ps, the variable does not)")
	flag.BoolVar(&cfg.Strict, "strict", false, "send strict tool schemas")
	flag.BoolVar(&cfg.InsecureHTTP, "insecure-http", false, "allow an http:// base URL on another machine (a LAN model server; sent in clear text)")
	flag.BoolVar(&cfg.PromptTools, "prompt-tools", false, "for models without native tool calling: describe the tools in the system message and read <tool_call> blocks from the reply")
	flag.StringVar(&cfg.Question, "q", "What is the weather in Lisbon, in celsius?", "the question")
	flag.DurationVar(&cfg.Timeout, "timeout", 5*time.Minute, "give up after this long (local models can be slow)")
	flag.Parse()
	if err := run(context.Background(), cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "local-model:", err)
		os.Exit(1)
	}
}

// APIKeyEnv names the environment variable holding the local server's key
// (vLLM --api-key, llama-server --api-key).
const APIKeyEnv = "LOCAL_MODEL_API_KEY"

// redacted is the base URL as messages may show it: a password in it
// (http://user:password@host/) becomes xxxxx, and a URL that does not
// parse is not shown.
func redacted(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return "the -base-url given"
	}
	return u.Redacted()
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// WeatherArgs is the input of the example's one tool.
type WeatherArgs struct {
	City string `json:"city" jsonschema_description:"City name, e.g. Lisbon"`
	Unit string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit"`
}

// Weather is its output.
type Weather struct {
	City string  `json:"city"`
	Temp float64 `json:"temp"`
	Unit string  `json:"unit"`
	Sky  string  `json:"sky"`
}

func newExecutor() *executor.Executor {
	reg := registry.New()
	reg.MustRegister(tool.Func("get_weather", "Current weather for a city", func(_ context.Context, in WeatherArgs) (Weather, error) {
		w := Weather{City: in.City, Temp: 21, Unit: "celsius", Sky: "sunny"}
		if in.Unit == "fahrenheit" {
			w.Temp, w.Unit = 69.8, "fahrenheit"
		}
		return w, nil
	}, tool.ReadOnly()))
	return executor.MustNew(reg) // the tools are fixed: a mistake here is a bug
}

func run(ctx context.Context, cfg Config, w io.Writer) error {
	if !strings.HasSuffix(cfg.BaseURL, "/") {
		cfg.BaseURL += "/"
	}
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	client := sdk.NewClient(
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(1),
	)
	var opts []openai.Option
	if !cfg.Strict {
		opts = append(opts, openai.NonStrict())
	}
	if cfg.InsecureHTTP {
		opts = append(opts, openai.WithInsecureHTTP())
	}
	var model agent.Model = openai.New(client, cfg.Model, opts...)
	if cfg.PromptTools {
		model = agent.PromptTools(func(ctx context.Context, msgs []agent.ChatMessage) (string, error) {
			params := sdk.ChatCompletionNewParams{Model: cfg.Model}
			for _, m := range msgs {
				switch m.Role {
				case "system":
					params.Messages = append(params.Messages, sdk.SystemMessage(m.Content))
				case "assistant":
					params.Messages = append(params.Messages, sdk.ChatCompletionMessageParamOfAssistant(m.Content))
				default:
					params.Messages = append(params.Messages, sdk.UserMessage(m.Content))
				}
			}
			resp, err := client.Chat.Completions.New(ctx, params)
			if err != nil {
				return "", err
			}
			if len(resp.Choices) == 0 {
				return "", fmt.Errorf("the server returned no choices")
			}
			return resp.Choices[0].Message.Content, nil
		})
	}
	tr, err := agent.Run(ctx, model, []agent.Message{
		{Role: agent.RoleSystem, Text: "You answer weather questions. Use get_weather; do not guess."},
		{Role: agent.RoleUser, Text: cfg.Question},
	}, agent.Options{Executor: newExecutor(), Tools: []string{"get_weather"}, MaxIterations: 4, Agent: "local-weather"})
	if tr != nil {
		for _, st := range tr.Steps {
			for i, c := range st.Calls {
				fmt.Fprintf(w, "call   %s(%s) -> %s\n", c.Name, c.Args, st.Results[i].Output)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("%s at %s: %w", cfg.Model, redacted(cfg.BaseURL), err)
	}
	fmt.Fprintf(w, "answer %s\n", tr.Final)
	return nil
}
