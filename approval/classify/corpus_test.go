package classify

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// corpusCase is one line of testdata/corpus.txt.
type corpusCase struct {
	line  int
	want  Level
	exact bool // "=LEVEL": exactly want, not at least
	class string
	cmd   string
}

// loadCorpus reads testdata/corpus.txt. A command's escapes (\t \n \r
// \xNN) are decoded so that control bytes can be written down.
func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	f, err := os.Open("testdata/corpus.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			t.Fatalf("corpus line %d: want LEVEL<TAB>CLASS<TAB>COMMAND, got %q", n, line)
		}
		exact := strings.HasPrefix(parts[0], "=")
		l, err := ParseLevel(strings.TrimPrefix(parts[0], "="))
		if err != nil {
			t.Fatalf("corpus line %d: %v", n, err)
		}
		out = append(out, corpusCase{line: n, want: l, exact: exact || l == Safe, class: parts[1], cmd: unescapeCorpus(parts[2])})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func unescapeCorpus(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'x':
			if i+3 < len(s) {
				if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i += 3
					continue
				}
			}
			b.WriteString(`\x`)
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i+1])
		}
		i++
	}
	return b.String()
}

// TestCorpus checks every corpus case: attacks reach at least their level,
// their harmless twins are exactly Safe (or exactly the level after "=").
func TestCorpus(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) < 300 {
		t.Fatalf("the corpus has %d cases; it must keep at least 300", len(cases))
	}
	classes := map[string][2]int{}
	for _, tc := range cases {
		c := classes[tc.class]
		if tc.exact {
			c[1]++
		} else {
			c[0]++
		}
		classes[tc.class] = c
		t.Run(fmt.Sprintf("%d/%s", tc.line, tc.class), func(t *testing.T) {
			v := Classify(tc.cmd)
			if tc.exact && v.Level != tc.want {
				t.Errorf("line %d: %q is %s, want exactly %s: %v", tc.line, tc.cmd, v.Level, tc.want, v.Reasons)
			}
			if !tc.exact && v.Level < tc.want {
				t.Errorf("line %d: %q is %s, want at least %s: %v", tc.line, tc.cmd, v.Level, tc.want, v.Reasons)
			}
		})
	}
	for class, c := range classes {
		if c[0] > 0 && c[1] == 0 && class != "wrapper" && class != "hidden" {
			t.Errorf("class %s has attacks but no harmless twin", class)
		}
	}
}
