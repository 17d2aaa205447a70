package main

import (
	"testing"
	"time"
)

func TestTheBudgetIsTheSumOfTheSuitesBudgets(t *testing.T) {
	if got, want := budget("pvc-protection,go", false, false), 15*time.Minute; got != want {
		t.Errorf("full budget %s, want %s", got, want)
	}
	if got, want := budget("throttled", true, true), 9*time.Minute; got != want {
		t.Errorf("quick budget with the baseline %s, want %s", got, want)
	}
	if got := budget("provisioning,memory,pvc-protection,throttled,capacity,go", false, true); got != 200*time.Minute {
		t.Errorf("every suite with the baseline: %s, want 200m", got)
	}
}
