package cmdutil

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
)

// Invocation is a command as main sees it: its arguments, the program name
// first, and its outputs.
type Invocation struct {
	Args           []string
	Stdout, Stderr io.Writer
}

// Fail prints err as "<program>: <err>", the form of every start-up error,
// and returns the exit code 1.
func (inv Invocation) Fail(err error) int {
	fmt.Fprintf(inv.Stderr, "%s: %v\n", filepath.Base(inv.Args[0]), err)
	return 1
}

// EndBeforeRun handles the outcomes of parsing the flags that end the
// command before it runs: help asked for (flag.ErrHelp), a flag error and
// --version. It returns the exit code and true for those, false when the
// command is to run.
func (inv Invocation) EndBeforeRun(parseErr error, showVersion bool, version string, usage func(io.Writer)) (int, bool) {
	switch {
	case errors.Is(parseErr, flag.ErrHelp):
		usage(inv.Stdout)
		return 0, true
	case parseErr != nil:
		return inv.Fail(parseErr), true
	case showVersion:
		fmt.Fprintln(inv.Stdout, inv.Args[0], version)
		return 0, true
	}
	return 0, false
}
