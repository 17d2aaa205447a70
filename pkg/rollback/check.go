package rollback

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"
	"k8s.io/klog/v2"
)

// Mode says whether the check writes.
type Mode string

const (
	// ModeReport changes nothing.
	ModeReport Mode = "report"
	// ModeClear clears what is safe to clear, then reports.
	ModeClear Mode = "clear"
)

// ParseMode reads a mode as the command line gives it.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeReport, ModeClear:
		return m, nil
	}
	return "", fmt.Errorf("must be %q or %q, got %q", ModeReport, ModeClear, s)
}

// Options configure a Checker.
type Options struct {
	// Client reads the whole cluster's claims, PVs and StorageClasses,
	// and in ModeClear writes claims.
	Client kubernetes.Interface
	Mode   Mode
	// Out receives the report: a table, then one line of verdict.
	Out io.Writer
	// Now tells whether a kept volume's deadline has passed; time.Now if
	// nil.
	Now func() time.Time
}

// Checker runs the check once per Run.
type Checker struct {
	client kubernetes.Interface
	mode   Mode
	out    io.Writer
	now    func() time.Time
}

// New returns a Checker of opts.
func New(opts Options) (*Checker, error) {
	if opts.Client == nil || opts.Out == nil {
		return nil, errors.New("rollback check: a client and an output are needed")
	}
	if _, err := ParseMode(string(opts.Mode)); err != nil {
		return nil, fmt.Errorf("rollback check: mode %w", err)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Checker{client: opts.Client, mode: opts.Mode, out: opts.Out, now: now}, nil
}

// Report is what one Run found, and its verdict.
type Report struct {
	Mode     Mode
	Findings []Finding
	// Checked counts the objects read, by kind.
	Checked map[string]int
	Verdict Verdict
}

// Run checks the cluster, clears in ModeClear, and writes the report to
// the output. An error means the check could not be made (a list failed);
// a write that failed is a finding that needs the operator.
func (c *Checker) Run(ctx context.Context) (*Report, error) {
	klog.FromContext(ctx).V(1).Info("Checking the cluster for a swap back to upstream", "mode", c.mode)
	r := &Report{Mode: c.mode, Checked: map[string]int{}}
	claims := c.client.CoreV1().PersistentVolumeClaims(v1.NamespaceAll)
	err := each(ctx, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return claims.List(ctx, o) },
		func(claim *v1.PersistentVolumeClaim) {
			r.Checked[kindClaim]++
			r.Findings = append(r.Findings, c.claim(ctx, claim)...)
		})
	if err != nil {
		return nil, fmt.Errorf("listing PersistentVolumeClaims: %w", err)
	}
	now := c.now()
	volumes := c.client.CoreV1().PersistentVolumes()
	err = each(ctx, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return volumes.List(ctx, o) },
		func(pv *v1.PersistentVolume) {
			r.Checked[kindVolume]++
			r.Findings = append(r.Findings, volumeFindings(pv, now)...)
		})
	if err != nil {
		return nil, fmt.Errorf("listing PersistentVolumes: %w", err)
	}
	classes := c.client.StorageV1().StorageClasses()
	err = each(ctx, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return classes.List(ctx, o) },
		func(class *storagev1.StorageClass) {
			r.Checked[kindClass]++
			r.Findings = append(r.Findings, classFindings(class)...)
		})
	if err != nil {
		return nil, fmt.Errorf("listing StorageClasses: %w", err)
	}
	slices.SortStableFunc(r.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)), cmp.Compare(a.object(), b.object()))
	})
	r.Verdict = verdictOf(r.Findings)
	return r, r.write(c.out)
}

// claim decides on each aspect of claim and, in ModeClear, clears those
// safe to clear, one pinned write each.
func (c *Checker) claim(ctx context.Context, claim *v1.PersistentVolumeClaim) []Finding {
	var out []Finding
	for _, a := range claimAspects {
		d, found := a.decide(claim)
		if !found {
			continue
		}
		f := claimFinding(claim, d)
		if d.clear && c.mode == ModeClear {
			claim, f = c.clearClaim(ctx, claim, a, f)
		}
		out = append(out, f)
	}
	return out
}

// each lists every object of a kind in pages (a cluster may hold tens of
// thousands of claims) and hands each to fn.
func each[T any](ctx context.Context, list pager.ListPageFunc, fn func(*T)) error {
	return pager.New(list).EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
		typed, ok := any(obj).(*T)
		if !ok {
			return fmt.Errorf("listed a %T", obj)
		}
		fn(typed)
		return nil
	})
}

func kindOrder(kind string) int {
	return slices.Index([]string{kindClaim, kindVolume, kindClass}, kind)
}
