package mockdriver

import (
	"errors"
	"fmt"
	"math"
	"time"

	"golang.org/x/time/rate"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// APIRateLimit makes the backend answer like a cloud API that throttles
// (DigitalOcean's 429, AWS's RequestLimitExceeded): past Limit calls a
// second, with bursts of Burst, a CreateVolume, DeleteVolume,
// CreateSnapshot or DeleteSnapshot fails at once with Code, without
// running or counting towards Faults.ExitAfterCalls. Calls are counted
// against one token bucket, as a backend's API quota counts every caller.
type APIRateLimit struct {
	// Limit is the sustained calls per second; 0 is no limit.
	Limit float64
	// Burst is how many calls may come at once; 0 means max(1, Limit).
	Burst int
	// Code defaults to ResourceExhausted, what throttling maps to in CSI.
	Code codes.Code
	// Now is the clock the bucket fills by; tests set it.
	Now func() time.Time
}

func (l APIRateLimit) withDefaults() (APIRateLimit, error) {
	if math.IsNaN(l.Limit) || math.IsInf(l.Limit, 0) || l.Limit < 0 {
		return l, fmt.Errorf("invalid API rate limit %v: must be 0 or more calls a second", l.Limit)
	}
	if l.Burst < 0 {
		return l, errors.New("invalid API rate burst: must not be negative")
	}
	if l.Burst == 0 {
		l.Burst = max(1, int(math.Ceil(l.Limit)))
	}
	if l.Code == codes.OK {
		l.Code = codes.ResourceExhausted
	}
	if l.Now == nil {
		l.Now = time.Now
	}
	return l, nil
}

// apiQuota is the token bucket of an APIRateLimit; nil lets every call in.
type apiQuota struct {
	limit   APIRateLimit
	limiter *rate.Limiter
}

func newAPIQuota(l APIRateLimit) *apiQuota {
	if l.Limit == 0 {
		return nil
	}
	return &apiQuota{limit: l, limiter: rate.NewLimiter(rate.Limit(l.Limit), l.Burst)}
}

// admit takes a token, or returns the throttling error.
func (q *apiQuota) admit() error {
	if q == nil || q.limiter.AllowN(q.limit.Now(), 1) {
		return nil
	}
	return status.Errorf(q.limit.Code, "backend API rate limit exceeded: at most %v calls a second", q.limit.Limit)
}
