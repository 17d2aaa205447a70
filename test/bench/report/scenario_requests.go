package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
)

// kind is how the request tables class a verb.
func kind(verb string) string {
	if measure.IsWrite(verb) {
		return "write"
	}
	return "read"
}

// writeRequests is the table of the sidecar's requests per volume in a
// phase, by verb and resource, each variant side by side.
func (r scenario) writeRequests(b *strings.Builder, name string, phase func(*provisioning.RunResult) provisioning.PhaseRequests) {
	fmt.Fprintf(b, "## Sidecar requests per volume, %s\n\n", name)
	header := []string{"kind", "verb", "resource"}
	for _, v := range r.Variants {
		header = append(header, v.Variant.Name)
	}
	a, c := r.Pair()
	if a != nil {
		header = append(header, fmt.Sprintf("difference (%s − %s)", a.Variant.Name, c.Variant.Name))
	}
	t := &bench.Table{Header: header, Right: bench.RightFrom(3, len(header))}
	row := func(k, verb, res string, value func(*provisioning.RunResult) float64) {
		cells := []string{k, verb, res}
		for _, v := range r.Variants {
			cells = append(cells, bench.FmtSpread(v.Spread(value), 2, ""))
		}
		if a != nil {
			cells = append(cells, bench.FmtDiff(measure.ZeroIfNaN(a.Spread(value).Median)-measure.ZeroIfNaN(c.Spread(value).Median), 2))
		}
		t.Add(cells...)
	}
	for _, key := range r.RequestKeys(phase) {
		verb, res := measure.SplitKey(key)
		row(kind(verb), verb, "`"+res+"`", func(x *provisioning.RunResult) float64 { return x.PerVolume(phase(x).Sidecar[key]) })
	}
	row("**all writes**", "", "", func(x *provisioning.RunResult) float64 { _, w := phase(x).SidecarTotals(); return x.PerVolume(w) })
	row("**all reads**", "", "", func(x *provisioning.RunResult) float64 { n, w := phase(x).SidecarTotals(); return x.PerVolume(n - w) })
	row("**all**", "", "", func(x *provisioning.RunResult) float64 { n, _ := phase(x).SidecarTotals(); return x.PerVolume(n) })
	t.Write(b)

	// The other clients, for scale: the sidecar is one of three writers.
	fmt.Fprintf(b, "Other clients in the same phase, requests (writes) per volume: ")
	var parts []string
	for _, client := range []string{measure.ClientKCM, measure.ClientBench} {
		var cells []string
		for _, v := range r.Variants {
			all := v.Spread(func(x *provisioning.RunResult) float64 { return x.PerVolume(phase(x).Clients[client].Requests) })
			w := v.Spread(func(x *provisioning.RunResult) float64 { return x.PerVolume(phase(x).Clients[client].Writes) })
			cells = append(cells, fmt.Sprintf("%.2f (%.2f) %s", all.Median, w.Median, v.Variant.Name))
		}
		parts = append(parts, client+" "+strings.Join(cells, ", "))
	}
	b.WriteString(strings.Join(parts, "; ") + ".\n\n")
}

// writeExtraWrites puts the sidecar's writes per volume of both variants
// side by side, each with what makes it, and says where provisioning
// protection's own writes come from.
func (r scenario) writeExtraWrites(b *strings.Builder) {
	a, c := r.Pair()
	if a == nil {
		return
	}
	b.WriteString("## Extra writes\n\n")
	base := r.Baseline()
	t := &bench.Table{
		Header: []string{"phase", "verb", "resource", a.Variant.Name, c.Variant.Name, "difference"},
		Right:  []bool{false, false, false, true, true, true},
	}
	if base != nil {
		t.Header = append(t.Header, base.Variant.Name)
		t.Right = append(t.Right, true)
	}
	t.Header = append(t.Header, "made by")
	t.Right = append(t.Right, false)
	for _, ph := range r.MeasuredPhases() {
		for _, key := range r.RequestKeys(ph.Get) {
			verb, res := measure.SplitKey(key)
			if !measure.IsWrite(verb) {
				continue
			}
			sa, sc := a.RequestsPerVolume(ph.Get, key), c.RequestsPerVolume(ph.Get, key)
			cells := []string{ph.Name, verb, "`" + res + "`", bench.FmtSpread(sa, 2, ""), bench.FmtSpread(sc, 2, ""),
				bench.FmtDiff(measure.ZeroIfNaN(sa.Median)-measure.ZeroIfNaN(sc.Median), 2)}
			if base != nil {
				cells = append(cells, bench.FmtSpread(base.RequestsPerVolume(ph.Get, key), 2, ""))
			}
			t.Add(append(cells, writeSources[key])...)
		}
	}
	t.Write(b)
	b.WriteString(extraWritesExplained)
}

// writeSources says which part of the sidecar makes each write.
var writeSources = map[string]string{
	finalizerWrites:            "provisioning protection: finalizer on before `CreateVolume`, off once the PV exists (and the provisioning library's claim annotations when it reschedules)",
	"create persistentvolumes": "the PV of the new volume",
	"create events":            "Provisioning and ProvisioningSucceeded events; fewer when client-go drops them (see below)",
	"delete persistentvolumes": "the provisioning library deleting the PV; more than once when its deletion runs twice (see [Errors](#errors))",
	"patch persistentvolumes":  "the library removing its PV finalizer (`HonorPVReclaimPolicy`)",
}

// extraWritesExplained says where provisioning protection's writes come
// from in the sidecar, for the table above.
const extraWritesExplained = "Provisioning protection's own writes are the two `update persistentvolumeclaims` per volume (update, not patch: upstream's ClusterRole grants no patch on claims). " +
	"The first puts the `provisioner.storage.kubernetes.io/provisioning-protection` finalizer on the claim before the first `CreateVolume` (`protectClaim`, pkg/controller/provisioning_protection.go); `CreateVolume` waits for it, so it is on every claim's critical path. " +
	"The second removes the finalizer once the claim's PV exists (the claim protection controller's `sync`, pkg/claimprotection/sync.go), off the critical path. " +
	"Both are pinned to the resourceVersion of the claim in the sidecar's cache: neither needs a read first when the cache is current, and a concurrent change of the claim makes them fail with 409 Conflict, after which the addition reads the claim once and the removal decides again (see [Errors](#errors)). " +
	"Deleting a Bound claim needs no finalizer write, since the finalizer left when the PV appeared. " +
	"Every other difference is not a write of the gate: `create events` differs because client-go's event broadcaster drops the events that overflow its queue of 1,000 (one goroutine sends them one at a time, so it falls behind when the API server is slow or the client throttled; both configurations record Provisioning and ProvisioningSucceeded for every claim), and `delete persistentvolumes` because how often the library's deletion runs twice is a race that varies from run to run.\n\n"

// writeErrors lists the sidecar's non-2xx answers.
func (r scenario) writeErrors(b *strings.Builder) {
	b.WriteString("## Errors\n\n")
	type key struct{ phase, req string }
	counts := map[key][]int{}
	var keys []key
	for vi, v := range r.Variants {
		for _, run := range v.Runs {
			for _, ph := range []provisioning.Phase{provisioning.Provisioning, provisioning.Deletion} {
				for req, n := range ph.Get(run).SidecarErrors {
					k := key{ph.Name, req}
					if counts[k] == nil {
						counts[k] = make([]int, len(r.Variants))
						keys = append(keys, k)
					}
					counts[k][vi] += n
				}
			}
		}
	}
	if len(keys) == 0 {
		b.WriteString("The sidecar got no non-2xx answer.\n\n")
	} else {
		slices.SortFunc(keys, func(x, y key) int {
			return strings.Compare(x.phase+x.req, y.phase+y.req)
		})
		header := []string{"phase", "request", "code"}
		for _, v := range r.Variants {
			header = append(header, fmt.Sprintf("%s (sum of %d runs)", v.Variant.Name, len(v.Runs)))
		}
		t := &bench.Table{Header: header, Right: bench.RightFrom(2, len(header))}
		for _, k := range keys {
			i := strings.LastIndexByte(k.req, ' ')
			cells := []string{k.phase, "`" + k.req[:i] + "`", k.req[i+1:]}
			for _, n := range counts[k] {
				cells = append(cells, fmt.Sprint(n))
			}
			t.Add(cells...)
		}
		t.Write(b)
		b.WriteString("A 404 on `delete persistentvolumes` is the provisioning library's delete sequence, not provisioning protection: after `DeleteVolume` it DELETEs the PV, whose finalizers keep it, then patches its own finalizer off; the update the DELETE caused requeues the PV meanwhile, and the library runs the deletion again (another idempotent `DeleteVolume`, another DELETE), which finds the PV gone when kube-controller-manager's PV protection was quicker. That is also why deletion shows more than one `delete persistentvolumes` per volume, with the gate on and off alike.\n\n")
	}
	var problems []string
	for _, v := range r.Variants {
		for _, run := range v.Runs {
			for _, p := range run.Problems {
				problems = append(problems, fmt.Sprintf("- %s, run %d: %s", v.Variant.Name, run.Run, p))
			}
		}
	}
	if len(problems) > 0 {
		b.WriteString("Runs with problems:\n\n" + strings.Join(problems, "\n") + "\n\n")
	}
}
