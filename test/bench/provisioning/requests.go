package provisioning

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

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
		if verb, _ := measure.SplitKey(key); measure.IsWrite(verb) {
			writes += n
		}
	}
	return requests, writes
}

// countPhase counts the requests received within w.
func countPhase(records []framework.AuditEvent, w measure.Window, sidecarUser string) PhaseRequests {
	p := PhaseRequests{Sidecar: map[string]int{}, SidecarErrors: map[string]int{}, Clients: map[string]ClientTotals{}}
	for i := range records {
		r := &records[i]
		if !w.Contains(r.RequestReceived) {
			continue
		}
		client := measure.ClientOf(r, sidecarUser)
		t := p.Clients[client]
		t.Requests++
		if measure.IsWrite(r.Verb) {
			t.Writes++
		}
		p.Clients[client] = t
		if client != measure.ClientSidecar {
			continue
		}
		key := measure.RequestKey(r)
		p.Sidecar[key]++
		if code := measure.StatusCode(r); code < 200 || code > 299 {
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

// RateLimit is a client-go rate limit: a token bucket of Burst tokens
// refilled at QPS per second.
type RateLimit struct {
	QPS   float64
	Burst float64
}

// SidecarLimit reads the sidecar's client rate limit from its flags (the
// last of each wins), with the sidecar's defaults of 5 QPS and 10 burst.
func SidecarLimit(args []string) RateLimit {
	l := RateLimit{QPS: 5, Burst: 10}
	for _, a := range args {
		for flag, into := range map[string]*float64{"--kube-api-qps=": &l.QPS, "--kube-api-burst=": &l.Burst} {
			if v, ok := strings.CutPrefix(a, flag); ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					*into = f
				}
			}
		}
	}
	return l
}

// sidecarRate returns the sidecar's mean requests per second within w, and
// the share of the requests of its main client (the one --kube-api-qps and
// --kube-api-burst limit, told by onMainClient) sent at that limit.
// client-go's token bucket is replayed from the times the API server
// received them, full at the window's start (the sidecar had been idle): a
// request that finds the bucket (nearly) empty waited for the refill, or
// came so close to it that the limit was what paced the client.
func sidecarRate(records []framework.AuditEvent, w measure.Window, sidecarUser string, limit RateLimit, onMainClient func(*framework.AuditEvent) bool) (mean, atLimit float64) {
	var times []time.Time
	all := 0
	for i := range records {
		r := &records[i]
		if !w.Contains(r.RequestReceived) || measure.ClientOf(r, sidecarUser) != measure.ClientSidecar {
			continue
		}
		all++
		if onMainClient(r) {
			times = append(times, r.RequestReceived)
		}
	}
	if all == 0 || !w.To.After(w.From) {
		return 0, 0
	}
	mean = float64(all) / w.To.Sub(w.From).Seconds()
	if len(times) == 0 {
		return mean, 0
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
	return mean, float64(limited) / float64(len(times))
}

// mainClientOf tells which of a variant's requests its main client sent:
// all but leader election's for upstream, which sends events and claim
// writes on that client too; for ours, also not the events and the claim
// updates, which go through its events and protection clients, each with
// a limit of its own. (The provisioning library's own claim updates, which
// do go through the main client, are rare: none in this workload.)
func mainClientOf(v bench.Variant) func(*framework.AuditEvent) bool {
	return func(r *framework.AuditEvent) bool {
		key := measure.RequestKey(r)
		if strings.HasSuffix(key, " leases.coordination.k8s.io") {
			return false
		}
		if v.IsBaseline() {
			return true
		}
		return !strings.HasSuffix(key, " events") && !strings.HasSuffix(key, " events.events.k8s.io") && key != "update persistentvolumeclaims"
	}
}
