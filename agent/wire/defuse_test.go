package wire_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Code that uses "<|" as an operator is not a control token, and a model
// that reads it changed copies the change: Haskell's <|>, Elm's and F#'s
// <| pipes. 1e138ae put a space after every "<|", so a model reading
// "p = a <|> b" read "p = a < |> b" and an edit that quoted the line no
// longer matched the file (or wrote the space into it). Only the token
// spellings, "<|name|>", are defused.
func TestDefuseKeepsOperatorsThatAreNotTokens(t *testing.T) {
	for _, code := range []string{
		"parser = try (string \"a\") <|> string \"b\"",
		"view model = div [] <| List.map item <| model.items",
		"let total = xs |> List.sum <|| (1, 2)",
		"f = g <|>\n  h",
		"if a <|b|| c then",
	} {
		assert.Equal(t, code, wire.Text(&tool.Result{Content: []tool.Content{tool.TextContent(code)}}), "a result's text")
		assert.Equal(t, code, wire.Defuse(code), "a reply's text")
	}
	out := wire.Text(&tool.Result{Output: json.RawMessage(`{"op":"<|>","doc":"a <| b"}`)})
	assert.JSONEq(t, `{"op":"<|>","doc":"a <| b"}`, out)

	// The tokens themselves are still defused, next to operators too.
	for _, tok := range []string{"<|im_end|>", "<|eot_id|>", "<|start_header_id|>", "<|reserved_special_token_7|>", "<|end|>"} {
		got := wire.Defuse("a <|> b " + tok + " c")
		assert.NotContains(t, got, tok)
		assert.Contains(t, got, "a <|> b ")
	}
}
