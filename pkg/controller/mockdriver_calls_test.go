package controller

import (
	"slices"

	"github.com/go-logr/logr"
)

// endedCall is a call the mock driver finished, as its log reports it.
type endedCall struct {
	Method string
	// Code is the gRPC code of a failed call.
	Code string
}

// callLog passes the mock driver's log on, and reports each failed call
// on ended once the driver has let go of it: the driver logs "Call
// failed" after its handler returned, so after CreateVolume gave up the
// volume name it was working on. Tests wait for that instead of guessing
// how long the driver takes to notice a cancelled call.
type callLog struct {
	logr.LogSink
	values []any
	ended  chan<- endedCall
}

func (l callLog) Info(level int, msg string, kv ...any) {
	l.LogSink.Info(level, msg, kv...)
	if msg != "Call failed" {
		return
	}
	all := append(slices.Clone(l.values), kv...)
	select {
	case l.ended <- endedCall{Method: logValue(all, "method"), Code: logValue(all, "code")}:
	default:
		// Nobody waits for that many: the driver must never block on it.
	}
}

func (l callLog) WithValues(kv ...any) logr.LogSink {
	return callLog{LogSink: l.LogSink.WithValues(kv...), values: append(slices.Clone(l.values), kv...), ended: l.ended}
}

func (l callLog) WithName(name string) logr.LogSink {
	return callLog{LogSink: l.LogSink.WithName(name), values: l.values, ended: l.ended}
}

// logValue is the last string value of key in key/value pairs.
func logValue(kv []any, key string) string {
	value := ""
	for i := 0; i+1 < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok && k == key {
			value, _ = kv[i+1].(string)
		}
	}
	return value
}
