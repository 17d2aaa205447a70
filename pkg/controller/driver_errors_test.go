package controller

import (
	"errors"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// The driver's refusal is recorded with its code and message, stands while
// a failure that is not the driver's comes, and goes once the volume is
// made.
func TestDriverRefusalIsRecordedUntilTheVolumeIsMade(t *testing.T) {
	errs := provisionstate.NewDriverErrors(0)
	e := newEnv(t, envObjects{}, func(o *Options) { o.DriverErrors = errs })
	claim, class := newClaim("db", "1Gi"), newClass(nil)

	e.csi.createFn = func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		return nil, status.Error(codes.OutOfRange, "requested 1073741824 bytes, the maximum volume size is 1024")
	}
	if _, _, err := e.provision(t, claim, class, nil); err == nil {
		t.Fatal("fixture: the driver must refuse")
	}
	got, ok := errs.Last(claim.UID)
	if want := (provisionstate.DriverError{Code: codes.OutOfRange, Message: "requested 1073741824 bytes, the maximum volume size is 1024"}); !ok || got != want {
		t.Fatalf("recorded %+v, %v; want %+v", got, ok, want)
	}

	// Not the driver's answer: the refusal stands.
	e.prov.recordDriverOutcome(claim, nil, errors.New("secret not found"))
	if got, _ := errs.Last(claim.UID); got.Code != codes.OutOfRange {
		t.Errorf("a failure before the call replaced the driver's refusal: %+v", got)
	}

	e.csi.createFn = nil
	if pv, _, err := e.provision(t, claim, class, nil); err != nil || pv == nil {
		t.Fatalf("provision: %v", err)
	}
	if got, ok := errs.Last(claim.UID); ok {
		t.Errorf("the refusal %+v outlived the volume", got)
	}
}

// Without a recorder nothing is kept anywhere: the gate is off.
func TestNoRecorderRecordsNothing(t *testing.T) {
	e := newEnv(t, envObjects{})
	e.csi.createFn = func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		return nil, status.Error(codes.Internal, "boom")
	}
	if _, _, err := e.provision(t, newClaim("db", "1Gi"), newClass(nil), nil); err == nil {
		t.Fatal("fixture: the driver must refuse")
	}
}

// An infeasible refusal is recorded once its hold is in place, so that the
// record's notice finds the hold, whose time InfeasibleHold tells the same
// each time.
func TestInfeasibleRefusalIsRecordedWithItsHoldInPlace(t *testing.T) {
	errs := provisionstate.NewDriverErrors(0)
	e := newInfeasibleEnv(t, func(o *Options) { o.DriverErrors = errs })
	var heldAtNotice bool
	errs.Subscribe(func(types.UID) { _, heldAtNotice = e.prov.InfeasibleHold(e.claim) })

	if _, _, err := e.provision(t, e.claim, e.class, nil); err == nil {
		t.Fatal("fixture: the driver must refuse")
	}
	if !heldAtNotice {
		t.Error("the refusal was told before its hold was in place")
	}
	until, held := e.prov.InfeasibleHold(e.claim)
	if want := e.clock.Now().Add(testInfeasibleHold); !held || !until.Equal(want) {
		t.Fatalf("InfeasibleHold = %v, %v; want until %v", until, held, want)
	}
	e.clock.Step(testInfeasibleHold / 2)
	if again, _ := e.prov.InfeasibleHold(e.claim); !again.Equal(until) {
		t.Errorf("the hold's end moved from %v to %v", until, again)
	}
	if got, _ := errs.Last(e.claim.UID); got.Code != codes.InvalidArgument {
		t.Errorf("recorded %+v, want InvalidArgument", got)
	}
	e.clock.Step(testInfeasibleHold)
	if _, held := e.prov.InfeasibleHold(e.claim); held {
		t.Error("still held after the hold's end")
	}
	other := newClaim("other", "1Gi")
	other.UID = "other-uid"
	if _, held := e.prov.InfeasibleHold(other); held {
		t.Error("a claim never refused is held")
	}
}
