package controller

import (
	"slices"
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestProvisionNamesVolumeAfterClaimUID(t *testing.T) {
	e := newEnv(t, envObjects{}, func(o *Options) { o.VolumeNamePrefix = "data"; o.VolumeNameUUIDLength = 10 })
	pv, _, err := e.provision(t, newClaim("db", "1Gi"), newClass(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).Name; got != "data-0b6d5fa454" {
		t.Fatalf("CreateVolume name = %q, want data-0b6d5fa454", got)
	}
	if pv.Name != "data-0b6d5fa454" {
		t.Fatalf("PV name = %q, want the volume name", pv.Name)
	}
}

func TestProvisionRequestsClaimCapacity(t *testing.T) {
	e := newEnv(t, envObjects{})
	if _, _, err := e.provision(t, newClaim("db", "3Gi"), newClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).CapacityRange.GetRequiredBytes(); got != 3<<30 {
		t.Fatalf("required bytes = %d, want %d", got, 3<<30)
	}
}

func TestProvisionRefusesClaimWithoutStorageRequest(t *testing.T) {
	e := newEnv(t, envObjects{})
	claim := newClaim("db", "1Gi")
	claim.Spec.Resources.Requests = nil
	_, state, err := e.provision(t, claim, newClass(nil), nil)
	if err == nil || state != controller.ProvisioningNoChange {
		t.Fatalf("got state %s, err %v; want an error before CreateVolume", state, err)
	}
	if len(e.csi.creates) != 0 {
		t.Fatal("CreateVolume must not be called")
	}
}

func TestProvisionRefusesLabelSelector(t *testing.T) {
	e := newEnv(t, envObjects{})
	claim := newClaim("db", "1Gi")
	claim.Spec.Selector = &metaLabelSelector
	// Upstream v6.3.0's text (prepareProvision).
	if _, _, err := e.provision(t, claim, newClass(nil), nil); err == nil || err.Error() != "claim Selector is not supported" {
		t.Fatalf("err = %v, want upstream's selector error", err)
	}
}

func TestProvisionMapsAccessModes(t *testing.T) {
	type modes = []v1.PersistentVolumeAccessMode
	type csiModes = []csi.VolumeCapability_AccessMode_Mode
	cases := []struct {
		name  string
		modes modes
		snmw  bool
		want  csiModes
	}{
		{"RWO", modes{v1.ReadWriteOnce}, false, csiModes{csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER}},
		{"RWO multi writer driver", modes{v1.ReadWriteOnce}, true, csiModes{csi.VolumeCapability_AccessMode_SINGLE_NODE_MULTI_WRITER}},
		{"RWOP multi writer driver", modes{v1.ReadWriteOncePod}, true, csiModes{csi.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER}},
		{"RWOP legacy driver", modes{v1.ReadWriteOncePod}, false, csiModes{csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER}},
		{"ROX", modes{v1.ReadOnlyMany}, false, csiModes{csi.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY}},
		{"RWX", modes{v1.ReadWriteMany}, false, csiModes{csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER}},
		// One capability per access mode, in the claim's order, as upstream.
		{"RWO and ROX", modes{v1.ReadWriteOnce, v1.ReadOnlyMany}, false, csiModes{csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER, csi.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY}},
		{"RWX and ROX", modes{v1.ReadWriteMany, v1.ReadOnlyMany}, false, csiModes{csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER, csi.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY}},
		{"RWOP with RWO", modes{v1.ReadWriteOncePod, v1.ReadWriteOnce}, true, csiModes{csi.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER, csi.VolumeCapability_AccessMode_SINGLE_NODE_MULTI_WRITER}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envObjects{}, func(o *Options) {
				o.ControllerCapabilities[csi.ControllerServiceCapability_RPC_SINGLE_NODE_MULTI_WRITER] = tc.snmw
			})
			if _, _, err := e.provision(t, newClaim("db", "1Gi", tc.modes...), newClass(nil), nil); err != nil {
				t.Fatal(err)
			}
			var got csiModes
			for _, c := range e.csi.lastCreate(t).VolumeCapabilities {
				if c.GetMount() == nil {
					t.Errorf("capability %v is not a mount", c)
				}
				got = append(got, c.AccessMode.Mode)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("capability modes %v, want %v", got, tc.want)
			}
		})
	}
}

func TestProvisionRefusesClaimWithoutAccessMode(t *testing.T) {
	e := newEnv(t, envObjects{})
	claim := newClaim("db", "1Gi")
	claim.Spec.AccessModes = nil
	if _, _, err := e.provision(t, claim, newClass(nil), nil); err == nil || len(e.csi.creates) != 0 {
		t.Fatalf("want a refusal before CreateVolume, got err %v", err)
	}
}

func TestProvisionBlockClaimAsksForBlockWithoutFSType(t *testing.T) {
	e := newEnv(t, envObjects{}, func(o *Options) { o.DefaultFSType = "ext4" })
	claim := newClaim("raw", "1Gi")
	block := v1.PersistentVolumeBlock
	claim.Spec.VolumeMode = &block
	pv, _, err := e.provision(t, claim, newClass(map[string]string{"csi.storage.k8s.io/fstype": "xfs"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	capability := e.csi.lastCreate(t).VolumeCapabilities[0]
	if capability.GetBlock() == nil || capability.GetMount() != nil {
		t.Fatalf("capability = %v, want block access", capability)
	}
	if *pv.Spec.VolumeMode != v1.PersistentVolumeBlock || pv.Spec.CSI.FSType != "" {
		t.Fatalf("PV volume mode %s fsType %q, want Block and none", *pv.Spec.VolumeMode, pv.Spec.CSI.FSType)
	}
}

func TestProvisionFilesystemTakesFSTypeFromClassThenDefault(t *testing.T) {
	cases := []struct {
		name, class, def, want string
	}{
		{"class wins", "xfs", "ext4", "xfs"},
		{"default applies", "", "ext4", "ext4"},
		{"none", "", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envObjects{}, func(o *Options) { o.DefaultFSType = tc.def })
			params := map[string]string{}
			if tc.class != "" {
				params["csi.storage.k8s.io/fstype"] = tc.class
			}
			class := newClass(params)
			class.MountOptions = []string{"noatime"}
			pv, _, err := e.provision(t, newClaim("db", "1Gi"), class, nil)
			if err != nil {
				t.Fatal(err)
			}
			mount := e.csi.lastCreate(t).VolumeCapabilities[0].GetMount()
			if mount == nil || mount.FsType != tc.want || len(mount.MountFlags) != 1 || mount.MountFlags[0] != "noatime" {
				t.Fatalf("mount capability = %v, want fsType %q and noatime", mount, tc.want)
			}
			if pv.Spec.CSI.FSType != tc.want {
				t.Fatalf("PV fsType = %q, want %q", pv.Spec.CSI.FSType, tc.want)
			}
		})
	}
}

func TestProvisionStripsReservedParameters(t *testing.T) {
	e := newEnv(t, envObjects{secrets: []*v1.Secret{testutil.NewSecret("vault", "creds", map[string]string{"token": "t"})}})
	_, _, err := e.provision(t, newClaim("db", "1Gi"), newClass(map[string]string{
		"tier":                      "gold",
		"csi.storage.k8s.io/fstype": "ext4",
		"csi.storage.k8s.io/provisioner-secret-name":      "creds",
		"csi.storage.k8s.io/provisioner-secret-namespace": "vault",
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	params := e.csi.lastCreate(t).Parameters
	if len(params) != 1 || params["tier"] != "gold" {
		t.Fatalf("driver parameters = %v, want only tier=gold", params)
	}
}

func TestProvisionRefusesUnknownReservedParameter(t *testing.T) {
	e := newEnv(t, envObjects{})
	_, state, err := e.provision(t, newClaim("db", "1Gi"), newClass(map[string]string{"csi.storage.k8s.io/speed": "fast"}), nil)
	if err == nil || !strings.Contains(err.Error(), "csi.storage.k8s.io/speed") {
		t.Fatalf("err = %v, want an error naming the key", err)
	}
	if state != controller.ProvisioningFinished || len(e.csi.creates) != 0 {
		t.Fatalf("state %s after %d CreateVolume calls; want a final refusal with none", state, len(e.csi.creates))
	}
}

func TestProvisionAddsExtraMetadataOnlyWhenAsked(t *testing.T) {
	for _, enabled := range []bool{false, true} {
		e := newEnv(t, envObjects{}, func(o *Options) { o.ExtraCreateMetadata = enabled })
		if _, _, err := e.provision(t, newClaim("db", "1Gi"), newClass(map[string]string{"tier": "gold"}), nil); err != nil {
			t.Fatal(err)
		}
		params := e.csi.lastCreate(t).Parameters
		_, has := params["csi.storage.k8s.io/pvc/name"]
		if has != enabled {
			t.Fatalf("extra metadata enabled=%v, parameters %v", enabled, params)
		}
		if enabled && (params["csi.storage.k8s.io/pvc/name"] != "db" ||
			params["csi.storage.k8s.io/pvc/namespace"] != testNamespace ||
			params["csi.storage.k8s.io/pv/name"] != "pvc-"+testClaimUID || params["tier"] != "gold") {
			t.Fatalf("extra metadata = %v", params)
		}
	}
}

func TestProvisionIgnoresClassOfAnotherDriver(t *testing.T) {
	e := newEnv(t, envObjects{})
	class := newClass(nil)
	class.Provisioner = "other.example.com"
	_, _, err := e.provision(t, newClaim("db", "1Gi"), class, nil)
	if _, ok := err.(*controller.IgnoredError); !ok {
		t.Fatalf("err = %v, want IgnoredError", err)
	}
}

// Upstream v6.3.0 only logs a deprecated key (prepareProvision,
// verifyAndGetSecretNameAndNamespaceTemplate): an event on every attempt
// would be one upstream's users never saw.
func TestProvisionOnlyLogsDeprecatedParameters(t *testing.T) {
	e := newEnv(t, envObjects{secrets: []*v1.Secret{testutil.NewSecret(testNamespace, "creds", nil)}})
	params := map[string]string{"fstype": "ext4", "csiProvisionerSecretName": "creds", "csiProvisionerSecretNamespace": testNamespace}
	if _, _, err := e.provision(t, newClaim("db", "1Gi"), newClass(params), nil); err != nil {
		t.Fatal(err)
	}
	if events := e.events.Drain(); len(events) != 0 {
		t.Fatalf("events %q, want none for deprecated parameters", events)
	}
	if got := e.csi.lastCreate(t).VolumeCapabilities[0].GetMount().FsType; got != "ext4" {
		t.Fatalf("fsType = %q, the deprecated key must still apply", got)
	}
}
