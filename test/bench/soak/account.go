package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
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
	// Events is how the sidecars' events reached kube-apiserver.
	Events measure.EventWrites `json:"events"`
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

func account(ctx context.Context, o Options, s *framework.Stack, res *Result, settleErr error) (Account, error) {
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
	if err := saveEvents(ctx, s, filepath.Join(o.OutDir, res.Logs.Events)); err != nil {
		return a, err
	}
	err = a.readLogs(o.OutDir, res.Logs)
	return a, err
}

// saveEvents keeps the events kube-apiserver holds at the end of the run,
// as a user would list them, for the report (and a report written again).
// Events live an hour in kube-apiserver: a run of up to about 50 minutes
// finds every event it made.
func saveEvents(ctx context.Context, s *framework.Stack, path string) error {
	list, err := s.Client().CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing events: %w", err)
	}
	data, err := json.Marshal(list.Items)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// RunLogs are the logs of a run the account reads, relative to its
// output folder, so that a report can be written again from them.
type RunLogs struct {
	AuditLog    string   `json:"auditLog"`
	SidecarUser string   `json:"sidecarUser"`
	SidecarLogs []string `json:"sidecarLogs"`
	// Events holds the events listed at the end ("" in reports of runs
	// that did not list them).
	Events string `json:"events,omitempty"`
}

func runLogs(outDir string, s *framework.Stack, reps []*replica) (RunLogs, error) {
	l := RunLogs{SidecarUser: s.SidecarUser(), Events: "events.json"}
	var err error
	if l.AuditLog, err = filepath.Rel(outDir, s.Cluster().AuditLogPath()); err != nil {
		return l, err
	}
	for _, r := range reps {
		rel, err := filepath.Rel(outDir, r.proc.LogFile())
		if err != nil {
			return l, err
		}
		l.SidecarLogs = append(l.SidecarLogs, rel)
	}
	return l, nil
}

// readLogs sets what the account takes from the logs: kube-apiserver's
// answers, the events written and the watches that expired.
func (a *Account) readLogs(outDir string, l RunLogs) error {
	responses := responseTally{user: l.SidecarUser}
	events := measure.NewEventWriteTally(l.SidecarUser)
	if err := scanAudit(filepath.Join(outDir, l.AuditLog), func(ev *framework.AuditEvent) {
		responses.observe(ev)
		events.Observe(ev)
	}); err != nil {
		return err
	}
	a.Responses, a.Events, a.WatchExpired = responses.result(), events.Result(), 0
	distinct := map[measure.DistinctEvent]bool{}
	for _, log := range l.SidecarLogs {
		err := measure.ScanLines(filepath.Join(outDir, log), func(line []byte) {
			if isWatchExpired(line) {
				a.WatchExpired++
			}
			if e, ok := measure.ParseRecordedEvent(line); ok {
				a.Events.Recorded++
				distinct[e] = true
			} else if measure.RecordsEvent(line) {
				a.Events.Recorded++
			}
		})
		if err != nil {
			return err
		}
	}
	if l.Events == "" {
		return nil
	}
	written, err := readEvents(filepath.Join(outDir, l.Events))
	if err != nil {
		return err
	}
	a.Events.Distinct = len(distinct)
	for e := range distinct {
		if written.Holds(e) {
			a.Events.DistinctWritten++
		}
	}
	return nil
}

func readEvents(path string) (measure.WrittenEvents, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return measure.WrittenEvents{}, err
	}
	var events []corev1.Event
	if err := json.Unmarshal(data, &events); err != nil {
		return measure.WrittenEvents{}, fmt.Errorf("%s: %w", path, err)
	}
	return measure.NewWrittenEvents(events), nil
}

// scanAudit hands each ResponseComplete event of kube-apiserver's audit
// log to observe: a request counts once, when it has its answer.
func scanAudit(auditLog string, observe func(*framework.AuditEvent)) error {
	return measure.ScanAudit(auditLog, func(ev *framework.AuditEvent) {
		if ev.Stage == framework.AuditStageResponseComplete {
			observe(ev)
		}
	})
}

// responseTally counts kube-apiserver's answers to user by code, with the
// requests answered.
type responseTally struct {
	user     string
	counts   map[int]int
	requests map[int]map[string]int
}

func (t *responseTally) observe(ev *framework.AuditEvent) {
	if ev.User.Username != t.user || ev.ResponseStatus == nil {
		return
	}
	if t.counts == nil {
		t.counts, t.requests = map[int]int{}, map[int]map[string]int{}
	}
	code := ev.ResponseStatus.Code
	t.counts[code]++
	if t.requests[code] == nil {
		t.requests[code] = map[string]int{}
	}
	what := ev.Verb
	if ev.ObjectRef != nil {
		what += " " + ev.ObjectRef.Resource
		if ev.ObjectRef.Subresource != "" {
			what += "/" + ev.ObjectRef.Subresource
		}
	}
	t.requests[code][what]++
}

func (t *responseTally) result() []CodeCount {
	var out []CodeCount
	for code, n := range t.counts {
		out = append(out, CodeCount{Code: code, Count: n, Top: topRequests(t.requests[code], 3)})
	}
	slices.SortFunc(out, func(a, b CodeCount) int { return a.Code - b.Code })
	return out
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

// isWatchExpired picks client-go's "Watch closed" line for an expired
// resourceVersion (-v=4 logs it).
func isWatchExpired(line []byte) bool {
	return bytes.Contains(line, []byte("Watch closed")) && bytes.Contains(line, []byte("too old"))
}
