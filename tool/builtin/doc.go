// Package builtin is a ready catalog of tools a program picks from: files
// in a sandbox.Workspace (read_file, list_directory, write_file, edit_file,
// delete_file, search_files), git (git_status, git_diff, git_log, run in a
// sandbox engine through tool/shell), the host (system_metrics,
// process_health) and the program's test command (run_tests).
//
// File tools reach files only through the workspace, so "..", absolute
// paths outside it and symlinks that lead out are refused with
// tool.CodeFilesystemPolicy, naming the rule (shell.ToolError maps the
// workspace's errors). A workspace refuses to read, list or search secrets
// by default (.env and .env.*, *.pem, *.key and other key stores, private
// SSH keys, stored credentials, names compared with Unicode case folding:
// sandbox.DefaultSecrets, replaced by sandbox.WithSecrets). Each declares the file it touches
// (tool.ResourceDeclarer, key "file:" + the clean workspace-relative path,
// symlinks resolved, read or write; a path through a symlink declares the
// path as written too, which names a file of its own once an earlier call
// removes the link), so the executor serialises a write with other calls
// on the same file. Results carry text for the model, structured output where
// it is a listing (list_directory, search_files, system_metrics,
// process_health), and metadata (path, lines, truncated, ...).
//
// Risks and hints: read tools are RiskLow, read-only and idempotent;
// write_file and edit_file RiskMedium, not destructive; delete_file
// RiskHigh and destructive; git tools RiskLow and read-only; run_tests
// RiskMedium.
//
// Git tools run git with the workspace's root as their fixed working
// directory, with no pager, no colour, no
// fsmonitor, no external diff or textconv, no hooks, no system
// configuration, no transport (a partial clone's missing objects are not
// fetched: the fetch would run the program its configuration names),
// and GIT_CEILING_DIRECTORIES set so git never finds a
// repository above the workspace; the workspace is git's work tree
// whatever core.worktree says, and a repository whose .git (a file, a
// symlink, a commondir) leads out of the workspace is refused with
// tool.CodeFilesystemPolicy, unless it is a linked worktree or a
// submodule checked out there. Model-supplied values fill single arguments after fixed
// options; a ref that starts with "-" is refused (see tool/shell).
// git_diff's path is a literal pathspec resolved in the workspace, and a
// diff leaves out the changed paths the workspace refuses to read (the
// policy's forbidden paths, sandbox.WithHide) and says how many.
//
// Files, Git, System and All assemble the catalog:
//
//	tools, err := builtin.All(ws, sb, builtin.WithTestCommand("go", "test", "./..."))
//	reg.MustRegister(tools...)
//
// run_tests runs tests the model writes, so All masks what the workspace
// hides from its command, as from a bash command (shell.WithWorkspace);
// a run_tests built with RunTests alone needs that option for it.
package builtin
