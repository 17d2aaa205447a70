//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// A leak reproducer drives one leak path that users of upstream reported,
// first with the gate that closes it off, then on. Off, it must see the
// leak where the design says the path leaks (so the test can fail); on,
// nothing may leak, stick or be made twice.
type leakReproducer struct {
	// gate closes the path.
	gate string
	// leaksWithoutGate says whether the path leaks with the gate off; a
	// path the lib already closes in memory does not. twiceWithoutGate
	// says the path makes a volume twice with the gate off.
	leaksWithoutGate bool
	twiceWithoutGate bool
	driver           framework.DriverOptions
	sidecarArgs      []string
	// snapshots runs the real snapshot-controller and csi-snapshotter.
	snapshots bool
	// sidecarEnv, if set, runs once the control plane is up and returns
	// the sidecar's environment (a KUBECONFIG through a proxy of the
	// run's, say); the sidecar starts after it.
	sidecarEnv func(ctx context.Context, t *testing.T, s *framework.Stack) []string
	// run drives the path in namespace "default" with the StorageClass
	// "mock", and deletes every claim it makes.
	run func(ctx context.Context, t *testing.T, s *framework.Stack)
}

func (r leakReproducer) test(t *testing.T) {
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprintf("%s=%v", r.gate, on), func(t *testing.T) {
			driver := r.driver
			driver.Verbosity = driverRequestVerbosity
			httpFlag, metricsURL := metricsEndpoint(t)
			sidecar := framework.SidecarOptions{Deferred: r.sidecarEnv != nil, ExtraArgs: append([]string{
				httpFlag,
				fmt.Sprintf("--feature-gates=%s=%v", r.gate, on),
				// Retries every few seconds rather than after minutes.
				"--retry-interval-max=" + retryIntervalMax.String(),
			}, r.sidecarArgs...)}
			ctx, s := startStack(t, framework.StackOptions{
				Driver:    driver,
				Snapshots: framework.SnapshotOptions{Enabled: r.snapshots},
				Sidecar:   sidecar,
			})
			if r.sidecarEnv != nil {
				sidecar.Deferred, sidecar.Env = false, r.sidecarEnv(ctx, t, s)
				if _, err := s.StartSidecar(ctx, sidecar); err != nil {
					t.Fatal(err)
				}
			}
			createStorageClass(ctx, t, s, "mock")
			r.run(ctx, t, s)
			settle(ctx, t, s, metricsURL)
			res := accountBackend(ctx, t, s)
			for _, v := range res.leaked {
				t.Logf("leaked: %s (%s)", v.Name, v.ID)
			}
			for _, name := range res.twice() {
				t.Logf("made twice: %s (%d volumes)", name, res.made(name))
			}
			switch {
			case on || !r.leaksWithoutGate && !r.twiceWithoutGate:
				res.requireClean(t)
			case r.leaksWithoutGate && len(res.leaked) == 0:
				t.Errorf("with %s off the path leaks, but the test saw no leaked volume: it cannot tell", r.gate)
			case r.twiceWithoutGate && len(res.twice()) == 0:
				t.Errorf("with %s off the path makes a volume twice, but the test saw none made twice: it cannot tell", r.gate)
			}
		})
	}
}

// retryIntervalMax is the sidecar's --retry-interval-max here; quietWindow
// covers several retries, which no metric shows while they wait.
const (
	retryIntervalMax = 2 * time.Second
	quietWindow      = 5 * retryIntervalMax
)

// settle waits until every claim and PV is gone, the backend idle, the
// sidecar idle (every work queue empty, no item in hand) and the driver's
// volumes unchanged, all of it for quietWindow on end: a retry waiting in a
// queue's back-off shows in no metric, so only a quiet that outlasts
// several of them says that what the driver holds stays.
func settle(ctx context.Context, t *testing.T, s *framework.Stack, metricsURL string) {
	t.Helper()
	var quietSince time.Time
	var lastVolumes string
	waitFor(ctx, t, s, fmt.Sprintf("every claim and PV to be gone, the backend and the sidecar idle, for %s", quietWindow), func(ctx context.Context) (bool, error) {
		volumes, busy, err := sidecarAndBackendBusy(ctx, s, metricsURL)
		switch {
		case err != nil || busy != "":
			quietSince = time.Time{}
			return false, errors.Join(err, errors.New(busy))
		case quietSince.IsZero() || volumes != lastVolumes:
			quietSince, lastVolumes = time.Now(), volumes
		}
		return time.Since(quietSince) >= quietWindow, fmt.Errorf("quiet for %s", time.Since(quietSince).Round(time.Second))
	})
}

// sidecarAndBackendBusy says what still moves ("" for nothing), and lists
// the driver's volumes.
func sidecarAndBackendBusy(ctx context.Context, s *framework.Stack, metricsURL string) (string, string, error) {
	text, err := framework.Scrape(ctx, metricsURL)
	if err != nil {
		return "", "", err
	}
	queued, err := framework.MetricSum(text, "workqueue_depth")
	if err != nil {
		return "", "", err
	}
	working, err := framework.MetricSum(text, "workqueue_unfinished_work_seconds")
	if err != nil {
		return "", "", err
	}
	p, err := readPending(ctx, s, "default")
	if err != nil {
		return "", "", err
	}
	st, err := s.DriverState()
	if err != nil {
		return "", "", err
	}
	volumes := fmt.Sprint(backendVolumeIDs(st))
	if queued > 0 || working > 0 || !p.none() {
		return volumes, fmt.Sprintf("%s; the sidecar has %v queued and works on some for %vs", p, queued, working), nil
	}
	return volumes, "", nil
}

// pending is what the cluster and the backend have yet to finish: claims
// and PVs not gone, CreateVolume calls not answered.
type pending struct {
	claims, pvs int
	creating    []string
}

func readPending(ctx context.Context, s *framework.Stack, namespace string) (pending, error) {
	claims, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return pending{}, err
	}
	pvs, err := s.Client().CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return pending{}, err
	}
	l, err := readCreateVolumeLog(s)
	if err != nil {
		return pending{}, err
	}
	return pending{claims: len(claims.Items), pvs: len(pvs.Items), creating: l.running()}, nil
}

func (p pending) none() bool {
	return p.claims == 0 && p.pvs == 0 && len(p.creating) == 0
}

func (p pending) String() string {
	return fmt.Sprintf("%d claim(s), %d PV(s), still creating %v", p.claims, p.pvs, p.creating)
}

// backendAccount is what the backend holds against the PVs.
type backendAccount struct {
	// pvs are the PVs it was held against.
	pvs []corev1.PersistentVolume
	// leaked are driver volumes no PV's CSI handle names.
	leaked []mockdriver.Volume
	// pvsWithoutVolume are PVs naming a handle the driver does not have.
	pvsWithoutVolume []string
	// ids are the IDs the backend held under each name, deleted or not;
	// created counts the creations in the driver's log.
	ids     map[string]map[string]bool
	created map[string]int
}

func accountBackend(ctx context.Context, t *testing.T, s *framework.Stack) backendAccount {
	t.Helper()
	st, err := s.DriverState()
	if err != nil {
		t.Fatalf("read driver state: %v", err)
	}
	res := backendAccount{pvs: listPVs(ctx, t, s), ids: backendVolumeIDs(st)}
	inDriver := map[string]bool{}
	for _, v := range st.Volumes {
		inDriver[v.ID] = true
	}
	handles := map[string]bool{}
	for _, pv := range res.pvs {
		if pv.Spec.CSI == nil {
			continue
		}
		handles[pv.Spec.CSI.VolumeHandle] = true
		if !inDriver[pv.Spec.CSI.VolumeHandle] {
			res.pvsWithoutVolume = append(res.pvsWithoutVolume, pv.Name)
		}
	}
	for _, v := range st.Volumes {
		if !handles[v.ID] {
			res.leaked = append(res.leaked, v)
		}
	}
	l, err := readCreateVolumeLog(s)
	if err != nil {
		t.Fatal(err)
	}
	res.created = l.created
	return res
}

// made is how many volumes the backend made under the name: its state and
// its log witness each creation independently.
func (res backendAccount) made(name string) int {
	return max(len(res.ids[name]), res.created[name])
}

// requireClean fails the test for a volume left or a name the backend
// holds or held more than one volume under. settle waited for every PV to
// be gone, so every volume left is leaked.
func (res backendAccount) requireClean(t *testing.T) {
	t.Helper()
	for _, v := range res.leaked {
		t.Errorf("leaked volume %s (%s)", v.Name, v.ID)
	}
	for _, name := range res.twice() {
		t.Errorf("volume made twice: %s: %d volumes", name, res.made(name))
	}
}

// twice lists the names the backend holds or held more than one volume
// under.
func (res backendAccount) twice() []string {
	var names []string
	for name := range res.ids {
		if res.made(name) > 1 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// kubernetes-csi/external-provisioner#311: CreateVolume keeps timing out,
// the claim is deleted meanwhile, and the backend finishes the volume
// later. The lib keeps a claim whose call may still run in memory and
// provisions it even once deleted, so without a restart this path is closed
// with the gate off too; the gate makes it hold across restarts (#486).
func TestReportedLeak311TimedOutCreateOfDeletedClaim(t *testing.T) {
	const timeout = 2 * time.Second
	leakReproducer{
		gate:        "ProvisioningProtection",
		driver:      framework.DriverOptions{CreateDelay: 3 * timeout, CreateOutlivesCaller: true},
		sidecarArgs: []string{"--timeout=" + timeout.String()},
		run: func(ctx context.Context, t *testing.T, s *framework.Stack) {
			pvc := createClaim(ctx, t, s, "default", "slow", "mock")
			volume := "pvc-" + string(pvc.UID)
			waitFor(ctx, t, s, "a timed-out CreateVolume", func(context.Context) (bool, error) {
				// The driver sees its caller give up as either code.
				n := driverCallsFailed(t, s, "CreateVolume", "Canceled") + driverCallsFailed(t, s, "CreateVolume", "DeadlineExceeded")
				return n > 0, fmt.Errorf("none yet")
			})
			deleteClaim(ctx, t, s, "default", "slow")
			// The backend finishes the volume after its callers gave up.
			waitFor(ctx, t, s, "the backend to create "+volume, func(context.Context) (bool, error) {
				l, err := readCreateVolumeLog(s)
				return err == nil && l.created[volume] > 0, err
			})
		},
	}.test(t)
}

// kubernetes-csi/external-provisioner#486, the provisioning-protection
// KEP's case: the sidecar stops after CreateVolume started, the claim is
// deleted, the sidecar comes back. Nothing remembers the call without the
// finalizer.
func TestReportedLeak486SidecarDownWhileClaimDeleted(t *testing.T) {
	leakReproducer{
		gate:             "ProvisioningProtection",
		leaksWithoutGate: true,
		driver:           framework.DriverOptions{CreateDelay: 3 * time.Second, CreateOutlivesCaller: true},
		run: func(ctx context.Context, t *testing.T, s *framework.Stack) {
			pvc := createClaim(ctx, t, s, "default", "orphaned", "mock")
			volume := "pvc-" + string(pvc.UID)
			waitForCreateVolumeReceived(ctx, t, s, volume)
			if err := s.Sidecar().Kill(); err != nil {
				t.Fatal(err)
			}
			deleteClaim(ctx, t, s, "default", "orphaned")
			waitForDriverVolumes(ctx, t, s, 1)
			if err := s.Sidecar().Restart(ctx); err != nil {
				t.Fatal(err)
			}
		},
	}.test(t)
}

// kubernetes-csi/external-provisioner#546: a Bound PV is deleted, then its
// claim. kube-controller-manager's pv-protection lets the PV go as soon as
// the claim is gone, before the provisioner deleted the volume, unless the
// provisioner's own PV finalizer (HonorPVReclaimPolicy) holds it.
func TestReportedLeak546BoundPVDeletedBeforeItsClaim(t *testing.T) {
	leakReproducer{
		gate:             "HonorPVReclaimPolicy",
		leaksWithoutGate: true,
		run: func(ctx context.Context, t *testing.T, s *framework.Stack) {
			createClaim(ctx, t, s, "default", "data", "mock")
			_, pv := waitForClaimBound(ctx, t, s, "default", "data")
			if err := s.Client().CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			deleteClaim(ctx, t, s, "default", "data")
		},
	}.test(t)
}

// ceph/ceph-csi#4280: many claims created and deleted at once, some before
// their PV exists, against a slow CreateVolume. Without a restart the lib
// finishes each call it started, so the gate-off run leaks nothing either;
// with the sidecar killed on top, this is TestChaosNoLeakNoStuckClaim.
func TestReportedLeak4280ClaimsDeletedInBulkDuringProvisioning(t *testing.T) {
	const claims = 20
	leakReproducer{
		gate:   "ProvisioningProtection",
		driver: framework.DriverOptions{CreateDelay: 2 * time.Second, CreateOutlivesCaller: true},
		run: func(ctx context.Context, t *testing.T, s *framework.Stack) {
			for i := range claims {
				createClaim(ctx, t, s, "default", fmt.Sprintf("bulk-%d", i), "mock")
			}
			// Half go before any CreateVolume answered, half after some did.
			for i := range claims / 2 {
				deleteClaim(ctx, t, s, "default", fmt.Sprintf("bulk-%d", i))
			}
			waitFor(ctx, t, s, "a first volume", func(context.Context) (bool, error) {
				l, err := readCreateVolumeLog(s)
				return err == nil && len(l.created) > 0, err
			})
			for i := claims / 2; i < claims; i++ {
				deleteClaim(ctx, t, s, "default", fmt.Sprintf("bulk-%d", i))
			}
		},
	}.test(t)
}

// The restore path of #486: a claim restored from a VolumeSnapshot, the
// sidecar killed during its CreateVolume, the claim deleted while no
// sidecar runs. With the gate the restarted sidecar replays the restore
// (from the snapshot handle recorded on the claim) and deletes the volume.
func TestReportedLeakRestoreSidecarDownWhileClaimDeleted(t *testing.T) {
	leakReproducer{
		gate:             "ProvisioningProtection",
		leaksWithoutGate: true,
		snapshots:        true,
		driver:           framework.DriverOptions{CreateDelay: 3 * time.Second, CreateOutlivesCaller: true},
		run: func(ctx context.Context, t *testing.T, s *framework.Stack) {
			createClaim(ctx, t, s, "default", "golden", "mock")
			waitForClaimBound(ctx, t, s, "default", "golden")
			if err := s.CreateSnapshot(ctx, "default", "golden-snap", "golden"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.WaitSnapshotReady(ctx, "default", "golden-snap"); err != nil {
				t.Fatal(err)
			}
			pvc := createClaim(ctx, t, s, "default", "restore", "mock", restoredFrom("golden-snap"))
			volume := "pvc-" + string(pvc.UID)
			waitForCreateVolumeReceived(ctx, t, s, volume)
			if err := s.Sidecar().Kill(); err != nil {
				t.Fatal(err)
			}
			deleteClaim(ctx, t, s, "default", "restore")
			waitFor(ctx, t, s, "the backend to create "+volume, func(context.Context) (bool, error) {
				l, err := readCreateVolumeLog(s)
				return err == nil && l.created[volume] > 0, err
			})
			if err := s.Sidecar().Restart(ctx); err != nil {
				t.Fatal(err)
			}
			waitForClaimGone(ctx, t, s, "default", "restore")
			if err := s.SnapshotClient().SnapshotV1().VolumeSnapshots("default").Delete(ctx, "golden-snap", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			deleteClaim(ctx, t, s, "default", "golden")
		},
	}.test(t)
}
