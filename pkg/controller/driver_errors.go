package controller

import (
	"time"

	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// DriverErrorRecorder is where the provisioner records how the driver last
// refused a claim's CreateVolume, for the claim conditions controller. A
// provisionstate.DriverErrors fits; cmd/csi-provisioner hands the same one
// to both.
type DriverErrorRecorder interface {
	Record(uid types.UID, err provisionstate.DriverError)
	Forget(uid types.UID)
}

// recordDriverOutcome records the driver's refusal of a claim's
// CreateVolume, and forgets it once the claim has its volume. Only a gRPC
// status is the driver's answer: a failure before the call (a missing
// secret, a refused finalizer write) is not, and its event tells it.
// Anything else leaves the last refusal standing: a retry still waits for
// the driver's next answer.
func (p *Provisioner) recordDriverOutcome(claim *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, err error) {
	rec := p.opts.DriverErrors
	if rec == nil {
		return
	}
	if err == nil && pv != nil {
		rec.Forget(claim.UID)
		return
	}
	if st, ok := status.FromError(err); ok && err != nil {
		rec.Record(claim.UID, provisionstate.DriverError{Code: st.Code(), Message: st.Message()})
	}
}

// InfeasibleHold tells whether the claim is held back after an infeasible
// CreateVolume (see holdInfeasible), and until when.
func (p *Provisioner) InfeasibleHold(claim *v1.PersistentVolumeClaim) (time.Time, bool) {
	return p.infeasible.until(claim, p.opts.ClassLister)
}
