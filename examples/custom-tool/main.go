// Command custom-tool defines one tool from a Go function whose input is a
// rich struct — nested structs, enums, optional pointers, slices, a map,
// time.Time and a secret field — and shows what Toolbelt makes of it: the
// JSON Schema, the OpenAI and Gemini definitions with the notes that say
// where a provider's rules changed the schema, a call rejected by
// validation, and a call that succeeds, logged with the secret redacted.
//
//	go run ./examples/custom-tool
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Target is a nested struct: it is inlined into the schema.
type Target struct {
	Region  string `json:"region" jsonschema:"enum=eu-west-1,enum=us-east-1,enum=ap-south-1"`
	Cluster string `json:"cluster" jsonschema:"minLength=3,maxLength=40,pattern=^[a-z0-9-]+$" jsonschema_description:"Cluster name: lower-case letters, digits and dashes"`
}

// Notify says who hears about the deploy; the whole struct is optional.
type Notify struct {
	Channel string   `json:"channel" jsonschema:"enum=slack,enum=email"`
	To      []string `json:"to" jsonschema:"minItems=1"`
}

// DeployArgs is the tool's input. Fields with omitempty are optional;
// a pointer alone does not make a field optional.
type DeployArgs struct {
	Service  string            `json:"service" jsonschema:"minLength=1" jsonschema_description:"Service to deploy, e.g. checkout"`
	Version  string            `json:"version" jsonschema:"pattern=^v[0-9]+\\.[0-9]+\\.[0-9]+$" jsonschema_description:"Semantic version with a leading v, e.g. v1.4.2"`
	Strategy string            `json:"strategy" jsonschema:"enum=rolling,enum=blue-green,enum=canary"`
	Targets  []Target          `json:"targets" jsonschema:"minItems=1,maxItems=5"`
	At       *time.Time        `json:"at,omitempty" jsonschema_description:"When to start (RFC 3339); now when absent"`
	Replicas *int              `json:"replicas,omitempty" jsonschema:"minimum=1,maximum=20"`
	Notify   *Notify           `json:"notify,omitempty"`
	Labels   map[string]string `json:"labels,omitempty" jsonschema_description:"Free-form labels for the release"`
	Token    string            `json:"token" toolbelt:"secret" jsonschema_description:"Deploy token; redacted in logs and audit"`
}

// DeployPlan is the tool's structured output.
type DeployPlan struct {
	ID      string    `json:"id"`
	StartAt time.Time `json:"start_at"`
	Steps   []string  `json:"steps"`
}

// now is fixed so the example's output is stable.
var now = time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)

func planDeploy(_ context.Context, in DeployArgs) (DeployPlan, error) {
	if !strings.HasPrefix(in.Token, "dpl_") {
		return DeployPlan{}, tool.NewError(tool.CodeUnauthorized, "token is not a deploy token (they start with dpl_)")
	}
	start := now
	if in.At != nil {
		start = *in.At
	}
	replicas := 3
	if in.Replicas != nil {
		replicas = *in.Replicas
	}
	plan := DeployPlan{ID: fmt.Sprintf("%s-%s", in.Service, in.Version), StartAt: start}
	for _, t := range in.Targets {
		plan.Steps = append(plan.Steps, fmt.Sprintf("%s %s to %s/%s with %d replicas", in.Strategy, in.Version, t.Region, t.Cluster, replicas))
	}
	if in.Notify != nil {
		plan.Steps = append(plan.Steps, fmt.Sprintf("notify %s via %s", strings.Join(in.Notify.To, ", "), in.Notify.Channel))
	}
	return plan, nil
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "custom-tool:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	deploy, err := tool.NewFunc("plan_deploy", "Plan a deploy of a service to one or more clusters", planDeploy,
		tool.WithRisk(tool.RiskMedium), tool.WithCategory("ops"), tool.WithTags("deploy"))
	if err != nil {
		return err
	}
	reg := registry.New()
	if err := reg.Register(deploy); err != nil {
		return err
	}
	spec := deploy.Spec()

	fmt.Fprintln(w, "== input schema (reflected once, at registration):")
	fmt.Fprintln(w, indent(spec.InputSchema))
	fmt.Fprintf(w, "== secret argument paths: %v\n", spec.Secrets)

	for _, f := range []registry.Format{registry.OpenAIChat, registry.Gemini} {
		ex, err := reg.Export(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "== %s definition:\n", f)
		out, err := json.Marshal(ex)
		if err != nil {
			return err
		}
		fmt.Fprintln(w, indent(out))
		fmt.Fprintf(w, "== %s notes:\n", f)
		for _, n := range ex.NotesFor("plan_deploy") {
			fmt.Fprintf(w, "   - %s\n", n.Message)
		}
	}
	fmt.Fprintln(w, "   (a map cannot be expressed strictly or for Gemini: a []struct{Key, Value string} can)")

	// A logger with no timestamps, so the lines are easy to read.
	cfg := zap.NewProductionEncoderConfig()
	cfg.TimeKey = ""
	logger := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(cfg), zapcore.AddSync(w), zapcore.InfoLevel))
	ex, err := executor.New(reg, executor.WithExtensions(logging.New(logger, logging.WithArgs(true))))
	if err != nil {
		return err
	}

	calls := []struct {
		title string
		call  tool.Call
	}{
		{"validation error", tool.Call{ID: "c1", Name: "plan_deploy", Args: json.RawMessage(
			`{"service":"checkout","version":"1.4","strategy":"yolo","targets":[],"replicas":50,"at":"tomorrow","token":"dpl_x"}`)}},
		{"successful call", tool.Call{ID: "c2", Name: "plan_deploy", Args: json.RawMessage(
			`{"service":"checkout","version":"v1.4.2","strategy":"canary",` +
				`"targets":[{"region":"eu-west-1","cluster":"prod-eu-1"},{"region":"us-east-1","cluster":"prod-us-2"}],` +
				`"at":"2026-11-03T22:00:00Z","replicas":4,"notify":{"channel":"slack","to":["#releases"]},` +
				`"labels":{"ticket":"OPS-981"},"token":"dpl_9f8e7d6c"}`)}},
	}
	for _, c := range calls {
		fmt.Fprintf(w, "== %s:\n", c.title)
		res, _ := ex.Execute(ctx, c.call)
		fmt.Fprintf(w, "   status=%s", res.Status)
		if res.Error != nil {
			fmt.Fprintf(w, " code=%s\n   message: %s\n", res.Error.Code, res.Error.Message)
			continue
		}
		fmt.Fprintf(w, "\n   output: %s\n", res.Output)
	}
	return nil
}

func indent(raw []byte) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}
