// Package adaptive bounds the CreateVolume and DeleteVolume calls a sidecar
// has in flight by what the driver's backend takes (--adaptive-concurrency):
// a backend that throttles its API answers ResourceExhausted or Unavailable,
// and more calls at once only make more of them fail. The bound falls by
// half on such an answer (once per round of calls) and grows back by about
// one per round of successes: additive increase, multiplicative decrease,
// never below 1 nor above the workers that could call. The same answer
// paces the starts too, since quick calls go past a quota of calls a second
// one at a time as well.
package adaptive
