package claimconditions

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// sync brings the condition of claim key to the claim's state: it decides
// from the cache and from what this process knows, and writes only a
// lasting state that differs from the one the claim carries, pinned to the
// version it decided on. Safe to run again at any line.
func (c *Controller) sync(ctx context.Context, key cache.ObjectName) (reconcile.Result, error) {
	claim, err := c.claims.PersistentVolumeClaims(key.Namespace).Get(key.Name)
	if err != nil {
		return reconcile.Done, reconcile.IgnoreNotFound(err)
	}
	if !c.concerns(claim) {
		c.settling.forget(claim.UID)
		return reconcile.Done, nil
	}
	if boundOrLost(claim) {
		// Its volume is made: the refusal is history.
		c.opts.DriverErrors.Forget(claim.UID)
	}
	carried := conditionOf(claim)
	f := c.factsOf(claim, carried)
	want := desired(f)
	if carries(carried, want) {
		c.settling.forget(claim.UID)
		return c.recheck(f, want), nil
	}

	delay := c.opts.Settle
	if boundOrLost(claim) {
		// Cleared at once, but after claim protection's finalizer
		// removal, which follows Bound at once too: two writes of the
		// same version would make one of them conflict. Its removal
		// requeues the claim; the grace only bounds the wait.
		delay = 0
		if finalizer.Has(claim, provisionstate.ProvisioningProtectionFinalizer) {
			delay = c.opts.BoundGrace
		}
	}
	logger := klog.FromContext(ctx)
	if wait := c.settling.wait(claim.UID, want, delay); wait > 0 {
		logger.V(5).Info("Waiting for the claim's state to last", "reason", want.Reason, "wait", wait)
		return reconcile.RequeueAfter(wait), nil
	}

	err = c.write(ctx, claim, carried, want)
	switch {
	case apierrors.IsNotFound(err):
		c.settling.forget(claim.UID)
		return reconcile.Done, nil
	case err != nil:
		// A conflict is retried quietly by the loop, on the fresher
		// claim the informer brings; the wait is not started again.
		return reconcile.Done, err
	}
	c.settling.forget(claim.UID)
	if want.None() {
		logger.V(2).Info("Cleared the claim's condition", "previousReason", carried.Reason)
	} else {
		logger.V(2).Info("Set the claim's condition", "reason", want.Reason, "message", want.Message)
	}
	return c.recheck(f, want), nil
}

// write sets want on claim, or removes the condition, with one patch
// pinned to the claim's version. lastTransitionTime is now when the reason
// changes, and kept when only the message does.
func (c *Controller) write(ctx context.Context, claim *v1.PersistentVolumeClaim, carried *v1.PersistentVolumeClaimCondition, want State) error {
	var cond *v1.PersistentVolumeClaimCondition
	reason := ReasonCleared
	if !want.None() {
		reason = want.Reason
		cond = &v1.PersistentVolumeClaimCondition{
			Type:               ConditionType,
			Status:             v1.ConditionTrue,
			Reason:             want.Reason,
			Message:            want.Message,
			LastTransitionTime: metav1.NewTime(c.clock.Now()),
		}
		if carried != nil && carried.Reason == want.Reason && !carried.LastTransitionTime.IsZero() {
			cond.LastTransitionTime = carried.LastTransitionTime
		}
	}
	patch, err := conditionPatch(claim, cond)
	if err != nil {
		return err
	}
	err = patchStatus(ctx, c.client, claim, patch)
	c.metrics.WritesTotal.WithLabelValues(reason, resultOf(err)).Inc()
	return err
}

// recheck is when a claim carrying want should be looked at again without
// an event: at the end of an infeasible hold, whose end nothing else may
// tell (a class deleted meanwhile).
func (c *Controller) recheck(f facts, want State) reconcile.Result {
	if want.Reason != ReasonInfeasibleRetryDelayed || !f.held {
		return reconcile.Done
	}
	return reconcile.RequeueAfter(max(time.Second, f.heldUntil.Sub(c.clock.Now())+time.Second))
}

// factsOf gathers what desired decides from.
func (c *Controller) factsOf(claim *v1.PersistentVolumeClaim, carried *v1.PersistentVolumeClaimCondition) facts {
	f := facts{claim: claim, carried: carried, class: c.classOf(claim), call: c.opts.Calls.State(claim.UID)}
	f.lastErr, f.hasErr = c.opts.DriverErrors.Last(claim.UID)
	f.heldUntil, f.held = c.opts.Holds.InfeasibleHold(claim)
	return f
}

// concerns tells whether this sidecar reports on claim: a claim of its
// driver (by the PV controller's annotations, or by its class, as a
// WaitForFirstConsumer claim has no annotation until a node is selected)
// and, with --node-deployment, of its node.
func (c *Controller) concerns(claim *v1.PersistentVolumeClaim) bool {
	if c.opts.NodeName != "" && provisionstate.ProvisioningNode(claim) != c.opts.NodeName {
		return false
	}
	driver := driverscope.Driver{Name: c.opts.DriverName, InTreePlugin: c.opts.MigratedFrom}
	if driver.ServesClaim(claim) {
		return true
	}
	// By its class, only a class of the driver's own name: a claim of the
	// in-tree plugin's class is reported once the PV controller hands it
	// to the driver.
	class := c.classOf(claim)
	return class != nil && class.Provisioner == driver.Name
}

// classOf is the claim's StorageClass, nil when it has none or it is not
// in the cache.
func (c *Controller) classOf(claim *v1.PersistentVolumeClaim) *storagev1.StorageClass {
	name := driverscope.ClaimClassName(claim)
	if name == "" {
		return nil
	}
	class, err := c.classes.Get(name)
	if err != nil {
		return nil
	}
	return class
}

// conditionOf is the claim's condition of ConditionType, nil for none.
func conditionOf(claim *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaimCondition {
	for i := range claim.Status.Conditions {
		if claim.Status.Conditions[i].Type == ConditionType {
			return &claim.Status.Conditions[i]
		}
	}
	return nil
}

// carries tells whether the carried condition says want already: the same
// status, reason and message (the type is ConditionType's).
func carries(carried *v1.PersistentVolumeClaimCondition, want State) bool {
	if want.None() {
		return carried == nil
	}
	return carried != nil && carried.Status == v1.ConditionTrue && stateOf(carried) == want
}
