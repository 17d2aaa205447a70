package soak

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Account is what the run left behind and what it went through.
type Account struct {
	// NotSettled says why the clean-up did not finish ("" if it did).
	NotSettled string `json:"notSettled,omitempty"`
	// Leaked are backend volumes no PV names, once settled.
	Leaked []string `json:"leaked"`
	// PVsLeft and ClaimsLeft remain after the clean-up; every claim was
	// deleted, so each one left is stuck.
	PVsLeft    []string `json:"pvsLeft"`
	ClaimsLeft []string `json:"claimsLeft"`
	// StuckDuringRun were deleted claims still there StuckAfter later.
	StuckDuringRun []string `json:"stuckDuringRun"`
	// Twice are names the backend made more than one volume under.
	Twice []string `json:"twice"`
	// Created and Deleted count the backend's volumes made and removed.
	Created int `json:"created"`
	Deleted int `json:"deleted"`
	// Responses counts kube-apiserver's answers to the sidecars, by code.
	Responses []CodeCount `json:"responses"`
	// WatchExpired counts the sidecars' watches that ended with 410 Gone
	// (the resourceVersion was compacted away) and made them list again.
	WatchExpired int `json:"watchExpired"`
	// OrphanedMax is the orphan audit's highest report during the run.
	OrphanedMax float64 `json:"orphanedMax"`
}

// CodeCount is how often kube-apiserver answered with one code, and to
// which requests most.
type CodeCount struct {
	Code  int    `json:"code"`
	Count int    `json:"count"`
	Top   string `json:"top"`
}

// Clean says the run left nothing behind and made nothing twice.
func (a Account) Clean() bool {
	return a.NotSettled == "" && len(a.Leaked)+len(a.PVsLeft)+len(a.ClaimsLeft)+len(a.StuckDuringRun)+len(a.Twice) == 0
}

func account(ctx context.Context, s *framework.Stack, reps []*replica, res *Result, settleErr error) (Account, error) {
	var a Account
	if settleErr != nil {
		a.NotSettled = settleErr.Error()
	}
	claims, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return a, err
	}
	for _, pvc := range claims.Items {
		a.ClaimsLeft = append(a.ClaimsLeft, fmt.Sprintf("%s (finalizers %v, phase %s)", pvc.Name, pvc.Finalizers, pvc.Status.Phase))
	}
	pvs, err := s.Client().CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return a, err
	}
	handles := map[string]bool{}
	for _, pv := range pvs.Items {
		a.PVsLeft = append(a.PVsLeft, fmt.Sprintf("%s (phase %s)", pv.Name, pv.Status.Phase))
		if pv.Spec.CSI != nil {
			handles[pv.Spec.CSI.VolumeHandle] = true
		}
	}
	st, err := s.DriverState()
	if err != nil {
		return a, err
	}
	for _, v := range st.Volumes {
		if !handles[v.ID] {
			a.Leaked = append(a.Leaked, fmt.Sprintf("%s (%s)", v.Name, v.ID))
		}
	}
	for _, c := range res.Claims {
		if c.StuckAt != 0 {
			a.StuckDuringRun = append(a.StuckDuringRun, fmt.Sprintf("%s (deleted at %s, still there at %s)", c.Name, c.Deleted, c.StuckAt))
		}
	}
	calls, err := framework.ReadDriverCalls(s.Driver().LogFile())
	if err != nil {
		return a, err
	}
	for name, n := range calls.Created {
		a.Created += n
		if n > 1 {
			a.Twice = append(a.Twice, fmt.Sprintf("%s: created %d times", name, n))
		}
	}
	for _, n := range calls.Deleted {
		a.Deleted += n
	}
	for _, smp := range res.Samples {
		if smp.MaxPerName > 1 {
			a.Twice = append(a.Twice, fmt.Sprintf("at %s the backend held %d volumes under one name", smp.At, smp.MaxPerName))
		}
		for _, r := range smp.Replicas {
			a.OrphanedMax = max(a.OrphanedMax, r.Orphaned)
		}
	}
	slices.Sort(a.Twice)
	if a.Responses, err = responsesTo(s.Cluster().AuditLogPath(), s.SidecarUser()); err != nil {
		return a, err
	}
	for _, r := range reps {
		n, err := countWatchExpired(r.proc.LogFile())
		if err != nil {
			return a, err
		}
		a.WatchExpired += n
	}
	return a, nil
}

// responsesTo counts, from kube-apiserver's audit log, its answers to user
// by code, read as a stream: the log of a long run is large.
func responsesTo(auditLog, user string) ([]CodeCount, error) {
	f, err := os.Open(auditLog)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[int]int{}
	requests := map[int]map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var ev framework.AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			// The last line of a killed kube-apiserver may be cut short.
			continue
		}
		if ev.User.Username != user || ev.Stage != framework.AuditStageResponseComplete || ev.ResponseStatus == nil {
			continue
		}
		code := ev.ResponseStatus.Code
		counts[code]++
		if requests[code] == nil {
			requests[code] = map[string]int{}
		}
		what := ev.Verb
		if ev.ObjectRef != nil {
			what += " " + ev.ObjectRef.Resource
			if ev.ObjectRef.Subresource != "" {
				what += "/" + ev.ObjectRef.Subresource
			}
		}
		requests[code][what]++
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var out []CodeCount
	for code, n := range counts {
		out = append(out, CodeCount{Code: code, Count: n, Top: topRequests(requests[code], 3)})
	}
	slices.SortFunc(out, func(a, b CodeCount) int { return a.Code - b.Code })
	return out, nil
}

// topRequests names the n most frequent requests with their counts.
func topRequests(m map[string]int, n int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range keys[:min(n, len(keys))] {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// countWatchExpired counts client-go's "Watch closed" lines for an expired
// resourceVersion in a sidecar's log (all its starts; -v=4 logs them).
func countWatchExpired(logFile string) (int, error) {
	f, err := os.Open(logFile)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "Watch closed") && strings.Contains(line, "too old") {
			n++
		}
	}
	return n, sc.Err()
}
