package logging_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/tool"
)

// BenchmarkExecute compares Execute with no extension against Execute with
// only the logging extension writing JSON to io.Discard at Info.
func BenchmarkExecute(b *testing.B) {
	discard := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(io.Discard), zapcore.InfoLevel))
	call := tool.Call{ID: "c1", Name: "login", Args: json.RawMessage(`{"user":"bob","pin":"1234"}`), Principal: tool.Principal{ID: "bob"}}
	for _, bc := range []struct {
		name string
		exts []extension.Extension
	}{
		{"none", nil},
		{"logging", []extension.Extension{logging.New(discard)}},
		{"logging+args", []extension.Extension{logging.New(discard, logging.WithArgs(true))}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ex := newExecutor(b, bc.exts...)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ex.Execute(ctx, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
