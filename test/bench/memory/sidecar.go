package memory

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// syncedMessage is what the provisioning library logs once the claim, PV
// and class informers have synced, which the sidecar only lets it do after
// its own informer factory synced every other cache.
const syncedMessage = `"Started provisioner controller"`

// sidecarRun is what one run starts.
type sidecarRun struct {
	variant           bench.Variant
	pairs, run, order int
	// label names the run's variant in the report; empty means the
	// variant's name.
	label string
	// env is added to the variant's environment: the sweep's
	// GOMEMLIMIT.
	env []string
	// binary replaces the variant's: the sweep's wrapper that enters a
	// memory cgroup before it execs the sidecar.
	binary string
	// timeouts replace the options' where set: the sweep bounds every
	// wait of a try alike.
	timeouts timeouts
	// mayDie starts the sidecar outside the stack's own sidecars, whose
	// death would fail every later wait of the stack: under a hard
	// limit, the kernel killing it is a finding of its run. Its waits end
	// as soon as it dies, and its memory is sampled while it runs, since
	// a dead process has no /proc status to read.
	mayDie bool
}

// timeouts bound a run's waits: sync for the cache sync and the idle
// that follows, phase for the first claim, the batch's provisioning and
// its deletion.
type timeouts struct{ sync, phase time.Duration }

// runSidecar is one run: a new sidecar process with the variant's flags on
// the filled stack, measured until it has synced, gone idle and handled a
// batch, then stopped. What goes wrong is recorded in Problems.
func (m *runner) runSidecar(ctx context.Context, sr sidecarRun) *SidecarRun {
	v := sr.variant
	res := &SidecarRun{Variant: v.Name, Pairs: sr.pairs, Run: sr.run, Order: sr.order}
	if sr.label != "" {
		res.Variant = sr.label
	}
	problem := func(format string, args ...any) { m.opts.Problem(&res.Problems, format, args...) }
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
	opts := framework.SidecarOptions{
		Binary:             v.Binary,
		Verbosity:          m.opts.SidecarVerbosity,
		ExtraArgs:          slices.Concat(m.opts.SidecarArgs, v.Args, endpoint),
		Env:                slices.Concat(v.Env, sr.env),
		ExtraRBACManifests: []string{framework.VolumeProtectionRBACManifest},
	}
	if sr.binary != "" {
		opts.Binary = sr.binary
	}
	start := time.Now()
	var p *framework.Process
	if sr.mayDie {
		p, err = m.stack.StartSidecarExpectingExit(ctx, opts)
	} else {
		p, err = m.stack.StartSidecar(ctx, opts)
	}
	if err != nil {
		problem("start the sidecar: %v", err)
		return res
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var sampled *memorySampler
	if sr.mayDie {
		go func() {
			select {
			case <-p.Done():
				if err := p.UnexpectedExit(); err != nil {
					cancel(err)
				}
			case <-runCtx.Done():
			}
		}()
		sampled = sampleMemory(runCtx, p.Pid())
	}
	first, err := startFirstClaim(runCtx, m.client, fmt.Sprintf("first-%02d", sr.order))
	if err != nil {
		problem("%v", err)
	}
	cpuStart := measure.SampleCPU(measure.StackPIDs(m.stack, p))
	defer func() {
		if m.opts.HeapProfileDir != "" {
			url := fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/heap", port)
			if err := measure.SaveHeapProfile(ctx, url, filepath.Join(m.opts.HeapProfileDir, fmt.Sprintf("heap-%02d.pb.gz", sr.order))); err != nil {
				problem("heap profile: %v", err)
			}
		}
		res.OtherCores = measure.UsageBetween(cpuStart, measure.SampleCPU(measure.StackPIDs(m.stack, p))).OtherCores
		if err := p.Stop(); err != nil {
			problem("sidecar did not stop: %v", err)
		}
		res.Wall = time.Since(start)
	}()
	limits := timeouts{sync: cmp.Or(sr.timeouts.sync, m.opts.SyncTimeout), phase: cmp.Or(sr.timeouts.phase, m.opts.PhaseTimeout)}
	if err := m.measureSidecar(runCtx, p, start, metricsURL, first, limits, res); err != nil {
		problem("%v", err)
		// A sidecar that may die says why in its own log's tail, which
		// the error carries; the stack's logs are for the stack's
		// failures.
		if !sr.mayDie {
			var buf strings.Builder
			m.stack.WriteLogTails(&buf, 10)
			m.progress("%s", buf.String())
		}
	}
	if first != nil {
		if at, _, ok := first.boundAt(); ok {
			res.FirstClaimBound = at.Sub(start)
		}
	}
	if sampled != nil && res.End.PeakRSS == 0 {
		// It died: its last sample is all there is.
		res.End = sampled.last()
	}
	return res
}

// measureSidecar fills res. It stops at the first error that makes the rest
// meaningless, but reads the memory figures in any case.
func (m *runner) measureSidecar(ctx context.Context, p *framework.Process, start time.Time, metricsURL string, first *firstClaim, limits timeouts, res *SidecarRun) (err error) {
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
	if first == nil {
		return fmt.Errorf("no first claim")
	}

	synced, cpu, err := waitLogLine(ctx, m.stack, limits.sync, "the sidecar's caches to sync", p.LogFile(), syncedMessage, pid)
	if err != nil {
		return err
	}
	res.SyncTime, res.SyncCPU = synced.Sub(start), cpu
	// The first claim is provisioned right after the sync; idle is after
	// that.
	idle, err := waitQuiet(ctx, m.stack, limits.sync, "the sidecar to go idle", pid, func(ctx context.Context) (bool, error) {
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
	if err := first.wait(ctx, limits.phase); err != nil {
		return err
	}
	return m.batch(ctx, res, first, limits.phase)
}

// memorySampler keeps the newest /proc memory figures of a process that
// may be killed: VmHWM only grows, so the last sample before its death is
// its peak, up to one sampling interval.
type memorySampler struct {
	mu  sync.Mutex
	mem measure.ProcMemory
}

// memorySample is how often a sidecar that may die is read.
const memorySample = 100 * time.Millisecond

func sampleMemory(ctx context.Context, pid int) *memorySampler {
	s := &memorySampler{}
	go func() {
		t := time.NewTicker(memorySample)
		defer t.Stop()
		for {
			if mem, err := measure.ReadProcMemory(pid); err == nil {
				s.mu.Lock()
				s.mem = mem
				s.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *memorySampler) last() measure.ProcMemory {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mem
}
