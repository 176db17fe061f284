package classify

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ArgKind says whether an option takes a value.
type ArgKind int

const (
	// NoArg: the option is a flag (-l, --all).
	NoArg ArgKind = iota
	// RequiredArg: the option takes a value, attached or as the next word
	// (-n 5, -n5, --lines=5, --lines 5).
	RequiredArg
	// OptionalArg: the option takes a value only when it is attached
	// (-i.bak, --color=always); the next word is never its value.
	OptionalArg
)

// Option is one option of a program's grammar.
//
// In YAML an option is written as its name with a suffix for its value:
// "-l" is a flag, "-n=" takes a value, "--color?" takes an optional
// attached value. A single-dash name longer than one letter ("-name",
// "-brief") is matched as a whole word.
type Option struct {
	// Name is the option as written: "-n", "--lines", "-exec".
	Name string
	// Arg says whether it takes a value.
	Arg ArgKind
	// Level is the level of using the option (Safe for the allowlist).
	Level Level
	// Reason explains a level above Safe.
	Reason string
	// Writes says what the option makes the program write, judged like a
	// redirection target (see Rules.Paths): "value" (its value names a
	// file: sort -o FILE), "operands" (the command's operands: yq -i) or
	// "chdir" (its value is the directory the command works in: git -C
	// DIR; the line's relative writes are judged there too).
	Writes string
	// Reads says the option's value names a file the program reads (grep
	// -f FILE, diff --from-file FILE, tar -T FILE): it is judged as the
	// file it names, and a name computed when the command runs there may
	// be any file, as such an operand may (see the package doc).
	Reads bool
	// Settings, when set, says the value is a setting of the program (or
	// a list of them), "KEY=VALUE" or "KEY VALUE" (ssh -o
	// ProxyCommand=CMD), and judges it by its key.
	Settings *Settings
}

// Settings judges the value of an option that sets one of the program's
// settings by name: ssh -o ProxyCommand=CMD, git clone -c
// core.sshCommand=CMD. The key is what comes before the first '=' or
// blank, leading blanks skipped, matched without regard to case (as ssh
// and git do). A key that is not a plain name (a quoted "ProxyCommand",
// for one) or a value not known until the command runs may be any key:
// it is judged at the highest level the settings give.
//
// In YAML, in an option group:
//
//	{options: "-o=", settings: {keys: [{keys: "ProxyCommand LocalCommand", level: dangerous, reason: ...}]}}
type Settings struct {
	// Separator splits one value into several settings at each of its
	// characters ("," for mount -o ro,noexec; ", :" for ps -o
	// pid,comm:20 args, whose columns a comma or a blank separate and
	// whose width follows a colon); empty means the value is one setting.
	Separator string
	// Keys are the settings whose key is named, with their levels.
	Keys []SettingKeys
	// Other is the level of a key no Keys entry names (Safe: no level of
	// its own), for programs whose settings are judged by an allowlist.
	Other Level
	// OtherReason explains Other.
	OtherReason string
}

// SettingKeys gives the level of setting one of Keys.
type SettingKeys struct {
	// Keys are the names, matched without regard to case; one may end in
	// '*' to match a prefix (user.*).
	Keys []string
	// Level is the level of setting one of them.
	Level Level
	// Reason explains Level.
	Reason string
	// Code: the value is a shell command line the program runs (ssh's
	// ProxyCommand): a known value is also judged as shell code.
	Code bool
}

// UnmarshalYAML implements yaml.Unmarshaler: it reads
// {separator, other, other_reason, keys: [{keys: "A B", level, reason, code}]}.
func (st *Settings) UnmarshalYAML(n *yaml.Node) error {
	if err := checkKeys(n, "separator", "other", "other_reason", "keys"); err != nil {
		return err
	}
	var g struct {
		Separator   string `yaml:"separator"`
		Other       Level  `yaml:"other"`
		OtherReason string `yaml:"other_reason"`
		Keys        []struct {
			Keys   string `yaml:"keys"`
			Level  Level  `yaml:"level"`
			Reason string `yaml:"reason"`
			Code   bool   `yaml:"code"`
		} `yaml:"keys"`
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "keys" {
			continue
		}
		ks := n.Content[i+1]
		if ks.Kind != yaml.SequenceNode {
			return fmt.Errorf("line %d: settings keys must be a list of {keys, level, reason}", ks.Line)
		}
		for _, it := range ks.Content {
			if err := checkKeys(it, "keys", "level", "reason", "code"); err != nil {
				return err
			}
			if !hasKey(it, "level") || !hasKey(it, "keys") {
				return fmt.Errorf("line %d: a settings keys entry needs keys and a level", it.Line)
			}
		}
	}
	if err := n.Decode(&g); err != nil {
		return err
	}
	st.Separator, st.Other, st.OtherReason = g.Separator, g.Other, g.OtherReason
	for _, k := range g.Keys {
		names := strings.Fields(strings.ToLower(k.Keys))
		if len(names) == 0 {
			return fmt.Errorf("line %d: empty settings keys", n.Line)
		}
		st.Keys = append(st.Keys, SettingKeys{Keys: names, Level: k.Level, Reason: k.Reason, Code: k.Code})
	}
	return nil
}

// maxLevel returns the highest level a setting can have, and its reason.
func (st *Settings) maxLevel() (Level, string) {
	l, r := st.Other, st.OtherReason
	for _, k := range st.Keys {
		if k.Level > l {
			l, r = k.Level, k.Reason
		}
	}
	return l, r
}

// split cuts s at each character of Separator, keeping empty items (an
// empty key may be any key).
func (st *Settings) split(s string) []string {
	var items []string
	for {
		i := strings.IndexAny(s, st.Separator)
		if i < 0 {
			return append(items, s)
		}
		items = append(items, s[:i])
		s = s[i+1:]
	}
}

// judge returns the findings of setting v with option name of program
// prog.
func (st *Settings) judge(prog, name string, v word) []finding {
	s := v.s
	if !v.lit {
		if !v.dyn {
			s = ""
		} else {
			s = s[:min(v.prefix, len(s))]
		}
	}
	var items []string
	if st.Separator != "" {
		items = st.split(s)
		if !v.lit {
			// The last item runs into what is known only at run time.
			items[len(items)-1] += "\x00"
		}
	} else if v.lit {
		items = []string{s}
	} else {
		items = []string{s + "\x00"}
	}
	var out []finding
	for _, it := range items {
		it = strings.TrimLeft(it, " \t")
		if it == "" && st.Separator != "" {
			// Nothing between two separators (ps -o 'pid, args') sets
			// nothing.
			continue
		}
		end := strings.IndexAny(it, "= \t\x00")
		if end < 0 {
			end = len(it)
		}
		raw := it[:end]
		key := strings.ToLower(raw)
		if end < len(it) && it[end] == 0 || !plainKey(key) {
			// Not known, or not a plain name: it may be any key.
			if l, r := st.maxLevel(); l > Safe {
				out = append(out, finding{l, fmt.Sprintf("%s %s %s: may be any setting, such as one that %s", prog, name, v.s, reasonOr(r, "is "+levelNames[l]))})
			}
			continue
		}
		l, r := st.Other, st.OtherReason
		for _, k := range st.Keys {
			if anyWildcard(k.Keys, key) {
				l, r = k.Level, k.Reason
				break
			}
		}
		if l > Safe {
			out = append(out, finding{l, fmt.Sprintf("%s %s %s: %s", prog, name, raw, reasonOr(r, genericReason(prog, l)))})
		}
	}
	return out
}

// code returns the values of v's settings whose key is a Code key (ssh
// -o ProxyCommand=CMD, -o 'ProxyCommand CMD'), when v is a literal word.
func (st *Settings) code(v word) []string {
	if !v.lit {
		return nil
	}
	items := []string{v.s}
	if st.Separator != "" {
		items = st.split(v.s)
	}
	var out []string
	for _, it := range items {
		it = strings.TrimLeft(it, " \t")
		end := strings.IndexAny(it, "= \t")
		if end < 0 {
			continue
		}
		key := strings.ToLower(it[:end])
		for _, k := range st.Keys {
			if anyWildcard(k.Keys, key) {
				if k.Code {
					out = append(out, strings.TrimLeft(it[end+1:], "= \t"))
				}
				break
			}
		}
	}
	return out
}

// plainKey reports whether key is a plain setting name: letters, digits,
// '.', '-', '_'.
func plainKey(key string) bool {
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Options is a program's option grammar: the options it is known to accept
// and what each does. It is an allowlist. A command is Safe only when every
// option word in it is found here at level Safe; an option not found is
// "not understood" and makes the command at least Warning.
//
// Words are read the way GNU getopt_long reads them unless Style says
// otherwise: "-abc" is a bundle of single-letter options, "-n5" and
// "--lines=5" attach values, a long option may be abbreviated to any
// unambiguous prefix (--out for --output; an ambiguous prefix counts as
// every option it could be), "--" ends the options, and options may follow
// operands.
type Options struct {
	// List holds the options.
	List []Option
	// Complete says List is every option the program accepts. A word whose
	// value is not known when the command is judged ("$x") may then be any
	// of them; without Complete it may also be an option nobody listed, so
	// it is at least Warning.
	Complete bool
	// Style is how option words are read: "" or "gnu" (above), or "go"
	// (Go's flag package and tools like it: "-name" and "--name" are the
	// same option, values attach with "=" or follow, no bundles, no
	// abbreviations).
	Style string
}

// Len returns the number of options in the grammar.
func (o *Options) Len() int { return len(o.List) }

func (o *Options) style() string {
	if o == nil || o.Style == "" {
		return "gnu"
	}
	return o.Style
}

// lookup finds the option named exactly name.
func (o *Options) lookup(name string) *Option {
	if o == nil {
		return nil
	}
	for i := range o.List {
		if o.List[i].Name == name {
			return &o.List[i]
		}
	}
	return nil
}

// prefixed returns the long options that name abbreviates.
func (o *Options) prefixed(name string) []*Option {
	if o == nil {
		return nil
	}
	var out []*Option
	for i := range o.List {
		if strings.HasPrefix(o.List[i].Name, name) && strings.HasPrefix(o.List[i].Name, "--") {
			out = append(out, &o.List[i])
		}
	}
	return out
}

// maxLevel returns the highest level any option could give a word whose
// value is unknown, and whether one of them writes a file.
func (o *Options) maxLevel() (Level, bool) {
	l, w := Safe, false
	if o == nil {
		return l, w
	}
	for _, op := range o.List {
		l = max(l, op.Level)
		if op.Settings != nil {
			sl, _ := op.Settings.maxLevel()
			l = max(l, sl)
		}
		w = w || op.Writes != ""
	}
	return l, w
}

// parseOptionToken reads "-n=", "--color?", "-l" into an Option.
func parseOptionToken(tok string) (Option, error) {
	op := Option{Name: tok}
	switch {
	case strings.HasSuffix(tok, "="):
		op.Name, op.Arg = tok[:len(tok)-1], RequiredArg
	case strings.HasSuffix(tok, "?"):
		op.Name, op.Arg = tok[:len(tok)-1], OptionalArg
	}
	if len(op.Name) < 2 || (op.Name[0] != '-' && op.Name[0] != '+') || op.Name == "--" || strings.ContainsAny(op.Name, "= \t") {
		return op, fmt.Errorf("option %q must be a dash and a name, with \"=\" for a value or \"?\" for an optional value (-n=, --color?)", tok)
	}
	return op, nil
}

// writesOperands reports whether an option used makes the command write
// its operands (yq -i).
func (sc *optScan) writesOperands() bool {
	for _, u := range sc.uses {
		if u.opt.Writes == "operands" {
			return true
		}
	}
	return false
}

// decodeOptionKeys reads the options_complete and option_style keys of a
// rule into o.
func decodeOptionKeys(n *yaml.Node, o *Options) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		switch k {
		case "options_complete":
			if err := v.Decode(&o.Complete); err != nil {
				return fmt.Errorf("line %d: options_complete must be true or false", v.Line)
			}
		case "option_style":
			if v.Value != "gnu" && v.Value != "go" {
				return fmt.Errorf("line %d: option_style must be gnu or go, not %q", v.Line, v.Value)
			}
			o.Style = v.Value
		}
	}
	return nil
}

// UnmarshalYAML reads a grammar: a list whose items are either a string of
// Safe options separated by spaces, or a mapping
// {options: "-o= --output=", level: warning, writes: value, reason: ...,
// settings: ...} (see Settings), or {options: "-f= --file=", reads: true}
// for options whose value is a file the program reads.
func (o *Options) UnmarshalYAML(n *yaml.Node) error {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	for _, it := range items {
		var names string
		op := Option{}
		switch it.Kind {
		case yaml.ScalarNode:
			names = it.Value
		case yaml.MappingNode:
			if err := checkKeys(it, "options", "level", "reason", "writes", "reads", "settings"); err != nil {
				return err
			}
			var g struct {
				Options  string    `yaml:"options"`
				Level    Level     `yaml:"level"`
				Reason   string    `yaml:"reason"`
				Writes   string    `yaml:"writes"`
				Reads    bool      `yaml:"reads"`
				Settings *Settings `yaml:"settings"`
			}
			if err := it.Decode(&g); err != nil {
				return err
			}
			names, op.Level, op.Reason, op.Writes, op.Reads, op.Settings = g.Options, g.Level, g.Reason, g.Writes, g.Reads, g.Settings
			if op.Writes != "" && op.Writes != "value" && op.Writes != "operands" && op.Writes != "chdir" {
				return fmt.Errorf("line %d: writes must be \"value\", \"operands\" or \"chdir\", not %q", it.Line, op.Writes)
			}
		default:
			return fmt.Errorf("line %d: options must be a string of options or a list of strings and {options, level, reason, writes, reads}", it.Line)
		}
		fields := strings.Fields(names)
		if len(fields) == 0 {
			return fmt.Errorf("line %d: empty option group", it.Line)
		}
		for _, tok := range fields {
			p, err := parseOptionToken(tok)
			if err != nil {
				return fmt.Errorf("line %d: %v", it.Line, err)
			}
			p.Level, p.Reason, p.Writes, p.Reads, p.Settings = op.Level, op.Reason, op.Writes, op.Reads, op.Settings
			if p.Settings != nil && p.Arg != RequiredArg {
				return fmt.Errorf("line %d: option %s has settings, so it takes a value: write %s=", it.Line, p.Name, p.Name)
			}
			if p.Reads && p.Arg == NoArg {
				return fmt.Errorf("line %d: option %s reads the file its value names, so it takes a value: write %s= (or %s? for an attached one)", it.Line, p.Name, p.Name, p.Name)
			}
			if o.lookup(p.Name) != nil {
				return fmt.Errorf("line %d: option %s is listed twice", it.Line, p.Name)
			}
			o.List = append(o.List, p)
		}
	}
	return nil
}

// optUse is one option found in a command's arguments.
type optUse struct {
	opt  *Option
	name string // as written (an abbreviation stays abbreviated)
	val  word
	has  bool // val is set
}

// optScan is the reading of a command's arguments with its grammar.
type optScan struct {
	uses    []optUse
	ops     []int     // indexes of operands
	fs      []finding // options not understood, ambiguous, unknown words
	stopped int       // with stopAtOperand: index of the first operand, else len(args)
	unknown int       // index of the first option word not understood, or -1
	// anyAt are the indexes of the words known only at run time that
	// are above Safe as any option they may be (kubectl get "$POD").
	anyAt []int
}

// scanOptions reads args with grammar g. With stopAtOperand the options end
// at the first operand (a subcommand, or the command a wrapper runs). name
// is the command's name, for reasons.
func scanOptions(name string, args []word, g *Options, stopAtOperand bool) optScan {
	sc := optScan{stopped: len(args), unknown: -1}
	done := false
	i := 0
	anyOption := func(a string) {
		l, writes := g.maxLevel()
		if writes {
			l = max(l, Dangerous)
		}
		if !g.complete() {
			l = max(l, Warning)
		}
		if l > Safe {
			sc.fs = append(sc.fs, finding{l, fmt.Sprintf("%s: argument %s is not known until it runs and may be an option", name, a)})
			sc.anyAt = append(sc.anyAt, i)
		}
	}
	unknown := func(a string) {
		sc.fs = append(sc.fs, finding{Warning, fmt.Sprintf("%s: option %s is not on its allowlist", name, a)})
		if sc.unknown < 0 {
			sc.unknown = i
		}
	}
	for ; i < len(args); i++ {
		w := args[i]
		a := w.s
		if done || !mayBeOption(w) {
			if stopAtOperand {
				sc.stopped = i
				return sc
			}
			sc.ops = append(sc.ops, i)
			continue
		}
		if w.unknown() {
			// A word whose value is not known may be any option.
			anyOption(a)
			if u, ok := knownPrefixOption(w, g); ok {
				// Its known start is an option with its value attached
				// (sed -i"$x", --in-place="$x"): that option it is,
				// whatever the value turns out to be.
				sc.uses = append(sc.uses, u)
				continue
			}
			if stopAtOperand {
				sc.stopped = i
				return sc
			}
			sc.ops = append(sc.ops, i)
			continue
		}
		if a == "--" {
			done = true
			continue
		}
		next := func() (word, bool) {
			if i+1 < len(args) {
				i++
				if v := args[i]; v.unknown() && (v.split || v.leadingWildcard()) {
					// It may become several words (sort -k $k, tar -tf *):
					// the value, then options.
					anyOption(v.s)
				}
				return args[i], true
			}
			return word{}, false
		}
		// A whole-word match first: -name, -brief, --all, +o.
		flag, val, hasEq := strings.Cut(a, "=")
		if g.style() == "go" {
			flag = "-" + strings.TrimLeft(flag, "-")
			op := g.lookup(flag)
			if op == nil {
				unknown(a)
				continue
			}
			u := optUse{opt: op, name: flag}
			if hasEq {
				u.val, u.has = word{s: val, lit: w.lit}, true
			} else if op.Arg == RequiredArg {
				u.val, u.has = next()
			}
			sc.uses = append(sc.uses, u)
			continue
		}
		if strings.HasPrefix(a, "--") {
			op := g.lookup(flag)
			var cands []*Option
			if op == nil {
				cands = g.prefixed(flag)
				if len(cands) == 1 {
					op = cands[0]
				}
			}
			switch {
			case op != nil:
				u := optUse{opt: op, name: flag}
				if hasEq {
					u.val, u.has = word{s: val, lit: w.lit}, true
				} else if op.Arg == RequiredArg {
					u.val, u.has = next()
				}
				sc.uses = append(sc.uses, u)
			case len(cands) > 1:
				l := Warning
				for _, c := range cands {
					l = max(l, c.Level)
					if c.Writes != "" {
						l = max(l, Dangerous)
					}
				}
				sc.fs = append(sc.fs, finding{l, fmt.Sprintf("%s: option %s is ambiguous (%s)", name, flag, candNames(cands))})
				if !hasEq {
					// It may take the next word as its value: read on as if not.
				}
			default:
				unknown(flag)
			}
			continue
		}
		if op := g.lookup(a); op != nil && len(a) > 2 {
			sc.uses = append(sc.uses, optUse{opt: op, name: a})
			if op.Arg == RequiredArg {
				u := &sc.uses[len(sc.uses)-1]
				u.val, u.has = next()
			}
			continue
		}
		if op := g.lookup(flag); op != nil && hasEq && len(flag) > 2 {
			sc.uses = append(sc.uses, optUse{opt: op, name: flag, val: word{s: val, lit: w.lit}, has: true})
			continue
		}
		// A bundle of single-letter options: -la, -n5, -xvf file.
		sign := a[:1]
		for k := 1; k < len(a); k++ {
			f := sign + a[k:k+1]
			op := g.lookup(f)
			if op == nil {
				unknown(f)
				break
			}
			u := optUse{opt: op, name: f}
			if op.Arg != NoArg {
				if k+1 < len(a) {
					u.val, u.has = word{s: a[k+1:], lit: w.lit}, true
				} else if op.Arg == RequiredArg {
					u.val, u.has = next()
				}
				sc.uses = append(sc.uses, u)
				break
			}
			sc.uses = append(sc.uses, u)
		}
	}
	return sc
}

func (o *Options) complete() bool { return o != nil && o.Complete }

func candNames(cs []*Option) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// mayBeOption reports whether a word can be an option: it starts with '-'
// or '+' (a sign the program reads), or its value is not known and nothing
// literal before the first expansion rules it out.
func mayBeOption(w word) bool {
	if w.unknown() {
		return w.split || w.prefix == 0 || w.s[0] == '-' || w.leadingWildcard()
	}
	return len(w.s) >= 2 && w.s[0] == '-'
}

// unknown reports whether the word's value is not known before it runs:
// it holds an expansion, or it is a glob that starts with a wildcard (a
// file may be named "--output=x").
func (w word) unknown() bool {
	return w.dyn || w.split || w.leadingWildcard()
}

// leadingWildcard reports whether the word is a glob whose first character
// is a wildcard (*, ?, [...], or an extended glob's @( !( +( ), so that it
// may expand to a file named "-o" or "--pre=sh".
func (w word) leadingWildcard() bool {
	if !w.glob || w.s == "" {
		return false
	}
	if strings.IndexByte("*?[", w.s[0]) >= 0 {
		return true
	}
	return len(w.s) > 1 && strings.IndexByte("@+!", w.s[0]) >= 0 && w.s[1] == '('
}

// judgeOptions adds to j the findings of reading args with r's grammar:
// each option's level (and the file it writes), and, when the command
// would otherwise be Safe, every option word that is not understood.
func (s *state) judgeOptions(name string, sc optScan, j *judgement, strict bool) {
	// go's -C DIR, which go takes first, is where go works: -o ../bin/x
	// after it is DIR/../bin/x, judged there only.
	var goDir *word
	for _, u := range sc.uses {
		if u.opt.Level > Safe {
			j.add(u.opt.Level, reasonOr(u.opt.Reason, fmt.Sprintf("%s %s: %s", name, u.name, genericReason(name, u.opt.Level))))
		}
		if st := u.opt.Settings; st != nil && u.has {
			j.fs = append(j.fs, st.judge(name, u.name, u.val)...)
			for _, c := range st.code(u.val) {
				s.reparse(c, name+" "+u.name)
			}
		}
		switch u.opt.Writes {
		case "value":
			switch {
			case !u.has:
				j.add(Warning, name+" "+u.name+" writes a file")
			case goDir != nil && !u.val.unknown():
				j.add(s.writeTarget(inDir(goDir, u.val)))
			default:
				j.add(s.writeTarget(u.val))
			}
		case "chdir":
			if u.has && strings.HasPrefix(name, "go ") && !u.val.unknown() && u.name == "-C" {
				d := u.val
				goDir = &d
			}
			if u.has {
				s.chdir(u.val)
			} else {
				s.chdirUnknown(name + " " + u.name)
			}
		}
	}
	for _, f := range sc.fs {
		if f.level > Warning || strict {
			j.add(f.level, f.reason)
		}
	}
}

// valueFlags returns the options that take a separate value, for reading
// Match rules.
func (o *Options) valueFlags() []string {
	var out []string
	for _, op := range o.List {
		if op.Arg == RequiredArg {
			out = append(out, op.Name)
		}
	}
	return out
}

// knownPrefixOption reads a word known only at run time whose literal
// start already names an option that takes a value attached to it: -i"$x"
// (or a bundle, -ni"$x") is -i with a value not known, --in-place="$x" is
// --in-place with one. It returns that option's use, with the rest of the
// word as an unknown value. An option that reads a file is left to
// readsAttached, which judges the word as an operand.
func knownPrefixOption(w word, g *Options) (optUse, bool) {
	if !w.dyn || w.leadingWildcard() || w.prefix < 2 || w.prefix > len(w.s) || w.s[0] != '-' || g.style() == "go" {
		return optUse{}, false
	}
	known := w.s[:w.prefix]
	if strings.HasPrefix(known, "--") {
		flag, _, hasEq := strings.Cut(known, "=")
		op := g.lookup(flag)
		if !hasEq || op == nil || op.Arg == NoArg || op.Reads {
			return optUse{}, false
		}
		return optUse{opt: op, name: flag, val: w.cut(len(flag) + 1), has: true}, true
	}
	for k := 1; k < len(known); k++ {
		op := g.lookup(known[:1] + known[k:k+1])
		if op == nil {
			return optUse{}, false
		}
		if op.Arg != NoArg {
			if op.Reads {
				return optUse{}, false
			}
			return optUse{opt: op, name: op.Name, val: w.cut(k + 1), has: true}, true
		}
	}
	return optUse{}, false
}
