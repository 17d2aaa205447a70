package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// syncedMessage is what the provisioning library logs once the claim, PV
// and class informers have synced, which the sidecar only lets it do after
// its own informer factory synced every other cache.
const syncedMessage = `"Started provisioner controller"`

// runSidecar is one run: a new sidecar process with the variant's flags on
// the filled stack, measured until it has synced, gone idle and handled a
// batch, then stopped. What goes wrong is recorded in Problems.
func (m *runner) runSidecar(ctx context.Context, v bench.Variant, run, order int) *SidecarRun {
	res := &SidecarRun{Variant: v.Name, Run: run, Order: order}
	problem := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		res.Problems = append(res.Problems, msg)
		m.progress("  problem: %s", msg)
	}
	port, err := framework.FreePort()
	if err != nil {
		problem("%v", err)
		return res
	}
	metricsURL := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	endpoint := []string{fmt.Sprintf("--http-endpoint=127.0.0.1:%d", port)}
	if m.opts.HeapProfileDir != "" {
		endpoint = append(endpoint, "--enable-pprof")
	}
	start := time.Now()
	p, err := m.stack.StartSidecar(ctx, framework.SidecarOptions{
		Binary:             v.Binary,
		Verbosity:          m.opts.SidecarVerbosity,
		ExtraArgs:          slices.Concat(m.opts.SidecarArgs, v.Args, endpoint),
		Env:                v.Env,
		ExtraRBACManifests: []string{framework.VolumeProtectionRBACManifest},
	})
	if err != nil {
		problem("start the sidecar: %v", err)
		return res
	}
	cpuStart := measure.SampleCPU(measure.StackPIDs(m.stack, p))
	defer func() {
		if m.opts.HeapProfileDir != "" {
			url := fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/heap", port)
			if err := measure.SaveHeapProfile(ctx, url, filepath.Join(m.opts.HeapProfileDir, fmt.Sprintf("heap-%02d.pb.gz", order))); err != nil {
				problem("heap profile: %v", err)
			}
		}
		res.OtherCores = measure.UsageBetween(cpuStart, measure.SampleCPU(measure.StackPIDs(m.stack, p))).OtherCores
		if err := p.Stop(); err != nil {
			problem("sidecar did not stop: %v", err)
		}
		res.Wall = time.Since(start)
	}()
	if err := m.measureSidecar(ctx, p, start, metricsURL, order, res); err != nil {
		problem("%v", err)
		var buf strings.Builder
		m.stack.WriteLogTails(&buf, 10)
		m.progress("%s", buf.String())
	}
	return res
}

// measureSidecar fills res. It stops at the first error that makes the rest
// meaningless, but reads the memory figures in any case.
func (m *runner) measureSidecar(ctx context.Context, p *framework.Process, start time.Time, metricsURL string, order int, res *SidecarRun) (err error) {
	pid := p.Pid()
	defer func() {
		// What the process reached is worth reporting even when the run
		// went wrong: a sidecar that never synced is a finding too.
		var memErr error
		if res.End, memErr = measure.ReadProcMemory(pid); memErr != nil && err == nil {
			err = memErr
		}
		if cpu, cpuErr := measure.ProcessCPU(pid); cpuErr == nil {
			res.CPU = cpu
		}
		if heap, heapErr := scrapeGoMemory(ctx, metricsURL); heapErr == nil {
			res.Heap = heap
		}
	}()

	synced, cpu, err := waitLogLine(ctx, m.stack, m.opts.SyncTimeout, "the sidecar's caches to sync", p.LogFile(), syncedMessage, pid)
	if err != nil {
		return err
	}
	res.SyncTime, res.SyncCPU = synced.Sub(start), cpu
	idle, err := waitQuiet(ctx, m.stack, m.opts.SyncTimeout, "the sidecar to go idle", pid, func(ctx context.Context) (bool, error) {
		depth, err := queueDepth(ctx, metricsURL)
		if err != nil {
			return false, err
		}
		return depth == 0, fmt.Errorf("%v items in its work queues", depth)
	})
	if err != nil {
		return err
	}
	res.IdleTime = idle.Sub(start)
	if res.IdleCPU, err = measure.ProcessCPU(pid); err != nil {
		return err
	}
	if res.Idle, err = measure.ReadProcMemory(pid); err != nil {
		return err
	}
	return m.batch(ctx, order, res)
}

// batch provisions and deletes Options.Batch claims of the Immediate class
// and waits for each step to finish.
func (m *runner) batch(ctx context.Context, order int, res *SidecarRun) error {
	names := bench.ClaimNames(fmt.Sprintf("run%02d", order), m.opts.Batch)
	claims := m.client.CoreV1().PersistentVolumeClaims(bench.ClaimNamespace)
	workers := min(m.opts.Creator.Workers, len(names))

	start := time.Now()
	created := bench.CreateClaims(ctx, m.client, names, workers, bench.NewClaim, nil, nil)
	if created.Failed > 0 {
		return fmt.Errorf("%d batch claims not created, first: %w", created.Failed, created.FirstErr)
	}
	var volumes []string
	err := m.stack.WaitFor(ctx, m.opts.PhaseTimeout, "the batch to be Bound", func(ctx context.Context) (bool, error) {
		list, err := claims.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		volumes = volumes[:0]
		for i := range list.Items {
			if list.Items[i].Status.Phase == corev1.ClaimBound {
				volumes = append(volumes, list.Items[i].Spec.VolumeName)
			}
		}
		res.BatchBound = len(volumes)
		return len(volumes) == len(names), fmt.Errorf("%d of %d Bound", len(volumes), len(names))
	})
	res.BatchProvision = time.Since(start)
	if err != nil {
		return err
	}

	start = time.Now()
	deleted := bench.DeleteClaims(ctx, m.client, bench.ClaimNamespace, names, workers, nil)
	if deleted.Failed > 0 {
		return fmt.Errorf("%d batch claims not deleted, first: %w", deleted.Failed, deleted.FirstErr)
	}
	res.ClaimsLeft, res.PVsLeft = len(names), len(volumes)
	err = m.stack.WaitFor(ctx, m.opts.PhaseTimeout, "the batch's claims, PVs and volumes to be gone", func(ctx context.Context) (bool, error) {
		list, err := claims.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		res.ClaimsLeft = len(list.Items)
		if volumes, err = m.livePVs(ctx, volumes); err != nil {
			return false, err
		}
		res.PVsLeft = len(volumes)
		vols, err := m.stack.DriverVolumes()
		if err != nil {
			return false, err
		}
		res.VolumesLeft = len(vols)
		return res.ClaimsLeft == 0 && res.PVsLeft == 0 && res.VolumesLeft == 0,
			fmt.Errorf("%d claims, %d PVs and %d driver volumes left", res.ClaimsLeft, res.PVsLeft, res.VolumesLeft)
	})
	res.BatchDelete = time.Since(start)
	return err
}

// livePVs returns the PVs of names that still exist. It stops at the first
// one found: the caller only needs to know when none is left, and one GET
// per poll is all that costs while they are being deleted.
func (m *runner) livePVs(ctx context.Context, names []string) ([]string, error) {
	for i, name := range names {
		_, err := m.client.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return names[i:], err
		default:
			return names[i:], nil
		}
	}
	return nil, nil
}
