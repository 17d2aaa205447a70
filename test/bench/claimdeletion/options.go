package claimdeletion

import (
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Options configures the PVC protection benchmark: a namespace with
// many scheduled pods (which use other claims) and a batch of unused claims
// that are deleted at once; one PVC protection controller runs at a time,
// each run on a fresh stack. Its client limits are the provisioning
// benchmark's; PhaseTimeout bounds the wait for the batch, and for each
// single deletion, to be gone.
type Options struct {
	bench.Settings
	// Pods are scheduled pods in the claims' namespace, each using a claim
	// of its own that is not part of the batch.
	Pods int
	// Claims are the unused claims deleted together.
	Claims int
	// QuietDeletions are single unused claims deleted one after another,
	// each alone, in a quiet namespace of QuietPods scheduled pods, after
	// the batch: the latency of one deletion where nothing else happens.
	QuietDeletions int
	QuietPods      int
	// Controllers are compared.
	Controllers []Controller
}

// Controller is the PVC protection controller under test.
type Controller struct {
	Name string `json:"name"`
	// KCMControllers are kube-controller-manager's controllers besides the
	// PV binder.
	KCMControllers []string `json:"kcmControllers"`
	// SidecarArgs are appended to Options.SidecarArgs.
	SidecarArgs []string `json:"sidecarArgs"`
	// Client is who removes the finalizers, as the audit log names it.
	Client string `json:"client"`
}

// The two controllers compared. kube-controller-manager's PV protection
// runs in both: it is not what is measured, and the PVs must go.
var (
	KCMPVCProtection = Controller{
		Name:           "kube-controller-manager",
		KCMControllers: []string{framework.ControllerPVProtection, framework.ControllerPVCProtection},
		Client:         measure.ClientKCM,
	}
	SidecarPVCProtection = Controller{
		Name:           "csi-provisioner",
		KCMControllers: []string{framework.ControllerPVProtection},
		SidecarArgs:    []string{"--feature-gates=PVCProtection=true"},
		Client:         measure.ClientSidecar,
	}
)

// DefaultOptions is the comparison the PVC protection design is
// measured by: 1,000 unused claims deleted in a namespace of 3,000 pods.
func DefaultOptions() Options {
	o := Options{
		Settings:       bench.DefaultSettings(),
		Pods:           3000,
		Claims:         1000,
		QuietDeletions: 5,
		QuietPods:      10,
		Controllers:    []Controller{KCMPVCProtection, SidecarPVCProtection},
	}
	o.PhaseTimeout = 3 * time.Minute
	return o
}

// QuickOptions is the short mode: a tenth of the objects, one run.
func QuickOptions() Options {
	o := DefaultOptions()
	o.Quick = true
	o.Pods, o.Claims, o.Runs = 300, 100, 1
	o.PhaseTimeout = time.Minute
	return o
}
