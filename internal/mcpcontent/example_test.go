package mcpcontent_test

import (
	"fmt"

	"github.com/toolbelt-go/toolbelt/internal/mcpcontent"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A block survives the trip to MCP and back with its annotations and a
// link's description and size.
func Example() {
	in := tool.Content{Type: tool.ContentResourceLink, URI: "file:///r.txt", Name: "r.txt", Description: "a report", Size: 1234,
		Annotations: &tool.ContentAnnotations{Audience: []string{"user"}, Priority: 0.5}}
	out, ok := mcpcontent.From(mcpcontent.To(in))
	fmt.Println(ok, out.Description, out.Size, out.Annotations.Audience, out.Annotations.Priority)
	// Output: true a report 1234 [user] 0.5
}
