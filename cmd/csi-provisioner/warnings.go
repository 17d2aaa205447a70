package main

import (
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/klog/v2"
)

// warning is a log line about a command line that upstream v6.3.0 starts
// with, silently, but that does not do what it reads as.
type warning struct {
	msg           string
	keysAndValues []any
}

// warnings are the command line's warnings; logWarnings writes them once
// logging is set up.
func (c *config) warnings() []warning {
	var ws []warning
	add := func(msg string, keysAndValues ...any) { ws = append(ws, warning{msg, keysAndValues}) }

	if len(c.ignoredArgs) > 0 {
		add("Ignoring command-line arguments that are not flags, as upstream does; a bool flag takes a value only as --name=value",
			"arguments", c.ignoredArgs)
	}
	if gates := setServerGates(c.gates); len(gates) > 0 {
		add("Feature gates of the Kubernetes API server, accepted as upstream accepts them, have no effect", "gates", gates)
	}
	if c.provisioningThreads == 0 {
		add("--worker-threads=0 starts no provisioning worker, as upstream: no volume is provisioned or deleted")
	}
	if c.claimProtectionThreads == 0 {
		// Upstream would run none and never remove its finalizers.
		add("--cloning-protection-threads=0: running one thread")
	}
	if c.enableCapacity && c.capacityThreads == 0 {
		// Upstream would run none and publish no capacity.
		add("--capacity-threads=0: running one thread")
	}
	if c.retryIntervalStart > c.retryIntervalMax {
		add("--retry-interval-start exceeds --retry-interval-max: every retry waits --retry-interval-max",
			"retryIntervalStart", c.retryIntervalStart, "retryIntervalMax", c.retryIntervalMax)
	}
	switch n := c.volumeNameUUIDLength; {
	case n < -1:
		// Upstream's slice of the UID panics at the first claim.
		add("--volume-name-uuid-length below -1 keeps the whole claim UID in volume names, as -1 does", "volumeNameUUIDLength", n)
	case n > maxUUIDLength:
		// Upstream's slice of the UID panics at the first claim; here
		// the claim fails before CreateVolume.
		add("--volume-name-uuid-length exceeds the 32 hex digits of a claim UID: every claim fails to provision",
			"volumeNameUUIDLength", n)
	}
	if ns := c.leaderElectionNamespace; c.leaderElection && ns != "" {
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			add("--leader-election-namespace is not a valid namespace: no Lease can be taken there, so this instance never leads",
				"namespace", ns, "problems", msgs)
		}
	}
	return ws
}

func logWarnings(logger klog.Logger, ws []warning) {
	for _, w := range ws {
		logger.Info("Warning: "+w.msg, w.keysAndValues...)
	}
}
