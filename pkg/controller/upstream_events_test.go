package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// upstreamEvent is an event as upstream v6.3.0 posts it for the same case:
// users' alerts match these three fields.
type upstreamEvent struct{ Type, Reason, Message string }

func (e upstreamEvent) String() string { return e.Type + " " + e.Reason + " " + e.Message }

// trimToWanted cuts each event's message to the wanted message of the same
// type and reason that starts it.
func trimToWanted(got, want []upstreamEvent) []upstreamEvent {
	out := slices.Clone(got)
	for i, e := range out {
		for _, w := range want {
			if e.Type == w.Type && e.Reason == w.Reason && strings.HasPrefix(e.Message, w.Message) {
				out[i].Message = w.Message
				break
			}
		}
	}
	return out
}

// libraryProvisioning is the provisioning library's event before it calls
// Provision (lib v13 and our v10 alike, provisionClaimOperation).
func libraryProvisioning(claim string) upstreamEvent {
	return upstreamEvent{v1.EventTypeNormal, "Provisioning", fmt.Sprintf("External provisioner is provisioning volume for claim %q", testNamespace+"/"+claim)}
}

// provisioningFailed is the library's event for a Provision error (lib v13
// provisionVolumeErrorHandling: err.Error() alone; our v10 library adds a
// prefix that the library adapter's event client removes, see
// pkg/controller/library/events.go).
func provisioningFailed(message string) upstreamEvent {
	return upstreamEvent{v1.EventTypeWarning, "ProvisioningFailed", message}
}

// volumeFailedDelete is the library's event for a Delete error (lib v13
// deleteVolumeOperation: err.Error() on the PV).
func volumeFailedDelete(message string) upstreamEvent {
	return upstreamEvent{v1.EventTypeWarning, "VolumeFailedDelete", message}
}

// asWait is upstream's Warning for a failure that is a wait, which a retry
// resolves by itself: here it is Normal, with upstream's reason and
// message (waits.go, pkg/controller/library; docs/events.md). The type is
// the one difference.
func asWait(e upstreamEvent) upstreamEvent {
	e.Type = v1.EventTypeNormal
	return e
}

// Each row drives the provisioning library v10 with our Provisioner on a
// fake API server and holds the events posted on one object against the
// texts upstream v6.3.0 posts for the same case. The library's events go
// through the library adapter's client as in main; the provisioner's own
// through a recorder of component external-provisioner, as upstream's own.
//
// Where each text comes from, at v6.3.0: "controller.go" is upstream's
// pkg/controller/controller.go; "lib v13" is the library it vendors,
// sigs.k8s.io/sig-storage-lib-external-provisioner/v13/controller
// (controller.go, volume_store.go). The project's own events
// (DeletionHeldForProvisioning, ...) are not upstream's and not here. One
// difference is wanted: a failure that is a wait is Normal (asWait).
func TestEventsAsUpstream(t *testing.T) {
	const pvName = "pvc-" + testClaimUID
	rows := []eventRow{
		{
			// lib v13 provisionClaimOperation; volume_store.go
			// backoffStore.StoreVolume ("Successfully provisioned volume %s").
			name: "provisioned", claim: libraryClaim("db"),
			want: []upstreamEvent{libraryProvisioning("db"), {v1.EventTypeNormal, "ProvisioningSucceeded", "Successfully provisioned volume " + pvName}},
		},
		{
			// controller.go Provision returns CreateVolume's error as is;
			// lib v13 provisionVolumeErrorHandling posts err.Error().
			name: "CreateVolume final error", claim: libraryClaim("db"),
			csi:  func(f *fakeCSI) { f.createFn = failWith(codes.Internal, "backend on fire") },
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed("rpc error: code = Internal desc = backend on fire")},
		},
		{
			// Same path; the gRPC client's own timeout status, through a
			// real socket to the mock driver.
			name: "CreateVolume timeout", claim: libraryClaim("db"),
			mock: &mockdriver.Config{Faults: mockdriver.Faults{CreateDelay: time.Minute}},
			opts: func(o *Options) { o.Timeout = 100 * time.Millisecond },
			// gRPC words the deadline as "context deadline exceeded" or
			// "stream terminated by RST_STREAM ...", whichever side of the
			// socket notices first, for upstream as for us.
			want:          []upstreamEvent{libraryProvisioning("db"), asWait(provisioningFailed("rpc error: code = DeadlineExceeded desc = "))},
			messagePrefix: true,
		},
		{
			// Same path: the driver cannot answer now, and is asked again.
			name: "CreateVolume Unavailable", claim: libraryClaim("db"),
			csi:  func(f *fakeCSI) { f.createFn = failWith(codes.Unavailable, "driver busy") },
			want: []upstreamEvent{libraryProvisioning("db"), asWait(provisioningFailed("rpc error: code = Unavailable desc = driver busy"))},
		},
		{
			// controller.go Provision: checkError gives ProvisioningReschedule
			// with a selected node and topology; lib v13
			// provisionVolumeErrorHandling posts err.Error() and removes
			// the selected-node annotation.
			name: "ResourceExhausted reschedules", claim: withSelectedNode(libraryClaim("db")), class: waitForFirstConsumer(newClass(nil)),
			topology: true,
			csi:      func(f *fakeCSI) { f.createFn = failWith(codes.ResourceExhausted, "no space on node-1") },
			want:     []upstreamEvent{libraryProvisioning("db"), provisioningFailed("rpc error: code = ResourceExhausted desc = no space on node-1")},
			check: func(t *testing.T, r *libraryRun) {
				testutil.Eventually(t, 10*time.Second, "the selected node removed", func() bool {
					claim, err := r.env.client.CoreV1().PersistentVolumeClaims(testNamespace).Get(context.Background(), "db", metav1.GetOptions{})
					_, selected := claim.Annotations[annSelectedNode]
					return err == nil && !selected
				})
			},
		},
		{
			// lib v13 provisionClaimOperation, isInfeasibleError
			// (InvalidArgument): "Volume provisioning failed with
			// infeasible error. Retries will be delayed. %v". Our v10
			// library has no such path: Provision posts it itself (see
			// holdInfeasible) and the library posts no failure of its own.
			name: "infeasible InvalidArgument", claim: libraryClaim("db"),
			csi: func(f *fakeCSI) { f.createFn = failWith(codes.InvalidArgument, "bad parameter") },
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				"Volume provisioning failed with infeasible error. Retries will be delayed. rpc error: code = InvalidArgument desc = bad parameter")},
		},
		{
			// controller.go prepareProvision, default data source kind:
			// p.eventRecorder.Event(claim, Normal, "Provisioning", ...),
			// after the library's own Provisioning event.
			name: "volume populator", claim: populatorClaim(libraryClaim("db")),
			want: []upstreamEvent{libraryProvisioning("db"), {v1.EventTypeNormal, "Provisioning", "Assuming an external populator will provision the volume"}},
		},
		{
			// controller.go getCredentials.
			name: "missing secret", claim: libraryClaim("db"),
			class: newClass(map[string]string{
				"csi.storage.k8s.io/provisioner-secret-name":      "db-creds",
				"csi.storage.k8s.io/provisioner-secret-namespace": testNamespace,
			}),
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(`error getting secret db-creds in namespace apps: secrets "db-creds" not found`)},
		},
		{
			// controller.go getSecretReference,
			// verifyAndGetSecretNameAndNamespaceTemplate.
			name: "secret name without namespace", claim: libraryClaim("db"),
			class: newClass(map[string]string{"csi.storage.k8s.io/provisioner-secret-name": "db-creds"}),
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				"failed to get name and namespace template from params: either name and namespace for Provisioner secrets specified, Both must be specified")},
		},
		{
			// controller.go prepareProvision, removePrefixedParameters.
			name: "unknown reserved key", claim: libraryClaim("db"),
			class: newClass(map[string]string{"csi.storage.k8s.io/speed": "fast"}),
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				`failed to strip CSI Parameters of prefixed keys: found unknown parameter key "csi.storage.k8s.io/speed" with reserved namespace csi.storage.k8s.io/`)},
		},
		{
			// controller.go prepareProvision, fsTypesFound > 1.
			name: "fstype twice", claim: libraryClaim("db"),
			class: newClass(map[string]string{"fsType": "ext4", "csi.storage.k8s.io/fstype": "xfs"}),
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				`fstype specified in parameters with both "fstype" and "csi.storage.k8s.io/fstype" keys`)},
		},
		{
			// controller.go prepareProvision, claim.Spec.Selector.
			name: "claim selector", claim: withSelector(libraryClaim("db")),
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed("claim Selector is not supported")},
		},
		{
			// controller.go prepareProvision: the VolumeAttributesClass GET's
			// error as is.
			name: "missing VolumeAttributesClass", claim: withAttributesClass(libraryClaim("db"), "silver"),
			opts: func(o *Options) {
				o.Features.VolumeAttributesClass = true
				o.ControllerCapabilities[csi.ControllerServiceCapability_RPC_MODIFY_VOLUME] = true
			},
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(`volumeattributesclasses.storage.k8s.io "silver" not found`)},
		},
		{
			// controller.go checkDriverCapabilities.
			name: "VolumeAttributesClass without MODIFY_VOLUME", claim: withAttributesClass(libraryClaim("db"), "silver"),
			opts: func(o *Options) { o.Features.VolumeAttributesClass = true },
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				"CSI driver does not support VolumeAttributesClass: controller MODIFY_VOLUME capability is not reported")},
		},
		{
			// controller.go prepareProvision wrapping getPVCSource.
			name: "clone source missing", claim: cloneOf(libraryClaim("db"), "golden"),
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				`error getting handle for DataSource Type PersistentVolumeClaim by Name golden: error getting PVC golden (namespace "apps") from api server: persistentvolumeclaim "golden" not found`)},
		},
		{
			// controller.go prepareProvision wrapping getSnapshotSource.
			name: "snapshot missing", claim: restoredFrom(libraryClaim("db"), "nightly"),
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				`error getting handle for DataSource Type VolumeSnapshot by Name nightly: error getting snapshot nightly from api server: volumesnapshots.snapshot.storage.k8s.io "nightly" not found`)},
		},
		{
			// controller.go dataSource.
			name: "cross-namespace source without the gate", claim: restoredFrom(libraryClaim("db"), "nightly", "golden"),
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				"dataSourceRef namespace specified but the CrossNamespaceVolumeDataSource feature is disabled")},
		},
		{
			// topology.go GenerateAccessibilityRequirements,
			// topologyKeysLookup: the CSINode lister's NotFound, wrapped
			// with %w; controller.go Provision returns it alone with
			// ProvisioningReschedule (apierrors.IsNotFound), and lib v13
			// provisionVolumeErrorHandling removes the selected node.
			name: "selected node without CSINode", claim: withSelectedNode(libraryClaim("db")), class: waitForFirstConsumer(newClass(nil)),
			topology: true,
			objects:  func(o *envObjects) { o.csiNodes = nil },
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				`failed to get selected CSINode node-1: csinode.storage.k8s.io "node-1" not found`)},
			check: func(t *testing.T, r *libraryRun) {
				testutil.Eventually(t, 10*time.Second, "the selected node removed", func() bool {
					claim, err := r.env.client.CoreV1().PersistentVolumeClaims(testNamespace).Get(context.Background(), "db", metav1.GetOptions{})
					_, selected := claim.Annotations[annSelectedNode]
					return err == nil && !selected
				})
			},
		},
		{
			// The selected Node deleted with its CSINode: lib v13 hands
			// Provision the name alone and posts its Provisioning event
			// first; the same path as the row above.
			name: "selected node that does not exist", claim: withSelectedNode(libraryClaim("db")), class: waitForFirstConsumer(newClass(nil)),
			topology: true,
			objects:  func(o *envObjects) { o.nodes, o.csiNodes = nil, nil },
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				`failed to get selected CSINode node-1: csinode.storage.k8s.io "node-1" not found`)},
			check: func(t *testing.T, r *libraryRun) {
				testutil.Eventually(t, 10*time.Second, "the selected node removed", func() bool {
					claim, err := r.env.client.CoreV1().PersistentVolumeClaims(testNamespace).Get(context.Background(), "db", metav1.GetOptions{})
					_, selected := claim.Annotations[annSelectedNode]
					return err == nil && !selected
				})
			},
		},
		{
			// The selected Node deleted, its CSINode still there:
			// topology.go getTopologyFromNodeName finds no labels (isMissingKey);
			// controller.go prepareProvision.
			name: "selected node that does not exist, its CSINode left", claim: withSelectedNode(libraryClaim("db")), class: waitForFirstConsumer(newClass(nil)),
			topology: true,
			objects:  func(o *envObjects) { o.nodes = nil },
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				"error generating accessibility requirements: topology labels from selected node map[] does not match topology keys from CSINode [example.com/zone]")},
		},
		{
			// Without topology nothing reads the selected node (controller.go
			// Provision): the volume is made.
			name: "selected node that does not exist, no topology", claim: withSelectedNode(libraryClaim("db")), class: waitForFirstConsumer(newClass(nil)),
			want: []upstreamEvent{libraryProvisioning("db"), {v1.EventTypeNormal, "ProvisioningSucceeded", "Successfully provisioned volume " + pvName}},
		},
		{
			// topology.go GenerateAccessibilityRequirements, no topology
			// keys for the selected node; controller.go prepareProvision
			// prefixes "error generating accessibility requirements: ".
			name: "selected node's CSINode without the driver", claim: withSelectedNode(libraryClaim("db")), class: waitForFirstConsumer(newClass(nil)),
			topology: true,
			objects:  func(o *envObjects) { o.csiNodes[0].Spec.Drivers[0].Name = "other.csi.example.com" },
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				"error generating accessibility requirements: no topology key found for node node-1")},
		},
		{
			// topology.go GenerateAccessibilityRequirements, isMissingKey
			// from getTopologyFromNodeName; controller.go prepareProvision.
			name: "selected node without the topology label", claim: withSelectedNode(libraryClaim("db")), class: waitForFirstConsumer(newClass(nil)),
			topology: true,
			objects:  func(o *envObjects) { o.nodes[0].Labels = map[string]string{"example.com/rack": "r1"} },
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				"error generating accessibility requirements: topology labels from selected node map[example.com/rack:r1] does not match topology keys from CSINode [example.com/zone]")},
		},
		{
			// topology.go GenerateAccessibilityRequirements, strictTopology
			// with allowedTopologies; controller.go prepareProvision.
			name: "strict topology, selected node not allowed", claim: withSelectedNode(libraryClaim("db")), class: allowingZone(waitForFirstConsumer(newClass(nil)), "b"),
			topology: true,
			opts:     func(o *Options) { o.StrictTopology = true },
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				`error generating accessibility requirements: selected node '"node-1"' topology '[{example.com/zone a}]' is not in allowed topologies: [[{example.com/zone b}]]`)},
		},
		{
			// topology.go GenerateAccessibilityRequirements, preferred
			// terms without the selected node's; controller.go
			// prepareProvision.
			name: "selected node not allowed", claim: withSelectedNode(libraryClaim("db")), class: allowingZone(waitForFirstConsumer(newClass(nil)), "b"),
			topology: true,
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				`error generating accessibility requirements: topology [{example.com/zone a}] from selected node "node-1" is not in requisite: [[{example.com/zone b}]]`)},
		},
		{
			// topology.go GenerateAccessibilityRequirements after
			// aggregateTopologies found no keys on any CSINode (immediate
			// binding, --immediate-topology); controller.go
			// prepareProvision.
			name: "immediate topology, driver on no node", claim: libraryClaim("db"),
			topology: true,
			objects:  func(o *envObjects) { o.csiNodes = nil },
			opts:     func(o *Options) { o.ImmediateTopology = true },
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				"error generating accessibility requirements: no available topology found")},
		},
		{
			// topology.go aggregateTopologies, no node labelled with the
			// keys; controller.go prepareProvision.
			name: "immediate topology, no node with the keys", claim: libraryClaim("db"),
			topology: true,
			objects:  func(o *envObjects) { o.nodes[0].Labels = nil },
			opts:     func(o *Options) { o.ImmediateTopology = true },
			want: []upstreamEvent{libraryProvisioning("db"), provisioningFailed(
				"error generating accessibility requirements: topologyKeys [example.com/zone] were not found on any nodes")},
		},
		{
			// controller.go Delete returns DeleteVolume's error as is; lib
			// v13 deleteVolumeOperation posts err.Error() on the PV.
			name: "DeleteVolume failure", volume: libraryPV(pvName),
			csi:  func(f *fakeCSI) { f.deleteErr = status.Error(codes.Internal, "backend down") },
			want: []upstreamEvent{volumeFailedDelete("rpc error: code = Internal desc = backend down")},
		},
		{
			// Same path; DeleteVolume is asked again.
			name: "DeleteVolume Unavailable", volume: libraryPV(pvName),
			csi:  func(f *fakeCSI) { f.deleteErr = status.Error(codes.Unavailable, "driver busy") },
			want: []upstreamEvent{asWait(volumeFailedDelete("rpc error: code = Unavailable desc = driver busy"))},
		},
		{
			// controller.go canDeleteVolume; lib v13 deleteVolumeOperation.
			// The volume is detached once its pod is gone.
			name: "deletion while attached", volume: libraryPV(pvName), attachedTo: "node-1",
			want: []upstreamEvent{asWait(volumeFailedDelete("persistentvolume " + pvName + " is still attached to node node-1"))},
		},
	}

	// Every library is made before any runs: making one writes
	// client-go's shared scheme, which running ones read.
	runs := make([]*libraryRun, len(rows))
	for i, row := range rows {
		runs[i] = newLibraryRun(t, row)
	}
	for i, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			r := runs[i]
			r.start(t)
			got := r.waitForEvents(t, len(row.want))
			if row.messagePrefix {
				got = trimToWanted(got, row.want)
			}
			slices.SortFunc(got, compareEvents)
			want := slices.Clone(row.want)
			slices.SortFunc(want, compareEvents)
			if !slices.Equal(got, want) {
				t.Errorf("events on %s:\n%s\nwant upstream's:\n%s", r.object, eventLines(got), eventLines(want))
			}
			if row.check != nil {
				row.check(t, r)
			}
		})
	}
}

type eventRow struct {
	name string
	// claim to provision, or volume to delete.
	claim  *v1.PersistentVolumeClaim
	volume *v1.PersistentVolume
	class  *storagev1.StorageClass // default: newClass(nil)
	// topology gives the driver topology and the claim's node node-1.
	topology bool
	// objects changes the row's objects, topology ones included.
	objects    func(*envObjects)
	attachedTo string
	mock       *mockdriver.Config
	opts       func(*Options)
	csi        func(*fakeCSI)
	want       []upstreamEvent
	check      func(*testing.T, *libraryRun)
	// messagePrefix: a wanted message is the start of the event's.
	messagePrefix bool
}

// libraryRun is one row's provisioner and library, made but not started.
type libraryRun struct {
	env       *env
	informers informers.SharedInformerFactory
	library   *libcontroller.ProvisionController
	recorder  *cmdutil.EventRecorder
	object    string
}

func newLibraryRun(t *testing.T, row eventRow) *libraryRun {
	class := row.class
	if class == nil {
		class = newClass(nil)
	}
	objs := envObjects{classes: []*storagev1.StorageClass{class}}
	r := &libraryRun{}
	if row.claim != nil {
		objs.claims = append(objs.claims, row.claim)
		r.object = row.claim.Name
	}
	if row.volume != nil {
		objs.volumes = append(objs.volumes, row.volume)
		r.object = row.volume.Name
	}
	if row.attachedTo != "" {
		objs.attachments = append(objs.attachments, &storagev1.VolumeAttachment{
			ObjectMeta: metav1.ObjectMeta{Name: "csi-" + row.volume.Name},
			Spec: storagev1.VolumeAttachmentSpec{
				Attacher: testDriver, NodeName: row.attachedTo,
				Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &row.volume.Name},
			},
		})
	}
	if row.topology {
		objs.nodes = append(objs.nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"example.com/zone": "a"}}})
		objs.csiNodes = append(objs.csiNodes, &storagev1.CSINode{
			ObjectMeta: metav1.ObjectMeta{Name: "node-1"},
			Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
				{Name: testDriver, NodeID: "node-1", TopologyKeys: []string{"example.com/zone"}},
			}},
		})
	}
	if row.objects != nil {
		row.objects(&objs)
	}
	logger, ctx := ktesting.NewTestContext(t)
	mutate := []func(*Options){func(o *Options) {
		// The sidecar's own recorder, as main makes it.
		r.recorder = cmdutil.NewEventRecorder(ctx, o.Client, "external-provisioner")
		o.EventRecorder = r.recorder
		if row.topology {
			o.PluginCapabilities[csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS] = true
		}
	}}
	if row.mock != nil {
		_, useDriver := withMockDriver(t, *row.mock)
		mutate = append(mutate, useDriver)
	}
	if row.opts != nil {
		mutate = append(mutate, row.opts)
	}
	r.env = newEnv(t, objs, mutate...)
	if row.csi != nil {
		row.csi(r.env.csi)
	}
	// Informers of a factory, as main gives the library: they know that
	// the fake API server serves no watch-list stream.
	r.informers = informers.NewSharedInformerFactory(r.env.client, 0)
	r.library = libcontroller.NewProvisionController(logger, r.env.prov.Library().Client(r.env.client, nil), testDriver, r.env.prov,
		libcontroller.LeaderElection(false),
		libcontroller.MetricsPort(0),
		libcontroller.Threadiness(1),
		libcontroller.ClaimsInformer(r.informers.Core().V1().PersistentVolumeClaims().Informer()),
		libcontroller.VolumesInformer(r.informers.Core().V1().PersistentVolumes().Informer()),
		libcontroller.ClassesInformer(r.informers.Storage().V1().StorageClasses().Informer()),
		libcontroller.NodesLister(r.env.prov.Library().NodesLister()),
	)
	return r
}

// start runs the row's library until the test ends, and its recorder.
func (r *libraryRun) start(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	r.recorder.Start()
	t.Cleanup(r.recorder.Stop)
	testutil.RunUntilCleanup(t, ctx, func(ctx context.Context) {
		r.informers.Start(ctx.Done())
		r.library.Run(ctx)
		r.informers.Shutdown()
	})
}

// waitForEvents returns the events on the row's object once there are n,
// after the provisioner's recorder has sent all it holds.
func (r *libraryRun) waitForEvents(t *testing.T, n int) []upstreamEvent {
	t.Helper()
	var got []upstreamEvent
	testutil.Eventually(t, 20*time.Second, fmt.Sprintf("%d events on %s", n, r.object), func() bool {
		got = r.events(t)
		return len(got) >= n
	})
	return got
}

func (r *libraryRun) events(t *testing.T) []upstreamEvent {
	t.Helper()
	list, err := r.env.client.CoreV1().Events(metav1.NamespaceAll).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []upstreamEvent
	for _, ev := range list.Items {
		if ev.InvolvedObject.Name == r.object {
			out = append(out, upstreamEvent{ev.Type, ev.Reason, ev.Message})
		}
	}
	return out
}

func compareEvents(a, b upstreamEvent) int { return strings.Compare(a.String(), b.String()) }

func eventLines(events []upstreamEvent) string {
	lines := make([]string, len(events))
	for i, e := range events {
		lines[i] = "  " + e.String()
	}
	return strings.Join(lines, "\n")
}

func failWith(code codes.Code, message string) func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
	return func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		return nil, status.Error(code, message)
	}
}

// libraryClaim is a claim the PV controller handed to the driver.
func libraryClaim(name string) *v1.PersistentVolumeClaim {
	claim := newClaim(name, "1Gi")
	claim.Annotations = map[string]string{driverscope.AnnStorageProvisioner: testDriver}
	return claim
}

func withSelectedNode(claim *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
	claim.Annotations[annSelectedNode] = "node-1"
	return claim
}

func withSelector(claim *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
	claim.Spec.Selector = &metaLabelSelector
	return claim
}

func withAttributesClass(claim *v1.PersistentVolumeClaim, class string) *v1.PersistentVolumeClaim {
	claim.Spec.VolumeAttributesClassName = &class
	return claim
}

func populatorClaim(claim *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
	claim.Spec.DataSourceRef = &v1.TypedObjectReference{APIGroup: ptr.To("populator.example.com"), Kind: "Image", Name: "ubuntu"}
	return claim
}

func cloneOf(claim *v1.PersistentVolumeClaim, source string) *v1.PersistentVolumeClaim {
	claim.Spec.DataSource = &v1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: source}
	claim.Spec.DataSourceRef = &v1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: source}
	return claim
}

// restoredFrom makes claim restore snapshot, from namespace if one is given.
func restoredFrom(claim *v1.PersistentVolumeClaim, snapshot string, namespace ...string) *v1.PersistentVolumeClaim {
	claim.Spec.DataSourceRef = &v1.TypedObjectReference{APIGroup: ptr.To(provisionstate.SnapshotAPIGroup), Kind: provisionstate.SnapshotKind, Name: snapshot}
	if len(namespace) > 0 {
		claim.Spec.DataSourceRef.Namespace = &namespace[0]
		return claim
	}
	claim.Spec.DataSource = &v1.TypedLocalObjectReference{APIGroup: ptr.To(provisionstate.SnapshotAPIGroup), Kind: provisionstate.SnapshotKind, Name: snapshot}
	return claim
}

func waitForFirstConsumer(class *storagev1.StorageClass) *storagev1.StorageClass {
	class.VolumeBindingMode = ptr.To(storagev1.VolumeBindingWaitForFirstConsumer)
	return class
}

// allowingZone makes class allow only zone of the row's topology key.
func allowingZone(class *storagev1.StorageClass, zone string) *storagev1.StorageClass {
	class.AllowedTopologies = []v1.TopologySelectorTerm{{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{
		{Key: "example.com/zone", Values: []string{zone}},
	}}}
	return class
}

// libraryPV is a released PV the library provisioned, for deletion.
func libraryPV(name string) *v1.PersistentVolume {
	pv := releasedPV(testDriver)
	pv.Name = name
	pv.UID = "9a0c6b8e-0000-4000-8000-00000000000a"
	pv.Annotations = map[string]string{driverscope.AnnProvisionedBy: testDriver}
	pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimDelete
	return pv
}
