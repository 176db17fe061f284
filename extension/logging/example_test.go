package logging_test

import (
	"context"
	"encoding/json"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func Example() {
	type loginArgs struct {
		User string `json:"user"`
		PIN  string `json:"pin" toolbelt:"secret"`
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("login", "Log a user in", func(_ context.Context, in loginArgs) (string, error) {
		return "welcome " + in.User, nil
	}))

	// A JSON logger without time and duration, so the output is stable.
	cfg := zap.NewProductionEncoderConfig()
	cfg.TimeKey = ""
	logger := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(cfg), zapcore.AddSync(os.Stdout), zapcore.InfoLevel))
	logger = logger.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return dropDuration{c} }))

	ex := executor.MustNew(reg, executor.WithExtensions(logging.New(logger, logging.WithArgs(true))))
	_, _ = ex.Execute(context.Background(), tool.Call{
		ID: "call-1", Name: "login", Args: json.RawMessage(`{"user":"bob","pin":"1234"}`),
		Principal: tool.Principal{ID: "bob"},
	})
	// Output:
	// {"level":"info","msg":"tool call","call_id":"call-1","tool":"login","status":"succeeded","attempts":1,"principal":"bob","args":{"user":"bob","pin":"[REDACTED]"}}
}

// dropDuration removes the duration field, which changes on every run.
type dropDuration struct{ zapcore.Core }

func (d dropDuration) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if d.Enabled(e.Level) {
		return ce.AddCore(e, d)
	}
	return ce
}

func (d dropDuration) Write(e zapcore.Entry, fields []zapcore.Field) error {
	kept := fields[:0:0]
	for _, f := range fields {
		if f.Key != "duration" {
			kept = append(kept, f)
		}
	}
	return d.Core.Write(e, kept)
}
