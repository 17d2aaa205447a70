package devices

import (
	"context"
	"fmt"
)

// Wiper erases a device's signatures.
//
// A wipe destroys data and this package does not guard the call: the agent
// calls Wipe only after its own checks (the PV is Released and being
// cleaned, and Select with Paths and Force still accepts the device), and
// records that it wiped so a restart does not wipe again. That bookkeeping is
// the agent's, not this package's.
type Wiper interface {
	Wipe(ctx context.Context, devPath string) error
}

// WipefsArgs returns the arguments WipefsWiper passes to wipefs: erase every
// signature wipefs knows (--all), even on a device it finds in use or with a
// partition table it would otherwise refuse to touch (--force).
func WipefsArgs(devPath string) []string {
	return []string{"--all", "--force", devPath}
}

// WipefsWiper wipes with `wipefs --all --force <device>`.
type WipefsWiper struct {
	Runner Runner
	// FS resolves the path; required.
	FS FS
	// Verify, when set, probes the device after the wipe and turns any
	// signature left into an error wrapping ErrSignatureRemains.
	Verify Prober
}

// Wipe resolves devPath (refusing anything not under /dev) and wipes the
// kernel node it names, so the command line and logs show what was actually
// wiped, not a by-id alias.
func (w WipefsWiper) Wipe(ctx context.Context, devPath string) error {
	dev, err := ResolveDevicePath(w.FS, devPath)
	if err != nil {
		return fmt.Errorf("wipe: %w", err)
	}
	if _, err := w.Runner.Run(ctx, "wipefs", WipefsArgs(dev)...); err != nil {
		return fmt.Errorf("wiping %s: %w", dev, err)
	}
	if w.Verify == nil {
		return nil
	}
	sig, err := w.Verify.Probe(ctx, dev)
	if err != nil {
		return fmt.Errorf("checking %s after wipe: %w", dev, err)
	}
	if sig.HasSignature() {
		return fmt.Errorf("%s: blkid finds %s: %w", dev, sig, ErrSignatureRemains)
	}
	return nil
}
