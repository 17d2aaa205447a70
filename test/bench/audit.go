package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// auditRecord is an audit event with the time the API server received the
// request, which framework.AuditEvent leaves out: the benchmark needs it to
// put each request in the phase that caused it.
type auditRecord struct {
	framework.AuditEvent
	Received metav1.MicroTime `json:"requestReceivedTimestamp"`
}

// Who made a request, as the report groups them.
const (
	clientSidecar = "csi-provisioner"
	clientKCM     = "kube-controller-manager"
	clientBench   = "benchmark"
	clientOther   = "other"
)

// readAudit parses the audit log and returns one record per request. A
// watch has a ResponseStarted and (once it ends) a ResponseComplete event;
// the final one is kept, as it carries the final status.
func readAudit(path string) ([]auditRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	index := map[string]int{}
	var out []auditRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var r auditRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			// A line being written while the log is read.
			continue
		}
		if i, ok := index[r.AuditID]; ok {
			if r.Stage != framework.AuditStageResponseStarted {
				out[i] = r
			}
			continue
		}
		index[r.AuditID] = len(out)
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read audit log %s: %w", path, err)
	}
	return out, nil
}

// clientOf names the requester. The sidecar runs as the shipped
// ServiceAccount, which nothing else uses; kube-controller-manager and the
// benchmark both use the admin identity and are told apart by user agent.
func clientOf(r *auditRecord, sidecarUser string) string {
	switch {
	case r.User.Username == sidecarUser:
		return clientSidecar
	case strings.HasPrefix(r.UserAgent, "kube-controller-manager/"):
		return clientKCM
	case strings.HasPrefix(r.UserAgent, benchUserAgent):
		return clientBench
	}
	return clientOther
}

// requestKey is "verb resource", the row of the report's request tables. A
// resource of another group than core carries it kubectl's way
// (leases.coordination.k8s.io); a subresource follows a slash.
func requestKey(r *auditRecord) string {
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

// splitKey is the inverse of requestKey.
func splitKey(key string) (verb, resource string) {
	verb, resource, _ = strings.Cut(key, " ")
	return verb, resource
}

// isWrite tells the verbs that change state from those that read it.
func isWrite(verb string) bool {
	switch verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

func statusCode(r *auditRecord) int {
	if r.ResponseStatus == nil {
		return 0
	}
	return r.ResponseStatus.Code
}

// window is a half-open time range [From, To).
type window struct{ From, To time.Time }

func (w window) contains(t time.Time) bool { return !t.Before(w.From) && t.Before(w.To) }

// PhaseRequests is what the audit log recorded in one phase.
type PhaseRequests struct {
	// Sidecar counts the sidecar's requests by "verb resource".
	Sidecar map[string]int `json:"sidecar"`
	// SidecarErrors counts the sidecar's non-2xx answers by
	// "verb resource code".
	SidecarErrors map[string]int `json:"sidecarErrors,omitempty"`
	// Clients counts all requests and writes per client.
	Clients map[string]ClientTotals `json:"clients"`
	// EventsRecorded counts the events the sidecar recorded (its log),
	// to compare with the "create events" requests that reached the API.
	EventsRecorded int `json:"eventsRecorded"`
	// DriverCalls counts the driver's CreateVolume and DeleteVolume calls
	// (its log), failed ones as "<method> failed".
	DriverCalls map[string]int `json:"driverCalls"`
}

// ClientTotals are one client's requests in a phase.
type ClientTotals struct {
	Requests int `json:"requests"`
	Writes   int `json:"writes"`
}

// SidecarTotals returns the sidecar's requests and writes.
func (p PhaseRequests) SidecarTotals() (requests, writes int) {
	for key, n := range p.Sidecar {
		requests += n
		if verb, _ := splitKey(key); isWrite(verb) {
			writes += n
		}
	}
	return requests, writes
}

// countPhase counts the requests received within w.
func countPhase(records []auditRecord, w window, sidecarUser string) PhaseRequests {
	p := PhaseRequests{Sidecar: map[string]int{}, SidecarErrors: map[string]int{}, Clients: map[string]ClientTotals{}}
	for i := range records {
		r := &records[i]
		if !w.contains(r.Received.Time) {
			continue
		}
		client := clientOf(r, sidecarUser)
		t := p.Clients[client]
		t.Requests++
		if isWrite(r.Verb) {
			t.Writes++
		}
		p.Clients[client] = t
		if client != clientSidecar {
			continue
		}
		key := requestKey(r)
		p.Sidecar[key]++
		if code := statusCode(r); code < 200 || code > 299 {
			p.SidecarErrors[fmt.Sprintf("%s %d", key, code)]++
		}
	}
	return p
}

// nearlyEmpty is the token count below which a replayed bucket counts as
// empty: 40 ms of refill at 200 QPS. The API server receives requests a
// little earlier or later than client-go released them, so a client held at
// exactly its rate shows a bucket that hovers a few tokens around empty,
// not at zero.
const nearlyEmpty = 8

// clientLimit is a client-go rate limit: a token bucket of Burst tokens
// refilled at QPS per second.
type clientLimit struct {
	QPS   float64
	Burst float64
}

// sidecarRate returns the sidecar's mean requests per second within w, and
// the share of its requests sent at its client-side rate limit. client-go's
// token bucket is replayed from the times the API server received the
// requests, full at the window's start (the sidecar had been idle): a
// request that finds the bucket (nearly) empty waited for the refill, or
// came so close to it that the limit was what paced the client.
func sidecarRate(records []auditRecord, w window, sidecarUser string, limit clientLimit) (mean, atLimit float64) {
	var times []time.Time
	for i := range records {
		r := &records[i]
		if w.contains(r.Received.Time) && clientOf(r, sidecarUser) == clientSidecar {
			times = append(times, r.Received.Time)
		}
	}
	if len(times) == 0 || !w.To.After(w.From) {
		return 0, 0
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	tokens, last, limited := limit.Burst, w.From, 0
	for _, t := range times {
		tokens = min(limit.Burst, tokens+limit.QPS*t.Sub(last).Seconds())
		last = t
		if tokens < nearlyEmpty {
			limited++
		}
		tokens = max(0, tokens-1)
	}
	return float64(len(times)) / w.To.Sub(w.From).Seconds(), float64(limited) / float64(len(times))
}
