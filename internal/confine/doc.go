// Package confine holds the system calls that confine a process, shared by
// package sandbox and the first process of a bwrap run: Landlock rulesets
// and marking descriptors close-on-exec.
//
// It is a package of its own, importing little beyond the standard library,
// so that a bwrap run's first process (this program's own executable, see
// BwrapInitArg) reaches its init function early: Go runs the init functions
// of a program's packages in dependency order, and each one run before this
// package's is time every bwrap run spends.
package confine

// BwrapInitArg is the first argument of a bwrap run's first process when
// that process is this program's own executable: this package's init
// function then confines the process and execs the rest of the run instead
// of starting the program (see sandbox.Bwrap and bwrapInit).
const BwrapInitArg = "-toolbelt-sandbox-bwrap-init"
