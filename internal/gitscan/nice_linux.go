package gitscan

import (
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// startLowered starts cmd with the scheduling priority lowered to nice,
// and under SCHED_IDLE when idle, so git's CPU goes to whatever else
// runs (the Hall's hook answers, the agents) first. Linux keeps a nice
// value and a policy per thread and a child takes its forking thread's:
// the process is started from a thread of its own, lowered first, so git
// is lowered from its first instruction and no other goroutine ever runs
// lowered. That thread stays locked and ends with its goroutine (an
// unprivileged thread cannot raise its priority back). Where the priority
// cannot be lowered (already lower, not permitted) git starts as it
// would have.
func startLowered(cmd *exec.Cmd, nice int, idle bool) error {
	if nice <= 0 && !idle {
		return cmd.Start()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if syscall.Gettid() == syscall.Getpid() {
			// The main thread never ends: a locked goroutine exiting on it
			// wedges it instead, lowered. Hold it while another thread
			// (never this one, held) starts git.
			defer runtime.UnlockOSThread()
			errc <- startLowered(cmd, nice, idle)
			return
		}
		// Never unlocked: the lowered thread ends with this goroutine.
		if nice > 0 {
			_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice)
		}
		if idle {
			_ = unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}, 0)
		}
		errc <- cmd.Start()
	}()
	return <-errc
}
