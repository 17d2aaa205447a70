// Command mock-csi-driver serves the mock CSI driver on a unix socket for
// e2e tests and the demo. It stops cleanly on SIGTERM or SIGINT.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"k8s.io/klog/v2"
)

func main() {
	klog.InitFlags(nil)
	var cfg mockdriver.Config
	endpoint := flag.String("endpoint", "unix:///tmp/mock-csi.sock", "CSI endpoint, a unix socket such as unix:///run/csi/csi.sock")
	flag.StringVar(&cfg.Name, "name", mockdriver.DefaultName, "driver name reported by GetPluginInfo")
	flag.StringVar(&cfg.NodeID, "node-id", "", "node id reported by NodeGetInfo (default: host name)")
	flag.StringVar(&cfg.StateFile, "state-file", "", "JSON file that keeps volumes and snapshots across restarts (default: memory only)")
	flag.BoolVar(&cfg.Topology, "topology", false, "advertise accessibility constraints with key "+mockdriver.TopologyKey)
	flag.Var(bytesFlag{&cfg.Capacity}, "capacity", "`size` of the default pool, used by volumes without the \""+mockdriver.PoolParameter+"\" parameter, in bytes or as a quantity such as 10Gi; with --topology every node has a pool of this size. Enables GetCapacity (0: unlimited)")
	flag.Var(poolsFlag{&cfg.Pools}, "pools", "named pools, selected by the \""+mockdriver.PoolParameter+"\" StorageClass parameter, as `name=size,...` such as fast=10Gi,slow=1Ti; with --topology every node has each pool. Enables GetCapacity")
	flag.Var(bytesFlag{&cfg.MaxVolumeSize}, "max-volume-size", "largest volume `size`, in bytes or as a quantity such as 10Gi (0: no limit)")
	flag.DurationVar(&cfg.Faults.CreateDelay, "create-delay", 0, "delay before each CreateVolume")
	flag.BoolVar(&cfg.Faults.CreateOutlivesCaller, "create-outlives-caller", false, "finish creating a volume even when the CreateVolume caller times out or goes away during --create-delay")
	flag.DurationVar(&cfg.Faults.DeleteDelay, "delete-delay", 0, "delay before each DeleteVolume")
	flag.DurationVar(&cfg.Faults.SnapshotDelay, "snapshot-delay", 0, "delay before each CreateSnapshot")
	snapshots := flag.Bool("snapshots", true, "advertise CREATE_DELETE_SNAPSHOT and LIST_SNAPSHOTS and serve snapshots and restores from them")
	modifyVolume := flag.Bool("modify-volume", true, "advertise MODIFY_VOLUME: take mutable parameters in CreateVolume and ControllerModifyVolume")
	flag.Float64Var(&cfg.Faults.FailureRate, "failure-rate", 0, "probability (0..1) that CreateVolume, DeleteVolume, CreateSnapshot or DeleteSnapshot fails with --failure-code")
	flag.Func("failure-code", "gRPC code of injected failures, e.g. Unavailable, ResourceExhausted, Internal (default Unavailable)", func(name string) error {
		code, err := mockdriver.ParseCode(name)
		cfg.Faults.FailureCode = code
		return err
	})
	flag.Float64Var(&cfg.Faults.RateLimit.Limit, "api-rate-limit", 0, "throttle the backend's API like a cloud's: past this many CreateVolume/DeleteVolume/CreateSnapshot/DeleteSnapshot calls a second, fail them at once with --api-rate-code (0: no limit)")
	flag.IntVar(&cfg.Faults.RateLimit.Burst, "api-rate-burst", 0, "calls the --api-rate-limit lets in at once (0: the limit, at least 1)")
	flag.Func("api-rate-code", "gRPC code of throttled calls, e.g. ResourceExhausted, Unavailable (default ResourceExhausted)", func(name string) error {
		code, err := mockdriver.ParseCode(name)
		cfg.Faults.RateLimit.Code = code
		return err
	})
	flag.Float64Var(&cfg.Moving.Share, "capacity-moving-share", 0, "share (0..1) of the topology segments, chosen by --capacity-moving-seed and the segment's name, whose GetCapacity answer moves every --capacity-moving-period, as when others fill and free the storage (0: capacity only follows the volumes)")
	flag.Float64Var(&cfg.Moving.Amplitude, "capacity-moving-amplitude", 0.3, "largest move of a moving segment's free space, as a share (0..1) of the pool's size")
	flag.DurationVar(&cfg.Moving.Period, "capacity-moving-period", time.Minute, "how long one value of a moving segment holds; values change at multiples of it since the Unix epoch")
	flag.Int64Var(&cfg.Moving.Seed, "capacity-moving-seed", 0, "seed of the segments that move and of their values (mockdriver.MovingCapacity computes them)")
	flag.IntVar(&cfg.Faults.ExitAfterCalls, "exit-after-calls", 0, "exit with status 2, without replying, after performing the Nth CreateVolume/DeleteVolume/CreateSnapshot/DeleteSnapshot call (0: never)")
	flag.Parse()
	cfg.DisableSnapshots = !*snapshots
	cfg.DisableModifyVolume = !*modifyVolume
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "mock-csi-driver: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	os.Exit(run(cfg, *endpoint))
}

func run(cfg mockdriver.Config, endpoint string) int {
	defer klog.Flush()
	logger := klog.Background()
	driver, err := mockdriver.New(cfg)
	if err != nil {
		logger.Error(err, "Invalid configuration")
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := driver.Serve(klog.NewContext(ctx, logger), endpoint); err != nil {
		logger.Error(err, "Serving failed")
		return 1
	}
	return 0
}
