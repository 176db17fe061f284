package canonjson_test

import (
	"fmt"

	"github.com/toolbelt-go/toolbelt/internal/canonjson"
)

// Two documents that mean the same have the same canonical bytes.
func Example() {
	a, _ := canonjson.Canonical([]byte(`{"b": 1.0, "a": [1e2, "x"]}`))
	b, _ := canonjson.Canonical([]byte(`{"a":[100,"x"],"b":1}`))
	fmt.Println(string(a))
	fmt.Println(string(a) == string(b))
	// Output:
	// {"a":[100,"x"],"b":1}
	// true
}
