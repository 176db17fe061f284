// Package sandbox runs commands and reaches files on behalf of LLM agent tools
// within limits an operator sets: resource [Limits] that nest (a child never
// gets more than its parent), engines behind one [Sandbox] interface, and a
// [Workspace] that confines file access to one directory.
//
// # Engines
//
// Engines are chosen by name with [New] ("process", "landlock", "bwrap",
// "gvisor"), which fails (matching [ErrUnavailable], with the package to
// install) when the engine is not installed: it never falls back to a weaker
// one. The concrete types [Process], [Landlock], [Bwrap] and [GVisor] are the
// escape hatch to an engine.
//
// Every engine: runs the command in its own session and process group (no
// controlling terminal: it cannot reach the terminal of a person who
// started the program) with stdin from
// /dev/null, kills the whole group (SIGKILL) on timeout, on cancellation of
// the caller's context, when output floods, and when the command exits (no
// background process outlives a run); builds the environment from an allow
// list ([WithEnv], [LooksSecret]); applies rlimits with prlimit(1) before the
// command starts; captures stdout and stderr separately, each capped keeping
// head and tail around a [TruncationMarker], streaming chunks to
// [Spec.OnOutput]; and reports an [Outcome] with exit status, signal, timing
// and rusage.
//
// What each engine enforces:
//
//	                   process         landlock           bwrap              gvisor
//	timeout, cancel    yes (group)     yes (group; pid    yes (pid ns)       yes (sandbox dies
//	                                     ns as root)                           with runsc)
//	setsid escapee     NOT killed      NOT killed (killed killed (pid ns)    killed (sandbox)
//	                                     as root)
//	CPU, memory (AS),  yes             yes                yes                yes (gVisor's
//	  file size                                                                kernel)
//	processes (NPROC)  non-root only   yes (as root, runs yes (as root, runs yes (as root, runs
//	                                     as 65534)          as 65534)          as 65534)
//	output cap + flood yes             yes                yes                yes
//	filesystem         none (use a     root read-only,    root read-only,    root read-only,
//	                     Workspace)      workspace and      workspace rw,      workspace rw,
//	                                     TMPDIR rw          fresh /tmp, /run,  fresh /tmp, /run,
//	                                                        /var/tmp, /dev/shm /var/tmp, /dev/shm
//	hidden paths       refused         refused            masked             masked
//	  (Spec.Mask)
//	~/.ssh, ~/.aws ... readable        not readable       empty              empty
//	  (DefaultHomeSecrets)
//	/run/secrets,      readable        not readable       empty (fresh       empty (fresh
//	  /run/credentials                                      /run)              /run)
//	/run/user,         readable        not readable       empty (fresh       empty (fresh
//	  $XDG_RUNTIME_DIR                                      /run, or masked)   /run, or masked)
//	workspace's .git,  writable        writable           read-only          read-only
//	  .hg, .svn
//	network off        no (refuses     yes (Landlock TCP, yes (net ns)       yes (--network=none)
//	                     WithNetwork(    seccomp)
//	                     false))
//	capabilities       all             none               none               none
//	  (root)
//
// The landlock engine ([Landlock]) sits between process and bwrap: a host
// process like the first (a setsid escapee is NOT killed, unless the host
// process is root: then each run has a pid namespace of its own), but
// confined by the kernel's Landlock LSM: root read-only (but /dev, the
// home's credential stores, the secrets containers keep under /run and the
// users' runtime directories, which it may not read), the workspace and
// a private TMPDIR writable; with the network off (its default) TCP refused
// and no socket but a unix one; no user namespace; no signals or abstract
// sockets outside the run; as root, commands run as 65534 without
// capabilities. It needs no user namespace and no helper binary.
//
// See docs/sandbox.md for the measured table (what each engine does not
// isolate too) and the test behind every row.
//
// RLIMIT_NPROC is counted per user and the kernel never applies it to root.
// When the caller is root, the process engine therefore enforces the process
// limit only with [WithUser] (an unprivileged uid, e.g. 65534); without it the
// [Outcome.Unenforced] list says "processes". The bwrap, landlock and gvisor
// engines run commands as 65534 when the caller is root, so root-only host
// files are out of their reach (see [Bwrap], [Landlock], [GVisor]).
//
// RLIMIT_AS bounds virtual memory, not resident memory: runtimes that reserve
// large address ranges (Go, the JVM, V8) need generous values. No engine here
// uses cgroups.
//
// bwrap and runsc (and, as root, the shell that starts a landlock command)
// report a command killed by signal n as exit status 128+n; those engines
// read such a status back as [Outcome.Signal], so a command that itself
// exits 152 is reported as SIGXCPU.
//
// The gvisor engine uses "runsc run" with a generated OCI bundle (read-only
// host root, writable workspace, fresh /tmp, /var/tmp and /run, no
// capabilities), because
// "runsc do" can only offer a throw-away overlay or a writable host.
//
// # Output
//
// [Limits.OutputBytes] caps each stream: the first half and the last half of
// the cap are kept and the bytes in between are replaced by a marker saying how
// many were cut. A producer that goes on for more than the cap plus
// max(3×cap, 1 MiB) is killed with its group and its pipe closed (kept output
// stays), and the run fails with [CodeResourceLimit], limit "output".
//
// # Changes
//
// [Spec.TrackChanges] lists on the outcome what a run created, modified and
// deleted in the workspace ([Outcome.Changes]), from a snapshot of the
// workspace's entries before and after the run: type, mode, size,
// modification and change time, inode. A command that rewrites a file and
// sets its modification time back is still seen (the change time cannot
// be set). The cost is a walk of the workspace on each side of the run,
// a few microseconds an entry (BenchmarkTrackChanges); past [MaxTrackedEntries] entries the run is
// not tracked and [Outcome.ChangesUntracked] says so. Whatever else writes
// in the workspace during the run is counted as the run's.
//
// # Errors
//
// Errors carry a [Code] from a closed set (E3101–E3108, see [Code]) and match
// the code's sentinel with errors.Is ([ErrTimeout], [ErrResourceLimit], ...);
// [Code.Retryable] is true for timeouts and concurrency refusals. Runs return
// [*Error]; workspace refusals return [*PathError], which names the path and
// the rule. A run cancelled by the caller returns an error wrapping
// context.Canceled and no code.
//
// # Workspace
//
// A [Workspace] reaches files only through an [os.Root]: "..", absolute paths
// outside it and symlinks that lead out (also swapped in concurrently, also
// through /proc/self/root) are refused with [ErrOutsideWorkspace]. Files with
// more than one hard link are refused ([ErrHardLink]), since os.Root cannot
// tell a link to an outside file. Allow and deny globs ([Match], with "**")
// are checked on the path asked for and on the path the opened file really
// has, writes are atomic (temporary file and rename in the same directory),
// and sizes are capped.
//
// The package is Linux-only in practice: it uses process groups, prlimit,
// waitid and /proc.
package sandbox
