package policy

import "github.com/toolbelt-go/toolbelt/internal/suggest"

func didYouMean(s string, candidates []string) string {
	if c := suggest.Closest(s, candidates); c != "" {
		return ": did you mean \"" + c + "\"?"
	}
	return ""
}
