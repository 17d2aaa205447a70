package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
	localfake "github.com/csi-protect/external-provisioner/pkg/generated/clientset/versioned/fake"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

const (
	testNode     = "node-a"
	testHostname = "host-a"
	testRoot     = "/mnt/local-storage"
	testNS       = "local-storage"
)

// ---- Owners. ----

type lvOption func(*localv1.LocalVolume)

func newLocalVolume(name string, devicePaths []string, opts ...lvOption) *localv1.LocalVolume {
	lv := &localv1.LocalVolume{
		TypeMeta:   metav1.TypeMeta{APIVersion: localv1.SchemeGroupVersion.String(), Kind: KindLocalVolume},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS, UID: types.UID("uid-lv-" + name), Finalizers: []string{local.LocalVolumeProtectionFinalizer}},
		Spec: localv1.LocalVolumeSpec{StorageClassDevices: []localv1.StorageClassDevice{{
			StorageClassName: "local-sc", VolumeMode: localv1.PersistentVolumeFilesystem, FSType: "xfs", DevicePaths: devicePaths,
		}}},
	}
	for _, o := range opts {
		o(lv)
	}
	return lv
}

type lvsOption func(*localv1alpha1.LocalVolumeSet)

func newLocalVolumeSet(name string, opts ...lvsOption) *localv1alpha1.LocalVolumeSet {
	lvs := &localv1alpha1.LocalVolumeSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: localv1alpha1.SchemeGroupVersion.String(), Kind: KindLocalVolumeSet},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS, UID: types.UID("uid-lvs-" + name), Finalizers: []string{local.LocalVolumeProtectionFinalizer}},
		Spec:       localv1alpha1.LocalVolumeSetSpec{StorageClassName: "set-sc", VolumeMode: localv1alpha1.PersistentVolumeBlock},
	}
	for _, o := range opts {
		o(lvs)
	}
	return lvs
}

func deletingNow(m metav1.Object) {
	now := metav1.Now()
	m.SetDeletionTimestamp(&now)
}

// ---- The environment: a host, an API server, an agent. ----

type env struct {
	// Env's recorder and registry are those of the agent last started.
	*testutil.Env
	t       *testing.T
	host    *host
	local   *localfake.Clientset
	metrics *Metrics
	agent   *Agent
	stop    func()

	// syncs are the syncs of each key, by every agent of the env.
	syncs testutil.Syncs[Key]
}

func newEnv(t *testing.T, h *host, nodeLabels map[string]string, objs ...runtime.Object) *env {
	t.Helper()
	if nodeLabels == nil {
		nodeLabels = map[string]string{local.NodeLabel: testHostname}
	}
	localClient := localfake.NewSimpleClientset()
	testutil.ServerSemantics(&localClient.Fake, localClient.Tracker(), testutil.APIServerOptions{
		StatusSubresources: []string{localv1.LocalVolumesResource.Resource, localv1alpha1.LocalVolumeSetsResource.Resource},
	})
	e := &env{
		Env: testutil.NewEnv(t, testutil.EnvOptions{
			Objects:      testutil.Objects(testutil.NewNode(testNode, testutil.WithLabels(nodeLabels))),
			LogVerbosity: 4,
			Timeout:      waitTimeout,
		}),
		t: t, host: h, local: localClient,
	}
	for _, o := range objs {
		e.setOwner(o)
	}
	return e
}

// newOneDiskEnv returns a host with the disk /dev/sdb and an env whose
// LocalVolume "lv" names it; the agent is not started.
func newOneDiskEnv(t *testing.T) (*host, *env) {
	t.Helper()
	h := newHost(t, disk{kname: "/dev/sdb", id: "wwn-0x1"})
	return h, newEnv(t, h, nil, newLocalVolume("lv", []string{"/dev/sdb"}))
}

// startForPV starts the agent of a newOneDiskEnv and returns the PV it makes
// of /dev/sdb, as first stored.
func (e *env) startForPV() *corev1.PersistentVolume {
	e.t.Helper()
	e.start()
	name := PVName(testNode, testRoot+"/local-sc/wwn-0x1")
	eventually(e.t, "the PV", func() bool { _, ok := e.pv(name); return ok })
	return e.mustPV(name)
}

// nextSync waits until a sync of key that started after the call has
// ended: the agent has looked at what the test set up before it. The first
// sync to end may have started before the call; the second started after
// the first ended (a key is never synced twice at once). The resync, or
// the retries of a failing sync, bring key back.
func (e *env) nextSync(key Key) {
	e.t.Helper()
	e.waitSyncs(key, e.syncs.Count(key)+2)
}

// waitSyncs waits until key has been synced n times in all.
func (e *env) waitSyncs(key Key, n int) {
	e.t.Helper()
	e.syncs.Wait(e.t, waitTimeout, key, n)
}

// start runs a new agent, with a recorder and metrics of its own, over the
// env's host and API server; the previous one, if any, must have been
// stopped.
func (e *env) start() {
	e.t.Helper()
	e.Events = testutil.NewEvents()
	e.metrics = NewMetrics()
	e.Registry = testutil.NewRegistry(e.metrics)
	a, err := New(Options{
		NodeName:      testNode,
		SymlinkRoot:   testRoot,
		Client:        e.Client,
		LocalClient:   e.local,
		Runner:        e.host,
		FS:            e.host.fs,
		Checker:       e.host.checker(),
		Wiper:         e.host,
		EventRecorder: e.Events,
		Metrics:       e.metrics,
		RateLimiter:   workqueue.NewTypedItemExponentialFailureRateLimiter[Key](5*time.Millisecond, 50*time.Millisecond),
		Processed:     e.syncs.Processed,
		// Short, so that nextSync does not wait long for a resync.
		Resync: 50 * time.Millisecond,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.agent = a
	e.stop = testutil.Start(e.t, e.Ctx, a.Run)
}

// restart stops the agent and starts a new one, as after a crash.
func (e *env) restart() {
	e.t.Helper()
	e.stop()
	e.start()
}

// metric returns the value of a local_volume_agent metric; for wipes_total
// name is "wipes_total{result}", and a result never counted is 0. It fails
// the test on a name that is not one of the agent's metrics.
func (e *env) metric(name string) float64 {
	e.t.Helper()
	var labels []string
	if i := strings.Index(name, "{"); i >= 0 {
		labels = []string{"result", strings.TrimSuffix(name[i+1:], "}")}
		name = name[:i]
	}
	return e.Registry.Value(e.t, "csi_provisioner_local_volume_agent_"+name, labels...)
}

// waitTimeout bounds every wait of the agent's tests.
const waitTimeout = 10 * time.Second

// eventually polls cond until it holds or fails the test after waitTimeout.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, waitTimeout, what, cond)
}

func sha256Prefix(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}
