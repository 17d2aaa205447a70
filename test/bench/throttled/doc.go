// Package throttled measures provisioning against a backend that
// rate-limits its API, as cloud APIs do: the mock driver refuses storage
// calls past a token bucket with ResourceExhausted. Each run, on a fresh
// stack, creates a batch of claims at once and measures the time until all
// are Bound and how many CreateVolume calls the backend refused on the way,
// then deletes them and measures the same for the PVs and DeleteVolume. It
// compares the sidecar with the ProvisioningProtection gate on, the same
// with --adaptive-concurrency, and an upstream release, all at their
// default retry settings: how a sidecar retries is what is compared.
package throttled
