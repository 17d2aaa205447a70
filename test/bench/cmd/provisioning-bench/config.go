package main

import (
	"os"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
)

// apply sets what the command line says of every part's settings: the
// folders, --runs, and the sidecar's and kube-controller-manager's flags,
// which replace the part's defaults of the same name.
func (c config) apply(s *bench.Settings) {
	if c.runs > 0 {
		s.Runs = c.runs
	}
	s.SidecarArgs = bench.OverrideArgs(s.SidecarArgs, c.sidecarArgs)
	s.KCMArgs = bench.OverrideArgs(s.KCMArgs, c.kcmArgs)
	s.BinDir, s.ControlPlaneDir, s.KeepWorkDirs, s.Progress = c.binDir, c.cpDir, c.keepWork, os.Stderr
}

// options are the provisioning benchmark's options of the command line;
// each scenario sets its own runs.
func (c config) options() provisioning.Options {
	opts := provisioning.DefaultOptions()
	if c.quick {
		opts = provisioning.QuickOptions()
	}
	c.apply(&opts.Settings)
	if c.base != nil {
		opts.Variants = append(opts.Variants, *c.base)
	}
	return opts
}

// scenarios is the provisioning matrix, or the one size of --claims.
func (c config) scenarios() []provisioning.Scenario {
	list := provisioning.DefaultScenarios()
	if c.baseline != "" {
		list = provisioning.BaselineScenarios()
	}
	if c.quick {
		list = provisioning.QuickScenarios()
	}
	if c.claims > 0 {
		limits := provisioning.TunedLimits
		if c.limits == "default" {
			limits = provisioning.DefaultLimits
		}
		list = []provisioning.Scenario{{Claims: c.claims, Runs: list[0].Runs, Limits: limits, PhaseTimeout: 15 * time.Minute}}
	}
	if c.runs > 0 {
		for i := range list {
			list[i].Runs = c.runs
		}
	}
	return list
}
