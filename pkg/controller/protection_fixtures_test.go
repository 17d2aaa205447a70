package controller

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// protectionSetup is what a protection controller test starts from.
type protectionSetup struct {
	claims  []*v1.PersistentVolumeClaim
	volumes []*v1.PersistentVolume
	classes []*storagev1.StorageClass
	csi     *fakeCSI
	gateOff bool
}

// protectionEnv is a running protection controller over informers of a fake
// clientset, with the provisioner it asks about CreateVolume calls.
type protectionEnv struct {
	client   *fake.Clientset
	prov     *Provisioner
	csi      *fakeCSI
	recorder *record.FakeRecorder
	registry metrics.KubeRegistry
}

func startProtection(t *testing.T, s protectionSetup) *protectionEnv {
	t.Helper()
	client := fake.NewClientset()
	ctx := context.Background()
	for _, c := range s.claims {
		if _, err := client.CoreV1().PersistentVolumeClaims(c.Namespace).Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, pv := range s.volumes {
		if _, err := client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, sc := range s.classes {
		if _, err := client.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if s.csi == nil {
		s.csi = &fakeCSI{}
	}
	registry := metrics.NewKubeRegistry()
	m := NewProtectionMetrics()
	registry.MustRegister(m.Registerables()...)

	factory := informers.NewSharedInformerFactory(client, 0)
	recorder := record.NewFakeRecorder(100)
	prov, err := New(Options{
		DriverName:             testDriver,
		Client:                 client,
		CSIClient:              s.csi,
		EventRecorder:          recorder,
		ClaimLister:            factory.Core().V1().PersistentVolumeClaims().Lister(),
		VolumeLister:           factory.Core().V1().PersistentVolumes().Lister(),
		ClassLister:            factory.Storage().V1().StorageClasses().Lister(),
		NodeLister:             factory.Core().V1().Nodes().Lister(),
		CSINodeLister:          factory.Storage().V1().CSINodes().Lister(),
		VolumeAttachmentLister: factory.Storage().V1().VolumeAttachments().Lister(),
		Timeout:                5 * time.Second,
		VolumeNamePrefix:       "pvc",
		VolumeNameUUIDLength:   -1,
		Features:               Features{ProvisioningProtection: !s.gateOff},
		Metrics:                m,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctrl, err := NewProtectionController(ProtectionControllerOptions{
		Client:         client,
		ClaimInformer:  factory.Core().V1().PersistentVolumeClaims(),
		VolumeInformer: factory.Core().V1().PersistentVolumes(),
		Provisioner:    prov,
		EventRecorder:  recorder,
	})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	factory.Start(runCtx.Done())
	factory.WaitForCacheSync(runCtx.Done())
	go func() { ctrl.Run(runCtx, 2); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		factory.Shutdown()
	})
	return &protectionEnv{client: client, prov: prov, csi: s.csi, recorder: recorder, registry: registry}
}

// claim reads a claim from the fake API server; nil when it is gone.
func (e *protectionEnv) claim(t *testing.T, name string) *v1.PersistentVolumeClaim {
	t.Helper()
	c, err := e.client.CoreV1().PersistentVolumeClaims(testNamespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return c
}

// eventually polls cond until it holds or fails the test after 5s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, what, cond)
}

// events drains the recorded events.
func (e *protectionEnv) events() []string { return testutil.Drain(e.recorder.Events) }

// metric returns the value of a protection metric by its name suffix.
func (e *protectionEnv) metric(t *testing.T, name string) float64 {
	t.Helper()
	v, _ := testutil.MetricValue(t, e.registry, "csi_provisioner_provisioning_protection_"+name)
	return v
}
