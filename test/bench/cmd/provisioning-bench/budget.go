package main

import (
	"strings"
	"time"
)

// suiteBudget is how long a suite may take on 2 cores, full and quick,
// and what the baseline's runs add to each.
type suiteBudget struct {
	full, quick, baseFull, baseQuick time.Duration
}

// budgets are each suite's limits: about twice what it took on an idle
// 2-core machine, so that a slow run still finishes.
var budgets = map[string]suiteBudget{
	// With the baseline, also 1,000 claims at the default limits, and 5 runs
	// instead of 3 at 100 and 1,000 claims with the tuned limits.
	"provisioning":   {full: 25 * time.Minute, quick: 4 * time.Minute, baseFull: 45 * time.Minute, baseQuick: 2 * time.Minute},
	"memory":         {full: 30 * time.Minute, quick: 5 * time.Minute, baseFull: 10 * time.Minute, baseQuick: 2 * time.Minute},
	"pvc-protection": {full: 5 * time.Minute, quick: 2 * time.Minute},
	// Gate on without adaptive concurrency, and the baseline, may each
	// run until the part's phase timeout.
	"throttled": {full: 30 * time.Minute, quick: 6 * time.Minute, baseFull: 15 * time.Minute, baseQuick: 3 * time.Minute},
	"capacity":  {full: 15 * time.Minute, quick: 4 * time.Minute, baseFull: 15 * time.Minute, baseQuick: 3 * time.Minute},
	"go":        {full: 10 * time.Minute, quick: 3 * time.Minute},
}

// budget is the limit of the whole benchmark: the sum of the suites'. An
// unknown suite adds nothing; run reports it.
func budget(suites string, quick, baseline bool) time.Duration {
	var total time.Duration
	for _, suite := range strings.Split(suites, ",") {
		b := budgets[suite]
		switch {
		case quick:
			total += b.quick
			if baseline {
				total += b.baseQuick
			}
		default:
			total += b.full
			if baseline {
				total += b.baseFull
			}
		}
	}
	return total
}
