package origin_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/toolbelt-go/toolbelt/internal/origin"
)

func TestOf(t *testing.T) {
	same := [][2]string{
		{"https://Example.com/a?b", "HTTPS://example.COM:443/c"},
		{"http://h", "http://h:80/x"},
		{"http://[::1]:8080/", "http://[::1]:8080/y"},
	}
	for _, p := range same {
		a, _ := url.Parse(p[0])
		b, _ := url.Parse(p[1])
		if origin.Of(a) != origin.Of(b) {
			t.Errorf("%s and %s: %s != %s", p[0], p[1], origin.Of(a), origin.Of(b))
		}
	}
	differ := [][2]string{
		{"http://h", "https://h"},
		{"http://h:8080", "http://h"},
		{"http://a.h", "http://h"},
		{"http://h@evil", "http://h"},
		// strings.ToLower folds U+0130 to "i" and U+212A to "k", but net/http
		// dials the host as written (its IDNA form): other hosts.
		{"https://ap\u0130.example.com", "https://api.example.com"},
		{"https://\u212Aey.example.com", "https://key.example.com"},
	}
	for _, p := range differ {
		a, _ := url.Parse(p[0])
		b, _ := url.Parse(p[1])
		if origin.Of(a) == origin.Of(b) {
			t.Errorf("%s and %s share %s", p[0], p[1], origin.Of(a))
		}
	}
}

func ExampleOf() {
	u, _ := url.Parse("HTTPS://Example.com/path?q=1")
	fmt.Println(origin.Of(u))
	// Output: https://example.com:443
}

func TestLoopback(t *testing.T) {
	for _, h := range []string{"localhost", "LocalHost:8080", "127.0.0.1", "127.1.2.3:80", "::1", "[::1]", "[::1]:8080", "::ffff:127.0.0.1"} {
		if !origin.Loopback(h) {
			t.Errorf("Loopback(%q) = false, want true", h)
		}
	}
	for _, h := range []string{"", "localhost.", "example.com", "10.0.0.1", "[::2]:80", "127.0.0.1.nip.io", "localhost.evil"} {
		if origin.Loopback(h) {
			t.Errorf("Loopback(%q) = true, want false", h)
		}
	}
}
