package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// cpuProfile is the file of the hidden --cpuprofile root flag: when set,
// the command's CPU profile is written there (read it with go tool pprof;
// herd plots labels its samples by figure and stage, herd claims by claim: go tool pprof -tags),
// to see where a run's time goes without a test harness around it.
var cpuProfile struct {
	path string
	file *os.File
}

func init() {
	cobra.OnInitialize(beginCPUProfile)
	cobra.OnFinalize(endCPUProfile)
}

// addProfileFlag registers --cpuprofile on root, hidden: it is for
// herd's developers, not part of the CLI contract.
func addProfileFlag(root *cobra.Command) {
	root.PersistentFlags().StringVar(&cpuProfile.path, "cpuprofile", "", "write the command's CPU profile to this file (go tool pprof)")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
}

// beginCPUProfile starts profiling when --cpuprofile was given. cobra
// calls it before the command runs; it cannot fail the command, so a file
// that cannot be created is reported and the run goes on unprofiled.
func beginCPUProfile() {
	if cpuProfile.path == "" || cpuProfile.file != nil {
		return
	}
	f, err := os.Create(cpuProfile.path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "herd: --cpuprofile: %v (running without a profile)\n", err)
		if f != nil {
			_ = f.Close()
		}
		return
	}
	cpuProfile.file = f
}

// endCPUProfile writes the profile out once the command has run.
func endCPUProfile() {
	if cpuProfile.file == nil {
		return
	}
	pprof.StopCPUProfile()
	if err := cpuProfile.file.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "herd: --cpuprofile: %v\n", err)
	}
	cpuProfile.file = nil
}
