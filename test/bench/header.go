package bench

import (
	"context"
	"fmt"
	"time"
)

// Header is where, how and when a part of the benchmark ran: what its
// report begins with.
type Header struct {
	Environment Environment   `json:"environment"`
	Invocation  Invocation    `json:"invocation"`
	Started     time.Time     `json:"started"`
	Duration    time.Duration `json:"duration"`
}

// Start starts a part's clock and reads where it runs; the part sets
// Duration when it is done.
func Start(ctx context.Context, s Settings, how Invocation) (Header, error) {
	h := Header{Invocation: how, Started: time.Now()}
	var err error
	h.Environment, err = GatherEnvironment(ctx, s.BinDir, s.ControlPlaneDir)
	return h, err
}

// Invocation is how the benchmark was started, for the report.
type Invocation struct {
	// Command is what the user ran, e.g. "BENCH_QUICK=1 make bench";
	// empty when the program was run directly.
	Command string `json:"command,omitempty"`
	// Program is the program's own command line.
	Program string `json:"program"`
}

// RanLine says how and when a benchmark ran, for a report's first line.
func RanLine(how Invocation, quick bool, started time.Time, took time.Duration) string {
	mode := "full mode"
	if quick {
		mode = "quick mode (BENCH_QUICK=1): a check that every part works, not figures to quote"
	}
	ran := "`" + how.Program + "`"
	if how.Command != "" {
		ran = fmt.Sprintf("`%s` (which ran `%s`)", how.Command, how.Program)
	}
	return fmt.Sprintf("%s, %s, started %s, took %s.\n\n", ran, mode, started.UTC().Format("2006-01-02 15:04 UTC"), took.Round(time.Second))
}
