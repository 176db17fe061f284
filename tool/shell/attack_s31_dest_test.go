package shell_test

import (
	"archive/tar"
	"archive/zip"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// secretsState describes every entry under dir: its name, type, mode,
// contents or link target.
func secretsState(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		s := fmt.Sprintf("%s %v", strings.TrimPrefix(p, dir), fi.Mode())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			s += " -> " + l
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			s += " " + string(b)
		}
		out = append(out, s)
		return nil
	}))
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// Attack (review of 647881a): the files cp, mv, install, ln, split,
// csplit, tar, zip, unzip, touch, rm, mkdir, sed -i, chmod, truncate,
// patch, gzip and rsync write or delete, named by their operands (cp --
// {file} {out}) or by an option (cp -t {out}, csplit -f {out}, unzip -d
// {out}, patch -o {out}), were no declared path argument when the schema
// declared another, so a governance policy judged only that one: with
// forbidden_paths [secrets/**] and file declared, cp -- {file} {out}
// given out secrets/list wrote secrets/list (real programs, policy,
// executor, process engine).
func TestAttackS31DestOperandsWhereThePolicyForbids(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	secrets := filepath.Join(dir, "secrets")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("a\nb\nc\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p.diff"), []byte("--- notes.txt\n+++ notes.txt\n@@ -1,3 +1,3 @@\n-a\n+z\n b\n c\n"), 0o644))
	{ // a.tar holds secrets/list, a.zip notes.txt
		f, err := os.Create(filepath.Join(dir, "a.tar"))
		require.NoError(t, err)
		tw := tar.NewWriter(f)
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: "secrets/list", Mode: 0o644, Size: 2, Typeflag: tar.TypeReg}))
		_, err = tw.Write([]byte("x\n"))
		require.NoError(t, err)
		require.NoError(t, tw.Close())
		require.NoError(t, f.Close())
		f, err = os.Create(filepath.Join(dir, "a.zip"))
		require.NoError(t, err)
		zw := zip.NewWriter(f)
		w, err := zw.Create("notes.txt")
		require.NoError(t, err)
		_, err = w.Write([]byte("x\n"))
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		require.NoError(t, f.Close())
	}
	sb := processEngine(t, dir)
	schema := []byte(`{"type":"object","properties":{"file":{"type":"string","x-toolbelt-path":true},"out":{"type":"string"},"n":{"type":"string"}},"required":["file","out"]}`)
	p, err := policy.Parse([]byte("version: 1\nglobal:\n  forbidden_paths: [\"secrets/**\", \"secrets\"]\n"), policy.WithBaseDir(dir))
	require.NoError(t, err)
	for name, tc := range map[string]struct {
		argv      []string
		file, out string
	}{
		"cp":          {[]string{"cp", "--", "{file}", "{out}"}, "notes.txt", "secrets/list"},
		"cp_t":        {[]string{"cp", "-t", "{out}", "--", "{file}"}, "notes.txt", "secrets"},
		"cp_t_long":   {[]string{"cp", "--target-directory={out}", "--", "{file}"}, "notes.txt", "secrets"},
		"mv":          {[]string{"mv", "--", "{file}", "{out}"}, "m.txt", "secrets/list"},
		"install":     {[]string{"install", "-m", "600", "--", "{file}", "{out}"}, "notes.txt", "secrets/list"},
		"ln":          {[]string{"ln", "-s", "--", "{file}", "{out}"}, "notes.txt", "secrets/list"},
		"split":       {[]string{"split", "-l", "1", "--", "{file}", "{out}"}, "notes.txt", "secrets/list"},
		"csplit":      {[]string{"csplit", "-s", "-f", "{out}", "--", "{file}", "2"}, "notes.txt", "secrets/list"},
		"tar_c":       {[]string{"tar", "-cf", "{out}", "--", "{file}"}, "notes.txt", "secrets/list"},
		"tar_old":     {[]string{"tar", "cf", "{out}", "{file}"}, "notes.txt", "secrets/list"},
		"tar_x":       {[]string{"tar", "-xf", "{file}", "--", "{out}"}, "a.tar", "secrets/list"},
		"zip":         {[]string{"zip", "-q", "{out}", "{file}"}, "notes.txt", "secrets/list.zip"},
		"unzip_d":     {[]string{"unzip", "-q", "{file}", "-d", "{out}"}, "a.zip", "secrets"},
		"touch":       {[]string{"touch", "--", "{out}"}, "notes.txt", "secrets/list"},
		"rm":          {[]string{"rm", "-f", "--", "{out}"}, "notes.txt", "secrets/keep"},
		"mkdir":       {[]string{"mkdir", "--", "{out}"}, "notes.txt", "secrets/list"},
		"sed_i":       {[]string{"sed", "-i", "s/a/b/", "--", "{out}"}, "notes.txt", "secrets/keep"},
		"chmod":       {[]string{"chmod", "600", "--", "{out}"}, "notes.txt", "secrets/keep"},
		"truncate":    {[]string{"truncate", "-s", "0", "--", "{out}"}, "notes.txt", "secrets/keep"},
		"patch_o":     {[]string{"patch", "-s", "-o", "{out}", "--", "{file}", "p.diff"}, "notes.txt", "secrets/list"},
		"gzip":        {[]string{"gzip", "-k", "--", "{out}"}, "notes.txt", "secrets/keep"},
		"timeout_cp":  {[]string{"timeout", "30", "cp", "-f", "{file}", "{out}"}, "notes.txt", "secrets/list"},
		"rsync":       {[]string{"rsync", "-a", "--", "{file}", "{out}"}, "notes.txt", "secrets/list"},
		"cp_bundle_t": {[]string{"cp", "-at", "{out}", "--", "{file}"}, "notes.txt", "secrets"},
		"find_exec":   {[]string{"find", "{file}", "-maxdepth", "0", "-exec", "cp", "{{}}", "{out}", ";"}, "notes.txt", "secrets/list"},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := shell.New(tool.Spec{Name: name, Description: "Write a file", Risk: tool.RiskLow, InputSchema: schema}, sb, shell.Config{Argv: tc.argv})
			require.NoError(t, err)
			assert.Equal(t, []string{"file", "out"}, sandbox.PathArguments(c.Spec().InputSchema), "%q", tc.argv)
			if _, err := exec.LookPath(tc.argv[0]); err != nil {
				t.Skipf("%s is not installed (built only)", tc.argv[0])
			}
			require.NoError(t, os.RemoveAll(secrets))
			require.NoError(t, os.Mkdir(secrets, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(secrets, "keep"), []byte("a\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "m.txt"), []byte("m\n"), 0o644))
			before := secretsState(t, secrets)
			reg := registry.New()
			reg.MustRegister(c)
			ex := executor.MustNew(reg, executor.WithExtensions(p))
			res, _ := ex.Execute(context.Background(), tool.Call{ID: "1", Name: name, Args: []byte(`{"file":"` + tc.file + `","out":"` + tc.out + `"}`)})
			assert.Equal(t, before, secretsState(t, secrets), "%s changed secrets/", name)
			if assert.NotNil(t, res.Error, "%s ran", name) {
				assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
			}
		})
	}
	// Guards: a placeholder that names no file (a mode, a size, a count,
	// a suffix, a pattern, sed's script without -i) is not declared, and
	// the ordinary call still runs.
	for _, argv := range [][]string{
		{"chmod", "{n}", "--", "{file}"},
		{"chown", "{n}", "--", "{file}"},
		{"truncate", "-s", "{n}", "--", "{file}"},
		{"split", "-l", "{n}", "--", "{file}"},
		{"split", "-n{n}", "--", "{file}"},
		{"csplit", "--", "{file}", "{n}"},
		{"cp", "-S", "{n}", "--backup", "--", "{file}", "x"},
		{"install", "-m", "{n}", "--", "{file}", "x"},
		{"mkdir", "-m", "{n}", "-p", "--", "{file}"},
		{"touch", "-d", "{n}", "--", "{file}"},
		{"tar", "-cf", "{file}", "--exclude", "{n}", "."},
		{"tar", "-xf", "{file}", "--strip-components", "{n}"},
		{"sed", "-n", "-e", "s/a/b/p", "--", "{n}"},
		{"sed", "-i", "-e", "s/a/b/", "-l", "{n}", "--", "{file}"},
		{"gzip", "-c", "-S", "{n}", "--", "{file}"},
		{"unzip", "-q", "{file}", "-x", "{n}"},
		{"zip", "-q", "-r", "{file}", ".", "-x", "{n}"},
		{"patch", "-p", "{n}", "-i", "{file}"},
		{"grep", "-e", "{n}", "--", "{file}"},
		{"cat", "--", "{n}"},
	} {
		c, err := shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: schema}, sb, shell.Config{Argv: argv})
		require.NoError(t, err)
		assert.Equal(t, []string{"file"}, sandbox.PathArguments(c.Spec().InputSchema), "%q", argv)
	}
	// Other spellings: the file is declared, what names none is not.
	for _, argv := range [][]string{
		{"cp", "-r", "--", "{file}", "{out}"},
		{"rm", "-rf", "--", "{file}", "{out}"},
		{"chmod", "-R", "{n}", "--", "{file}", "{out}"},
		{"chmod", "-w", "--", "{file}", "{out}"},
		{"chown", "--reference={file}", "--", "{out}"},
		{"sed", "-i.bak", "s/a/b/", "{file}", "{out}"},
		{"sed", "-ni", "-e", "s/a/b/p", "{file}", "{out}"},
		{"split", "-b", "{n}", "--", "{file}", "{out}"},
		{"zip", "-r", "{out}", "{file}", "-x", "{n}"},
		{"install", "-D", "-m", "{n}", "{file}", "{out}"},
		{"ln", "-sf", "{file}", "{out}"},
		{"touch", "-d", "{n}", "{file}", "{out}"},
		{"tar", "--exclude={n}", "-czf", "{out}", "{file}"},
		{"tar", "czf", "{out}", "--exclude", "{n}", "{file}"},
		{"tar", "-xf", "{file}", "-C", "{out}", "--strip-components", "{n}"},
		{"gzip", "-d", "{file}", "{out}"},
		{"rsync", "-avz", "--exclude", "{n}", "{file}", "{out}"},
		{"unzip", "-o", "{file}", "{out}"},
		{"patch", "-p", "{n}", "-o", "{out}", "{file}"},
		{"csplit", "-f", "{out}", "{file}", "{n}"},
		{"mv", "-S", "{n}", "-b", "{file}", "{out}"},
		{"xargs", "-0", "cp", "-t", "{out}", "--", "{file}"},
		{"find", "{file}", "-name", "*.txt", "-exec", "cp", "{{}}", "{out}", ";"},
		{"env", "LC_ALL=C", "/bin/cp", "{file}", "{out}"},
	} {
		c, err := shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: schema}, sb, shell.Config{Argv: argv})
		require.NoError(t, err)
		assert.Equal(t, []string{"file", "out"}, sandbox.PathArguments(c.Spec().InputSchema), "%q", argv)
	}
	// An ordinary call still runs: cp -- {file} {out} to a file outside
	// secrets/.
	c, err := shell.New(tool.Spec{Name: "cp", Description: "d", Risk: tool.RiskLow, InputSchema: schema}, sb, shell.Config{Argv: []string{"cp", "--", "{file}", "{out}"}})
	require.NoError(t, err)
	reg := registry.New()
	reg.MustRegister(c)
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "1", Name: "cp", Args: []byte(`{"file":"notes.txt","out":"copy.txt"}`)})
	require.Nil(t, res.Error)
	b, err := os.ReadFile(filepath.Join(dir, "copy.txt"))
	require.NoError(t, err)
	assert.Equal(t, "a\nb\nc\n", string(b))
	// A schema that declares no path argument is left to the policy's
	// guesses, as before.
	none := []byte(`{"type":"object","properties":{"src":{"type":"string"},"out":{"type":"string"}},"required":["src","out"]}`)
	c, err = shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: none}, sb, shell.Config{Argv: []string{"cp", "--", "{src}", "{out}"}})
	require.NoError(t, err)
	assert.Empty(t, sandbox.PathArguments(c.Spec().InputSchema))
}

// Attack (follow-up): more files programs write that were no declared
// path argument: sed -i's backup suffix ({out} given "secrets/*" puts the
// backup in secrets/), uniq's and xxd's second operand, shuf -o, iconv
// -o, scp's local operands, mktemp's template and -p directory.
func TestAttackS31DestMoreWritersWhereThePolicyForbids(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	secrets := filepath.Join(dir, "secrets")
	sb := processEngine(t, dir)
	schema := []byte(`{"type":"object","properties":{"file":{"type":"string","x-toolbelt-path":true},"out":{"type":"string"}},"required":["file","out"]}`)
	p, err := policy.Parse([]byte("version: 1\nglobal:\n  forbidden_paths: [\"secrets/**\", \"secrets\"]\n"), policy.WithBaseDir(dir))
	require.NoError(t, err)
	for name, tc := range map[string]struct {
		argv []string
		out  string
	}{
		"sed_suffix":      {[]string{"sed", "-i{out}", "s/a/b/", "--", "{file}"}, "secrets/*"},
		"sed_suffix_long": {[]string{"sed", "--in-place={out}", "s/a/b/", "--", "{file}"}, "secrets/*"},
		"uniq":            {[]string{"uniq", "--", "{file}", "{out}"}, "secrets/list"},
		"xxd":             {[]string{"xxd", "{file}", "{out}"}, "secrets/list"},
		"shuf":            {[]string{"shuf", "-o", "{out}", "--", "{file}"}, "secrets/list"},
		"iconv":           {[]string{"iconv", "-f", "UTF-8", "-t", "UTF-8", "-o", "{out}", "--", "{file}"}, "secrets/list"},
		"scp":             {[]string{"scp", "-q", "--", "{file}", "{out}"}, "secrets/list"},
		"mktemp":          {[]string{"mktemp", "--", "{out}"}, "secrets/tmp.XXXXXX"},
		"mktemp_p":        {[]string{"mktemp", "-p", "{out}"}, "secrets"},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := shell.New(tool.Spec{Name: name, Description: "Write a file", Risk: tool.RiskLow, InputSchema: schema}, sb, shell.Config{Argv: tc.argv})
			require.NoError(t, err)
			assert.Equal(t, []string{"file", "out"}, sandbox.PathArguments(c.Spec().InputSchema), "%q", tc.argv)
			if _, err := exec.LookPath(tc.argv[0]); err != nil {
				t.Skipf("%s is not installed (built only)", tc.argv[0])
			}
			require.NoError(t, os.RemoveAll(secrets))
			require.NoError(t, os.Mkdir(secrets, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "m.txt"), []byte("a\n"), 0o644))
			before := secretsState(t, secrets)
			reg := registry.New()
			reg.MustRegister(c)
			ex := executor.MustNew(reg, executor.WithExtensions(p))
			res, _ := ex.Execute(context.Background(), tool.Call{ID: "1", Name: name, Args: []byte(`{"file":"m.txt","out":"` + tc.out + `"}`)})
			assert.Equal(t, before, secretsState(t, secrets), "%s changed secrets/", name)
			if assert.NotNil(t, res.Error, "%s ran", name) {
				assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
			}
		})
	}
	// Guards: sed's script and uniq's, shuf's and iconv's option values
	// name no file; sed -i {file} still declares its operand.
	for _, tc := range []struct {
		argv []string
		want []string
	}{
		{[]string{"sed", "-i", "s/a/b/", "{out}"}, []string{"file", "out"}},
		{[]string{"uniq", "-f", "{out}", "--", "{file}"}, []string{"file"}},
		{[]string{"shuf", "-n", "{out}", "--", "{file}"}, []string{"file"}},
		{[]string{"iconv", "-t", "{out}", "--", "{file}"}, []string{"file"}},
		{[]string{"xxd", "-l", "{out}", "{file}"}, []string{"file"}},
		{[]string{"mktemp", "--suffix", "{out}"}, []string{"file"}},
	} {
		c, err := shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: schema}, sb, shell.Config{Argv: tc.argv})
		require.NoError(t, err, "%q", tc.argv)
		assert.Equal(t, tc.want, sandbox.PathArguments(c.Spec().InputSchema), "%q", tc.argv)
	}
}

// Attack: among the writers of 5aaeab9, three take a program to run from
// an option: split --filter=COMMAND (run with a shell for each part),
// install -s --strip-program=PROGRAM, sort --compress-program=PROGRAM
// (run on its temporary files). A placeholder there was built, so split
// -n 1 --filter={key} -- notes.txt given ./evil.sh (a workspace script)
// ran it (real split, install, sort; process engine).
func TestAttackS31DestOptionsThatRunAProgram(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("a\nb\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("zyxwvutsrqponmlkjihgfedcba\n", 20000)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "evil.sh"), []byte("#!/bin/sh\ntouch pwned\nexit 1\n"), 0o755))
	built := buildAndRun(t, dir, [][]string{
		{"split", "-n", "1", "--filter={key}", "--", "notes.txt"},
		{"split", "-n", "1", "--filter=sh {key}", "--", "notes.txt"},
		{"split", "-n", "1", "--filt={key}", "--", "notes.txt"},
		{"install", "-s", "--strip-program={key}", "notes.txt", "out1"},
		{"install", "-s", "--strip-program", "{key}", "notes.txt", "out2"},
		{"timeout", "30", "install", "-s", "--strip-prog={key}", "notes.txt", "out3"},
		{"sort", "-S", "1", "-T", ".", "--compress-program={key}", "-o", "sorted.txt", "--", "big.txt"},
		{"sort", "-S", "1", "-T", ".", "--compress-prog", "{key}", "-o", "sorted.txt", "--", "big.txt"},
	}, "./evil.sh")
	assert.Empty(t, built, "templates built")
	// Guard: their other options still take a placeholder, and a whole
	// shell line is the author's, as sh -c {script} is (split --filter
	// {script}).
	sb := processEngine(t, dir)
	for _, argv := range [][]string{
		{"split", "-n", "1", "--filter", "{key}", "--", "notes.txt"},
		{"split", "-l", "{key}", "--", "notes.txt"},
		{"split", "--filter=gzip > $FILE.gz", "-n", "{key}", "--", "notes.txt"},
		{"install", "-m", "{key}", "notes.txt", "out4"},
		{"sort", "-S", "{key}", "--", "notes.txt"},
		{"sort", "--compress-program=gzip", "-k", "{key}", "--", "notes.txt"},
	} {
		_, err := shell.NewCommand("t", "t", sb, argv)
		assert.NoError(t, err, "%q", argv)
	}
}
