// Command upstreamlike stands in, in the end-to-end tests, for a provisioner
// that knows nothing of this project: the provisioning library's own
// controller, with a provisioner that only calls CreateVolume and
// DeleteVolume. It reads none of this project's annotations, finalizers or
// records, so what it does to the objects this project leaves behind is
// what upstream external-provisioner does after a plain image rollback:
// above all, it deletes the volume of every Released PV whose reclaim
// policy is Delete. It takes the sidecar's command line and ignores the
// flags it does not know.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
)

func main() {
	fs := flag.NewFlagSet("upstreamlike", flag.ContinueOnError)
	socket := fs.String("csi-address", "", "the driver's socket")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig")
	timeout := fs.Duration("timeout", 30*time.Second, "bound of each CSI call")
	klog.InitFlags(fs)
	// Only the flags above matter; the rest of a sidecar command line is
	// skipped, as a stand-in has nothing to do with it.
	var known []string
	for _, a := range os.Args[1:] {
		name := strings.SplitN(strings.TrimLeft(a, "-"), "=", 2)[0]
		if fs.Lookup(name) != nil {
			known = append(known, a)
		}
	}
	if err := fs.Parse(known); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, *socket, *kubeconfig, *timeout); err != nil {
		klog.FromContext(ctx).Error(err, "Stand-in provisioner failed")
		klog.Flush()
		os.Exit(1)
	}
}

func run(ctx context.Context, socket, kubeconfig string, timeout time.Duration) error {
	logger := klog.FromContext(ctx)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	info, err := csi.NewIdentityClient(conn).GetPluginInfo(ctx, &csi.GetPluginInfoRequest{})
	if err != nil {
		return fmt.Errorf("GetPluginInfo: %w", err)
	}
	p := &provisioner{driver: info.GetName(), csi: csi.NewControllerClient(conn), timeout: timeout}
	logger.Info("Stand-in provisioner started", "driver", p.driver)
	ctrl := libcontroller.NewProvisionController(logger, client, p.driver, p,
		libcontroller.LeaderElection(false),
		libcontroller.AddFinalizer(true),
		libcontroller.FailedProvisionThreshold(0),
		libcontroller.FailedDeleteThreshold(0),
		libcontroller.RetryPeriod(time.Second),
	)
	ctrl.Run(ctx)
	return nil
}

// provisioner makes and deletes volumes through the driver, named after
// their PV, as upstream names them without a prefix setting.
type provisioner struct {
	driver  string
	csi     csi.ControllerClient
	timeout time.Duration
}

func (p *provisioner) Provision(ctx context.Context, opts libcontroller.ProvisionOptions) (*v1.PersistentVolume, libcontroller.ProvisioningState, error) {
	size := opts.PVC.Spec.Resources.Requests[v1.ResourceStorage]
	callCtx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	res, err := p.csi.CreateVolume(callCtx, &csi.CreateVolumeRequest{
		Name:          opts.PVName,
		CapacityRange: &csi.CapacityRange{RequiredBytes: size.Value()},
		Parameters:    opts.StorageClass.Parameters,
		VolumeCapabilities: []*csi.VolumeCapability{{
			AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
			AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
		}},
	})
	if err != nil {
		return nil, libcontroller.ProvisioningInBackground, err
	}
	policy := v1.PersistentVolumeReclaimDelete
	if opts.StorageClass.ReclaimPolicy != nil {
		policy = *opts.StorageClass.ReclaimPolicy
	}
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: opts.PVName},
		Spec: v1.PersistentVolumeSpec{
			PersistentVolumeReclaimPolicy: policy,
			AccessModes:                   opts.PVC.Spec.AccessModes,
			Capacity:                      v1.ResourceList{v1.ResourceStorage: *resource.NewQuantity(res.GetVolume().GetCapacityBytes(), resource.BinarySI)},
			StorageClassName:              opts.StorageClass.Name,
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver:           p.driver,
				VolumeHandle:     res.GetVolume().GetVolumeId(),
				VolumeAttributes: res.GetVolume().GetVolumeContext(),
			}},
		},
	}, libcontroller.ProvisioningFinished, nil
}

func (p *provisioner) Delete(ctx context.Context, pv *v1.PersistentVolume) error {
	if pv.Spec.CSI == nil || pv.Spec.CSI.Driver != p.driver {
		return &libcontroller.IgnoredError{Reason: "not this driver's"}
	}
	callCtx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	if _, err := p.csi.DeleteVolume(callCtx, &csi.DeleteVolumeRequest{VolumeId: pv.Spec.CSI.VolumeHandle}); err != nil {
		return err
	}
	klog.FromContext(ctx).Info("Volume deleted", "PV", pv.Name, "handle", pv.Spec.CSI.VolumeHandle)
	return nil
}
