package soak

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// The faults, taken in turns of a shuffled round so each gets its share.
const (
	faultSidecarKill     = "sidecar SIGKILL"
	faultLeaderCutOff    = "leader cut off from kube-apiserver"
	faultAPIServerKill   = "kube-apiserver SIGKILL"
	faultDriverKill      = "driver SIGKILL"
	faultEtcdCompaction  = "etcd compaction"
	apiserverReadyWithin = 2 * time.Minute
	// cutOffBound bounds the wait for a cut-off leader to exit: several
	// lease durations.
	cutOffBound = 60 * time.Second
)

var faultKinds = []string{faultSidecarKill, faultLeaderCutOff, faultAPIServerKill, faultDriverKill, faultEtcdCompaction}

// Fault is one injected fault as it happened.
type Fault struct {
	Kind string        `json:"kind"`
	At   time.Duration `json:"at"`
	// Healed is how long until what the fault broke was back: the process
	// restarted and ready, the proxy restored.
	Healed time.Duration `json:"healed"`
	Detail string        `json:"detail"`
	Error  string        `json:"error,omitempty"`
}

// injector applies the faults on a seeded schedule.
type injector struct {
	stack    *framework.Stack
	replicas []*replica
	etcd     *etcdClient
	rng      *rand.Rand
	interval time.Duration
	start    time.Time
	faults   []Fault
}

// run injects faults until ctx ends; the last one heals before it returns.
func (in *injector) run(ctx context.Context) []Fault {
	logger := klog.FromContext(ctx)
	var round []string
	for {
		wait := time.Duration((0.5 + in.rng.Float64()) * float64(in.interval))
		select {
		case <-ctx.Done():
			return in.faults
		case <-time.After(wait):
		}
		if len(round) == 0 {
			round = append([]string(nil), faultKinds...)
			in.rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		}
		kind := round[0]
		round = round[1:]
		f := Fault{Kind: kind, At: time.Since(in.start)}
		started := time.Now()
		// The fault heals even once the churn is over: the clean-up
		// needs everything back.
		detail, err := in.inject(context.WithoutCancel(ctx), kind)
		f.Healed, f.Detail = time.Since(started), detail
		if err != nil {
			f.Error = err.Error()
		}
		logger.Info("Fault injected", "kind", kind, "detail", detail, "healed", f.Healed.Round(time.Millisecond), "err", err)
		in.faults = append(in.faults, f)
	}
}

func (in *injector) inject(ctx context.Context, kind string) (string, error) {
	switch kind {
	case faultSidecarKill:
		r := in.replicas[in.rng.IntN(len(in.replicas))]
		role := "standby"
		if isLeader(ctx, r) {
			role = "leader"
		}
		pid := r.proc.Pid()
		if err := r.proc.Kill(); err != nil {
			return "", err
		}
		// The supervisor restarts it.
		return fmt.Sprintf("%s (%s)", r.proc.Name(), role), waitBack(ctx, r, pid)
	case faultLeaderCutOff:
		return in.cutOffLeader(ctx)
	case faultAPIServerKill:
		return in.killAndRestart(ctx, in.stack.Cluster().APIServer(), func(ctx context.Context) error {
			return waitAPIServerReady(ctx, in.stack)
		})
	case faultDriverKill:
		// Both sidecars exit on the lost connection, as upstream's do, and
		// their supervisor restarts them.
		return in.killAndRestart(ctx, in.stack.Driver(), nil)
	case faultEtcdCompaction:
		return in.compact(ctx)
	}
	return "", fmt.Errorf("unknown fault %q", kind)
}

// killAndRestart SIGKILLs proc, keeps it down for 1–5 s, and starts it again.
func (in *injector) killAndRestart(ctx context.Context, proc *framework.Process, ready func(context.Context) error) (string, error) {
	if err := proc.Kill(); err != nil {
		return "", err
	}
	down := time.Second + time.Duration(in.rng.Float64()*float64(4*time.Second))
	time.Sleep(down)
	if err := proc.Restart(ctx); err != nil {
		return "", err
	}
	detail := fmt.Sprintf("down %s", down.Round(100*time.Millisecond))
	if ready == nil {
		return detail, nil
	}
	return detail, ready(ctx)
}

// cutOffLeader closes the leader's connections to kube-apiserver and
// refuses new ones until it has exited on its lost Lease (its supervisor
// restarts it); the standby takes over meanwhile.
func (in *injector) cutOffLeader(ctx context.Context) (string, error) {
	var leader *replica
	for _, r := range in.replicas {
		if isLeader(ctx, r) {
			leader = r
		}
	}
	if leader == nil {
		return "no leader at the moment: skipped", nil
	}
	exited, pid := leader.proc.Done(), leader.proc.Pid()
	leader.proxy.Cut()
	cut := time.Now()
	select {
	case <-exited:
	case <-time.After(cutOffBound):
		leader.proxy.Restore()
		return leader.proc.Name(), fmt.Errorf("%s still ran %s after it was cut off", leader.proc.Name(), cutOffBound)
	}
	detail := fmt.Sprintf("%s exited %s after the cut", leader.proc.Name(), time.Since(cut).Round(100*time.Millisecond))
	leader.proxy.Restore()
	return detail, waitBack(ctx, leader, pid)
}

// waitBack waits until the supervisor has restarted the replica that ran
// as pid and the new process serves its metrics.
func waitBack(ctx context.Context, r *replica, pid int) error {
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if exited, _ := r.proc.Exited(); exited || r.proc.Pid() == pid {
			return false, nil
		}
		_, err := scrape(ctx, r)
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("%s not back a minute after pid %d ended", r.proc.Name(), pid)
	}
	return nil
}

// compact compacts etcd at its head revision and then drops the sidecars'
// connections for a moment: every informer watches again from a revision
// the compaction removed (kube-apiserver's watch cache is off), gets 410
// Gone and lists again.
func (in *injector) compact(ctx context.Context) (string, error) {
	rev, err := in.etcd.revision(ctx)
	if err != nil {
		return "", err
	}
	if err := in.etcd.compact(ctx, rev); err != nil {
		return "", err
	}
	for _, r := range in.replicas {
		r.proxy.Cut()
	}
	// Well below the renew deadline (4s): the leader keeps its Lease.
	time.Sleep(time.Second)
	for _, r := range in.replicas {
		r.proxy.Restore()
	}
	return fmt.Sprintf("at revision %d", rev), nil
}

// waitAPIServerReady polls /readyz with the admin client.
func waitAPIServerReady(ctx context.Context, s *framework.Stack) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, apiserverReadyWithin, true, func(ctx context.Context) (bool, error) {
		var body []byte
		body, last = s.Client().Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return last == nil && string(body) == "ok", nil
	})
	if err != nil {
		return errors.Join(fmt.Errorf("kube-apiserver not ready within %s", apiserverReadyWithin), last)
	}
	return nil
}
