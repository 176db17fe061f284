package namefold_test

import (
	"fmt"

	"github.com/toolbelt-go/toolbelt/internal/namefold"
)

// A refusing rule matches a name folded against its glob folded: each of
// these opens ~/.ssh/id_rsa on a file system that compares names loosely.
func ExampleName() {
	for _, name := range []string{"home/.ssh/id_rsa", "home/.SSH/id_rsa", "home/.ss\u200bh/id_rſa", "home/.ssh./id_rsa"} {
		fmt.Println(namefold.Name(name))
	}
	fmt.Println(namefold.Glob("**/.SSH/*"))
	// Output:
	// home/.ssh/id_rsa
	// home/.ssh/id_rsa
	// home/.ssh/id_rsa
	// home/.ssh/id_rsa
	// **/.ssh/*
}
