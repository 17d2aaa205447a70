package soak

import (
	"errors"
	"time"
)

// Options configures a soak run.
type Options struct {
	// Duration is how long claims churn and faults are injected; the
	// final clean-up and the accounting come on top.
	Duration time.Duration
	// Seed makes the churn and the fault schedule repeatable.
	Seed uint64
	// OutDir receives report.md, the plots, samples.json and the stack's
	// work dir (logs of every component).
	OutDir string
	// BinDir holds csi-provisioner and mock-csi-driver; ControlPlaneDir
	// etcd, kube-apiserver and kube-controller-manager.
	BinDir          string
	ControlPlaneDir string
	// Workers is how many claims are churned at once.
	Workers int
	// FaultInterval is the mean time between two faults; each wait is
	// drawn between half and one and a half times it.
	FaultInterval time.Duration
	// SampleInterval is how often memory, goroutines and claims are
	// sampled.
	SampleInterval time.Duration
	// CreateDelay is the backend's time to make a volume.
	CreateDelay time.Duration
	// StuckAfter is how long a deleted claim may remain before it counts
	// as stuck.
	StuckAfter time.Duration
	// SettleTimeout bounds the wait, after the churn, for every claim, PV
	// and volume to be gone.
	SettleTimeout time.Duration
}

// Defaults fills what is unset.
func (o Options) withDefaults() Options {
	if o.Duration == 0 {
		o.Duration = 30 * time.Minute
	}
	if o.Workers == 0 {
		o.Workers = 4
	}
	if o.FaultInterval == 0 {
		o.FaultInterval = 2 * time.Minute
	}
	if o.SampleInterval == 0 {
		o.SampleInterval = 10 * time.Second
	}
	if o.CreateDelay == 0 {
		o.CreateDelay = time.Second
	}
	if o.StuckAfter == 0 {
		o.StuckAfter = 5 * time.Minute
	}
	if o.SettleTimeout == 0 {
		o.SettleTimeout = 10 * time.Minute
	}
	return o
}

func (o Options) validate() error {
	switch {
	case o.OutDir == "":
		return errors.New("an output directory is required")
	case o.Duration < time.Minute:
		return errors.New("the duration must be at least a minute")
	case o.Workers < 1:
		return errors.New("at least one worker is required")
	case o.FaultInterval < 10*time.Second:
		return errors.New("the fault interval must be at least 10s: a fault needs time to heal")
	}
	return nil
}
