package measure

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Who made a request, as the reports group them.
const (
	ClientSidecar = "csi-provisioner"
	ClientKCM     = "kube-controller-manager"
	ClientBench   = "benchmark"
	ClientOther   = "other"
)

// BenchUserAgent is how the benchmark's own requests appear in the audit
// log, so they are never counted as the sidecar's.
const BenchUserAgent = "csi-provisioner-bench"

// ScanAudit hands each event of kube-apiserver's audit log to observe, read
// as a stream: the log of a long run is large. A line that does not parse
// (one being written, or cut short by a killed kube-apiserver) is skipped.
func ScanAudit(path string, observe func(*framework.AuditEvent)) error {
	err := ScanLines(path, func(line []byte) {
		var ev framework.AuditEvent
		if json.Unmarshal(line, &ev) == nil {
			observe(&ev)
		}
	})
	if err != nil {
		return fmt.Errorf("read audit log %s: %w", path, err)
	}
	return nil
}

// ReadAudit parses the audit log and returns one event per request. A
// watch has a ResponseStarted and (once it ends) a ResponseComplete event;
// the final one is kept, as it carries the final status.
func ReadAudit(path string) ([]framework.AuditEvent, error) {
	index := map[string]int{}
	var out []framework.AuditEvent
	err := ScanAudit(path, func(ev *framework.AuditEvent) {
		if i, ok := index[ev.AuditID]; ok {
			if ev.Stage != framework.AuditStageResponseStarted {
				out[i] = *ev
			}
			return
		}
		index[ev.AuditID] = len(out)
		out = append(out, *ev)
	})
	return out, err
}

// ClientOf names the requester. The sidecar runs as the shipped
// ServiceAccount, which nothing else uses; kube-controller-manager and the
// benchmark both use the admin identity and are told apart by user agent.
func ClientOf(r *framework.AuditEvent, sidecarUser string) string {
	switch {
	case r.User.Username == sidecarUser:
		return ClientSidecar
	case strings.HasPrefix(r.UserAgent, "kube-controller-manager/"):
		return ClientKCM
	case strings.HasPrefix(r.UserAgent, BenchUserAgent):
		return ClientBench
	}
	return ClientOther
}

// RequestKey is "verb resource", the row of the reports' request tables. A
// resource of another group than core carries it kubectl's way
// (leases.coordination.k8s.io); a subresource follows a slash.
func RequestKey(r *framework.AuditEvent) string {
	if r.ObjectRef == nil {
		path, _, _ := strings.Cut(r.RequestURI, "?")
		return r.Verb + " " + path
	}
	res := r.ObjectRef.Resource
	if r.ObjectRef.APIGroup != "" {
		res += "." + r.ObjectRef.APIGroup
	}
	if r.ObjectRef.Subresource != "" {
		res += "/" + r.ObjectRef.Subresource
	}
	return r.Verb + " " + res
}

// SplitKey is the inverse of RequestKey.
func SplitKey(key string) (verb, resource string) {
	verb, resource, _ = strings.Cut(key, " ")
	return verb, resource
}

// IsWrite tells the verbs that change state from those that read it.
func IsWrite(verb string) bool {
	switch verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// StatusCode is the request's answer, 0 when the event has none.
func StatusCode(r *framework.AuditEvent) int {
	if r.ResponseStatus == nil {
		return 0
	}
	return r.ResponseStatus.Code
}

// Window is a half-open time range [From, To).
type Window struct{ From, To time.Time }

// Contains tells whether t is in the window.
func (w Window) Contains(t time.Time) bool { return !t.Before(w.From) && t.Before(w.To) }
